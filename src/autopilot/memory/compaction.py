"""A compaction and the session's memory: what the client carries across it.

The hooks see a compaction from both sides (``PreCompact``, ``PostCompact``, ``SessionStart`` with
source ``compact``); this module says what the session still knows afterwards.
"""

from __future__ import annotations

from typing import Any

from autopilot.memory.store import SessionStore


def kept_through(store: SessionStore, injections: list[dict[str, Any]]) -> dict[str, list[str]]:
    """What the session still knows after a compaction: the hook context the client carries across it.

    Seen with the real binaries: Claude Code keeps the tail after the last assistant message verbatim
    (a print-mode ``/compact`` run's own SessionStart context; the prompt that triggered an automatic
    compaction, with its context) and resends the turn's attachments after a compaction mid-turn, so
    what was injected since the last Stop survives. Codex drops the context injected before a
    compaction and keeps what comes after it (compacting at the start of a turn, it fires the turn's
    SessionStart after compacting). Everything else is summarised away and is injected again.
    """
    observations = store.observations().records
    at_compaction = _last(observations, lambda o: o.get("kind") == "compact" and o.get("phase") == "pre")
    if at_compaction is None:
        at_compaction = _last(observations, lambda o: o.get("kind") == "session" and o.get("source") == "compact")
    if at_compaction is None:
        return {}
    # The logs' order, not the clock, says what came after what: a Stop, the compaction and an injection
    # can share a millisecond. An injection records how many observations the log held when it was made.
    if store.agent == "codex":
        since: int | None = at_compaction
    else:
        since = _last(observations[:at_compaction], lambda o: o.get("kind") == "turn")
    kept: dict[str, set[str]] = {}
    for record in injections:
        if record.get("kind") == "injection" and _after(record, since, observations):
            for field, hashes in (record.get("injected") or {}).items():
                kept.setdefault(field, set()).update(hashes)
    return {f: sorted(h) for f, h in kept.items()}


def _after(record: dict[str, Any], index: int | None, observations: list[dict[str, Any]]) -> bool:
    """Whether an injection was made after observation ``index`` (None: before the first; always true)."""
    if index is None:
        return True
    seen = record.get("observed")
    if isinstance(seen, int) and not isinstance(seen, bool):
        return seen > index
    return str(record.get("at")) > str(observations[index].get("at"))  # records written before "observed"


def _last(items: list[dict[str, Any]], match: Any) -> int | None:
    """The index of the last item ``match`` accepts, or None."""
    return next((n for n in range(len(items) - 1, -1, -1) if match(items[n])), None)
