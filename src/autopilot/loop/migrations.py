"""Numbered migrations that bring any older state.json up to the current schema."""

from __future__ import annotations

import os

from autopilot import config
from autopilot.loop import status

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the hot path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeAlias

    from autopilot.loop.shapes import PhaseUsage, RunState

    State: TypeAlias = RunState  # what state.json holds once migrated
    Older: TypeAlias = dict[str, Any]  # a state.json of an older schema: read field by field, as it may hold anything
else:
    State = dict  # at run time a plain alias, so the hook hot path never imports typing

DEFAULT_BUDGET_USD = 5.00
DEFAULT_MAX_ITERATIONS = 20
DEFAULT_NO_PROGRESS_THRESHOLD = 3
PHASES = ("plan", "review", "verdict")
STATUSES = frozenset(status.ALL)


def env_budget_usd(env: dict[str, str] | os._Environ[str] | None = None) -> float:
    """The budget from ``AUTOPILOT_BUDGET_USD`` when it is a positive number, else 5.00."""
    raw = config.env("AUTOPILOT_BUDGET_USD") if env is None else env.get("AUTOPILOT_BUDGET_USD")
    try:
        value = float(raw) if raw else DEFAULT_BUDGET_USD
    except ValueError:
        return DEFAULT_BUDGET_USD
    return value if value > 0 else DEFAULT_BUDGET_USD


def migrate_budget_fields(state: Older, env: dict[str, str] | None = None) -> Older:
    """migrateBudgetFields of the original Node bridge: give a pre-budget state its budget fields; idempotent."""
    if not isinstance(state.get("budget_used_usd"), (int, float)) or state["budget_used_usd"] < 0:
        state["budget_used_usd"] = 0.0
    if not isinstance(state.get("budget_usd"), (int, float)) or state["budget_usd"] <= 0:
        state["budget_usd"] = env_budget_usd(env)
    return state


def empty_usage() -> PhaseUsage:
    """Zeroed token counters for one phase."""
    return {"input": 0, "cached": 0, "output": 0, "calls": 0}


def m001_budget_fields(state: Older) -> Older:
    """Files the original Node bridge wrote (no schema_version) may predate the budget fields."""
    return migrate_budget_fields(state)


def m002_bridge_fields(state: Older) -> Older:
    """Add the fields the Python bridge tracks beyond the Node bridge's, with safe defaults."""
    defaults: dict[str, Any] = {
        "run_id": None,
        "workspace": None,
        "owner_session_id": None,
        "goal": None,
        "plan_path": None,
        "plan": None,
        "conversation_id": None,
        "backend": None,
        "model": None,
        "current_task": None,
        "base_sha": None,
        "iteration": 0,
        "max_iterations": DEFAULT_MAX_ITERATIONS,
        "no_progress_streak": 0,
        "no_progress_threshold": DEFAULT_NO_PROGRESS_THRESHOLD,
        "plan_usd": 0.0,
        "last_review": None,
        "last_verdict": None,
        "stop_reason": None,
        "last_error": None,
        "consecutive_errors": 0,
        "consecutive_blocks": 0,
        "unknown_models": [],
        "notices": [],
        "created_at": None,
        "updated_at": None,
    }
    for key, value in defaults.items():
        state.setdefault(key, value)
    raw = state.get("token_usage")
    usage: dict[str, Any] = raw if isinstance(raw, dict) else {}
    state["token_usage"] = {
        phase: {
            **empty_usage(),
            **{
                k: int(v)
                for k, v in (usage.get(phase) or {}).items()
                if k in ("input", "cached", "output", "calls") and isinstance(v, (int, float))
            },
        }
        for phase in PHASES
    }
    if state.get("status") not in STATUSES:
        state["status"] = status.IDLE
    if state.get("backend") not in (None, "codex-cli", "openai"):
        state["backend"] = None
    return state


def m003_plan_tree_and_verdict_errors(state: Older) -> Older:
    """Remember the work tree at plan time, and count failed verdicts apart from failed reviews."""
    state.setdefault("plan_tree", None)
    state.setdefault("verdict_errors", 0)
    return state


def m004_effort_and_rate_limit_floor(state: Older) -> Older:
    """The reasoning effort the run asks Codex for, and the share of a Codex rate-limit window it keeps free."""
    state.setdefault("effort", None)
    state.setdefault("min_rate_limit_left", None)
    return state


def m005_bounded_conversation(state: Older) -> Older:
    """What bounds the run's Codex conversation (its history so far, restarts), and the tasks it has finished.

    An older run's history is unknown: 0, with no base, so its next call measures it whole (the provider's
    count of the conversation, instructions included: the conservative side)."""
    state.setdefault("conversation_tokens", 0)
    state.setdefault("conversation_base", None)
    state.setdefault("conversation_restarts", 0)
    state.setdefault("tasks_done", [])
    return state


def m006_reviews_pending(state: Older) -> Older:
    """Reviews not yet handed to Claude (the PostToolUse hook no longer waits for one), the tree the last verdict
    judged, and whether the person is still to be shown the plan. An older run's last review was given by the hook
    that waited for it, and its plan by the command that made it: nothing is pending."""
    state.setdefault("reviews_pending", [])
    state.setdefault("verdict_tree", None)
    state.setdefault("plan_to_show", False)
    return state


# Each step takes a state.json as an older version wrote it (any shape: read leniently) and fills in its fields.
MIGRATIONS: list[Callable[[Older], Older]] = [
    m001_budget_fields,
    m002_bridge_fields,
    m003_plan_tree_and_verdict_errors,
    m004_effort_and_rate_limit_floor,
    m005_bounded_conversation,
    m006_reviews_pending,
]
CURRENT_VERSION = len(MIGRATIONS)


def migrate(state: Older) -> tuple[State, bool]:
    """Run every migration newer than the file's ``schema_version``; return the state and whether any ran.

    The result has every field state_schema.json lists (a writer validates it before the file changes)."""
    version = int(state.get("schema_version") or 0)
    ran = False
    for number, step in enumerate(MIGRATIONS, start=1):
        if number > version:
            state = step(state)
            state["schema_version"] = number
            ran = True
    # Cheap and idempotent, so it runs on every load, as the Node bridge's did.
    migrated: Any = migrate_budget_fields(state)  # every field of state_schema.json is in place now
    return migrated, ran
