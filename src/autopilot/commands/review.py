"""codex-bridge review: Codex reviews the diff since base_sha against the current task."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.commands import BACKENDS, EFFORTS, backend_flags
from autopilot.commands.quick import Spec, read
from autopilot.output import emit

if TYPE_CHECKING:
    import argparse

    from autopilot.commands.shapes import ReviewArgs

# The review command line without argparse (cli.py's fast path, ~10 ms of a review's own time): the options
# backend_flags declares, read as argparse reads them (commands/quick.py; tests/unit/commands/test_quick.py compares).
QUICK = Spec(
    values={"--backend": "backend", "--model": "model", "--effort": "effort"},
    choices={"backend": BACKENDS, "effort": EFFORTS},
)


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
    from autopilot.loop.review import review

    emit(review(backend=args.backend, model=args.model, effort=args.effort, cwd=args.cwd))
    return 0


def quick_args(argv: list[str]) -> ReviewArgs | None:
    """The options of ``review ARGV`` as argparse would parse them, or None when only argparse may say."""
    found = read(QUICK, argv)
    return found  # type: ignore[return-value]  # the keys QUICK declares: ReviewArgs's


def run_quick(options: ReviewArgs, cwd: str | None) -> int:
    """Run a review whose command line :func:`quick_args` read (``cwd``: from ``-C``, absolute)."""
    from autopilot.loop.review import review

    emit(review(backend=options["backend"], model=options["model"], effort=options["effort"], cwd=cwd))
    return 0
