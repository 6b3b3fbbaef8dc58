"""codex-bridge state / status / stop / resume / budget: look at and steer a run without Codex."""

from __future__ import annotations

import sys

from autopilot.errors import EXIT_BUDGET, BridgeError
from autopilot.output import emit
from autopilot.run import loop, status
from autopilot.run.state import State, all_runs
from autopilot.run.workspace import Workspace

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the hot path
if TYPE_CHECKING:
    from typing import Any


def show_state(*, all_runs_flag: bool = False, cwd: str | None = None) -> int:
    """Print this workspace's state.json (or every run with --all) as JSON."""
    if all_runs_flag:
        emit(all_runs())
        return 0
    ws = Workspace(cwd)
    emit({**ws.store.load(), "run_dir": str(ws.store.dir), "exists": ws.store.exists()})
    return 0


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


def show_status(*, cwd: str | None = None) -> int:
    """Print the human summary of this workspace's run."""
    ws = Workspace(cwd)
    print("\n".join(describe(ws.store.load())))
    return 0


def stop(reason: str, *, cwd: str | None = None) -> int:
    """Return the run to idle, keeping token_usage and spend; prints the new state."""
    ws = Workspace(cwd)
    if not ws.store.exists():
        raise BridgeError(f"there is no autopilot run in {ws.root} to stop")
    with ws.store.transaction() as s:
        loop.apply_stop(s, reason or "stopped by the user")
        after = dict(s)
    emit(
        {
            "status": after["status"],
            "stop_reason": after["stop_reason"],
            "token_usage": after["token_usage"],
            "budget_used_usd": after["budget_used_usd"],
        }
    )
    return 0


def resume(*, cwd: str | None = None) -> int:
    """Set a paused or budget-stopped run running again, with its failure counters cleared."""
    ws = Workspace(cwd)
    state = ws.store.load()
    ws.require_run(state)
    if state["status"] == loop.RUNNING:
        emit({"status": status.RUNNING, "resumed": False})
        return 0
    if state["status"] not in status.RESUMABLE:
        raise BridgeError(
            f"a run that is {state['status']} cannot be resumed", hint='plan a new one: codex-bridge plan --goal "..."'
        )
    with ws.store.transaction() as s:
        if loop.over_budget(s):
            raise BridgeError(
                f"the budget is spent (${s['budget_used_usd']:.4f} of ${s['budget_usd']:.2f})",
                hint="raise it first: codex-bridge budget set USD",
            )
        if s["status"] == status.STOPPED_ITERATION_LIMIT:
            s["max_iterations"] = s["iteration"] + max(1, s["max_iterations"] // 2)
        s.update(status=loop.RUNNING, stop_reason=None, consecutive_errors=0, verdict_errors=0, consecutive_blocks=0)
        after = dict(s)
    emit({"status": after["status"], "resumed": True, "max_iterations": after["max_iterations"]})
    return 0


def budget_check(*, cwd: str | None = None) -> int:
    """budget-guard: flip a running run that is over its cap to stopped_budget; exit 4 when over."""
    ws = Workspace(cwd)
    state = ws.store.load()
    flipped = False
    if state["status"] == loop.RUNNING and loop.over_budget(state):
        with ws.store.transaction() as s:
            flipped = loop.budget_guard(s)
            state = dict(s)
    over = loop.over_budget(state) and bool(state.get("plan"))
    emit(
        {
            "status": state["status"],
            "budget_used_usd": state["budget_used_usd"],
            "budget_usd": state["budget_usd"],
            "over_budget": over,
            "stopped_now": flipped,
        }
    )
    return EXIT_BUDGET if over else 0


def budget_set(usd: float, *, cwd: str | None = None) -> int:
    """Change the run's budget cap."""
    from autopilot import config

    value = float(config.positive_number("budget", usd))
    ws = Workspace(cwd)
    if not ws.store.exists():
        raise BridgeError(f"there is no autopilot run in {ws.root}", hint="give --budget to `codex-bridge plan`")
    with ws.store.transaction() as s:
        s["budget_usd"] = value
        after = dict(s)
    if loop.over_budget(after):
        print(f"codex-bridge: still over budget (${after['budget_used_usd']:.4f} spent)", file=sys.stderr)
    emit({"budget_usd": after["budget_usd"], "budget_used_usd": after["budget_used_usd"], "status": after["status"]})
    return 0
