"""One agent's sessions of a project, listed or read a page at a time: the answers `handoff list | read` print.

The CLI and the dashboard both call these, so a listing and a page have one JSON shape
wherever they are shown. The source follows from the agent and ``source``: Claude sessions
are local files; Codex threads are read through the read-only app server when it answers,
else from the local rollouts (``auto``, the default; a page is read from the rollout too when the
server's history would leave command runs out, as Codex before 0.171 does), and each answer says which it used
(``sourceUsed``) and why the preferred one was not (``sourceNote``). A listing never selects a
session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from autopilot.errors import BridgeError
from autopilot.handoff.sources import Limits, appserver, claude, codex
from autopilot.handoff.sources.project import Project

if TYPE_CHECKING:
    from collections.abc import Collection

    from autopilot.handoff.sources.shapes import Listing, Page

Answer = TypeVar("Answer", "Listing", "Page")

AGENTS = ("claude", "codex")
SOURCES = ("local", "app-server")
MAX_LIMIT = 500


def source_kind(agent: str, source: str | None) -> str:
    """``local``, ``app-server``, or ``auto`` (Codex with no source named: the app server first, local files if it
    cannot answer); the app server is refused for Claude sessions."""
    if agent not in AGENTS:
        raise BridgeError(f"{agent!r} is not an agent", hint="use claude or codex")
    if source is not None and source not in SOURCES:
        raise BridgeError(f"{source!r} is not a source", hint="use local or app-server")
    if source == "app-server" and agent != "codex":
        raise BridgeError("--source app-server reads Codex threads only", hint="use --from codex, or drop --source")
    if source is None:
        return "auto" if agent == "codex" else "local"
    return source


def local(agent: str) -> claude.ClaudeSource | codex.CodexSource:
    """The local-file source of ``agent``'s sessions."""
    return claude.ClaudeSource() if agent == "claude" else codex.CodexSource()


def _with_source(answer: Answer, used: str, why: str | None = None) -> Answer:
    """The answer with where it came from (and why the preferred source was not used)."""
    answer = answer.copy()
    answer["sourceUsed"] = used
    if why:
        answer["sourceNote"] = why
    return answer


def sessions(
    agent: str,
    project: Project,
    limits: Limits,
    *,
    source: str | None = None,
    latest: bool = False,
    hide: Collection[str] = (),
) -> Listing:
    """This worktree's sessions of one agent, newest first (``latest`` filters to one row; nothing is chosen).

    ``hide``: threads that are no one's session to hand over (the autopilot reviewer's own, which the adapters pass
    down: the handoff never asks the loop); they are left out, and ``hidden`` says how many.
    """
    kind = source_kind(agent, source)
    note = None
    listed: Listing | None = None
    if kind in ("app-server", "auto"):
        try:
            listed = _with_source(appserver.sessions(project, limits, latest=latest and not hide), "app-server")
        except BridgeError as exc:
            if kind == "app-server":
                raise
            note = f"the Codex app server could not answer ({exc}); local rollouts were read instead"
    if listed is None:
        found = (
            claude.sessions(project, limits, latest=latest)
            if agent == "claude"
            else codex.sessions(project, limits, latest=latest and not hide)
        )
        listed = _with_source(found, "local", note)
    return _hidden(listed, set(hide), latest) if hide else listed


def _hidden(listed: Listing, hide: set[str], latest: bool) -> Listing:
    """``listed`` without the threads in ``hide`` (the newest left alone when ``latest``), saying how many went."""
    kept = [row for row in listed["sessions"] if row.get("threadId") not in hide]
    others = [row for row in listed["otherWorktrees"] if row.get("threadId") not in hide]
    gone = len(listed["sessions"]) + len(listed["otherWorktrees"]) - len(kept) - len(others)
    listed = listed.copy()
    listed["sessions"], listed["otherWorktrees"] = kept[:1] if latest else kept, others
    listed["hidden"] = {
        "count": gone,
        "why": "codex-autopilot's own planner and reviewer threads (codex exec), never a session to hand over",
    }
    return listed


def read(
    agent: str,
    project: Project,
    session: str,
    limits: Limits,
    *,
    limit: int,
    before: int | None = None,
    cursor: str | None = None,
    source: str | None = None,
) -> Page:
    """One page of a session's events, newest first, with its metadata and coverage."""
    if not 1 <= limit <= MAX_LIMIT:
        raise BridgeError(f"--limit {limit} is out of range; use 1 to {MAX_LIMIT}")
    if before is not None and before < 1:
        raise BridgeError(f"--before {before} is not a line number; pass the previous page's nextBeforeLine")
    kind = source_kind(agent, source)
    if kind == "auto" and before is not None:
        kind = "local"  # --before is a local line number; --cursor pages the app server
    note = None
    if kind in ("app-server", "auto"):
        try:
            page = appserver.AppServerSource().read(project, session, cursor=cursor, limit=limit, limits=limits)
        except BridgeError as exc:
            if kind == "app-server":
                raise
            note = f"the Codex app server could not answer ({exc}); the local rollout was read instead"
        else:
            missing = [g for g in page["coverage"]["gaps"] if g.get("kind") == appserver.COMMANDS_MISSING]
            # a --cursor names an app-server page: the rollout has no such page, so the gap is said, not mended
            if kind == "app-server" or not missing or cursor is not None:
                return _with_source(page, "app-server")
            note = f"{missing[0]['detail']}; the local rollout was read instead"  # the server read it from there
    return _with_source(local(agent).read(project, session, before=before, limit=limit, limits=limits), "local", note)
