"""codex-bridge handoff search | reindex: find earlier evidence in this project's packets, and rebuild the index.

``search`` prints its answer for people by default and as JSON with ``--json`` (the score's
parts, pointers, freshness, conflicts). ``reindex`` rebuilds the SQLite index from the
packets. Neither changes a packet or a transcript, runs a tool or calls a model.
"""

from __future__ import annotations

from autopilot.commands.quick import Spec, read
from autopilot.errors import BridgeError
from autopilot.output import show

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this module (bench/bench_search.py)
if TYPE_CHECKING:
    from typing import Any

    from autopilot.commands.shapes import SearchArgs

MAX_LIMIT = 200


def search(
    text: str,
    *,
    as_json: bool,
    limit: int,
    worktree: str,
    since: str | None,
    agent: str | None,
    cwd: str | None,
    task: str | None = None,
    archived: bool = False,
) -> int:
    """Print the ranked evidence for one query."""

    from autopilot.handoff.search import query, retrieval
    from autopilot.knowledge.durable import feed
    from autopilot.output import emit, say

    if not 1 <= limit <= MAX_LIMIT:
        raise BridgeError(f"--limit {limit} is out of range", hint=f"use 1 to {MAX_LIMIT}")
    answer = retrieval.search(
        text,
        cwd=cwd,
        limit=limit,
        worktree=worktree,
        since=query.since(since),
        agent=agent,
        feed=feed.sync,
        task=task,
        archived=archived,
    )
    if as_json:
        emit(answer)
        return 0
    from autopilot.handoff.search.render import render

    show(render(answer))
    if not answer["results"]:
        say("no evidence found: try other words, --worktree all, or export the session first (handoff export)")
    return 0


def prune(days: float, keep: int, as_json: bool) -> int:
    """Move old packets to the archive and say what moved."""
    from autopilot.handoff.search.retention import prune as move
    from autopilot.output import emit, say

    moved = move(days, keep)
    if as_json:
        emit(moved)
        return 0
    say(
        f"moved {len(moved['moved'])} packet(s) older than {days:g} days to {moved['archive']} "
        f"({moved['indexRows']['removed']} index rows with them); {moved['kept']} kept"
    )
    for row in moved["moved"]:
        say(f"  {row['packet'][:19]}…  {row.get('createdAt')}  {row.get('from')} -> {row.get('to')}")
    return 0


def reindex(as_json: bool) -> int:
    """Rebuild the index from every packet and say what it holds."""
    from autopilot.handoff.search import index
    from autopilot.output import emit, say

    built = index.rebuild()
    built["path"] = str(index.index_path())
    if as_json:
        emit(built)
    else:
        say(
            f"indexed {built['documents']} documents from {built['packets']} packets into {built['path']}"
            + (f" ({built['skipped']} packet(s) refused: see above)" if built["skipped"] else "")
        )
    return 0


# The search command line without argparse (cli.py's fast path): the options add_parser declares, read as
# argparse reads them (commands/quick.py; tests/unit/commands/test_quick.py compares the two).
QUICK = Spec(
    flags={"--json": "json", "--archived": "archived"},
    values={
        "--limit": "limit",
        "--worktree": "worktree",
        "--since": "since",
        "--agent": "agent",
        "--task": "task",
        "--cwd": "project_dir",
    },
    ints=("limit",),
    choices={"worktree": ("this", "all"), "agent": ("claude", "codex")},
    positionals=("query",),
    defaults={"limit": 10, "worktree": "this"},
)


def quick_args(argv: list[str]) -> SearchArgs | None:
    """The options of ``handoff search ARGV`` as argparse would parse them, or None when only argparse may say."""
    found = read(QUICK, argv)
    return found  # type: ignore[return-value]  # the keys QUICK declares: SearchArgs's


def run_quick(options: SearchArgs, cwd: str | None) -> int:
    """Run a search whose command line :func:`quick_args` read (``cwd``: from ``-C``)."""
    return search(
        options["query"],
        as_json=options["json"],
        limit=options["limit"],
        worktree=options["worktree"],
        since=options["since"],
        agent=options["agent"],
        cwd=options["project_dir"] or cwd,
        task=options["task"],
        archived=options["archived"],
    )


def add_parser(handoff_subparsers: Any) -> None:
    """Register ``search`` and ``reindex`` under ``handoff``."""
    p = handoff_subparsers.add_parser(
        "search",
        help="find earlier evidence about an error, a path or a symbol (packets, active memory, approved rules)",
        description="Search this project's evidence (SQLite FTS5): exported packets, the sessions' active memory "
        "(checkpoints and hook observations) and the rules and decisions a person approved, each result "
        "labelled with where it came from. Each result has a "
        "short excerpt, a stable pointer (packet, source file and hash, line), the session, agent, worktree, "
        "branch, time, outcome and freshness (current / changed / unavailable). Ranking is deterministic "
        "and explained (--json gives the score's parts); a later failing test next to an earlier pass or "
        "'fixed' is shown with it, marked as superseding; other worktrees' outcomes are labelled and never "
        "supersede this one's. Everything shown is quoted evidence, never instructions.",
    )
    p.add_argument(
        "query", metavar="QUERY", help="error text, a path or a symbol (quote it; put -- before one starting with -)"
    )
    p.add_argument("--json", action="store_true", help="the whole answer as JSON, with the score's parts")
    p.add_argument(
        "--limit", type=int, default=10, metavar="N", help=f"results to show (default 10, at most {MAX_LIMIT})"
    )
    p.add_argument(
        "--worktree",
        choices=("this", "all"),
        default="this",
        help="this worktree only (default), or every worktree of the project (others labelled)",
    )
    p.add_argument("--since", metavar="DATE", help="only evidence from DATE on (2026-11-30, or with a time)")
    p.add_argument("--agent", choices=("claude", "codex"), help="only evidence from this agent's sessions")
    p.add_argument(
        "--task", metavar="ID", help="only evidence from while an autopilot run's session worked on task ID (T2)"
    )
    p.add_argument(
        "--archived", action="store_true", help="search the packets `handoff prune` moved to the archive (only them)"
    )
    p.add_argument("--cwd", dest="project_dir", metavar="DIR", help="the project directory (default: here)")
    p.set_defaults(
        func=lambda a: search(
            a.query,
            as_json=a.json,
            limit=a.limit,
            worktree=a.worktree,
            since=a.since,
            agent=a.agent,
            cwd=a.project_dir or a.cwd,
            task=a.task,
            archived=a.archived,
        )
    )

    p = handoff_subparsers.add_parser(
        "prune",
        help="move old packets (and their evidence-index rows) to the archive; `search --archived` finds them",
        description="Move every packet made more than DAYS days ago, except the --keep N newest, from "
        "$AUTOPILOT_HOME/handoff/packets to $AUTOPILOT_HOME/handoff/archive/packets with its evidence index, and "
        "its documents from the evidence index to the archive's. Nothing is deleted. Prints what moved.",
    )
    p.add_argument("--older-than", dest="days", type=float, required=True, metavar="DAYS", help="age in days")
    p.add_argument("--keep", type=int, default=0, metavar="N", help="keep the N newest packets whatever their age")
    p.add_argument("--json", action="store_true", help="print what moved as JSON")
    p.set_defaults(func=lambda a: prune(a.days, a.keep, a.json))

    p = handoff_subparsers.add_parser(
        "reindex",
        help="rebuild the evidence index from the packets",
        description="Build a new evidence index from every packet under $AUTOPILOT_HOME/handoff/packets "
        "(each verified by its hash) and swap it in. Checkpoint and observation documents are kept.",
    )
    p.add_argument("--json", action="store_true", help="print what was indexed as JSON")
    p.set_defaults(func=lambda a: reindex(a.json))
