"""codex-bridge hook EVENT: run a Claude Code hook (the event JSON on stdin, hook JSON on stdout)."""

from __future__ import annotations

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("hook", help="run a Claude Code hook (reads the event JSON on stdin)")
    p.add_argument("event")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch the event (the CLI's fast path calls hooks.main directly, without argparse)."""
    from autopilot import hooks

    return hooks.main(args.event)
