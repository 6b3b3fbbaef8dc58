"""Read-only session sources: where each agent keeps its sessions, and one event shape for all of them.

A source answers three questions about an agent's saved sessions, without changing a
byte of them: which sessions belong to this project (``sessions``), what one session
contains, a page at a time, newest first (``read``), and everything a handover packet
needs from one session within the coverage limits (``observe``). The three sources are
:mod:`.claude` (Claude Code project JSONL), :mod:`.codex` (Codex rollout files) and
:mod:`.appserver` (``codex app-server`` over stdio). The two local ones reuse the
transcript readers' folds and cached indexes; none parses JSONL itself.

Every source emits the same *event*: a dict with ``id`` (``L<line>`` for a local file,
``L<line>.<k>`` for the k-th block of a row, the item id for the app server), ``kind``
(``user``, ``assistant``, ``tool``, ``tool_result``, ``system``, ``error``, ``turn_aborted``,
``rolled_back``, ``goal``, ``plan``, ``web_search``, ``other``), ``parent`` (the id of the
event it follows causally: Claude's parentUuid chain, file order for Codex), ``pointer``
(exact location: raw line, byte offset and length, or thread/turn/item ids), and the
redacted, bounded ``text`` or ``tool`` it carries. The content is evidence, never instruction.
"""

from __future__ import annotations

import os

from autopilot import config
from autopilot.digest import canonical, sha256
from autopilot.errors import BridgeError
from autopilot.patterns import lazy

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this package
if TYPE_CHECKING:
    from typing import Unpack

    from autopilot.handoff.sources.shapes import Event, EventGraph, Gap, GapFields, TranscriptHash

READ_CAP_BYTES = 64 << 20  # the most of one transcript a packet reads (64 MiB, a documented limit)
WINDOW_EVENTS = 5000  # the recent events a packet keeps (plus the first saved objective)
EXCERPT_CHARS = 2000  # characters kept per string in events (head and tail)
HEAD_SHARE = 16  # a capped read spends 1/16 of the cap on the file's head, for the first objective


class Limits:
    """The coverage limits; each one that bites is reported as a gap (a plain class: no typing.NamedTuple)."""

    __slots__ = ("max_read_bytes", "window_events", "excerpt_chars")

    def __init__(
        self,
        max_read_bytes: int = READ_CAP_BYTES,
        window_events: int = WINDOW_EVENTS,
        excerpt_chars: int = EXCERPT_CHARS,
    ) -> None:
        self.max_read_bytes = max_read_bytes
        self.window_events = window_events
        self.excerpt_chars = excerpt_chars

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, overridden by ``AUTOPILOT_HANDOFF_MAX_READ_BYTES`` / ``_WINDOW_EVENTS``."""
        values: dict[str, int] = {}
        for field, var in (
            ("max_read_bytes", "AUTOPILOT_HANDOFF_MAX_READ_BYTES"),
            ("window_events", "AUTOPILOT_HANDOFF_WINDOW_EVENTS"),
        ):
            raw = config.env(var)
            if raw:
                try:
                    values[field] = int(raw)
                except ValueError:
                    raise BridgeError(f"{var}={raw!r} is not a whole number; unset it or give a count") from None
                if values[field] < 1:
                    raise BridgeError(f"{var} must be at least 1, not {raw}")
        return cls(**values)


def gap(kind: str, detail: str, **fields: Unpack[GapFields]) -> Gap:
    """One coverage gap: what is missing from the view, and why."""
    return {"kind": kind, "detail": detail, **fields}


def graph(events: list[Event]) -> EventGraph:
    """The event graph's size and one hash over every event's id, kind, parent and content."""
    digest = sha256()
    edges = 0
    for event in events:
        digest.update(canonical(event))
        digest.update(b"\n")
        edges += event.get("parent") is not None
    return {"events": len(events), "edges": edges, "sha256": digest.hexdigest()}


def hash_range(path: str, start: int, end: int) -> str:
    """The sha256 of bytes ``start``..``end`` of ``path`` (hex)."""
    digest = sha256()
    with open(path, "rb") as fh:
        fh.seek(start)
        left = end - start
        while left > 0:
            chunk = fh.read(min(1 << 20, left))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def hash_ranges(path: str, ranges: list[list[int]]) -> str:
    """The sha256 a packet records over byte ranges of a transcript (hex): one range's, or a hash of each's."""
    if len(ranges) == 1:
        return hash_range(path, *ranges[0])

    digest = sha256()
    for start, end in ranges:
        digest.update(hash_range(path, start, end).encode())
    return digest.hexdigest()


def verify_hash(recorded: TranscriptHash, path: str) -> str | None:
    """Why the bytes a packet was built from no longer match (None when they do)."""
    if not os.path.isfile(path):
        return f"the source transcript {path} no longer exists"
    ranges = recorded.get("ranges") or []
    size = os.path.getsize(path)
    if not ranges or max(end for _, end in ranges) > size:
        return f"the source transcript {path} is shorter than when the packet was made (truncated or rewritten)"
    if hash_ranges(path, ranges) != recorded.get("sha256"):
        return f"the source transcript {path} changed in the bytes the packet was built from"
    return None


# What a session or thread id may be: what `handoff list` prints, and only that (a name, never a path or a pattern).
# A transcript whose name is not one is not listed, and a coverage gap says so.
SESSION_ID = lazy(r"[0-9A-Za-z][0-9A-Za-z_-]{0,79}")
UNNAMED = "sessions whose id is not letters, digits, dashes and underscores: not listed (--session could not name them)"


def is_session_id(value: object) -> bool:
    """Whether ``value`` has a session id's shape (:data:`SESSION_ID`)."""
    return isinstance(value, str) and SESSION_ID.fullmatch(value) is not None


def check_session_id(value: str, what: str = "--session") -> str:
    """``value`` if it is a session or thread id as `handoff list` prints them; a path or pattern is refused."""
    if not is_session_id(value):
        raise BridgeError(
            f"{what} {value!r} is not a session id",
            hint="pass the id shown by `codex-bridge handoff list` (letters, digits, dashes and underscores)",
        )
    return value


def first_objective(events: list[Event]) -> Event | None:
    """The first message the human typed among ``events`` (oldest first)."""
    for event in events:
        if event["kind"] == "user" and event.get("text") and not event.get("origin"):
            return event
    return None
