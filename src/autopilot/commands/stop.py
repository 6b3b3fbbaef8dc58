"""codex-bridge stop: return the run to idle (token usage and spend are kept)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.output import emit

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("stop", help="return the run to idle (token usage and spend are kept)")
    p.add_argument("--reason", default="stopped by the user", help="why (recorded as stop_reason)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Stop the run; print its status, reason and spend as JSON."""
    from autopilot.loop.control import stop

    emit(stop(args.reason, cwd=args.cwd))
    return 0
