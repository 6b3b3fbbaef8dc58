"""codex-bridge resume: continue a paused, budget-stopped or iteration-limited run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.output import emit

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("resume", help="continue a paused, budget-stopped or iteration-limited run")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Resume the run; print whether it resumed as JSON."""
    from autopilot.loop.control import resume

    emit(resume(cwd=args.cwd))
    return 0
