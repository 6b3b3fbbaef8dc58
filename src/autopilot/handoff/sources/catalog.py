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
    agent: str, project: Project, limits: Limits, *, source: str | None = None, latest: bool = False
) -> Listing:
    """This worktree's sessions of one agent, newest first (``latest`` filters to one row; nothing is chosen)."""
    kind = source_kind(agent, source)
    note = None
    if kind in ("app-server", "auto"):
        try:
            return _with_source(appserver.sessions(project, limits, latest=latest), "app-server")
        except BridgeError as exc:
            if kind == "app-server":
                raise
            note = f"the Codex app server could not answer ({exc}); local rollouts were read instead"
    listed = (
        claude.sessions(project, limits, latest=latest)
        if agent == "claude"
        else codex.sessions(project, limits, latest=latest)
    )
    return _with_source(listed, "local", note)


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
