"""The autopilot's task transitions in the active memory of the session that owns the run.

A run's plan and verdicts move it from task to task (``loop/transitions.py`` applies every transition). The bridge
knows all of it, so no model is asked: when the run of this worktree, owned by this session, stands on
another task (or has finished more) than the session's newest autopilot checkpoint says, :func:`sync` writes
one, by ``autopilot``: the goal is the objective, the current task (with its acceptance criteria) is the next
action, the finished tasks are completed and the remaining ones unresolved. The Stop hook calls it after a
verdict; injection and the checkpoint before a compaction call it too, so a transition made anywhere (the
CLI's ``verdict``, ``plan``) reaches the session before its next turn.

The handoff never reads the loop's files: the run's state comes from the caller (the Stop hook's verdict, or
``run_of``, the adapters' reader of a worktree's run as stored: ``loop.state.Store.peek_workspace``). It is read,
never written, and a run that cannot be read is skipped: the memory never holds the loop up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from autopilot.handoff.memory import checkpoint as checkpoints
from autopilot.handoff.memory.store import SessionStore
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import CheckpointBody

    RunOf = Callable[[str], Mapping[str, Any] | None]  # a worktree's run state as stored, or None (no run)

CRITERIA = 5  # acceptance criteria named in the next action


def body_of(state: Mapping[str, Any]) -> CheckpointBody | None:
    """The checkpoint a run's state gives its owning session (None without a goal and a plan)."""
    goal, plan = state.get("goal"), state.get("plan")
    if not isinstance(goal, str) or not goal.strip() or not isinstance(plan, dict):
        return None
    tasks = [t for t in plan.get("tasks") or [] if isinstance(t, dict) and t.get("id")]
    done = [str(t) for t in state.get("tasks_done") or []]
    current = state.get("current_task") if isinstance(state.get("current_task"), dict) else None
    status = str(state.get("status") or "")
    if status == "running" and current:
        criteria = "; ".join(str(c) for c in (current.get("acceptance") or [])[:CRITERIA])
        next_action = f"work on task {current['id']}: {current.get('title')}"
        next_action += f" (done when: {criteria})" if criteria else ""
    else:
        next_action = f"the autopilot run is {status or 'unknown'}" + (
            f": {state['stop_reason']}" if state.get("stop_reason") else ""
        )
    title = {str(t["id"]): f"{t['id']}: {t.get('title')}" for t in tasks}
    return {
        "objective": _cut(goal, 2000),
        "constraints": [],
        "next_action": _cut(next_action, 1000),
        "unresolved": [_cut(title[i], 500) for i in title if i not in done][:50],
        "completed": [_cut(title.get(i, i), 500) for i in done][:100],
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def sync(store: SessionStore, run: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Write the autopilot checkpoint when the run this session owns moved since the last one (else None).

    ``run``: the state of the worktree's run as the caller has it (None: no run).
    """
    state = run
    if state is None or store.agent != "claude" or state.get("owner_session_id") != store.session:
        return None
    body = body_of(state)
    if body is None:
        return None
    newest = next((c for c in reversed(store.checkpoints().records) if c.get("by") == checkpoints.AUTOPILOT), None)
    if newest is not None and newest.get("sha256") == checkpoints.digest(Redactor().walk(body)):
        return None  # the run has not moved since
    current = state.get("current_task") if isinstance(state.get("current_task"), dict) else {}
    source = f"autopilot run {state.get('run_id')} at iteration {state.get('iteration')}"
    return checkpoints.record(
        store, body, source, at=moved_at(state), by=checkpoints.AUTOPILOT, run=state.get("run_id"),
        task=(current or {}).get("id"), task_title=(current or {}).get("title"),
    )  # fmt: skip


def sync_from(store: SessionStore, run_of: RunOf | None) -> dict[str, Any] | None:
    """:func:`sync` with the run ``run_of`` reads for the session's worktree (None: the caller knows of no run;
    only a Claude session's memory follows a run, so no other reads one)."""
    if run_of is None or store.agent != "claude":
        return None
    return sync(store, run_of(store.worktree))


def timeline(records: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """When each autopilot task began, oldest first: (time, {"id", "title"}), from the autopilot's checkpoints."""
    found = [
        (str(c.get("at") or ""), {"id": str(c["task"]), "title": c.get("task_title")})
        for c in records
        if c.get("by") == checkpoints.AUTOPILOT and c.get("task")
    ]
    return sorted(found, key=lambda item: item[0])


def task_at(tasks: list[tuple[str, dict[str, Any]]], at: Any) -> dict[str, Any] | None:
    """The autopilot task the session was on at time ``at`` (None before the first, or without a time)."""
    if not isinstance(at, str) or not at:
        return None
    current = None
    for since, task in tasks:
        if since > at:
            break
        current = task
    return current


def moved_at(state: Mapping[str, Any]) -> str | None:
    """When the run last moved (its last verdict, else its plan), in the memory's millisecond format: a checkpoint
    the agent wrote after that transition stays newer than the one the transition gives, however late it is
    written here."""
    verdict = state.get("last_verdict") if isinstance(state.get("last_verdict"), dict) else None
    at = (verdict or {}).get("timestamp") or state.get("created_at")
    if not isinstance(at, str) or len(at) < 20 or not at.endswith("Z"):
        return None
    return at[:23] + "Z" if len(at) > 24 else at
