"""codex-bridge hook EVENT: run a Claude Code hook (the event JSON on stdin, hook JSON on stdout)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from autopilot import hooks

    p = sub.add_parser(
        "hook",
        help="run a Claude Code hook (reads the event JSON on stdin)",
        description="What the plugin's hooks/hooks.json runs for each Claude Code event: reads the event's JSON "
        "on stdin and prints the hook's answer (JSON, or a plain message) on stdout. Always exits 0: a failure "
        "is reported in the answer and crash.log, never by blocking Claude Code. Not meant to be typed.",
    )
    events = sorted({*hooks.HANDLERS, *hooks.MEMORY_EVENTS})
    p.add_argument("event", metavar="EVENT", help=f"the hook event: {', '.join(events)}")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch the event (the CLI's fast path calls hooks.main directly, without argparse)."""
    from autopilot import hooks

    return hooks.main(args.event)
