"""SessionStart and UserPromptSubmit: tell Claude what the run is doing; the budget guard and its warning."""

from __future__ import annotations

from autopilot.hooks import slash
from autopilot.hooks.context import Hook, Output, alert, context, cost_text, notice, task_text, with_budget_warning
from autopilot.run import control, loop, status


def session_start(hook: Hook) -> Output | None:
    """The current task as context while a run is active; how to resume one that is paused."""
    state, refusal = hook.engage((status.RUNNING, *status.PAUSED))
    if state is None:
        return refusal
    if state["status"] in status.PAUSED:
        return notice(
            f"the autopilot run is paused ({state['status']}: {state.get('stop_reason')}). "
            f"{slash.RESUME} continues it; {slash.STOP} ends it."
        )
    return context(
        "SessionStart",
        f"codex-autopilot run active. Goal: {state.get('goal')}\n"
        "Codex reviews your edits against the current task and decides, each time you end your turn, "
        "whether you continue with another task.\n" + task_text(state.get("current_task")),
    )


def session_end(hook: Hook) -> Output | None:
    """On /clear the owner's session id changes: release the run so the cleared session claims it again."""
    state = hook.store.load()
    if hook.data.get("reason") != "clear" or not hook.session_id or state.get("owner_session_id") != hook.session_id:
        return None
    control.release(hook.store, hook.session_id)
    return None


def user_prompt_submit(hook: Hook) -> Output | None:
    """budget-guard, then one short line naming the current task; a new prompt resets the Stop-block count."""
    state, refusal = hook.engage()
    if state is None:
        return refusal
    if loop.over_budget(state) or state.get("consecutive_blocks"):
        state, stopped = control.new_turn(hook.store, state)  # Claude Code counts Stop blocks per user turn
        if stopped:
            return alert(
                f"the autopilot run stopped: {state['stop_reason']} ({cost_text(state)}). Claude carries on "
                f"without Codex; `codex-bridge budget set USD` then {slash.RESUME} continues the run."
            )
    prompt = hook.data.get("prompt")
    if state["status"] != status.RUNNING or (isinstance(prompt, str) and prompt.lstrip().startswith("/")):
        return None  # a slash command brings its own context (and /autopilot may be replacing this task)
    task = state.get("current_task")
    task_id, title = (task.get("id"), task.get("title")) if task else (None, None)
    return with_budget_warning(
        hook,
        state,
        context(
            "UserPromptSubmit",
            f"codex-autopilot: current task {task_id}: {title} (iteration "
            f"{state['iteration']} of {state['max_iterations']}); end your turn when it is done.",
        ),
    )


def codex_side_notice(out: Output | None, installed: str) -> Output:
    """``out`` with a notice that the Codex side was set up by ``installed``, not by this updated plugin."""
    from autopilot import __version__

    said = (
        f"codex-autopilot was updated to {__version__}, but its Codex side ($handoff, $from-claude) was set up by "
        f"{installed if installed[:1].isdigit() else 'an earlier version'}: run {slash.SETUP} again "
        "(with --trust if you trusted the hook that way) to bring it up to date."
    )
    answer: Output = dict(out or {})
    before = answer.get("systemMessage")
    answer["systemMessage"] = f"{before}\n{said}" if isinstance(before, str) and before else said
    return answer
