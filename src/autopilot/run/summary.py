"""A run in words: the human summary `codex-bridge status` prints (and the dashboard shows), one fact per line."""

from __future__ import annotations

from typing import Any

from autopilot.run import status
from autopilot.run.state import State


def _usage_line(state: State) -> str:
    parts = []
    for phase in ("plan", "review", "verdict"):
        u = state["token_usage"][phase]
        parts.append(f"{phase} {u['calls']} calls ({u['input']:,} in / {u['cached']:,} cached / {u['output']:,} out)")
    return "; ".join(parts)


def describe(state: State) -> list[str]:
    """The human summary of a run, one fact per line."""
    if not state.get("plan"):
        return ["No autopilot run in this workspace.", 'Start one: codex-bridge plan --goal "..."']
    task = state.get("current_task") or {}
    tasks = state["plan"].get("tasks") or []
    lines = [
        f"Goal:       {state.get('goal')}",
        f"Status:     {state['status']}" + (f" ({state['stop_reason']})" if state.get("stop_reason") else ""),
        f"Task:       {task.get('id')}: {task.get('title')}  [{_position(tasks, task)}]",
        f"Iteration:  {state['iteration']} of {state['max_iterations']}; no progress for "
        f"{state['no_progress_streak']} of {state['no_progress_threshold']}",
        f"Spend:      ${state['budget_used_usd']:.4f} of ${state['budget_usd']:.2f}"
        + (f" (plan cost ${state.get('plan_usd', 0):.4f}, not counted)" if state.get("plan_usd") else ""),
        f"Tokens:     {_usage_line(state)}",
        f"Backend:    {state.get('backend')}" + (f", model {state['model']}" if state.get("model") else ""),
        f"Owner:      {state.get('owner_session_id') or 'unclaimed (the first Claude session claims it)'}",
        f"Plan file:  {state.get('plan_path')}",
    ]
    review = state.get("last_review")
    if review:
        lines.append(
            f"Review:     {review['decision']} on {review['task_id']}, {review['issues_count']} issues "
            f"({review['timestamp']}): {review['summary'][:160]}"
        )
    verdict = state.get("last_verdict")
    if verdict:
        lines.append(
            f"Verdict:    {verdict['decision']} ({'progress' if verdict['progressed'] else 'no progress'}, "
            f"{verdict['timestamp']}): {verdict['reason'][:160]}"
        )
    error = state.get("last_error")
    if error:
        lines.append(
            f"Last error: {error['phase']} {error['kind']} ({error['timestamp']}, "
            f"{state.get('consecutive_errors', 0)} in a row): {error['message'][:200]}"
        )
    if state.get("unknown_models"):
        lines.append(
            f"Warning:    no price for {', '.join(state['unknown_models'])}; charged at the conservative "
            "default (add them to $AUTOPILOT_HOME/prices.yaml)"
        )
    if state["status"] in (*status.PAUSED, status.STOPPED_BUDGET):
        lines.append(
            "Next:       `codex-bridge resume` continues (after `codex-bridge budget set USD` if the "
            "budget is spent); `codex-bridge stop` ends the run"
        )
    return lines


def _position(tasks: list[dict[str, Any]], task: dict[str, Any]) -> str:
    ids = [t.get("id") for t in tasks]
    return f"{ids.index(task.get('id')) + 1} of {len(ids)}" if task.get("id") in ids else f"? of {len(ids)}"
