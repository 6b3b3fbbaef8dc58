"""codex-bridge budget check | set: the budget guard and the spend cap."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.errors import EXIT_BUDGET
from autopilot.output import emit, say

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("budget", help="the budget guard and the spend cap")
    bsub = p.add_subparsers(dest="budget_command", metavar="ACTION", required=True)
    b = bsub.add_parser("check", help="stop a running run that is over budget (exit 4 when over)")
    b.set_defaults(func=run)
    b = bsub.add_parser("set", help="change the run's spend cap")
    b.add_argument("usd", type=float, metavar="USD")
    b.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``check``: exit 4 when over budget; ``set``: change the cap. Both print the budget as JSON."""
    from autopilot.loop import control

    if args.budget_command == "check":
        result = control.check_budget(cwd=args.cwd)
        emit(result)
        return EXIT_BUDGET if result["over_budget"] else 0
    changed = control.set_budget(args.usd, cwd=args.cwd)
    if changed["budget_used_usd"] >= changed["budget_usd"]:
        say(f"still over budget (${changed['budget_used_usd']:.4f} spent)")
    emit(changed)
    return 0
