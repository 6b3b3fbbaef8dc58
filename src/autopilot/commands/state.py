"""codex-bridge state: this workspace's state.json as JSON (or every run with --all); changes nothing."""

from __future__ import annotations

from autopilot.output import emit

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("state", help="print this workspace's state.json as JSON")
    p.add_argument("--all", action="store_true", help="list every run under $AUTOPILOT_HOME/runs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the state (the CLI's fast path calls :func:`show` without argparse)."""
    return show(all_runs=args.all, cwd=args.cwd)


def show(*, all_runs: bool = False, cwd: str | None = None) -> int:
    """Print this workspace's state.json (or every run) as JSON."""
    if all_runs:
        from autopilot.loop.state import all_runs as every_run

        emit(every_run())
        return 0
    from autopilot.loop.workspace import Workspace

    ws = Workspace(cwd)
    emit({**ws.store.load(repair=False), "run_dir": str(ws.store.dir), "exists": ws.store.exists()})
    return 0
