"""The active memory as documents for an evidence index: plain dicts, one per checkpoint or observation.

The evidence search (``handoff/search/``, ``codex-bridge handoff search``) indexes documents with a ``kind``
column; this module is how the active memory would be handed to it, without depending on it: every document is a
plain dict with ``kind``, ``session``, ``agent``, ``worktree``, ``branch``, ``time``, ``text``,
``outcome`` and ``ref``, redacted (and for an edit, ``symbols``: the names it changed).
Checkpoints are ``memory.checkpoint`` (the agent's claim); observations are ``memory.<kind>``
(``request``, ``edit``, ``run``, ``compact``, ``model``...), evidence of what hooks or transcripts
showed. ``branch`` is the worktree's branch when the documents are made (observations do not record it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autopilot import git
from autopilot.errors import BridgeError
from autopilot.handoff.memory.autopilot import task_at, timeline
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.transcripts.validation import classify, kind_of
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import Fed

SKIPPED = frozenset({"turn", "end", "recovery", "cleared"})  # boundaries and bookkeeping: nothing to search for


def _text(obs: dict[str, Any]) -> tuple[str, str | None]:
    """What an observation says, and its outcome when it has one."""
    kind = obs.get("kind")
    if kind == "request":
        return str(obs.get("prompt") or ""), None
    if kind == "edit":
        changed = _names(obs)
        shown = f" ({', '.join(changed)})" if changed else ""
        return f"{obs.get('tool')} {obs.get('path')}{shown}", str(obs.get("result"))
    if kind == "run":
        command = str(obs.get("command") or "")
        judged = classify(command, obs.get("exit") if isinstance(obs.get("exit"), int) else None, obs.get("output"))
        return f"{command}\n{obs.get('output') or ''}".strip(), judged["outcome"] if kind_of(command) else None
    if kind == "compact":
        return f"compaction ({obs.get('phase')}, {obs.get('trigger')}) {obs.get('instructions') or ''}".strip(), None
    if kind == "model":
        return f"model {obs.get('from') or '?'} -> {obs.get('model')}", None
    if kind == "session":
        return f"session {obs.get('source')}", None
    return str(kind), None


def _names(obs: dict[str, Any]) -> list[str]:
    """The names an edit observation says it changed (:mod:`.names`), strings only."""
    found = obs.get("names")
    return [n for n in found if isinstance(n, str)] if isinstance(found, list) else []


def documents(store: SessionStore) -> list[Fed]:
    """Every checkpoint and observation of one session, as index documents (oldest first, redacted)."""
    redact = Redactor()
    try:
        branch = git.branch(store.worktree)
    except BridgeError:  # git missing: the documents still carry everything else
        branch = None
    # Names the index keeps and search shows: a credential in a branch's or a folder's name is withheld (as a packet's)
    branch = redact(branch) if branch else branch
    worktree = redact(store.worktree)
    docs: list[Fed] = []
    checkpoints = store.checkpoints().records
    tasks = timeline(checkpoints)
    for n, obs in enumerate(store.observations().records):
        if obs.get("kind") in SKIPPED:
            continue
        text, outcome = _text(obs)
        doc: Fed = {
            "session": store.session,
            "agent": store.agent,
            "worktree": worktree,
            "branch": branch,
            "kind": f"memory.{obs.get('kind')}",
            "time": obs.get("at"),
            "text": redact(text),
            "outcome": outcome,
            "ref": {"log": "observations.jsonl", "index": n, "via": obs.get("via"), "source": obs.get("ref")},
            "task": task_at(tasks, obs.get("at")),
        }
        if obs.get("kind") == "edit" and _names(obs):
            doc["symbols"] = [redact(name) for name in _names(obs)]
        docs.append(doc)
    for n, cp in enumerate(checkpoints):
        body = cp.get("checkpoint") or {}
        lines = [f"objective: {body.get('objective')}", f"next action: {body.get('next_action')}"]
        lines += [f"constraint: {c}" for c in body.get("constraints") or []]
        lines += [f"unresolved: {u}" for u in body.get("unresolved") or []]
        lines += [f"completed: {c}" for c in body.get("completed") or []]
        docs.append(
            {
                "session": store.session,
                "agent": store.agent,
                "worktree": worktree,
                "branch": branch,
                "kind": "memory.checkpoint",
                "time": cp.get("at"),
                "text": redact("\n".join(lines)),
                "outcome": None,
                "ref": {"log": "checkpoints.jsonl", "index": n, "sha256": cp.get("sha256"), "claim": True},
                "task": task_at(tasks, cp.get("at")),
            }
        )
    docs.sort(key=lambda d: str(d["time"] or ""))  # stable: in one millisecond, observations come first
    return docs
