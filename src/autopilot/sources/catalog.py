"""One agent's sessions of a project, listed or read a page at a time: the answers `handoff list | read` print.

The CLI and the dashboard both call these, so a listing and a page have one JSON shape
wherever they are shown. Each picks the source (``claude`` or ``codex`` local files, or
Codex's app server) from the agent and ``source``; a listing never selects a session.
"""

from __future__ import annotations

from typing import Any

from autopilot.errors import BridgeError
from autopilot.sources import Limits, appserver, claude, codex
from autopilot.sources.project import Project

AGENTS = ("claude", "codex")
SOURCES = ("local", "app-server")
MAX_LIMIT = 500


def source_kind(agent: str, source: str | None) -> str:
    """``local`` or ``app-server``; the app server is refused for Claude sessions."""
    if agent not in AGENTS:
        raise BridgeError(f"{agent!r} is not an agent", hint="use claude or codex")
    kind = source or "local"
    if kind not in SOURCES:
        raise BridgeError(f"{kind!r} is not a source", hint="use local or app-server")
    if kind == "app-server" and agent != "codex":
        raise BridgeError("--source app-server reads Codex threads only", hint="use --from codex, or drop --source")
    return kind


def local(agent: str) -> claude.ClaudeSource | codex.CodexSource:
    """The local-file source of ``agent``'s sessions."""
    return claude.ClaudeSource() if agent == "claude" else codex.CodexSource()


def sessions(
    agent: str, project: Project, limits: Limits, *, source: str | None = None, latest: bool = False
) -> dict[str, Any]:
    """This worktree's sessions of one agent, newest first (``latest`` filters to one row; nothing is chosen)."""
    if source_kind(agent, source) == "app-server":
        return appserver.sessions(project, limits, latest=latest)
    if agent == "claude":
        return claude.sessions(project, limits, latest=latest)
    return codex.sessions(project, limits, latest=latest)


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
) -> dict[str, Any]:
    """One page of a session's events, newest first, with its metadata and coverage."""
    if not 1 <= limit <= MAX_LIMIT:
        raise BridgeError(f"--limit {limit} is out of range; use 1 to {MAX_LIMIT}")
    if before is not None and before < 1:
        raise BridgeError(f"--before {before} is not a line number; pass the previous page's nextBeforeLine")
    if source_kind(agent, source) == "app-server":
        return appserver.AppServerSource().read(project, session, cursor=cursor, limit=limit, limits=limits)
    return local(agent).read(project, session, before=before, limit=limit, limits=limits)
