"""A run for people and for pages: the lines `codex-bridge status` prints, and the same run as JSON.

:func:`describe` is the human summary, one fact per line; :func:`summary` is the run's facts as
JSON (``status --json --all`` and the dashboard's run list); :func:`report` adds the last
review's findings, the last verdict's criteria and the newest calls from ``events.jsonl``
(``status --json`` and the dashboard's run view). Reads only: nothing here changes a run, and
files are read only from the run's own directory, whatever path state.json records.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import config
from autopilot.codex import ratelimits
from autopilot.errors import BridgeError
from autopilot.loop import status, transitions
from autopilot.loop.state import State, all_runs

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from autopilot.codex.shapes import RateLimits
    from autopilot.loop.shapes import (
        Call,
        Calls,
        CorruptRun,
        CorruptSummary,
        ListedRun,
        RunList,
        RunReport,
        RunSummary,
        Task,
    )


def _usage_line(state: State) -> str:
    parts = []
    for phase in ("plan", "review", "verdict"):
        u = state["token_usage"][phase]
        parts.append(f"{phase} {u['calls']} calls ({u['input']:,} in / {u['cached']:,} cached / {u['output']:,} out)")
    return "; ".join(parts)


def describe(
    state: State, limits: RateLimits | None = None, warn_at: float | None = None, *, windows: bool = True
) -> list[str]:
    """The human summary of a run and (unless ``windows`` is false) of Codex's windows, one fact per line."""
    if not state.get("plan"):
        start = ["No autopilot run in this workspace.", 'Start one: codex-bridge plan --goal "..."']
        return [*start, *_limits(limits)] if windows else start
    task: Task | dict[str, str] = state.get("current_task") or {}
    plan = state["plan"]
    tasks = (plan.get("tasks") or []) if plan else []
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
    if windows:
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
    ahead = transitions.forecast(state)
    if ahead is None:
        return []
    line = (
        f"Forecast:   ${ahead['usd_per_iteration']:.4f} an iteration so far; ${ahead['usd_at_limit']:.4f} by "
        f"iteration {state['max_iterations']}"
    )
    if ahead["over_budget"] and ahead["iterations_affordable"] is not None:
        line += f" (over the cap: the budget pays for {ahead['iterations_affordable']} more)"
    return [line]


def _limits(limits: RateLimits | None, floor: float | None = None) -> list[str]:
    """Codex's windows as its rollouts last recorded them."""
    if limits is None:
        return ["Codex:      no rate-limit windows recorded in the last week of Codex sessions"]
    pairs = (("primary", limits["primary"]), ("secondary", limits["secondary"]))
    windows = [ratelimits.window_text(key, window) for key, window in pairs if window]
    lines = [f"Codex:      {windows[0]}", *(f"            {w}" for w in windows[1:])]
    lines.append(
        f"            (as of {str(limits['at'])[:19].replace('T', ' ')} UTC"
        + (f"; this run pauses below {floor:g}% left)" if floor is not None else ")")
    )
    return lines


def _position(tasks: list[Task], task: Task | dict[str, str]) -> str:
    ids = [t.get("id") for t in tasks]
    key = task.get("id")
    return f"{ids.index(key) + 1} of {len(ids)}" if key is not None and key in ids else f"? of {len(ids)}"


RUN_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,40}-[0-9a-f]{12}")  # runs/<slug>-<hash12>, as paths.run_dir names them
ARTIFACT = re.compile(r"(review|verdict|plan)-[0-9A-Za-z.:-]{1,80}\.json")
EVENTS_TAIL_BYTES = 1 << 20  # the newest MiB of events.jsonl is read (thousands of calls)
CALLS = 300  # the newest calls a report lists


def warn_level() -> float | None:
    """The budget warning level from the user's config (None when the config cannot be read: the commands
    that use it report that; a summary still answers)."""
    try:
        return config.budget_warn_at(config.load_config())
    except BridgeError:
        return None


def _unreadable(run: ListedRun | CorruptRun) -> TypeIs[CorruptRun]:
    """Whether all_runs() could not read this run's state.json."""
    return run.get("status") == "corrupt"


def summary(state: ListedRun | CorruptRun, warn_at: float | None = None) -> RunSummary | CorruptSummary:
    """A run's facts as JSON (what `status --json --all` lists and the dashboard shows for each run)."""
    run_dir = state.get("run_dir")
    run, now = os.path.basename(run_dir) if run_dir else None, state.get("status")
    if _unreadable(state):  # all_runs() could not read it
        return {
            "run": run,
            "run_dir": run_dir,
            "status": now,
            "error": state.get("error"),
            "exists": False,
            "resumable": False,
            "stoppable": False,
        }
    task = state.get("current_task") or None
    plan = state.get("plan")
    tasks = (plan.get("tasks") or []) if plan else []
    ids = [t.get("id") for t in tasks]
    used, budget = float(state.get("budget_used_usd") or 0), float(state.get("budget_usd") or 0)
    return {
        "run": run,
        "run_dir": run_dir,
        "status": now,
        "workspace": state.get("workspace"),
        "exists": bool(state.get("plan")),
        "goal": state.get("goal"),
        "stop_reason": state.get("stop_reason"),
        "task": None
        if task is None
        else {
            "id": task.get("id"),
            "title": task.get("title"),
            "description": task.get("description"),
            "acceptance": list(task.get("acceptance") or []),
            "position": ids.index(task.get("id")) + 1 if task.get("id") in ids else None,
            "of": len(ids),
        },
        "iteration": state.get("iteration", 0),
        "max_iterations": state.get("max_iterations"),
        "no_progress_streak": state.get("no_progress_streak", 0),
        "no_progress_threshold": state.get("no_progress_threshold"),
        "spend": {
            "used_usd": used,
            "budget_usd": budget,
            "plan_usd": float(state.get("plan_usd") or 0),
            "fraction": round(used / budget, 4) if budget > 0 else None,
        },
        "token_usage": state.get("token_usage"),
        "forecast": transitions.forecast(state),
        "budget_warn_at": warn_at,
        "backend": state.get("backend"),
        "model": state.get("model"),
        "effort": state.get("effort"),
        "min_rate_limit_left": state.get("min_rate_limit_left"),
        "owner_session_id": state.get("owner_session_id"),
        "plan_path": state.get("plan_path"),
        "last_review": state.get("last_review"),
        "last_verdict": state.get("last_verdict"),
        "last_error": state.get("last_error"),
        "consecutive_errors": state.get("consecutive_errors", 0),
        "unknown_models": state.get("unknown_models") or [],
        "resumable": state.get("status") in status.RESUMABLE,
        "stoppable": bool(state.get("plan")) and state.get("status") != status.IDLE,
        "created_at": state.get("created_at"),
        "updated_at": state.get("updated_at"),
        "lines": describe(state, warn_at=warn_at, windows=False),
    }


def every_run() -> RunList:
    """Every run on this machine, summarised (``status --json --all``, the dashboard's run list)."""
    warn_at = warn_level()
    return {"runs": [summary(s, warn_at) for s in all_runs()]}


def calls(run_dir: str | os.PathLike[str], limit: int = CALLS, run_id: str | None = None) -> Calls:
    """The newest ``limit`` model calls of a run from events.jsonl, oldest first; malformed lines are counted. With
    ``run_id``, the calls of that run only: the workspace's earlier runs (re-planned) are counted, not listed."""
    path = Path(run_dir) / "events.jsonl"
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - EVENTS_TAIL_BYTES)
            fh.seek(start)
            data = fh.read()
    except FileNotFoundError:
        return {"calls": [], "total_read": 0, "malformed": 0, "older_not_read": False, "other_runs": 0}
    lines = data.split(b"\n")
    if start > 0:
        lines = lines[1:]  # the first is probably cut
    events: list[Call] = []
    malformed = other = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
            if not isinstance(event, dict):
                raise ValueError
        except ValueError:
            malformed += 1
            continue
        if run_id is not None and event.get("run_id") != run_id:
            other += 1
            continue
        tokens = event["tokens"] if isinstance(event.get("tokens"), dict) else {}
        events.append(
            {
                "ts": event.get("ts"),
                "phase": event.get("phase"),
                "outcome": event.get("outcome"),
                "backend": event.get("backend"),
                "model": event.get("model"),
                "latency_ms": event.get("latency_ms"),
                "usd": event.get("usd") if isinstance(event.get("usd"), (int, float)) else 0.0,
                "tokens": {k: tokens.get(k, 0) for k in ("input", "cached", "output")},
                "detail": event.get("detail"),
            }
        )
    return {
        "calls": events[-limit:],
        "total_read": len(events),
        "malformed": malformed,
        "older_not_read": start > 0,
        "other_runs": other,
    }


def artifact(run_dir: str | os.PathLike[str], recorded: Any, kind: str) -> dict[str, Any] | None:
    """The review, verdict or plan file a state field records, read only from the run's own directory."""
    if not isinstance(recorded, str):
        return None
    name = os.path.basename(recorded)
    if not ARTIFACT.fullmatch(name) or not name.startswith(kind + "-"):
        return None
    try:
        data = json.loads((Path(run_dir) / name).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def report(state: ListedRun | CorruptRun) -> RunReport:
    """One run in full: its summary, the last review's findings, the last verdict's criteria, its calls, and
    what is left of Codex's rate-limit windows as its rollouts last recorded them (``rate_limits``)."""
    facts = summary(state, warn_level())
    run_dir = state.get("run_dir")
    limits = ratelimits.latest()
    if not run_dir or _unreadable(state):
        return {
            "summary": facts,
            "review": None,
            "verdict": None,
            "calls": calls(run_dir or "/nonexistent"),
            "rate_limits": limits,
        }
    last_review, last_verdict = state.get("last_review"), state.get("last_verdict")
    review = artifact(run_dir, last_review.get("review_path") if last_review else None, "review")
    verdict = artifact(run_dir, last_verdict.get("verdict_path") if last_verdict else None, "verdict")
    return {
        "summary": facts,
        "review": None
        if review is None
        else {k: review.get(k) for k in ("decision", "summary", "issues", "task_id", "head_sha", "redactions")},
        "verdict": None
        if verdict is None
        else {k: verdict.get(k) for k in ("decision", "reason", "next_task_id", "progressed", "criteria")},
        "calls": calls(run_dir, run_id=state.get("run_id")),
        "rate_limits": limits,
    }
