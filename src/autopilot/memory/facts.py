"""The facts a session's active state gives the model: each field a list of short, quoted items.

An item's text is its identity (:func:`item_hash`), so it holds no time: a checkpoint that restates
the same objective does not make it a new fact. Injection (:mod:`.inject`) and the comparison with a
compaction's summary (:mod:`.compaction`) both work on these items.
"""

from __future__ import annotations

from typing import Any

from autopilot.digest import sha256_hex
from autopilot.output import quoted

FIELDS = ("objective", "constraints", "next_action", "unresolved", "current_work", "validation", "completed")
LABELS = {
    "objective": "Objective",
    "constraints": "Constraints",
    "next_action": "Next action",
    "unresolved": "Unresolved",
    "current_work": "Edited since the last checkpoint",
    "validation": "Validation runs (newest per command)",
    "completed": "Completed (claimed)",
}
ITEM_CHARS = 400


def facts(state: dict[str, Any]) -> dict[str, list[str]]:
    """The injectable facts of a state: each field as a list of item texts.

    An item's text is its identity, so it holds no time: a checkpoint that restates the same
    objective does not make it a new fact.
    """
    out: dict[str, list[str]] = {f: [] for f in FIELDS}
    obj = state.get("objective")
    if obj:
        where = "the checkpoint, the agent's claim" if obj["source"] == "checkpoint" else "the session's first request"
        out["objective"] = [f"{_q(obj['text'])} (from {where})"]
    out["constraints"] = [f"{_q(c['text'])} ({c['source']})" for c in state.get("constraints") or []]
    nxt = state.get("nextAction")
    if nxt:
        where = "the checkpoint, the agent's claim" if nxt["source"] == "checkpoint" else "observed"
        out["next_action"] = [f"{_q(nxt['text'])} ({where})"]
    # Observed open items are failing validations: the validation field already carries them.
    out["unresolved"] = [
        f"{_q(u['text'])} (checkpoint claim)" for u in state.get("unresolved") or [] if u["source"] != "observed"
    ]
    out["current_work"] = [
        f"{_q(e['path'])} ({e.get('tool')}{', failed' if e.get('result') == 'error' else ''})"
        for e in (state.get("currentWork") or {}).get("editedSinceCheckpoint") or []
    ]
    out["validation"] = [
        f"{_q(v['command'])}: {v['outcome']}" + (f" (summary line {_q(v['summary'])})" if v.get("summary") else "")
        for v in state.get("validation") or []
    ]
    out["completed"] = [_q(c["text"]) for c in state.get("completed") or []]
    return out


def _q(text: str) -> str:
    """A value quoted as evidence (``output.quoted``: a JSON string on one line), cut to ``ITEM_CHARS``."""
    return quoted(text, ITEM_CHARS)


def item_hash(field: str, text: str) -> str:
    """The identity of one fact (a changed wording is a new fact)."""
    return sha256_hex(f"{field}\0{text}".encode())[:16]
