"""codex-bridge status: this workspace's run for people (task, iteration, spend, last calls), or as JSON."""

from __future__ import annotations

import argparse

from autopilot.run.summary import describe


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("status", help="human summary: task, iteration, spend, last review/verdict/error")
    p.add_argument(
        "--json",
        action="store_true",
        help="the run as JSON: summary, last review's findings, last verdict's criteria, newest calls",
    )
    p.add_argument("--all", action="store_true", help="with --json: every run on this machine, summarised")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary (or, with --json, the report the dashboard shows)."""
    from autopilot.run.workspace import Workspace

    if args.json:
        from autopilot.output import emit
        from autopilot.run import summary
        from autopilot.run.state import all_runs

        if args.all:
            emit({"runs": [summary.summary(s) for s in all_runs()]})
            return 0
        ws = Workspace(args.cwd)
        emit(summary.report({**ws.store.load(repair=False), "run_dir": str(ws.store.dir)}))
        return 0
    print("\n".join(describe(Workspace(args.cwd).store.load(repair=False))))
    return 0
