"""The facts a session's active state gives the model: each field a list of short, quoted items.

An item's text is its identity (:func:`item_hash`), so it holds no time: a checkpoint that restates
the same objective does not make it a new fact. Injection (:mod:`.inject`) and the comparison with a
compaction's summary (:mod:`.compaction`) both work on these items.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from autopilot.digest import sha256_hex
from autopilot.output import quoted

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import Active, Probe, Stated

# In the order a short excerpt keeps them: what to do next and what is open come before the files touched.
FIELDS = (
    "objective", "constraints", "next_action", "next_steps", "unresolved", "validation", "current_work", "completed",
)  # fmt: skip
LABELS = {
    "objective": "Objective",
    "constraints": "Constraints",
    "next_action": "Next action",
    "next_steps": "Next steps the agent stated at its last turn's end (its claim)",
    "unresolved": "Unresolved",
    "current_work": "Edited since the last checkpoint",
    "validation": "Validation runs (newest per command)",
    "completed": "Completed (claimed)",
}
ITEM_CHARS = 400


def facts(state: Active, worktree: str | None = None) -> dict[str, list[str]]:
    """The injectable facts of a state: each field as a list of item texts.

    An item's text is its identity, so it holds no time: a checkpoint that restates the same
    objective does not make it a new fact.
    """
    out: dict[str, list[str]] = {f: [] for f in FIELDS}
    for field, text, _ in entries(state, worktree):
        out[field].append(text)
    return out


def current_facts(state: Active, worktree: str | None = None) -> dict[str, dict[str, str]]:
    """The facts of a state by field, each keyed by its :func:`item_hash`."""
    return {f: {item_hash(f, t): t for t in items} for f, items in facts(state, worktree).items()}


def entries(state: Active, worktree: str | None = None) -> Iterator[tuple[str, str, Probe]]:
    """Each fact of a state as (field, item text, what it is made of), in the order of :data:`FIELDS`.

    A file inside ``worktree`` is named by its path there (shorter, and what the agent works with).

    What it is made of says how a text (a compaction's summary) can be checked for the fact:
    ``{"kind": "sentence", "text"}``, ``{"kind": "path", "path"}`` or ``{"kind": "run", "command", "outcome"}``.
    """
    obj = state.get("objective")
    if obj:
        first = (
            f"the first request of session {obj['carriedFrom']}, which /clear replaced"
            if obj.get("carriedFrom")
            else "the session's first request"
        )
        where = _provenance(obj, first)
        yield "objective", f"{_q(obj['text'])} (from {where})", _sentence(obj["text"])
    for c in state.get("constraints") or []:
        yield "constraints", f"{_q(c['text'])} ({c['source']})", _sentence(c["text"])
    nxt = state.get("nextAction")
    if nxt:
        yield "next_action", f"{_q(nxt['text'])} ({_provenance(nxt, 'observed')})", _sentence(nxt["text"])
    plan = state.get("nextSteps")
    for step in plan["steps"] if plan else []:
        if not nxt or step != nxt["text"]:
            yield "next_steps", _q(step), _sentence(step)
    # Observed open items are failing validations: the validation field already carries them.
    for u in state.get("unresolved") or []:
        if u["source"] != "observed":
            yield "unresolved", f"{_q(u['text'])} (checkpoint claim)", _sentence(u["text"])
    for v in state.get("validation") or []:
        said = f" (summary line {_q(line)})" if (line := v.get("summary")) else ""
        text = f"{_q(v['command'])}: {v['outcome']}{said}"
        yield "validation", text, {"kind": "run", "command": v["command"], "outcome": v["outcome"]}
    for e in state["currentWork"]["editedSinceCheckpoint"]:
        failed = ", failed" if e.get("result") == "error" else ""
        path = shown_path(e["path"], worktree)
        yield "current_work", f"{_q(path)} ({e.get('tool')}{failed})", {"kind": "path", "path": e["path"]}
    for done in state.get("completed") or []:
        yield "completed", _q(done["text"]), _sentence(done["text"])


def shown_path(path: str, worktree: str | None) -> str:
    """``path`` relative to ``worktree`` when it is inside it, else as it is."""
    if worktree and os.path.isabs(path):
        rel = os.path.relpath(path, worktree)
        if rel != "." and not rel.startswith(".."):
            return rel
    return path


def _provenance(item: Stated, otherwise: str) -> str:
    """Where an objective or next action came from, as the injected text says it."""
    if item["source"] == "stated":
        return "the next step the agent stated at its last turn's end, its claim"
    if item["source"] != "checkpoint":
        return otherwise
    if item.get("packet"):
        return f"from packet {item['packet']}, the sending session's claim"
    return {
        "person": "a checkpoint written outside any agent's shell (not proof of who wrote it)",
        "autopilot": "the autopilot's plan at its last task transition",
    }.get(str(item.get("writer")), "the checkpoint, the agent's claim")


def _sentence(text: str) -> Probe:
    return {"kind": "sentence", "text": text}


def _q(text: str) -> str:
    """A value quoted as evidence (``output.quoted``: a JSON string on one line), cut to ``ITEM_CHARS``."""
    return quoted(text, ITEM_CHARS)


def item_hash(field: str, text: str) -> str:
    """The identity of one fact (a changed wording is a new fact)."""
    return sha256_hex(f"{field}\0{text}".encode())[:16]
