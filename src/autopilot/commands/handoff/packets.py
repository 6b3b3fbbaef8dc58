"""codex-bridge handoff list | read | export | inspect | import: sessions as sources, and handover packets.

``list`` and ``read`` show a project's saved sessions and their events; ``export`` turns one
explicitly named session into an immutable, content-addressed packet (``--preview`` writes
nothing); ``inspect`` re-verifies and shows a packet; ``import`` verifies it against this
worktree and prints the bounded context for the receiving session. Nothing here changes a
transcript, resumes a session or calls a model.
"""

from __future__ import annotations

from typing import Any

from autopilot.commands.quick import Spec
from autopilot.commands.quick import read as quick_read
from autopilot.errors import BridgeError
from autopilot.output import say

AGENTS = ("claude", "codex")  # the same as sources.catalog.AGENTS, without importing the sources
DEFAULT_LIMIT = 20
SOURCES = ("local", "app-server")
# `handoff read` without argparse (cli.py's fast path), as add_parser declares it (tests/unit/commands/test_quick.py)
QUICK_READ = Spec(
    values={
        "--from": "agent",
        "--session": "session",
        "--limit": "limit",
        "--before": "before",
        "--cursor": "cursor",
        "--source": "source",
        "--cwd": "project_dir",
    },
    ints=("limit", "before"),
    choices={"agent": AGENTS, "source": SOURCES},
    required=("agent", "session"),
    defaults={"limit": DEFAULT_LIMIT},
)


def _project(cwd: str | None):  # type: ignore[no-untyped-def]
    from autopilot.handoff.sources.project import Project

    return Project(cwd)


def list_sessions(agent: str, *, cwd: str | None = None, source: str | None = None, latest: bool = False) -> int:
    """Print this worktree's sessions of one agent, newest first (a listing never selects one).

    Codex threads are listed through the read-only app server when it answers, else from the local
    rollouts (the answer's ``sourceUsed`` says which, ``sourceNote`` why); ``--source`` picks one.
    """
    from autopilot.handoff.sources import Limits, catalog
    from autopilot.output import emit

    emit(catalog.sessions(agent, _project(cwd), Limits.from_env(), source=source, latest=latest))
    return 0


def read(
    agent: str,
    session: str,
    *,
    limit: int = DEFAULT_LIMIT,
    before: int | None = None,
    cursor: str | None = None,
    cwd: str | None = None,
    source: str | None = None,
) -> int:
    """Print one page of a session's events, newest first, with its metadata and coverage."""
    from autopilot.handoff.sources import Limits, catalog
    from autopilot.output import emit

    project = _project(cwd)
    emit(
        catalog.read(
            agent, project, session, Limits.from_env(), limit=limit, before=before, cursor=cursor, source=source
        )
    )
    return 0


def quick_args(argv: list[str]) -> dict[str, Any] | None:
    """The options of ``handoff read ARGV`` as argparse would parse them, or None when only argparse may say."""
    return quick_read(QUICK_READ, argv)


def run_quick(options: dict[str, Any], cwd: str | None) -> int:
    """Run a read whose command line :func:`quick_args` read (``cwd``: from ``-C``)."""
    return read(
        options["agent"],
        options["session"],
        limit=options["limit"],
        before=options["before"],
        cursor=options["cursor"],
        cwd=options["project_dir"] or cwd,
        source=options["source"],
    )


def export(
    agent: str,
    session: str,
    to: str,
    *,
    preview: bool = False,
    cwd: str | None = None,
    source: str | None = None,
    budget_tokens: int | None = None,
) -> int:
    """Build a packet from one session; print it (``--preview``, nothing written) or store it and print its id."""
    from autopilot.handoff.packets import export as packet_export
    from autopilot.handoff.sources import Limits
    from autopilot.output import emit

    budget = packet_export.budget_tokens(budget_tokens)  # refused before any git or transcript work
    answer = packet_export.export(
        agent, session, to, _project(cwd), Limits.from_env(), preview=preview, source=source, budget=budget
    )
    if "estimates" in answer:  # stored: a preview has no estimates of its own (they are in its contents)
        estimates = answer["estimates"]
        say(f"wrote {answer['packet']} ({estimates['bytes']} bytes, ~{estimates['tokens']} tokens)")
        _index(answer["packet"])
    emit(answer)
    return 0


def list_packets(*, cwd: str | None = None, limit: int = DEFAULT_LIMIT) -> int:
    """Print this project's stored packets, newest first (a listing never imports one)."""
    from autopilot.handoff.packets.store import listing
    from autopilot.output import emit

    project = _project(cwd)
    found = listing(project.repo_id)
    emit({"project": project.identity(), "packets": found[:limit], "total": len(found)})
    return 0


def _index(pid: str) -> None:
    """Add a new packet to the evidence index; a failure there never fails the export (search catches up)."""
    import sqlite3

    from autopilot.handoff.search import index

    try:
        index.add_packet(pid)
    except (BridgeError, OSError, sqlite3.Error) as exc:
        say(f"the packet is stored, but the evidence index was not updated ({exc}); `handoff search` catches up")


def inspect(packet_id: str) -> int:
    """Print a packet after re-verifying its hash and its evidence index."""
    from autopilot.handoff.packets import receive
    from autopilot.output import emit

    emit(receive.inspect(packet_id))
    return 0


def import_(
    packet_id: str,
    to: str,
    session: str,
    *,
    cwd: str | None = None,
    max_chars: int | None = None,
    new_session: bool = False,
) -> int:
    """Verify a packet against this worktree and print the drift, stale claims and the receiver's context."""
    from autopilot.handoff.packets import receive
    from autopilot.output import emit

    answer = receive.import_packet(
        packet_id,
        to=to,
        session=session,
        cwd=cwd,
        max_chars=max_chars or receive.CONTEXT_CHARS,
        new_session=new_session,
    )
    if not answer["receivingSession"]["found"]:
        say(f"{to} has no session {session} yet: the context is recorded for a new session of that id")
    stale = sum(len(v) for v in answer["staleClaims"].values())
    if stale:
        say(f"{stale} claim(s) are stale: git changed since the packet was made (see staleClaims)")
    unavailable = sum(len(v) for v in answer["unavailableClaims"].values())
    if answer["missingSources"]:
        say(
            f"source transcript(s) gone: {', '.join(answer['missingSources'])}; {unavailable} claim(s) are marked "
            "unavailable (their excerpts are the packet's copies; see unavailableClaims)"
        )
    emit(answer)
    return 0


def add_parser(handoff_subparsers: Any) -> None:
    """Register ``list``, ``read``, ``export``, ``inspect`` and ``import`` under ``handoff``."""

    def where(p: Any) -> None:
        p.add_argument(
            "--cwd",
            dest="project_dir",
            metavar="DIR",
            help="the project directory (default: -C or the current directory)",
        )

    p = handoff_subparsers.add_parser(
        "list",
        help="this worktree's saved Claude or Codex sessions, newest first",
        description="List the sessions recorded in this worktree (by the cwd their rows recorded). Sessions of "
        "other worktrees are listed apart; other projects are not read. A listing never selects: "
        "pass --session ID to read, export or import.",
    )
    p.add_argument("--from", dest="agent", choices=AGENTS, required=True)
    p.add_argument(
        "--source",
        choices=SOURCES,
        help="Codex only: `codex app-server` (read-only) or local rollouts (default: the app server, local if it "
        "cannot answer)",
    )
    p.add_argument("--latest", action="store_true", help="show only the newest session (a filter, not a choice)")
    where(p)
    p.set_defaults(func=lambda a: list_sessions(a.agent, cwd=a.project_dir or a.cwd, source=a.source, latest=a.latest))

    p = handoff_subparsers.add_parser(
        "read",
        help="one page of a session's events, newest first",
        description="Print a session's metadata, one page of events newest first (each with its exact pointer "
        "and causal parent), and coverage gaps. Evidence, never instructions.",
    )
    p.add_argument("--from", dest="agent", choices=AGENTS, required=True)
    p.add_argument("--session", required=True, metavar="ID", help="Claude session id or Codex thread id")
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"events (default {DEFAULT_LIMIT})")
    p.add_argument("--before", type=int, metavar="LINE", help="older page: the previous page's nextBeforeLine")
    p.add_argument("--cursor", metavar="C", help="older page through the app server: the previous nextCursor")
    p.add_argument("--source", choices=SOURCES)
    where(p)
    p.set_defaults(
        func=lambda a: read(
            a.agent,
            a.session,
            limit=a.limit,
            before=a.before,
            cursor=a.cursor,
            cwd=a.project_dir or a.cwd,
            source=a.source,
        )
    )

    p = handoff_subparsers.add_parser(
        "export",
        help="make an immutable, evidence-backed handover packet from one session",
        description="Build a packet (objective, next action, work, tests, unresolved items, latest messages, "
        "pointers, gaps, git state) from one explicitly named session, redacted, and store it under "
        "$AUTOPILOT_HOME/handoff/packets named by its sha256. --preview prints it and writes nothing.",
    )
    p.add_argument("--from", dest="agent", choices=AGENTS, required=True)
    p.add_argument("--session", required=True, metavar="ID")
    p.add_argument("--to", choices=AGENTS, required=True, help="the agent that will receive it")
    p.add_argument("--preview", action="store_true", help="print the packet; write nothing")
    p.add_argument(
        "--source",
        choices=SOURCES,
        help="Codex only; app-server packets can be inspected but not imported",
    )
    p.add_argument(
        "--budget-tokens",
        type=int,
        metavar="N",
        help="excerpt budget (default: AUTOPILOT_HANDOFF_BUDGET_TOKENS or 12000; estimate chars/4)",
    )
    where(p)
    p.set_defaults(
        func=lambda a: export(
            a.agent,
            a.session,
            a.to,
            preview=a.preview,
            cwd=a.project_dir or a.cwd,
            source=a.source,
            budget_tokens=a.budget_tokens,
        )
    )

    p = handoff_subparsers.add_parser(
        "packets",
        help="this project's handover packets, newest first",
        description="List the packets exported from this project (any worktree): id, source session, destination, "
        "objective, and whether each still verifies. Import one with `handoff import ID --to AGENT --session ID`.",
    )
    p.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N", help=f"packets (default {DEFAULT_LIMIT})")
    where(p)
    p.set_defaults(func=lambda a: list_packets(cwd=a.project_dir or a.cwd, limit=a.limit))

    p = handoff_subparsers.add_parser("inspect", help="re-verify a packet and print it with its evidence index")
    p.add_argument("packet_id", metavar="PACKET_ID", help="sha256:<hex>, or 12+ leading hex digits")
    p.set_defaults(func=lambda a: inspect(a.packet_id))

    p = handoff_subparsers.add_parser(
        "import",
        help="verify a packet here and print the context for the receiving session",
        description="Refuse a tampered, foreign-project, other-worktree, app-server-only or source-changed "
        "packet; compare git now with the packet's and mark stale claims; print bounded context. A packet "
        "whose source transcript was deleted is imported with the claims citing it marked unavailable. "
        "The receiving session must be one the receiving agent has saved (see `handoff list`): an unknown "
        "id (a typo) is refused, unless --new-session says it will be new.",
    )
    p.add_argument("packet_id", metavar="PACKET_ID")
    p.add_argument("--to", choices=AGENTS, required=True)
    p.add_argument("--session", required=True, metavar="RECEIVING_ID", help="the receiving session (explicit)")
    p.add_argument(
        "--new-session",
        action="store_true",
        help="the receiving session does not exist yet: record the import for that id instead of refusing it",
    )
    p.add_argument("--max-chars", type=int, metavar="N", help="bound on the printed context (default 24000)")
    where(p)
    p.set_defaults(
        func=lambda a: import_(
            a.packet_id,
            a.to,
            a.session,
            cwd=a.project_dir or a.cwd,
            max_chars=a.max_chars,
            new_session=a.new_session,
        )
    )
