"""codex-bridge status: this workspace's run (task, iteration, spend and its forecast, last calls) and what
is left of Codex's rate-limit windows; for people, or as JSON (the dashboard's run view) with --json."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.output import show

LINE_CHARS = 400  # a status line at most this long: a model's answer can be one 20,000-character line

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "status",
        help="summary: task, iteration, spend and forecast, last review/verdict/error, Codex rate limits",
        description="Say what this workspace's run is doing and what it cost (with a forecast: spend per "
        "iteration so far times the iterations left), and what is left of Codex's 5-hour and weekly "
        "rate-limit windows as Codex last recorded them. Changes nothing.",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="the run as JSON: summary with forecast, last review's findings, last verdict's criteria, "
        "newest calls, Codex's rate-limit windows",
    )
    p.add_argument("--all", action="store_true", help="with --json: every run on this machine, summarised")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the summary (or, with --json, the report the dashboard shows)."""
    from autopilot.loop import summary
    from autopilot.loop.workspace import Workspace

    if args.json:
        from autopilot.output import emit

        if args.all:
            emit(summary.every_run())
            return 0
        ws = Workspace(args.cwd)
        emit(summary.report({**ws.store.load(repair=False), "run_dir": str(ws.store.dir)}))
        return 0
    from autopilot.codex import ratelimits

    state = Workspace(args.cwd).store.load(repair=False)
    show("\n".join(summary.describe(state, ratelimits.latest(), summary.warn_level())), width=LINE_CHARS)
    return 0
