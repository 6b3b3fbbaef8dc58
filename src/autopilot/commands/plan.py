"""codex-bridge plan: Codex turns a goal into tasks with acceptance criteria; the run is reset around it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.commands import backend_flags
from autopilot.output import emit

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "plan",
        help="Codex turns a goal into tasks with acceptance criteria; resets the run",
        description="Ask Codex to plan GOAL, write docs/autopilot/plans/<date>-<slug>.md in "
        "the repo, and reset this workspace's run around the plan.",
    )
    p.add_argument("--goal", required=True, help="what you want done, in your words")
    p.add_argument(
        "--budget",
        type=float,
        metavar="USD",
        help="spend cap for reviews and verdicts (default: AUTOPILOT_BUDGET_USD, config, 5.00)",
    )
    p.add_argument("--max-iterations", type=int, metavar="N", help="verdicts before the run stops (default 20)")
    p.add_argument(
        "--no-progress-threshold",
        type=int,
        metavar="N",
        help="verdicts without progress in a row before a forced abort (default 3)",
    )
    p.add_argument(
        "--session-id",
        metavar="ID",
        help="Claude session that owns the run (default: $CLAUDE_CODE_SESSION_ID; none: first to claim)",
    )
    p.add_argument(
        "--min-rate-limit-left",
        type=float,
        metavar="PCT",
        help="pause the run (paused_rate_limit) before a call when a Codex rate-limit window (5-hour or weekly) "
        "has less than PCT percent left; codex-cli backend (default: min_rate_limit_left in the config, never)",
    )
    backend_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Plan, then print the new run as JSON."""
    from autopilot.loop.plan import plan

    emit(
        plan(
            args.goal,
            budget=args.budget,
            max_iterations=args.max_iterations,
            no_progress_threshold=args.no_progress_threshold,
            model=args.model,
            effort=args.effort,
            min_rate_limit_left=args.min_rate_limit_left,
            backend=args.backend,
            session_id=args.session_id,
            cwd=args.cwd,
        )
    )
    return 0
