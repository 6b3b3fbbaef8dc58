"""codex-bridge verdict: Codex decides whether Claude continues, is done, or the run aborts."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from autopilot.commands import backend_flags
from autopilot.errors import BridgeError
from autopilot.output import emit

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "verdict",
        help="Codex decides: continue with the next task, done, or abort",
        description="Advance the run: iteration+1, then continue/done/abort by Codex's verdict, "
        "the no-progress streak and the iteration limit.",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--last-message", metavar="TEXT", help="Claude's last message (evidence, not proof)")
    group.add_argument("--last-message-file", metavar="FILE", help="read Claude's last message from FILE ('-': stdin)")
    backend_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Ask for a verdict and advance the run by it; print the decision and the new state as JSON."""
    from autopilot.loop.verdict import decide

    message = args.last_message
    if args.last_message_file:
        try:
            if args.last_message_file == "-":
                message = sys.stdin.read()
            else:
                with open(args.last_message_file, encoding="utf-8") as fh:
                    message = fh.read()
        except OSError as exc:
            raise BridgeError(f"cannot read {args.last_message_file}: {exc.strerror}") from None
    emit(decide(last_message=message, backend=args.backend, model=args.model, effort=args.effort, cwd=args.cwd))
    return 0
