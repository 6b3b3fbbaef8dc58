"""Steering a run without Codex: stop, resume, the budget guard and the spend cap.

The CLI (``codex-bridge stop | resume | budget``), the hooks and the dashboard call these; each
changes the run inside one transaction and returns what it did, as the CLI prints it.
"""

from __future__ import annotations

from typing import Any

from autopilot.errors import BridgeError
from autopilot.run import loop, status
from autopilot.run.workspace import Workspace


def stop(reason: str, *, cwd: str | None = None) -> dict[str, Any]:
    """Return the run to idle, keeping token_usage and spend."""
    ws = Workspace(cwd)
    if not ws.store.exists():
        raise BridgeError(f"there is no autopilot run in {ws.root} to stop")
    with ws.store.transaction() as s:
        loop.apply_stop(s, reason or "stopped by the user")
        after = dict(s)
    return {
        "status": after["status"],
        "stop_reason": after["stop_reason"],
        "token_usage": after["token_usage"],
        "budget_used_usd": after["budget_used_usd"],
    }


def resume(*, cwd: str | None = None) -> dict[str, Any]:
    """Set a paused, budget-stopped or iteration-limited run running again, with its failure counts cleared."""
    ws = Workspace(cwd)
    state = ws.store.load()
    ws.require_run(state)
    if state["status"] == status.RUNNING:
        return {"status": status.RUNNING, "resumed": False}
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
        s.update(status=status.RUNNING, stop_reason=None, consecutive_errors=0, verdict_errors=0, consecutive_blocks=0)
        after = dict(s)
    return {"status": after["status"], "resumed": True, "max_iterations": after["max_iterations"]}


def check_budget(*, cwd: str | None = None) -> dict[str, Any]:
    """budget-guard: flip a running run that is over its cap to stopped_budget; ``over_budget`` says if it is."""
    ws = Workspace(cwd)
    state = ws.store.load()
    flipped = False
    if state["status"] == status.RUNNING and loop.over_budget(state):
        with ws.store.transaction() as s:
            flipped = loop.budget_guard(s)
            state = dict(s)
    return {
        "status": state["status"],
        "budget_used_usd": state["budget_used_usd"],
        "budget_usd": state["budget_usd"],
        "over_budget": loop.over_budget(state) and bool(state.get("plan")),
        "stopped_now": flipped,
    }


def set_budget(usd: float, *, cwd: str | None = None) -> dict[str, Any]:
    """Change the run's spend cap."""
    from autopilot import config

    value = float(config.positive_number("budget", usd))
    ws = Workspace(cwd)
    if not ws.store.exists():
        raise BridgeError(f"there is no autopilot run in {ws.root}", hint="give --budget to `codex-bridge plan`")
    with ws.store.transaction() as s:
        s["budget_usd"] = value
        after = dict(s)
    return {"budget_usd": after["budget_usd"], "budget_used_usd": after["budget_used_usd"], "status": after["status"]}
