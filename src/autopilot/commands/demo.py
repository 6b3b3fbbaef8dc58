"""codex-bridge demo: the whole loop (plan, edit, review, verdict ... done) in a throwaway repository."""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.commands import backend_flags

if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "demo",
        help="run the whole loop in a throwaway repo (offline unless a backend is set up)",
        description="Plan, edit, review and verdict until done in a temporary git repository, "
        "printing each state change. With no backend configured, Codex's answers "
        "come from the bundled scripted server (nothing leaves the machine).",
    )
    p.add_argument("--offline", action="store_true", help="use the scripted server even if a backend is set up")
    p.add_argument("--json", action="store_true", help="print each state change as a JSON line")
    p.add_argument("--keep", action="store_true", help="keep the throwaway repository and print its path")
    backend_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; 0 when the run ends done."""
    from autopilot.loop.demo import demo

    return demo(
        offline=args.offline,
        as_json=args.json,
        keep=args.keep,
        backend=args.backend,
        model=args.model,
        effort=args.effort,
    )
