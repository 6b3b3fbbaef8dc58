"""codex-bridge status: the human summary of this workspace's run (task, iteration, spend, last calls)."""

from __future__ import annotations

import argparse

from autopilot.run.summary import describe


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("status", help="human summary: task, iteration, spend, last review/verdict/error")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary."""
    from autopilot.run.workspace import Workspace

    print("\n".join(describe(Workspace(args.cwd).store.load(repair=False))))
    return 0
