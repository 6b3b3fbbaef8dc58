"""One session's active-memory directory: its append-only logs, read leniently, and its derived state file.

The logs are the truth (``observations.jsonl``, ``checkpoints.jsonl``, ``injections.jsonl``): they
are only ever appended to, a line that is not a JSON object with a ``kind`` or a ``checkpoint`` is
counted as malformed and skipped, never fatal. ``active.json`` is derived from them (the reduced
state, the injection baseline and the mark): written only through ``fsutil.atomic_write``, and a
file that cannot be parsed is moved aside to ``active.json.corrupt-<stamp>``, reported, and rebuilt
from the logs, never overwritten in place.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from autopilot.clock import stamp
from autopilot.digest import canonical, sha256_hex
from autopilot.fastjson import dumps
from autopilot.fsutil import atomic_write, held
from autopilot.git import toplevel
from autopilot.handoff.memory import observe
from autopilot.paths import handoff_dir
from autopilot.redact import Redactor

CLEARED = "cleared"  # the observation that links a session to the one a /clear replaced

ACTIVE = "active.json"


@dataclass
class Log:
    """The records of one append-only log and what could not be read."""

    records: list[dict[str, Any]] = field(default_factory=list)
    malformed: int = 0
    size: int = 0  # bytes read (the whole file)


def active_root() -> Path:
    """Where every worktree's sessions live: ``$AUTOPILOT_HOME/handoff/active``."""
    return handoff_dir() / "active"


class SessionStore:
    """The active memory of one agent's session in one worktree."""

    def __init__(self, agent: str, session: str, worktree: str) -> None:
        redact_at_rest()  # once per version: stores written before the hooks redacted
        self.agent, self.session, self.worktree = agent, session, worktree
        self.dir = Path(observe.session_dir(worktree, agent, session))
        self.notes: list[str] = []  # what went wrong while reading (a corrupt state file moved aside)

    @classmethod
    def here(cls, agent: str, session: str, cwd: str | None = None) -> SessionStore:
        """The store of ``session`` in the worktree around ``cwd`` (the current directory by default)."""
        return cls(agent, session, toplevel(cwd))

    def exists(self) -> bool:
        """Whether anything was ever recorded for this session in this worktree."""
        return self.dir.is_dir()

    def ensure(self) -> None:
        """Create the directory (and the worktree's path file) if missing."""
        observe.ensure(str(self.dir), self.worktree)

    # -- the logs -----------------------------------------------------------------------------------

    def read(self, name: str, key: str) -> Log:
        """The JSON objects of log ``name`` that carry ``key``; anything else is counted as malformed."""
        log = Log()
        try:
            data = (self.dir / name).read_bytes()
        except FileNotFoundError:
            return log
        log.size = len(data)
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                log.malformed += 1
                continue
            if isinstance(obj, dict) and key in obj:
                log.records.append(obj)
            else:
                log.malformed += 1
        return log

    def observations(self) -> Log:
        """What the hooks saw and what recovery rebuilt, in the order written."""
        return self.read(observe.LOG, "kind")

    def checkpoints(self) -> Log:
        """The validated checkpoints, oldest first."""
        return self.read(observe.CHECKPOINTS, "checkpoint")

    def history(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The observations and checkpoints the session's state is reduced from: its own, after those of the session
        a ``/clear`` replaced (read from that session's store, each marked ``carriedFrom``/``inheritedFrom``; never
        copied: each session keeps its own, and search finds an edit once)."""
        observed = self.observations().records
        cps = self.checkpoints().records
        seen = {self.session}
        link = next((o for o in observed if o.get("kind") == CLEARED), None)
        while link is not None and isinstance(link.get("from"), str) and link["from"] not in seen:
            old = str(link["from"])
            seen.add(old)
            before = SessionStore(self.agent, old, self.worktree)
            theirs = before.observations().records
            skipped = ("session", "end", "recovery", CLEARED)  # its boundaries are not this session's
            observed = [{**o, "carriedFrom": old} for o in theirs if o.get("kind") not in skipped] + observed
            cps = [{**c, "inheritedFrom": c.get("inheritedFrom") or old} for c in before.checkpoints().records] + cps
            link = next((o for o in theirs if o.get("kind") == CLEARED), None)
        return observed, cps

    def injections(self) -> Log:
        """The injection history, oldest first."""
        return self.read(observe.INJECTIONS, "kind")

    def append(self, name: str, records: list[dict[str, Any]]) -> int:
        """Append records to log ``name`` in one write (observations redacted first); the log's size after it."""
        self.ensure()
        if name == observe.LOG:  # recovered from a transcript, carried over a /clear: redacted like the hooks'
            records = Redactor().walk(records)
        return observe.append(str(self.dir), name, [dumps(r) for r in records])

    def sizes(self) -> tuple[int, int]:
        """The byte sizes of the observation and checkpoint logs (what the injection mark compares)."""
        out = []
        for name in (observe.LOG, observe.CHECKPOINTS):
            try:
                out.append((self.dir / name).stat().st_size)
            except FileNotFoundError:
                out.append(0)
        return out[0], out[1]

    def write_mark(self, sizes: tuple[int, int]) -> None:
        """Record the log sizes an injection decision saw (the hooks' fast path compares against them)."""
        atomic_write(self.dir / observe.MARK, f"{sizes[0]} {sizes[1]}\n", durable=False)

    # -- the derived state file ---------------------------------------------------------------------

    def load_active(self) -> dict[str, Any] | None:
        """``active.json``, or None when missing; a corrupt one is moved aside and noted, never overwritten."""
        path = self.dir / ACTIVE
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            obj = orjson.loads(data)
            if not isinstance(obj, dict):
                raise ValueError("not a JSON object")
        except (orjson.JSONDecodeError, ValueError) as exc:
            aside = path.with_name(f"{ACTIVE}.corrupt-{stamp()}")
            os.replace(path, aside)
            self.notes.append(
                f"{path} could not be parsed ({str(exc)[:80]}); it was moved aside to {aside} and the state "
                "was rebuilt from the logs"
            )
            return None
        return obj

    def save_active(self, doc: dict[str, Any]) -> None:
        """Replace ``active.json`` atomically (a crash leaves the old one or the new one, never half)."""
        self.ensure()
        atomic_write(self.dir / ACTIVE, orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))


def elsewhere(agent: str, session: str) -> list[str]:
    """The worktrees (by their recorded path) that hold an active memory of this session."""
    root = active_root()
    out = []
    for folder in sorted(root.glob(f"*/{agent}-{session}")) if root.is_dir() else []:
        try:
            out.append((folder.parent / observe.WORKTREE_FILE).read_text(encoding="utf-8").strip())
        except OSError:
            out.append(str(folder.parent))
    return out


# --- secrets at rest: stores written before the hooks redacted ----------------------------------------

AT_REST = ".redacted"  # in active_root(): the version of the rewrite below the stores have had
AT_REST_VERSION = "1"
_REWRITTEN = (observe.LOG, observe.CHECKPOINTS, ACTIVE)


def redact_at_rest(root: Path | None = None) -> int:
    """Rewrite every session's logs and state redacted, once per ``AT_REST_VERSION``; how many files changed.

    Observations were stored as the hooks saw them until the recorder redacted (issue 21): the first
    store opened after the upgrade rewrites them all. A log is renamed aside first, so a hook appending
    meanwhile starts a new file, whose lines are put after the rewritten ones.
    """
    root = root or active_root()
    marker = root / AT_REST
    try:
        if marker.read_text(encoding="utf-8").strip() == AT_REST_VERSION:
            return 0
    except OSError:
        if not root.is_dir():
            return 0
    changed = 0
    with held(root / (AT_REST + ".lock"), 60):  # filelock (~40 ms) loads for this rewrite, never for an injection
        if marker.is_file() and marker.read_text(encoding="utf-8").strip() == AT_REST_VERSION:
            return 0
        redactor = Redactor()
        for name in _REWRITTEN:
            for path in sorted(root.glob(f"*/*/{name}")):
                changed += _rewrite(path, redactor)
        atomic_write(marker, AT_REST_VERSION + "\n")
    return changed


def _rewrite(path: Path, redactor: Redactor) -> int:
    """One file redacted in place (1 when anything in it changed); a log's new lines kept after the old."""
    if path.name == ACTIVE:
        try:
            doc = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return 0
        clean = redactor.walk(doc)
        if clean == doc:
            return 0
        atomic_write(path, orjson.dumps(clean, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
        return 1
    aside = path.with_name(path.name + ".redacting")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return 0
    raws = [raw for raw in aside.read_bytes().split(b"\n") if raw.strip()]
    lines = [_redact_line(raw, redactor) for raw in raws]
    body = b"".join(line + b"\n" for line in lines)
    staged = path.with_name(path.name + ".rewritten")
    for attempt in range(5):  # lines a hook appended to the new file meanwhile go after the rewritten ones
        try:
            new = path.read_bytes()
        except FileNotFoundError:
            new = b""
        atomic_write(staged, body + new, durable=False)
        try:
            grown = path.stat().st_size != len(new)
        except FileNotFoundError:
            grown = bool(new)
        if not grown or attempt == 4:
            os.replace(staged, path)
            break
    aside.unlink(missing_ok=True)
    return int(lines != raws)


def _redact_line(raw: bytes, redactor: Redactor) -> bytes:
    """One log line redacted: a record's strings (a checkpoint's hash recomputed), or a malformed line as text."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return redactor(raw.decode("utf-8", "replace")).encode("utf-8")
    clean = redactor.walk(obj)
    if isinstance(clean, dict) and isinstance(clean.get("checkpoint"), dict) and clean != obj:
        clean["sha256"] = "sha256:" + sha256_hex(canonical(clean["checkpoint"]))
    return dumps(clean).encode("utf-8")
