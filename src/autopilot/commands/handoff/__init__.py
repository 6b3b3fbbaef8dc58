"""codex-bridge handoff: hand live work between Claude and Codex (transcript intake, sources, packets).

The actions live in five modules of this package: :mod:`.intake` (Claude transcripts, raw lines),
:mod:`.packets` (sessions as sources; handover packets), :mod:`.codex` (Codex
rollouts), :mod:`.memory` (active memory) and :mod:`.search` (evidence search and
its index). Each registers its actions here and runs them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from autopilot.commands.handoff import codex, intake, memory, packets, search

    p = sub.add_parser(
        "handoff",
        help="hand live work between Claude and Codex (sessions, packets, active memory, evidence search)",
        description="Hand live work between Claude Code and Codex: read a session as bounded, newest-first, "
        "redacted evidence (intake, read, raw); export, inspect and import handover packets; keep a session's "
        "active memory (checkpoint, active, recover, inject); search earlier evidence (search, reindex). "
        "Nothing here calls a model.",
    )
    hsub = p.add_subparsers(dest="handoff_command", metavar="ACTION", required=True)
    intake.add_parser(hsub)
    packets.add_parser(hsub)
    codex.add_parser(hsub)
    memory.add_parser(hsub)
    search.add_parser(hsub)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Never reached: every action sets its own ``func``."""
    raise AssertionError("handoff needs an action")
