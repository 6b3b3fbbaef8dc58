"""Verdict: Codex decides whether Claude continues with the next task, is done, or the run aborts.

Shared by ``codex-bridge verdict`` and the Stop hook. A verdict advances the run (iteration,
task, base, status) by Codex's decision, the no-progress streak and the iteration limit.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from autopilot import untrusted
from autopilot.errors import BridgeError, RunChanged
from autopilot.loop import control, reviewer, snapshot, status, transitions
from autopilot.loop.prompts import diff_evidence, middle_cut, task_text
from autopilot.loop.reviewer import Answer
from autopilot.loop.state import State
from autopilot.loop.workspace import Workspace
from autopilot.output import say
from autopilot.redact import Redactor

if TYPE_CHECKING:
    from autopilot.loop.shapes import Verdict, VerdictApplied, VerdictNotApplied, VerdictSkipped

MAX_MESSAGE_CHARS = 8000


def decide(
    *,
    last_message: str | None = None,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    cwd: str | None = None,
    deadline: float | None = None,
) -> VerdictApplied | VerdictNotApplied | VerdictSkipped:
    """Ask for a verdict and advance the run by it; returns the decision and the run after it (``codex-bridge
    verdict``).

    ``deadline`` (``time.monotonic()``) bounds the Codex exchange; default: now + AUTOPILOT_TIMEOUT.
    """
    ws = Workspace(cwd)
    result, _after = judge(
        ws, ws.store.load(), last_message=last_message, backend=backend, model=model, effort=effort, deadline=deadline
    )
    return result


def judge(
    ws: Workspace,
    state: State,
    *,
    last_message: str | None = None,
    backend: str | None = None,
    model: str | None = None,
    effort: str | None = None,
    deadline: float | None = None,
    owner: str | None = None,
) -> tuple[VerdictApplied | VerdictNotApplied | VerdictSkipped, State]:
    """:func:`decide` for the run ``state`` of the caller's workspace ``ws`` (the Stop hook's, read once): the
    decision, and the run as the verdict left it (as ``state`` when nothing was asked). ``owner``: the session
    that claims the run, nobody's yet, before Codex is asked (``Workspace.consult``)."""
    plan, task = control.require_run(ws.store, state)
    ws.config  # noqa: B018 - a broken config file fails here, before any work
    if state["status"] != status.RUNNING:
        raise BridgeError(
            f"the run is {state['status']}, not running; there is nothing to decide",
            hint="`codex-bridge status` shows why; `codex-bridge resume` continues a paused run",
        )
    # Nothing done since the plan (e.g. /codex-plan, which only plans): nothing to judge, nothing spent.
    if (
        state["iteration"] == 0
        and state.get("plan_tree")
        and snapshot.work_tree(ws.root, ws.index_cache) == state["plan_tree"]
    ):
        say("nothing has changed since the plan; no verdict was asked for")
        skipped: VerdictSkipped = {
            "applied": False,
            "skipped": True,
            "reason": "nothing has changed since the plan",
            "status": state["status"],
            "iteration": 0,
            "current_task": task,
        }
        return skipped, state
    snap = ws.snapshot_while_loading(state.get("base_sha"))
    if transitions.over_budget(state):  # spent already: refused before any evidence is built (consult checks again)
        control.guard_budget(ws.store, "verdict", state, owner=owner)
    redactor = Redactor()
    evidence, _facts = diff_evidence(ws.config, snap, redactor)
    review = state.get("last_review")
    if review and review.get("task_id") == task["id"]:
        evidence += "\n" + untrusted.evidence(
            "your last review of this task",
            redactor(json.dumps({k: review.get(k) for k in ("decision", "summary", "issues")}, indent=1)),
        )
    if last_message:
        message = middle_cut(redactor(last_message), MAX_MESSAGE_CHARS)
        evidence += "\n" + untrusted.evidence("Claude's last message (a claim, not proof)", message)
    listed = "\n".join(f"- {t['id']}: {t['title']}" for t in plan["tasks"])
    text = reviewer.prompt(
        "verdict",
        iteration=str(state["iteration"]),
        max_iterations=str(state["max_iterations"]),
        goal=redactor(state.get("goal") or ""),
        plan=redactor(listed),
        task_id=task["id"],
        task=redactor(task_text(task)),
        evidence=evidence,
    )

    def record(answer: Answer) -> tuple[VerdictApplied | VerdictNotApplied, State]:
        verdict: Verdict = answer.data
        fingerprint = transitions.work_fingerprint(snap.tree, task["id"], review)
        path, applied, held = None, False, False
        try:
            with ws.store.transaction(expect=state) as s:
                transitions.settle(s, "verdict", answer)
                held = s["status"] == status.RUNNING and transitions.findings_first(s, verdict)
                if s["status"] == status.RUNNING:
                    path = ws.store.artifact_in_call(
                        "verdict",
                        {
                            "task_id": task["id"],
                            "base_sha": snap.base,
                            "head_sha": snap.head,
                            "fingerprint": fingerprint,
                            **verdict,
                            "usd": answer.usd,
                            "redactions": redactor.summary(),
                        },
                    )
                    where = str(path) if path else None
                    if not held:
                        transitions.apply_verdict(
                            s, verdict, head_sha=snap.head, fingerprint=fingerprint, verdict_path=where, tree=snap.tree
                        )
                        applied = True
                after = s.copy()
        except RunChanged as exc:  # re-planned: its calls stay in events.jsonl, not in the new run's budget
            after = exc.now
        if held and not applied:
            say(
                f"Codex's verdict was {verdict['decision']}, but a review that asks for changes finished while it "
                "decided: Claude gets the findings first, and the next stop asks again"
            )
        if not applied:
            if not held:
                say(f"the run changed while Codex decided (now {after['status']}); the verdict was not applied")
            return {"applied": False, "held": held, **verdict, "status": after["status"]}, after
        last = after["last_verdict"]
        result: VerdictApplied = {
            "applied": True,
            **verdict,
            "progressed": last["progressed"] if last else verdict["progressed"],
            "status": after["status"],
            "iteration": after["iteration"],
            "current_task": after["current_task"],
            "no_progress_streak": after["no_progress_streak"],
            "stop_reason": after.get("stop_reason"),
            "verdict_path": str(path),
            "usd": answer.usd,
            "budget_used_usd": after["budget_used_usd"],
            "budget_usd": after["budget_usd"],
        }
        return result, after

    return ws.consult(
        "verdict",
        text,
        state,
        backend=backend,
        model=model,
        effort=effort,
        deadline=deadline,
        what=f"for a verdict on {task['id']} (iteration {state['iteration'] + 1})",
        check=transitions.verdict_check(state),
        record=record,
        owner=owner,
    )
