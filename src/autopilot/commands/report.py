"""codex-bridge report: what Codex cost (by day, run, model or phase, from every run's events.jsonl), and beside
it what the memory injected into each session (bytes and estimated tokens, from the sessions' own records)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.output import emit, show

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="Codex spend and tokens by day, run, model or phase, from every run's events.jsonl",
        description="Add up every model call logged under $AUTOPILOT_HOME/runs (plans, reviews, verdicts; failed "
        "calls and corrective retries included) by day, run, model or phase, and check each current run's calls "
        "against its state.json totals (tokens and USD). Input tokens include cached input, which is also "
        "shown apart. Beside it, per session, the bytes and estimated tokens the memory injected into the agents' "
        "contexts (the changed facts and the approved rules). Unreadable lines are counted and skipped.",
    )
    p.add_argument("--since", metavar="DATE", help="only calls at or after DATE (YYYY-MM-DD or an ISO time; UTC)")
    p.add_argument(
        "--by", choices=["day", "run", "model", "phase"], default="day", help="how to group the calls (default: day)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report: a table, or JSON with --json."""
    from autopilot.handoff.memory import meter
    from autopilot.loop.report import parse_since, report, table

    result = report(by=args.by, since=args.since)
    memory = meter.injected(since=parse_since(args.since))
    if args.json:
        emit({**result, "memory": memory})
    else:
        show("\n".join(table(result) + meter.table(memory, result["total"]["input"])))
    return 0
