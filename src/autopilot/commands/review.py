"""codex-bridge review: Codex reviews the diff since base_sha against the current task."""

from __future__ import annotations

from autopilot.commands import backend_flags
from autopilot.output import emit

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "review",
        help="Codex reviews the diff since base_sha against the current task",
        description="Review committed, staged, unstaged and untracked changes since the run's "
        "base commit. Never changes the task, base, status or iteration.",
    )
    backend_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Review the current diff; print the review as JSON (``skipped`` when nothing changed)."""
    from autopilot.run.review import review

    emit(review(backend=args.backend, model=args.model, effort=args.effort, cwd=args.cwd))
    return 0
