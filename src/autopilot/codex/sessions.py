"""Codex's saved sessions: the root rollout a handoff means, found without a model call.

Rollouts live under ``$CODEX_HOME/sessions/YYYY/MM/DD/`` and, once archived, flat in
``$CODEX_HOME/archived_sessions/``; line 1 is ``session_meta``. Child threads (subagents) say so
with ``agent_path``, ``thread_source: "subagent"`` or a ``source.subagent`` object; user forks carry
only ``forked_from_id`` and stay eligible. An empty or corrupt rollout is never a root session.

This module is the one place rollouts are found (:func:`rollout_files`, :func:`find_rollout`,
:func:`newest_root_session`) and, through :mod:`.subagent`, the one place a thread is judged a
subagent (:func:`child_marker`): the codex-cli backend, the Codex transcript reader, the session
sources and ``copy`` all use it. Its stand-alone twin is ``codex/assets/handoff/scripts/handoff_hook.py``
(stdlib only, run by Codex); a parity test runs both on the same rollouts. Rollouts end in ``.jsonl``, or ``.jsonl.zst``
once Codex compressed an old one.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
from pathlib import Path

from autopilot import paths
from autopilot.codex.subagent import child_marker as child_marker  # re-exported: its callers ask here
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write

TYPE_CHECKING = False  # typing and dataclasses (~10 ms with the inspect module it loads) stay off a Codex page
if TYPE_CHECKING:  # that meets another thread and looks for its rollout (find_rollout)
    from collections.abc import Collection, Iterator
    from typing import Any, BinaryIO

    from autopilot.codex.shapes import HandoffPointer

FIRST_LINE_WAIT = 2.0  # Codex may name a rollout in the hook input just before it flushes line 1
META_LIMIT = 8 << 20  # session_meta carries the base instructions (tens of kB)
POINTER = "codex-latest.json"
SINCE_SLACK = 1.0  # seconds: file times can trail the clock a caller read ``since`` from
SUFFIXES = (".jsonl", ".jsonl.zst")  # Codex compresses rollouts older than about a week
THREAD_ID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


class Rollout:
    """One rollout file and what its first line says (immutable; equal when every field is)."""

    __slots__ = ("path", "kind", "thread_id", "cwd", "mtime", "forked_from", "why")
    path: Path
    kind: str  # root | child | empty | corrupt
    thread_id: str | None
    cwd: str | None
    mtime: float
    forked_from: str | None
    why: str

    def __init__(
        self,
        path: Path,
        kind: str,
        thread_id: str | None = None,
        cwd: str | None = None,
        mtime: float = 0.0,
        forked_from: str | None = None,
        why: str = "",
    ) -> None:
        for name, value in zip(self.__slots__, (path, kind, thread_id, cwd, mtime, forked_from, why), strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Rollout is immutable: cannot set {name}")

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Rollout and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Rollout(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__) + ")"


def place(path: str) -> str:
    """The git top level holding ``path``, else the path itself (both resolved): where work happens."""
    path = os.path.realpath(path)
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent


def scan_roots() -> list[Path]:
    """The directories Codex keeps rollouts in: its sessions (``codex_sessions_dir``) and archived sessions."""
    from autopilot.config import reader_dir  # config loads shutil (bz2, lzma): a rollout read by path needs none

    return [reader_dir("codex_sessions_dir")[0], paths.codex_home() / "archived_sessions"]


def scan() -> list[tuple[Path, float]]:
    """Every plain ``rollout-*.jsonl`` under the session roots, recursively, newest first, with its mtime."""
    found = [item for root in scan_roots() for item in _walk(root) if item[0].name.endswith(".jsonl")]
    found.sort(key=lambda item: item[1], reverse=True)
    return found


def rollout_files() -> list[Path]:
    """Every rollout file under the session roots, live and archived, plain and compressed, sorted by path."""
    return sorted(path for root in scan_roots() for path, _ in _walk(root))


def _walk(root: Path) -> list[tuple[Path, float]]:
    """The rollout files (``.jsonl`` and ``.jsonl.zst``) under ``root``, recursively, with their mtimes."""
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.startswith("rollout-") and name.endswith(SUFFIXES):
                path = Path(folder) / name
                try:
                    found.append((path, path.stat().st_mtime))
                except OSError:
                    continue
    return found


MAX_ROLLOUT_BYTES = 4 << 30  # a decompressed rollout past this is refused (a zstd bomb, or not a rollout)
ZST_CACHE_KEEP = 16  # decompressed rollouts kept under $AUTOPILOT_HOME/cache/rollouts


def open_rollout(path: Path | str) -> BinaryIO:
    """The rollout's bytes as a file object, decompressing a ``.jsonl.zst`` as it is read (for line 1, a scan)."""
    fh = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    if not str(path).endswith(".zst"):
        return fh
    # the zstd reader has no readline(); a buffered reader gives it one (and lines for iteration)
    import zstandard  # only a compressed rollout pays for it

    return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(fh, closefd=True))


def readable(path: Path | str) -> Path:
    """A plain ``.jsonl`` with the rollout's lines: ``path`` itself, or for a ``.jsonl.zst`` its decompressed copy.

    Readers need random access (indexes keep line offsets), so a compressed rollout is decompressed once,
    atomically, into ``$AUTOPILOT_HOME/cache/rollouts/`` under a name made of its path, size and mtime:
    a changed original gets a new copy. The original is never touched.
    """
    path = Path(path)
    if not path.name.endswith(".zst"):
        return path
    info = path.stat()
    cache = paths.autopilot_home() / "cache" / "rollouts"
    key = sha256_hex(f"{os.path.realpath(path)}|{info.st_size}|{info.st_mtime_ns}".encode())[:24]
    target = cache / f"{path.name[: -len('.zst')].removesuffix('.jsonl')}-{key}.jsonl"
    if target.exists():
        return target

    def chunks() -> Iterator[bytes]:
        total = 0
        with open_rollout(path) as stream:
            while chunk := stream.read(1 << 20):
                total += len(chunk)
                if total > MAX_ROLLOUT_BYTES:
                    raise BridgeError(
                        f"{path} decompresses to more than {MAX_ROLLOUT_BYTES >> 30} GiB; it was not read",
                        hint="decompress it yourself (zstd -d) if it really is a rollout, and pass the .jsonl",
                    )
                yield chunk

    try:
        atomic_write(target, chunks(), durable=False)
    except Exception as exc:
        if isinstance(exc, BridgeError):
            raise
        raise BridgeError(
            f"cannot decompress {path}: {exc}", hint="check that it is a Codex rollout (.jsonl.zst)"
        ) from None
    _prune(cache)
    return target


def _prune(cache: Path) -> None:
    """Keep the newest ZST_CACHE_KEEP decompressed rollouts."""
    try:
        files = sorted(cache.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in files[ZST_CACHE_KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()


def thread_id_of(path: Path | str) -> str | None:
    """The thread id a rollout's file name ends with (``rollout-<time>-<uuid>.jsonl[.zst]``)."""
    name = os.path.basename(str(path))
    stem = name[: -len(".zst")] if name.endswith(".zst") else name
    stem = stem[: -len(".jsonl")]
    tail = stem[-36:]
    return tail if len(tail) == 36 and tail.count("-") == 4 else None


def _first_line(path: Path, wait: float) -> bytes | None:
    """Line 1, complete; waits up to ``wait`` seconds for Codex to write it. None if there is none."""
    deadline = time.monotonic() + wait
    while True:
        try:
            with open_rollout(path) as fh:
                line = fh.readline(META_LIMIT)
        except FileNotFoundError:
            line = b""
        except Exception:  # a damaged .zst: no readable line 1
            return None
        if line.endswith(b"\n"):
            return line
        if time.monotonic() >= deadline:
            return line or None  # a lone unterminated line may still be whole: let the parser decide
        time.sleep(0.05)


def read(path: Path, *, wait: float = 0.0, mtime: float | None = None) -> Rollout:
    """Classify one rollout by its first line."""
    line = _first_line(path, wait)
    if mtime is None:
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = 0.0
    if not line:
        return Rollout(path, "empty", mtime=mtime, why="the file is empty (or gone)")
    try:
        meta = json.loads(line)
    except ValueError:
        return Rollout(path, "corrupt", mtime=mtime, why="line 1 is not JSON")
    payload: Any = meta.get("payload") if _is_object(meta) else None  # the session_meta as Codex wrote it
    if not _is_object(payload) or meta.get("type") != "session_meta":
        return Rollout(path, "corrupt", mtime=mtime, why="line 1 is not session_meta")
    thread_id, cwd = payload.get("id"), payload.get("cwd")
    if not isinstance(thread_id, str) or not thread_id or not isinstance(cwd, str) or not cwd:
        return Rollout(path, "corrupt", mtime=mtime, why="session_meta has no id or cwd")
    forked = payload.get("forked_from_id") if isinstance(payload.get("forked_from_id"), str) else None
    kind, why = ("child", child_marker(payload)) if child_marker(payload) else ("root", "")
    return Rollout(path, kind, thread_id=thread_id, cwd=cwd, mtime=mtime, forked_from=forked, why=why)


def _is_object(value: object) -> bool:
    """Whether a value the rollout holds is a JSON object."""
    return isinstance(value, dict)


def find_rollout(thread_id: str, *, near: str | None = None) -> Path | None:
    """The rollout of thread ``thread_id``, or None: the one way a thread's file is found.

    Looked for under ``near``'s session roots first when given (a rollout read from elsewhere names
    its relatives: forks, subagents), then in ``$CODEX_HOME/sessions`` and ``archived_sessions``.
    Matched by the file name's tail; a candidate whose line 1 is session_meta for another thread is
    skipped, one whose line 1 names no thread (not written yet, damaged, compressed) is taken on its
    name. Live beats archived; within a root the newest file wins, a plain one over a compressed one.
    """
    if not THREAD_ID.fullmatch(thread_id):
        return None
    roots = [*_roots_near(near), *scan_roots()] if near else scan_roots()
    seen: set[Path] = set()
    for root in roots:
        if root in seen:
            continue
        seen.add(root)
        named = [(path, mtime) for path, mtime in _walk(root) if thread_id_of(path) == thread_id]
        for path, _ in sorted(named, key=lambda item: (item[1], item[0].name.endswith(".jsonl")), reverse=True):
            if path.name.endswith(".zst") or read(path).thread_id in (None, thread_id):
                return path
    return None


def _roots_near(path: str) -> list[Path]:
    """The rollout's own folder, the ``sessions`` tree holding it, and that tree's ``archived_sessions``."""
    here = Path(os.path.abspath(path)).parent
    roots = [here]
    parts = here.parts
    if "sessions" in parts:
        top = Path(*parts[: len(parts) - parts[::-1].index("sessions")])
        roots += [top, top.parent / "archived_sessions"]
    return roots


def newest_root_session(cwd: str, since: float | None = None, *, exclude: Collection[str] = ()) -> Rollout | None:
    """The newest root session (kind ``root``) started in ``cwd``'s git repository (or in ``cwd`` outside git).

    Looks in sessions and archived_sessions, newest file first; with ``since`` (a ``time.time()``),
    only rollouts written since then (less ``SINCE_SLACK``). Threads in ``exclude`` are passed over.
    """
    return _newest(scan(), place(cwd), since, exclude)


def _newest(
    files: list[tuple[Path, float]], here: str, since: float | None, exclude: Collection[str]
) -> Rollout | None:
    for path, mtime in files:
        if since is not None and mtime < since - SINCE_SLACK:
            break  # newest first: everything after is older still
        rollout = read(path, mtime=mtime)
        if rollout.kind == "root" and rollout.thread_id not in exclude and place(str(rollout.cwd)) == here:
            return rollout
    return None


def read_pointer() -> tuple[HandoffPointer | None, str]:
    """The saved ``$handoff`` pointer, or (None, why there is none)."""
    path = paths.handoff_dir() / POINTER
    try:
        pointer = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, f"there is no saved handoff ({path} does not exist)"
    except (OSError, ValueError) as exc:
        return None, f"the saved handoff {path} cannot be read ({exc})"
    if not _names_transcript(pointer):
        return None, f"the saved handoff {path} names no transcript_path"
    return pointer, ""


def _names_transcript(value: object) -> bool:
    """Whether a parsed pointer file is an object that names its transcript."""
    return isinstance(value, dict) and isinstance(value.get("transcript_path"), str)


class Choice:
    """The rollout a handoff means, where that came from, and what was passed over on the way."""

    __slots__ = ("rollout", "source", "notes")

    def __init__(self, rollout: Rollout, source: str, notes: list[str]) -> None:
        self.rollout = rollout
        self.source = source  # pointer | scan
        self.notes = notes

    def __eq__(self, other: object) -> bool:
        return other.__class__ is Choice and (self.rollout, self.source, self.notes) == (
            other.rollout,
            other.source,
            other.notes,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass was

    def __repr__(self) -> str:
        return f"Choice(rollout={self.rollout!r}, source={self.source!r}, notes={self.notes!r})"


def _under_roots(path: str) -> bool:
    real = os.path.realpath(path)
    return any(real.startswith(os.path.realpath(root) + os.sep) for root in scan_roots())


def _pointed(pointer: HandoffPointer, files: list[tuple[Path, float]]) -> Path | None:
    """The pointer's rollout as the scan knows it: the same file, or the same thread moved (archived)."""
    named = str(pointer["transcript_path"])
    base = os.path.basename(named)
    in_place = _under_roots(named) and base.startswith("rollout-") and base.endswith(".jsonl")
    if in_place and os.path.exists(named):
        return Path(named)
    thread = thread_id_of(named)
    moved = next((path for path, _ in files if thread and thread_id_of(path) == thread), None)
    # Not there yet and not moved: Codex may be about to create it (the caller waits for line 1).
    return moved or (Path(named) if in_place else None)


def latest(cwd: str, *, exclude: Collection[str] = ()) -> Choice:
    """The root session to hand over for ``cwd``: the saved pointer's when it is valid, else the newest one
    whose thread is not in ``exclude`` (the autopilot reviewer's own: ``loop.threads.own_threads()``)."""
    here = place(cwd)
    files = scan()
    notes: list[str] = []
    pointer, why = read_pointer()
    if pointer is None:
        notes.append(why)
    elif isinstance(pointer.get("cwd"), str) and place(pointer["cwd"]) != here:
        notes.append(f"the saved handoff is for {pointer['cwd']}, not {cwd}")
    else:
        path = _pointed(pointer, files)
        if path is None:
            notes.append(
                f"the saved handoff's rollout {pointer['transcript_path']} is not in {scan_roots()[0]} "
                "or archived_sessions"
            )
        else:
            rollout = read(path, wait=FIRST_LINE_WAIT)
            if rollout.kind == "root" and place(str(rollout.cwd)) == here:
                return Choice(rollout, "pointer", notes)
            reason = rollout.why if rollout.kind != "root" else f"a session in {rollout.cwd}, not {cwd}"
            notes.append(f"the saved handoff's rollout {path} is {reason}")
    newest = _newest(files, here, None, exclude)
    if newest is not None:
        notes.append(f"using the newest Codex session in {here} instead")
        return Choice(newest, "scan", notes)
    raise BridgeError(
        f"found no Codex session to hand over for {cwd}: {'; '.join(notes)}, and no root session in "
        f"{scan_roots()[0]} was started there",
        hint=f"type $handoff in the Codex session you want (in {cwd}), or pass --cwd with its directory",
    )
