"""codex-bridge status: this workspace's run (task, iteration, spend and its forecast, last calls) and what
is left of Codex's rate-limit windows; for people, or JSON with --json."""

from __future__ import annotations

from typing import Any

from autopilot.codex import ratelimits
from autopilot.errors import BridgeError
from autopilot.output import emit
from autopilot.run import loop, status
from autopilot.run.state import State

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "status",
        help="summary: task, iteration, spend and forecast, last review/verdict/error, Codex rate limits",
        description="Say what this workspace's run is doing and what it cost (with a forecast: spend per "
        "iteration so far times the iterations left), and what is left of Codex's 5-hour and weekly "
        "rate-limit windows as Codex last recorded them. Changes nothing.",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary (JSON with --json)."""
    from autopilot.run.workspace import Workspace

    ws = Workspace(args.cwd)
    state = ws.store.load(repair=False)
    limits = ratelimits.latest()
    try:
        from autopilot import config

        warn_at: float | None = config.budget_warn_at(ws.config)
    except BridgeError:  # a broken config is reported by the commands that use it; status still answers
        warn_at = None
    if args.json:
        emit(summary(state, limits, warn_at, ws.root))
    else:
        print("\n".join(describe(state, limits, warn_at)))
    return 0


SUMMARY_KEYS = (
    "status",
    "goal",
    "stop_reason",
    "current_task",
    "iteration",
    "max_iterations",
    "no_progress_streak",
    "no_progress_threshold",
    "budget_used_usd",
    "budget_usd",
    "plan_usd",
    "token_usage",
    "backend",
    "model",
    "effort",
    "min_rate_limit_left",
    "owner_session_id",
    "plan_path",
    "last_review",
    "last_verdict",
    "last_error",
    "unknown_models",
)


def summary(state: State, limits: dict[str, Any] | None, warn_at: float | None, workspace: str) -> dict[str, Any]:
    """The run and Codex's windows as one JSON document (``run`` is null when there is no run here)."""
    run = {key: state.get(key) for key in SUMMARY_KEYS} if state.get("plan") else None
    if run is not None:
        run["forecast"] = loop.forecast(state)
        run["budget_warn_at"] = warn_at
    return {"workspace": workspace, "run": run, "rate_limits": limits}


def _usage_line(state: State) -> str:
    parts = []
    for phase in ("plan", "review", "verdict"):
        u = state["token_usage"][phase]
        parts.append(f"{phase} {u['calls']} calls ({u['input']:,} in / {u['cached']:,} cached / {u['output']:,} out)")
    return "; ".join(parts)


def describe(state: State, limits: dict[str, Any] | None = None, warn_at: float | None = None) -> list[str]:
    """The human summary of a run and of Codex's windows, one fact per line."""
    if not state.get("plan"):
        return ["No autopilot run in this workspace.", 'Start one: codex-bridge plan --goal "..."', *_limits(limits)]
    task = state.get("current_task") or {}
    tasks = state["plan"].get("tasks") or []
    lines = [
        f"Goal:       {state.get('goal')}",
        f"Status:     {state['status']}" + (f" ({state['stop_reason']})" if state.get("stop_reason") else ""),
        f"Task:       {task.get('id')}: {task.get('title')}  [{_position(tasks, task)}]",
        f"Iteration:  {state['iteration']} of {state['max_iterations']}; no progress for "
        f"{state['no_progress_streak']} of {state['no_progress_threshold']}",
        f"Spend:      ${state['budget_used_usd']:.4f} of ${state['budget_usd']:.2f}"
        + (f" (plan cost ${state.get('plan_usd', 0):.4f}, not counted)" if state.get("plan_usd") else "")
        + _warned(state, warn_at),
        *_forecast(state),
        f"Tokens:     {_usage_line(state)}",
        f"Backend:    {state.get('backend')}"
        + (f", model {state['model']}" if state.get("model") else "")
        + (f", effort {state['effort']}" if state.get("effort") else ""),
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
    lines += _limits(limits, state.get("min_rate_limit_left"))
    if state["status"] in (*status.PAUSED, status.STOPPED_BUDGET):
        lines.append(
            "Next:       `codex-bridge resume` continues (after `codex-bridge budget set USD` if the "
            "budget is spent; once the window has reset if Codex's rate limit paused it); `codex-bridge stop` "
            "ends the run"
        )
    return lines


def _warned(state: State, warn_at: float | None) -> str:
    """Where the spend stands against the warn level (config budget_warn_at)."""
    if not warn_at:
        return ""
    share = 100 * float(state["budget_used_usd"]) / float(state["budget_usd"])
    return f"; {share:.0f}% used" + (f", past the {warn_at:g}% warning" if share >= warn_at else "")


def _forecast(state: State) -> list[str]:
    ahead = loop.forecast(state)
    if ahead is None:
        return []
    line = (
        f"Forecast:   ${ahead['usd_per_iteration']:.4f} an iteration so far; ${ahead['usd_at_limit']:.4f} by "
        f"iteration {state['max_iterations']}"
    )
    if ahead["over_budget"] and ahead["iterations_affordable"] is not None:
        line += f" (over the cap: the budget pays for {ahead['iterations_affordable']} more)"
    return [line]


def _limits(limits: dict[str, Any] | None, floor: float | None = None) -> list[str]:
    """Codex's windows as its rollouts last recorded them."""
    if limits is None:
        return ["Codex:      no rate-limit windows recorded in the last week of Codex sessions"]
    windows = [ratelimits.window_text(key, limits[key]) for key in ("primary", "secondary") if limits[key]]
    lines = [f"Codex:      {windows[0]}", *(f"            {w}" for w in windows[1:])]
    lines.append(
        f"            (as of {str(limits['at'])[:19].replace('T', ' ')} UTC"
        + (f"; this run pauses below {floor:g}% left)" if floor is not None else ")")
    )
    return lines


def _position(tasks: list[dict[str, Any]], task: dict[str, Any]) -> str:
    ids = [t.get("id") for t in tasks]
    return f"{ids.index(task.get('id')) + 1} of {len(ids)}" if task.get("id") in ids else f"? of {len(ids)}"
