"""The run's state.json: lenient reads, locked transactions, strict validated atomic writes.

Invariants: state.json is only ever replaced whole (``fsutil.atomic_write``) inside the run's lock, after
validating against state_schema.json, so a process killed at any moment leaves the old file or the new one;
a write that fails (full disk, file-size limit, read-only) is :class:`~autopilot.errors.Unwritable` (exit 1)
and keeps the old file. Temp files of a killed writer of state.json are swept by the next write (the lock
proves their writer is dead); others in the run directory by the next paid call once stale. No paid call
starts unless the run directory takes a write as large as the run's files may grow (:meth:`Store.check_writable`).
events.jsonl gets one whole line per model call; a line torn by a failed write never swallows the next.

Every read of a run's state.json is made here: :class:`Store` for a run's own workspace, :meth:`Store.peek` for
a cheap look at the file as stored (the status line, the memory, the cost report), :func:`read_run` for a listing.
The status line imports this module on every render with a run, so its top imports only ``os`` and modules as
light; json, pathlib and contextlib load in the functions that need them.
"""

from __future__ import annotations

import os

from autopilot.clock import now_us, stamp
from autopilot.errors import BridgeError, CallBusy, RunChanged, StateError, Unwritable
from autopilot.fsutil import atomic_write, held, sweep_stale
from autopilot.loop import status
from autopilot.loop.migrations import CURRENT_VERSION, PHASES, empty_usage, migrate
from autopilot.loop.migrations import State as State  # re-exported: the run's state (loop/shapes.RunState)

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the hot path
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from autopilot.fsutil import Lock
    from autopilot.loop.shapes import CorruptRun, ListedRun

    Stored = dict[str, Any]  # a state.json as its file holds it: neither migrated nor checked, read field by field

# The run's two lanes of Codex calls (each a lock file held for a call): reviews in one, plans and verdicts in the
# other, so a verdict never waits behind a review in flight (``Workspace.consult`` decides when they may overlap).
CALL_LANE = "call.lock"
REVIEW_LANE = "review-call.lock"
PROBE_BYTES = 4096  # written and synced before a paid call: a full disk or a read-only directory says so here
PROBE_HEADROOM = 1 << 20  # what one call may add to a run file (state.json, an artifact, events.jsonl), and more
SCHEMA_PATH = os.path.join(os.path.dirname(__file__), "state_schema.json")


def new_state(workspace: str | None) -> State:
    """A fresh idle state for a workspace, at the current schema version."""
    state, _ = migrate(
        {
            "workspace": workspace,
            "status": status.IDLE,
            "iteration": 0,
            "no_progress_streak": 0,
            "token_usage": {p: empty_usage() for p in PHASES},
        }
    )
    return state


def problem(state: Mapping[str, object]) -> str | None:
    """What breaks state_schema.json in ``state`` (the first error, with its path), or None.

    A valid state is checked without importing jsonschema (:mod:`.schema_subset`); an invalid one gets
    jsonschema's own words.
    """
    from autopilot.loop import schema_subset

    odd = _non_finite(state)
    if odd is not None:
        return f"{odd or '(top level)'}: NaN and infinities are not numbers a run can use"
    return schema_subset.load(SCHEMA_PATH).first_error(state)


def _non_finite(value: Any, where: str = "") -> str | None:
    """The path of the first NaN or infinity in ``value`` (JSON Schema's minimum/maximum let NaN through)."""
    import math

    if isinstance(value, float) and not math.isfinite(value):
        return where
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        found = _non_finite(inner, f"{where}/{key}" if where else str(key))
        if found is not None:
            return found
    return None


def validate(state: State) -> None:
    """Raise StateError when ``state`` breaks state_schema.json (checked before every write)."""
    found = problem(state)
    if found:
        raise StateError(
            f"refusing to write an invalid state.json: {found}",
            hint="this is a bug in codex-autopilot; please report it with crash.log",
        )


class Store:
    """The state.json of one workspace's run directory."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        from autopilot import paths

        self.workspace = os.path.realpath(os.fspath(workspace))
        self.dir = paths.run_dir(self.workspace)
        self.path = self.dir / "state.json"
        self.lock_path = self.dir / "state.json.lock"
        # The digest of the bytes this bridge last validated and wrote: a file that still matches it
        # is known valid, so the hot path never imports jsonschema to check its own writes.
        self.valid_path = self.dir / "state.json.valid"

    def exists(self) -> bool:
        """Whether this workspace has ever had a run."""
        return self.path.exists()

    @staticmethod
    def holds_run(run_dir: str) -> bool:
        """Whether the run directory ``run_dir`` holds a state.json (a run), without reading it."""
        return os.path.isfile(os.path.join(run_dir, "state.json"))

    @staticmethod
    def peek(run_dir: str) -> Stored | None:
        """The state.json in ``run_dir`` as stored (neither migrated nor checked, never written), or None when it is
        missing or not a JSON object: a cheap read-only look, without the json package, for readers that only
        show or count what a run holds (the status line, the memory, the cost report, the reviewer's threads)."""
        from autopilot.fastjson import parse_json_line

        try:
            with open(os.path.join(run_dir, "state.json"), "rb") as fh:
                state = parse_json_line(fh.read())
        except (OSError, ValueError, RecursionError):
            return None
        return state if isinstance(state, dict) else None

    @staticmethod
    def peek_workspace(workspace: str) -> Stored | None:
        """:meth:`peek` at the run directory of ``workspace`` (the memory's look at the run of its worktree)."""
        from autopilot import paths

        return Store.peek(str(paths.run_dir(workspace)))

    def _parse(self) -> Stored | None:
        try:
            raw = self.path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise BridgeError(
                f"cannot read {self.path} ({exc.strerror or exc})",
                hint="check the permissions of $AUTOPILOT_HOME and the disk it is on",
            ) from None
        import json

        try:
            data = json.loads(raw)
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise _Corrupt("it is not a JSON object")
        if data.get("schema_version") == CURRENT_VERSION and not self._known_valid(raw):
            found = problem(data)
            if found:
                raise _Corrupt(f"it breaks state_schema.json at {found}")
        return data

    def _known_valid(self, raw: bytes) -> bool:
        from autopilot.digest import sha256_hex

        try:
            return self.valid_path.read_text(encoding="ascii").strip() == sha256_hex(raw)
        except (OSError, UnicodeDecodeError):
            return False

    def load(self, *, repair: bool = True) -> State:
        """The current state, or a fresh idle one when there is no run; an older file is migrated and saved once.

        A state.json that cannot be used is moved aside (``repair``) or only reported (``repair=False``,
        for commands that promise to change nothing); both raise StateError (exit 5) saying what is wrong.
        """
        try:
            data = self._parse()
        except _Corrupt as exc:
            if not repair:
                raise StateError(
                    f"{self.path} cannot be used: {exc}",
                    hint="it was left as it is; `codex-bridge stop` or a new plan moves it aside",
                ) from None
            with self.lock():
                self._move_aside_if_corrupt()
            data = None
        if data is None:
            return new_state(self.workspace)
        if data.get("schema_version") != CURRENT_VERSION:
            self._upgrade(dict(data))  # refuses a newer file before anything is written
            with self.transaction() as state:  # saves the migration, so hooks stop redoing it
                return state.copy()
        return self._upgrade(data)

    def _upgrade(self, data: Stored) -> State:
        version = data.get("schema_version", 0)
        if not isinstance(version, int) or version > CURRENT_VERSION:
            raise StateError(
                f"{self.path} was written by a newer codex-autopilot (schema {version}, this one reads "
                f"up to {CURRENT_VERSION})",
                hint="upgrade the plugin: pip install -U codex-autopilot",
            )
        state, ran = migrate(data)
        if ran:
            validate(state)
        if not state.get("workspace"):
            state["workspace"] = self.workspace
        return state

    def _move_aside_if_corrupt(self) -> None:
        try:
            self._parse()
        except _Corrupt as exc:
            aside = self.path.with_name(f"state.json.corrupt-{stamp()}")
            os.replace(self.path, aside)
            raise StateError(
                f"state.json could not be used ({exc}) and was moved aside to {aside}",
                hint="nothing was overwritten; start a new run with `codex-bridge plan --goal ...`",
            ) from None

    def lock(self) -> Lock:
        """Hold this run's lock (a separate .lock file) for the duration of a ``with`` block."""
        self.dir.mkdir(parents=True, exist_ok=True)
        return held(self.lock_path)

    def transaction(self, *, expect: State | None = None, running: bool = False) -> AbstractContextManager[State]:
        """Read-modify-write under the lock; the state is validated and written atomically on success.

        ``expect`` is the run as the caller read it: when state.json holds another run by now (it was re-planned),
        or, with ``running``, that run is no longer running, :class:`~autopilot.errors.RunChanged` is raised
        and nothing is written. This is the one place that asks "is this still the same run?".
        """
        from contextlib import contextmanager  # not at the top: the status line imports this module, not contextlib

        return contextmanager(self._transaction)(expect, running)

    def _transaction(self, expect: State | None, running: bool) -> Iterator[State]:
        import json

        with self.lock():
            try:
                data = self._parse()
            except _Corrupt:
                self._move_aside_if_corrupt()
                data = None
            # Read the version before _upgrade migrates ``data`` in place: an old file is written back
            # once, so later readers stop migrating (and re-deriving env defaults) on every load.
            stored_version = data.get("schema_version") if data is not None else None
            state = new_state(self.workspace) if data is None else self._upgrade(data)
            if expect is not None:
                _check_same(state, expect, running)
            before = json.dumps(state, sort_keys=True)
            yield state
            if json.dumps(state, sort_keys=True) == before and stored_version == CURRENT_VERSION:
                return
            state["schema_version"] = CURRENT_VERSION
            state["updated_at"] = now_us()
            if not state.get("created_at"):
                state["created_at"] = state["updated_at"]
            validate(state)
            self._write(json.dumps(state, indent=2, sort_keys=True) + "\n")

    def _write(self, text: str) -> None:
        """Write a validated state and remember its digest (best effort: a missing one only costs a check)."""
        from contextlib import suppress

        from autopilot.digest import sha256_hex

        data = text.encode("utf-8")
        # Under the lock no other writer of state.json (or its digest) is alive: their temp files are a killed
        # process's, whatever their age.
        sweep_stale(self.dir, (f".{self.path.name}.",), suffix=".tmp", older_than=0)
        with suppress(OSError):
            self.valid_path.unlink()  # never vouch for the old bytes while the new ones land
        try:
            atomic_write(self.path, data)
        except OSError as exc:
            raise Unwritable(self.path, exc, kept="the old state.json is unchanged") from None
        with suppress(OSError):
            atomic_write(self.valid_path, sha256_hex(data) + "\n", durable=False)

    def call_slot(self, phase: str, deadline: float) -> Lock:
        """Hold ``phase``'s lane for a ``with`` block: one review at a time (REVIEW_LANE), one plan or verdict at a time
        (CALL_LANE); waits until ``deadline`` (monotonic), then raises CallBusy. Whether a call of one lane may run
        beside a call of the other is ``Workspace.consult``'s question (:meth:`other_lane`)."""
        import time

        self.dir.mkdir(parents=True, exist_ok=True)
        return held(self.dir / _lane(phase), max(0.0, deadline - time.monotonic()), busy=call_busy(phase))

    def other_lane(self, phase: str) -> Lock:
        """The lock of the lane ``phase`` does not run in (not taken: the caller tries it)."""
        from autopilot.fsutil import Lock

        return Lock(self.dir / (CALL_LANE if _lane(phase) == REVIEW_LANE else REVIEW_LANE), busy=call_busy(phase))

    def check_writable(self) -> None:
        """Refuse (Unwritable, exit 1) before a paid call when the run directory cannot take what the call will
        write: read-only, full, or a file-size limit (RLIMIT_FSIZE, the filesystem's) under what its files reach.
        """
        from contextlib import suppress

        sweep_stale(self.dir, (".",), suffix=".tmp")  # temp files of writes a killed process never finished
        sweep_stale(self.dir, (".write-probe-",))
        probe = self.dir / f".write-probe-{os.getpid()}"
        # The largest file the call grows, plus room for one call's growth: stretching the probe that far
        # (sparse: no blocks, no time) meets a size limit now, not after Codex has been paid.
        reach = max(_size(self.path), _size(self.dir / "events.jsonl")) + PROBE_HEADROOM
        try:
            atomic_write(probe, b"\0" * PROBE_BYTES)  # a few blocks, synced: a full disk says so here
            os.truncate(probe, reach)
        except OSError as exc:
            raise Unwritable(self.dir, exc, kept="no call was made, so nothing was spent") from None
        finally:
            with suppress(OSError):
                probe.unlink()

    def artifact(self, kind: str, payload: Any) -> Path:
        """Write ``<kind>-<ts>.json`` (plan, review, verdict) into the run directory and return its path."""
        import json

        path = self.dir / f"{kind}-{stamp()}.json"
        try:
            atomic_write(path, json.dumps(payload, indent=2, sort_keys=True) + "\n")
        except OSError as exc:
            raise Unwritable(path, exc, kept="the old state.json is unchanged") from None
        return path

    def artifact_in_call(self, kind: str, payload: Any) -> Path | None:
        """:meth:`artifact` for a paid call's record, inside its transaction: a refused write is said, not raised,
        so the call's charge and counts still reach state.json (None: no artifact file)."""
        try:
            return self.artifact(kind, payload)
        except Unwritable as exc:
            from autopilot.output import say

            say(f"the {kind} was charged and recorded in state.json, but its file was not written: {exc}")
            return None

    def append_event(self, event: dict[str, Any]) -> None:
        """Append one line to events.jsonl (one line per model call), starting a new line if a failed write
        left a torn one at the end (it stays one unreadable line, counted by readers; this one is whole)."""
        import json

        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / "events.jsonl"
        line = (json.dumps({"ts": now_us(), **event}, sort_keys=True) + "\n").encode("utf-8")
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                end = os.fstat(fd).st_size
                if end and os.pread(fd, 1, end - 1) != b"\n":
                    line = b"\n" + line
                view = memoryview(line)
                while view:  # a short write (a size limit reached part-way) ends in the error of the next
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        except OSError as exc:
            raise Unwritable(path, exc) from None


def _lane(phase: str) -> str:
    return REVIEW_LANE if phase == "review" else CALL_LANE


def call_busy(phase: str) -> CallBusy:
    """What a call that found its lane (or, near the budget's cap, the other one) busy until its deadline raises."""
    return CallBusy(
        f"another call of this run was still talking to Codex; no {phase} call was made",
        hint="try again when it finishes (`codex-bridge status`); this does not count toward pausing the run",
    )


def same_run(a: State, b: State) -> bool:
    """Whether two readings of state.json are the same run (a new plan gives a run a new id)."""
    return a.get("run_id") == b.get("run_id")


def _check_same(now: State, expect: State, running: bool) -> None:
    """Raise RunChanged when ``now`` is not the run ``expect`` (or, with ``running``, no longer running)."""
    if not same_run(now, expect):
        raise RunChanged("the autopilot run was re-planned meanwhile; nothing was changed", now=now, replaced=True)
    if running and now.get("status") != status.RUNNING:
        raise RunChanged(f"the autopilot run is {now.get('status')} now; nothing was changed", now=now, replaced=False)


def _size(path: Path) -> int:
    """The size of ``path`` in bytes, 0 when it is not there."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


class _Corrupt(Exception):
    """state.json is there but cannot be used; the message says why."""


def all_runs() -> list[ListedRun | CorruptRun]:
    """Every run under ``$AUTOPILOT_HOME/runs``, each with its ``run_dir``."""
    from autopilot import paths

    root = paths.autopilot_home() / "runs"
    if not root.is_dir():
        return []
    found = (read_run(entry) for entry in sorted(root.iterdir()))
    return [run for run in found if run is not None]


def read_run(entry: Path) -> ListedRun | CorruptRun | None:
    """The run in directory ``entry`` (migrated in memory, never written), or None when it has no state.json.

    A state.json that cannot be read comes back as ``{"status": "corrupt", "error": ...}``.
    """
    import json

    path = entry / "state.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_bytes())
        if not isinstance(data, dict):
            raise ValueError("not an object")
        state, _ = migrate(data)
    except (ValueError, TypeError) as exc:
        return {"status": "corrupt", "error": str(exc), "run_dir": str(entry)}
    return {**state, "run_dir": str(entry)}
