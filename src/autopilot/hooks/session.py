"""SessionStart and UserPromptSubmit: tell Claude what the run is doing; the budget guard and its warning."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from autopilot import RESUME, SETUP, STOP, config
from autopilot.errors import RunTaken
from autopilot.hooks import REVIEW_LEFT, TOOL_MARK
from autopilot.hooks.context import (
    BUDGET_WARNING,
    Hook,
    alert,
    budget_warning,
    context,
    cost_text,
    notice,
    task_text,
)
from autopilot.hooks.delivery import handover
from autopilot.loop import control, status, transitions

if TYPE_CHECKING:
    from autopilot.hooks import Json
    from autopilot.hooks.shapes import HookAnswer


def session_start(hook: Hook) -> HookAnswer | None:
    """The current task as context while a run is active; how to resume one that is paused. A review an earlier
    session's worker left running at the provider is fetched now, by a worker of this session (whatever the run's
    status: its cost is the run's)."""
    if os.path.exists(os.path.join(hook.store.dir, REVIEW_LEFT)):
        collect_left(hook)
    state, refusal = hook.engage((status.RUNNING, *status.PAUSED))
    if state is None:
        return refusal
    if state["status"] in status.PAUSED:
        return notice(
            f"the autopilot run is paused ({state['status']}: {state.get('stop_reason')}). "
            f"{RESUME} continues it; {STOP} ends it."
        )
    text = (
        f"codex-autopilot run active. Goal: {state.get('goal')}\n"
        "Codex reviews your edits against the current task and decides, each time you end your turn, "
        "whether you continue with another task.\n" + task_text(state.get("current_task"))
    )
    given = handover(hook, state)  # what reviews found that no session was given yet (a kill, a new session)
    if given is None:
        return context("SessionStart", text)
    given.given_by(hook)
    out = context("SessionStart", f"{text}\n\n{given.context}" if given.context else text)
    note = given.notice()
    return {**out, "systemMessage": note} if note else out


def collect_left(hook: Hook) -> None:
    """Start the run's review worker to fetch the review left running, unless one runs (it does so first)."""
    from autopilot.loop import review_worker

    if review_worker.running(hook.store):
        return
    claude = config.env("CLAUDE_PID")
    review_worker.start_worker(
        hook.store,
        hook.workspace.root,
        claude_pid=int(claude) if claude and claude.isdigit() else None,
        tool_mark=str(hook.store.dir / TOOL_MARK),
    )


def session_end(hook: Hook) -> HookAnswer | None:
    """On /clear the owner's session id changes: release the run so the cleared session claims it again."""
    state = hook.store.load()
    if hook.data.get("reason") != "clear" or not hook.session_id or state.get("owner_session_id") != hook.session_id:
        return None
    control.release(hook.store, hook.session_id)
    return None


def user_prompt_submit(hook: Hook) -> HookAnswer | None:
    """budget-guard, then one short line naming the current task; a new prompt resets the Stop-block count.

    What the prompt changes is one transaction (``control.new_turn``): the claim of a run no session owns, the
    block count starting again, the budget guard and the once-per-run budget warning the answer carries.
    """
    state, refusal = hook.engage(claim=False)
    if state is None:
        return refusal
    prompt = hook.data.get("prompt")
    # a slash command brings its own context (and /autopilot may be replacing this task): no task line, no warning
    command = isinstance(prompt, str) and prompt.lstrip().startswith("/")
    warning = None if command else budget_warning(hook, state)
    owner = hook.unclaimed(state)
    warned = False
    if owner or warning or transitions.over_budget(state) or state.get("consecutive_blocks"):
        try:  # Claude Code counts Stop blocks per user turn
            state, stopped, warned = control.new_turn(
                hook.store, state, owner=owner, notice=BUDGET_WARNING if warning else None
            )
        except RunTaken as exc:
            return hook.refuse(exc.now)
        if stopped:
            return alert(
                f"the autopilot run stopped: {state['stop_reason']} ({cost_text(state)}). Claude carries on "
                f"without Codex; `codex-bridge budget set USD` then {RESUME} continues the run."
            )
    if state["status"] != status.RUNNING or command:
        return None
    task = state.get("current_task")
    task_id, title = (task.get("id"), task.get("title")) if task else (None, None)
    out = context(
        "UserPromptSubmit",
        f"codex-autopilot: current task {task_id}: {title} (iteration "
        f"{state['iteration']} of {state['max_iterations']}); end your turn when it is done.",
    )
    return {**out, **notice(warning)} if warned and warning else out


def show_status(data: Json) -> HookAnswer:
    """``/codex-status`` typed: the run as ``codex-bridge status`` says it, shown to the person as the prompt's block
    reason, so no model turn is spent on it (the skill of the same name stays for Claude Code versions that do not
    run this hook first)."""
    from autopilot.codex import ratelimits
    from autopilot.errors import BridgeError
    from autopilot.loop import summary
    from autopilot.loop.workspace import Workspace

    try:
        state = Workspace(str(data.get("cwd") or ".")).store.load(repair=False)
        text = "\n".join(summary.describe(state, ratelimits.latest(), summary.warn_level()))
    except BridgeError as exc:
        text = str(exc)  # with its hint
    return {"decision": "block", "reason": f"codex-autopilot status\n{text}"}


def codex_side_notice(out: HookAnswer | None, installed: str) -> HookAnswer:
    """``out`` with a notice that the Codex side was set up by ``installed``, not by this updated plugin."""
    from autopilot import __version__

    said = (
        f"codex-autopilot was updated to {__version__}, but its Codex side ($handoff, $from-claude) was set up by "
        f"{installed if installed[:1].isdigit() else 'an earlier version'}: run {SETUP} again "
        "(with --trust if you trusted the hook that way) to bring it up to date."
    )
    answer: HookAnswer = out.copy() if out else {}
    before = answer.get("systemMessage")
    answer["systemMessage"] = f"{before}\n{said}" if isinstance(before, str) and before else said
    return answer
