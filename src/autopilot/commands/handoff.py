"""codex-bridge handoff: hand live work between Claude and Codex (transcript intake, sources, packets).

The actions live in five modules: ``handoff_intake`` (Claude transcripts, raw lines),
``handoff_packets`` (sessions as sources; handover packets), ``handoff_codex`` (Codex
rollouts), ``handoff_memory`` (active memory) and ``handoff_search`` (evidence search and
its index). Each registers its actions here and runs them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from autopilot.commands import handoff_codex, handoff_intake, handoff_memory, handoff_packets, handoff_search

    p = sub.add_parser(
        "handoff",
        help="hand live work between Claude and Codex (sessions, packets, active memory, evidence search)",
        description="Hand live work between Claude Code and Codex: read a session as bounded, newest-first, "
        "redacted evidence (intake, read, raw); export, inspect and import handover packets; keep a session's "
        "active memory (checkpoint, active, recover, inject); search earlier evidence (search, reindex). "
        "Nothing here calls a model.",
    )
    hsub = p.add_subparsers(dest="handoff_command", metavar="ACTION", required=True)
    handoff_intake.add_parser(hsub)
    handoff_packets.add_parser(hsub)
    handoff_codex.add_parser(hsub)
    handoff_memory.add_parser(hsub)
    handoff_search.add_parser(hsub)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Never reached: every action sets its own ``func``."""
    raise AssertionError("handoff needs an action")
