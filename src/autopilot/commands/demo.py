"""codex-bridge demo: the whole loop (plan, edit, review, verdict ... done) in a throwaway repository."""

from __future__ import annotations

import argparse

from autopilot.commands import backend_flags


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="run the whole loop in a throwaway repo (offline: Codex's answers are scripted)",
        description="Plan, edit, review and verdict until done in a temporary git repository, printing each state "
        "change. Offline: Codex's answers come from a scripted server in this process, so nothing leaves the "
        "machine and nothing you installed or configured is asked, and it finishes in seconds. With --backend it "
        "asks that backend for real (capped at $0.50; planning is not charged to a run's budget), and a backend "
        "that cannot answer ends the demo at its first call, saying why and what to do. The repository and the "
        "run's files are removed when the demo ends, however it ends (--keep keeps them).",
    )
    p.add_argument("--offline", action="store_true", help=argparse.SUPPRESS)  # the default; earlier releases' flag
    p.add_argument("--json", action="store_true", help="print each state change as a JSON line")
    p.add_argument(
        "--keep", action="store_true", help="keep the throwaway repository and the run's files, and print where"
    )
    backend_flags(p, purpose="ask this backend for real instead of the scripted answers")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when the run ends done."""
    from autopilot.errors import BridgeError
    from autopilot.loop.demo import demo

    if args.offline and args.backend:
        raise BridgeError("--offline and --backend contradict each other", hint="the demo is offline unless --backend")
    return demo(
        as_json=args.json,
        keep=args.keep,
        backend=args.backend,
        model=args.model,
        effort=args.effort,
    )
