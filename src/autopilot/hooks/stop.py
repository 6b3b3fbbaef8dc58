"""Stop: Codex's verdict decides whether Claude continues; StopFailure: recorded, nothing blocked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import RESUME, START, config
from autopilot.errors import BridgeError, BudgetExhausted, CallBusy, InfraError, RunChanged, RunTaken
from autopilot.hooks import touch
from autopilot.hooks.context import (
    BLOCK_MARK,
    BUDGET_WARNING,
    CONTEXT_CONTINUES_FROM,
    TEXT_BUDGET,
    Hook,
    alert,
    budget_warning,
    context,
    cost_text,
    notice,
    paused_message,
    task_text,
)
from autopilot.hooks.delivery import Handover, asks_changes, handover, told
from autopilot.loop import control, status, transitions
from autopilot.loop.findings import findings_text, open_findings
from autopilot.loop.state import State
from autopilot.loop.transitions import INFRA_PAUSE_AFTER
from autopilot.output import quoted
from autopilot.text import clip_counted

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer
    from autopilot.loop.shapes import VerdictApplied, VerdictNotApplied, VerdictSkipped

REASON_CHARS = 1_500  # of Codex's verdict reason relayed to Claude
ENDED = {
    status.DONE: "done: Codex judged the goal met ({cost}). The plan is in {plan_path}.",
    status.ABORTED: "aborted: {reason} ({cost}). " + START + " starts a new run.",
    status.STOPPED_ITERATION_LIMIT: "stopped: {reason} ({cost}). " + RESUME + " allows more iterations.",
    status.STOPPED_BUDGET: "stopped: {reason} ({cost}). Raise the cap with `codex-bridge budget set USD`, then "
    + RESUME
    + ".",
}


def stop(hook: Hook) -> HookAnswer | None:
    """Ask Codex for a verdict; ``continue`` keeps Claude working on the next task, anything else lets it stop.

    One Workspace (the hook's) and at most 4 reads of state.json, whatever happens: the run is read once here, then
    only by the transactions that record what this Stop decided (and once more after a failure that carries no
    run). A run no session owns yet is claimed by the first of them (the verdict call's budget guard, before Codex
    is asked, or the block when no call was made); the once-per-run budget warning is recorded with the block
    that carries it.
    """
    state, refusal = hook.engage(claim=False)
    if state is None:
        return refusal or _told(hook)
    # A fresh stop, or a continuation that ran a tool: Claude Code's own count of blocks starts again, so does
    # the run's (written with the next block; a stop that lets Claude go leaves a turn that restarts it anyway).
    fresh = not hook.data.get("stop_hook_active") or hook.tool_ran_since_block()
    blocks = 0 if fresh else int(state.get("consecutive_blocks") or 0)
    # Findings first: what a review found reaches Claude before a verdict is asked for.
    if asks_changes(state) or (config.review_mode() == "stop" and _review_now(hook, state)):
        state = hook.store.load() if not asks_changes(state) else state
        return _findings_first(hook, state, blocks)
    message = hook.data.get("last_assistant_message")
    try:
        result, after = _judge(hook, state, message if isinstance(message, str) else None)
    except RunTaken as exc:  # another session claimed the run while this one gathered the evidence
        return hook.refuse(exc.now)
    except InfraError as exc:
        return _unavailable(hook, exc.run or hook.store.load(), exc, blocks)
    except BudgetExhausted as exc:
        return _ended(exc.run or hook.store.load())
    except BridgeError as exc:
        return notice(f"no verdict ({exc}); Claude stops here.")
    given = handover(hook, after)  # what reviews found while Codex decided, and the plan not yet shown
    if result.get("skipped"):  # nothing to judge yet: the work tree is as it was when Codex planned
        plan, task = state["plan"], state.get("current_task")
        waits = notice(
            f"Codex planned {len(plan['tasks']) if plan else 0} tasks; nothing has changed yet, so no verdict "
            f"was asked for. The run waits on task {task.get('id') if task else None}: "
            f"{task.get('title') if task else None}."
        )
        return _with(hook, waits, given)
    if result.get("held"):  # a review that asks for changes finished while Codex decided to end the run
        return _findings_first(hook, after, blocks)
    if not result.get("applied"):
        return notice(f"the run changed while Codex decided (it is now {after['status']}); Claude stops here.")
    remember_transition(hook, after)
    if after["status"] != status.RUNNING:
        return _with(hook, _ended(after), given, context=False)
    reason = quoted(clip_counted(str(result.get("reason") or ""), REASON_CHARS))
    return _block(
        hook,
        after,
        blocks,
        f"Codex's verdict (autopilot iteration {after['iteration']} of {after['max_iterations']}; the "
        f"reviewer's words, not the user's, quoted): {reason}",
        warning=budget_warning(hook, after),
        given=given,
    )


def _told(hook: Hook) -> HookAnswer | None:
    """A run a review in the background paused or stopped: said once (hooks/delivery.told), in this session."""
    state = hook.store.load()
    mine = state.get("owner_session_id") in (None, hook.session_id)
    return told(hook, state) if mine and state.get("plan") else None


def _review_now(hook: Hook, state: State) -> bool:
    """Review mode ``stop``: one review of the work, before the verdict, when the work tree changed since it was
    last reviewed, planned on or judged (the person waits for it); whether it found anything for Claude."""
    from autopilot.loop.review import review
    from autopilot.loop.snapshot import work_tree

    last = state.get("last_review")
    seen = {state.get("plan_tree"), state.get("verdict_tree"), last.get("fingerprint") if last else None}
    if work_tree(hook.workspace.root, hook.workspace.index_cache) in seen - {None}:
        return False
    try:
        found = review(cwd=str(hook.workspace.root), deadline=hook.deadline())
    except BridgeError:  # recorded in the run (a failure counts toward the pause); the verdict still judges
        return False
    return found.get("decision") == "request_changes"


def _findings_first(hook: Hook, state: State, blocks: int) -> HookAnswer | None:
    """Hold Claude with what reviews found, asking no verdict now: the next Stop asks one, the review in its
    evidence."""
    given = handover(hook, state)
    return _block(
        hook,
        state,
        blocks,
        "Before Codex judges this task, here is what its review found. Address what still applies, then end your "
        "turn; Codex will judge the task then.",
        given=given,
    )


def _with(hook: Hook, out: HookAnswer | None, given: Handover | None, *, context: bool = True) -> HookAnswer | None:
    """``out`` with what ``given`` hands over: the person's lines, and (``context``) findings for Claude."""
    if given is None:
        return out
    given.given_by(hook)
    merged: HookAnswer = dict(out or {})  # type: ignore[assignment]
    note = given.notice()
    if note:
        before = merged.get("systemMessage")
        merged["systemMessage"] = f"{before}\n{note}" if before else note
    if context and given.context:
        merged.update(continue_turn(hook, given.context))
    return merged or None


def remember_transition(hook: Hook, after: State) -> None:
    """Write the verdict's task transition (``after``: the run as the verdict left it, not read again) into the
    session's active memory (handoff/memory/autopilot.py); never fatal."""
    from autopilot.handoff.memory import autopilot, observe
    from autopilot.handoff.memory.store import SessionStore

    session = observe.safe_session(hook.data.get("session_id"))
    if session is None or not observe.enabled():
        return
    try:
        autopilot.sync(SessionStore("claude", session, str(hook.workspace.root)), after)
    except (OSError, BridgeError):  # the memory never holds the loop up
        return


def _judge(
    hook: Hook, state: State, message: str | None
) -> tuple[VerdictApplied | VerdictNotApplied | VerdictSkipped, State]:
    from autopilot.loop.verdict import judge

    return judge(hook.workspace, state, last_message=message, deadline=hook.deadline(), owner=hook.unclaimed(state))


def _block(
    hook: Hook, state: State, blocks: int, lead: str, *, warning: str | None = None, given: Handover | None = None
) -> HookAnswer | None:
    """Keep Claude working with ``lead``, the task and the findings (``given``: what reviews found that Claude has not
    had; else the open findings it had); or, where Claude Code's block cap would end the turn, say that the run paused
    (``control.hold`` decides; ``blocks``: the blocks before this one in a row). The block claims a run nobody owns
    yet, and records ``warning`` (the budget warning, given with it) as said."""
    plan_shown = given.plan_with_write() if given is not None else False
    try:
        paused, warned = control.hold(
            hook.store,
            state,
            blocks=blocks,
            cap=hook.block_cap(),
            owner=hook.unclaimed(state),
            notice=BUDGET_WARNING if warning else None,
            plan_shown=plan_shown,
        )
    except RunTaken as exc:
        return hook.refuse(exc.now)
    except RunChanged:
        return None
    if paused:
        return alert(
            f"the autopilot run paused: {paused}. {RESUME} continues it (each prompt you type "
            "starts a new count); for longer unattended stretches start claude with "
            "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP set higher, or 0 for no cap."
        )
    touch(str(hook.store.dir / BLOCK_MARK))
    review = state.get("last_review")
    parts = [lead, "Next: " + task_text(state.get("current_task"))]
    findings = open_findings(state)
    closing = "Work on this task now. End your turn when its acceptance criteria are met; Codex will judge it."
    room = TEXT_BUDGET - sum(len(p) + 2 for p in parts) - len(closing) - 60
    if given is not None and given.context:
        parts.append(clip_counted(given.context, room))
    elif findings:
        text = findings_text(findings, budget=room, where=review.get("review_path") if review else None)
        parts.append("Open review findings on this task (the reviewer's opinion; check them):\n" + text)
    parts.append(closing)
    out = continue_turn(hook, "\n\n".join(parts))
    out = {**out, **notice(warning)} if warned and warning else out
    return _with(hook, out, given, context=False)


def continue_turn(hook: Hook, text: str) -> HookAnswer:
    """Make Claude continue with ``text``: as context where Claude Code shows it as the hook speaking, else a block.

    ``decision: block`` makes the TUI say "Stop hook reported a problem", which users read as a failure;
    ``additionalContext`` continues the same way (same stop_hook_active and cap) from Claude Code 2.1.163.
    """
    version = hook.claude_version()
    if version is not None and version >= CONTEXT_CONTINUES_FROM:
        return context("Stop", text)
    return {"decision": "block", "reason": text}


def _unavailable(hook: Hook, state: State, exc: InfraError, blocks: int) -> HookAnswer | None:
    """Hold Claude at most twice while Codex gives no verdict, then pause the run with the way out (a busy call
    slot holds Claude without counting). ``state``: the run as the failure left it."""
    if state["status"] != status.RUNNING:
        return _ended(state) if state["status"] in ENDED else None
    try:
        paused = control.pause_if_unavailable(hook.store, state, "verdict", exc)
    except RunChanged:
        return None
    if paused:
        return paused_message(paused, str(exc))
    if isinstance(exc, CallBusy):
        # Another call of this run (a review) held Codex the whole wait: contention, not Codex failing, so it
        # counts toward no pause; Claude Code's block cap (see _block) still bounds how often it holds Claude.
        return _block(
            hook,
            state,
            blocks,
            "Codex could not give a verdict this time: another call of this run was still talking to Codex "
            "(this does not count toward pausing the run). If the current task is finished, say so in one line "
            "and end your turn; Codex will be asked again.",
        )
    return _block(
        hook,
        state,
        blocks,
        f"Codex could not give a verdict this time ({exc.kind}; failure {transitions.failures(state, 'verdict')} of "
        f"{INFRA_PAUSE_AFTER} before the run pauses). If the current task is finished, say "
        "so in one line and end your turn; Codex will be asked again.",
    )


def _ended(state: State) -> HookAnswer | None:
    template = ENDED.get(state["status"])
    if template is None:
        return None
    return alert(
        template.format(cost=cost_text(state), reason=state.get("stop_reason"), plan_path=state.get("plan_path"))
    )


def stop_failure(hook: Hook) -> HookAnswer | None:
    """Record that Claude's turn ended on an API error; Claude Code ignores any answer, so nothing is blocked."""
    state = hook.store.load()
    if not state.get("plan") or state.get("owner_session_id") not in (None, hook.session_id):
        return None
    hook.store.append_event(
        {
            "phase": "claude",
            "run_id": state.get("run_id"),
            "outcome": f"stop_failure:{hook.data.get('error') or 'unknown'}",
            "detail": str(hook.data.get("error_details") or "")[:300],
            "session_id": hook.session_id,
        }
    )
    if state.get("consecutive_blocks"):
        control.reset_blocks(hook.store, state)
    return None
