"""Review: Codex reviews the work since the run's base commit against the current task.

Shared by ``codex-bridge review`` and the PostToolUse hook. A review never changes the task,
the base, the status or the iteration; it records ``last_review`` and a review artifact.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.errors import RunChanged
from autopilot.loop import control, reviewer, transitions
from autopilot.loop.prompts import diff_evidence, task_text
from autopilot.loop.reviewer import Answer
from autopilot.loop.workspace import Workspace
from autopilot.output import say
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.loop.shapes import Review, ReviewRecord, ReviewResult, ReviewSkipped


def review(
    *,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    cwd: str | None = None,
    deadline: float | None = None,
) -> ReviewResult | ReviewRecord | ReviewSkipped:
    """Review the current diff and record it; returns the review (``skipped`` when nothing changed).

    ``deadline`` (``time.monotonic()``) bounds the Codex exchange; default: now + AUTOPILOT_TIMEOUT.
    """
    ws = Workspace(cwd)
    state = ws.store.load()
    _plan, task = control.require_run(ws.store, state)
    ws.config  # noqa: B018 - a broken config file fails here, before any work
    snap = ws.snapshot_while_loading(state.get("base_sha"))
    if snap.empty:
        say("nothing changed since the base commit; no review was requested")
        return {
            "skipped": True,
            "reason": "no changes since base",
            "task_id": task["id"],
            "base_sha": state.get("base_sha"),
            "fingerprint": snap.tree,
        }
    if transitions.over_budget(state):  # spent already: refused before any evidence is built (consult checks again)
        control.guard_budget(ws.store, "review", state)
    redactor = Redactor()
    evidence, facts = diff_evidence(ws.config, snap, redactor)
    text = reviewer.prompt("review", task_id=task["id"], task=redactor(task_text(task)), evidence=evidence)

    def record(answer: Answer) -> ReviewResult | ReviewRecord:
        found: Review = answer.data
        result: ReviewRecord = {
            "task_id": task["id"],
            "base_sha": snap.base,
            "head_sha": snap.head,
            "fingerprint": snap.tree,
            **found,
            "diff": facts,
            "redactions": redactor.summary(),
            "usd": answer.usd,
        }
        try:
            with ws.store.transaction(expect=state) as s:
                transitions.settle(s, "review", answer)
                path = ws.store.artifact_in_call("review", result)
                transitions.apply_review(
                    s,
                    found,
                    task_id=task["id"],
                    base_sha=snap.base,
                    head_sha=snap.head,
                    fingerprint=snap.tree,
                    review_path=str(path) if path else None,
                )
        except RunChanged:  # a replaced run's calls stay in events.jsonl only
            say("the run was re-planned while Codex reviewed; this review is in events.jsonl, not in the new run")
            return result
        return {**result, "review_path": str(path) if path else None}

    return ws.consult(
        "review",
        text,
        state,
        backend=backend,
        model=model,
        effort=effort,
        deadline=deadline,
        what=f"to review {facts['files']} changed file{'s' if facts['files'] != 1 else ''} against {task['id']}",
        record=record,
    )
