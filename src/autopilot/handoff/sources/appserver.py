"""Codex threads through ``codex app-server``: read-only JSON-RPC over stdio.

The client speaks the app server's newline-delimited JSON-RPC (no ``"jsonrpc"`` field):
``initialize``, the ``initialized`` notification, then only reads: ``thread/list`` (with
``exec`` threads included: the server hides them by default), ``thread/read`` without turns,
and ``thread/turns/list`` with full items, newest first. Every other method is refused
before it is sent, so inspecting context can never resume a thread, start a turn, run a
shell tool or reach a model. Requests the server sends to the client are answered with an
error. Packets made from this source carry no local source hash, so they can be inspected
but not imported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autopilot.codex.app_server import AppServerClient
from autopilot.handoff.sources import UNNAMED, Limits, check_session_id, first_objective, gap, graph, is_session_id
from autopilot.handoff.sources.project import THIS_WORKTREE, Project, require_match
from autopilot.handoff.transcripts.evidence import OMITTED_SECRET_OUTPUT, TRUST, Evidence, secret_command

if TYPE_CHECKING:
    from autopilot.codex.shapes import AppItem, AppThread, AppTurn
    from autopilot.handoff.sources.shapes import Edit, Event, Gap, Listing, Observed, Page, Session, SessionRow, Tool

READ_METHODS = frozenset({"initialize", "thread/list", "thread/read", "thread/turns/list"})
SOURCE_KINDS = ["cli", "vscode", "exec", "appServer"]  # interactive and exec threads; subagents are children
# Threads of every model provider: left out (or null), thread/list keeps only the provider the config names now, so a
# thread recorded with another provider vanished from the listing (codex 0.171: an empty list means all of them).
ALL_PROVIDERS: list[str] = []
LIST_PAGE, LIST_PAGES = 100, 20
TURN_PAGE = 20
TIMEOUT = 30.0


class AppServer(AppServerClient):
    """A ``codex app-server`` child process that only ever receives read methods."""

    def __init__(self, binary: str | None = None, timeout: float = TIMEOUT) -> None:
        super().__init__(
            binary,
            methods=READ_METHODS,
            timeout=timeout,
            purpose="codex-autopilot handoff reader",
            hint="use --source local",
        )


def _thread_row(t: AppThread, scope: str) -> SessionRow:
    git = t.get("gitInfo") or {}
    return {
        "threadId": t.get("id"),
        "sessionId": t.get("sessionId"),
        "forkedFromId": t.get("forkedFromId"),
        "parentThreadId": t.get("parentThreadId"),
        "cwd": t.get("cwd"),
        "source": t.get("source"),
        "title": t.get("name"),
        "preview": t.get("preview"),
        "createdAt": t.get("createdAt"),
        "updatedAt": t.get("updatedAt"),
        "agentVersion": t.get("cliVersion"),
        "modelProvider": t.get("modelProvider"),
        "gitBranch": git.get("branch"),
        "transcript": t.get("path"),
        "status": (t.get("status") or {}).get("type"),
        "scope": scope,
    }


def sessions(project: Project, limits: Limits, *, latest: bool = False, server: AppServer | None = None) -> Listing:
    """This worktree's Codex threads as the app server lists them (exec threads included)."""
    ev = Evidence(300)
    mine: list[SessionRow] = []
    siblings: list[SessionRow] = []
    pages, cursor, unnamed = 0, None, 0
    with server or AppServer() as app:
        while pages < LIST_PAGES:
            params: dict[str, Any] = {
                "sourceKinds": SOURCE_KINDS,
                "modelProviders": ALL_PROVIDERS,
                "limit": LIST_PAGE,
                "sortKey": "updated_at",
            }
            if cursor:
                params["cursor"] = cursor
            page = app.call("thread/list", params)
            pages += 1
            for t in page.get("data") or []:
                if not is_session_id(t.get("id")):  # nothing could name it again: --session takes ids only
                    unnamed += 1
                    continue
                scope = project.classify(t.get("cwd"))
                if scope == THIS_WORKTREE:
                    mine.append(_thread_row(t, scope))
                elif scope != "other-project":
                    siblings.append(_thread_row(t, scope))
            cursor = page.get("nextCursor")
            if not cursor:
                break
    gaps = [gap("list_pages", f"stopped after {LIST_PAGES} pages of {LIST_PAGE} threads")] if cursor else []
    gaps.append(gap("archived", "the app server lists live threads; archived ones are read with --source local"))
    if unnamed:
        gaps.append(gap("unnamed", f"{unnamed} {UNNAMED}"))
    listing: Listing = {
        "trust": TRUST,
        "from": "codex",
        "source": "app-server",
        "project": project.identity(),
        "sessions": mine[:1] if latest else mine,
        "otherWorktrees": siblings,
        "coverage": {"gaps": gaps},
        "note": "sessions are listed, never chosen: pass --session THREAD_ID to read or export",
    }
    return ev.redactor.walk(listing)


# The first Codex seen to keep an exec thread's command runs in the history its app server returns
# (0.129 and 0.145 return the messages only); the local rollout holds them whatever the version.
COMMANDS_IN_HISTORY = (0, 171, 0)
COMMANDS_MISSING = "commands_missing"


def history_gaps(app: AppServer) -> list[Gap]:
    """What this app server leaves out of a thread's history, as coverage gaps."""
    if app.version is None or app.version >= COMMANDS_IN_HISTORY:
        return []
    said = ".".join(map(str, app.version))
    return [
        gap(
            COMMANDS_MISSING,
            f"codex {said}'s app server leaves command runs out of a thread's history; "
            "the local rollout has them (--source local)",
        )
    ]


class AppServerSource:
    """One thread's metadata and events through the app server."""

    agent = "codex"

    def __init__(self, server: AppServer | None = None) -> None:
        self.server = server

    def _thread(self, app: AppServer, project: Project, thread_id: str) -> AppThread:
        check_session_id(thread_id)
        found = app.call("thread/read", {"threadId": thread_id, "includeTurns": False}).get("thread")
        thread: AppThread = found if found else {}
        require_match(project, thread.get("cwd"), f"codex thread {thread_id}")
        return thread

    def _turns(
        self, app: AppServer, thread_id: str, want: int, cursor: str | None = None, direction: str = "desc"
    ) -> tuple[list[AppTurn], str | None]:
        turns: list[AppTurn] = []
        items = 0
        while items < want:
            params: dict[str, Any] = {
                "threadId": thread_id,
                "limit": TURN_PAGE,
                "sortDirection": direction,
                "itemsView": "full",
            }
            if cursor:
                params["cursor"] = cursor
            page = app.call("thread/turns/list", params)
            for turn in page.get("data") or []:
                turns.append(turn)
                items += len(turn.get("items") or [])
                if items >= want:
                    break
            cursor = page.get("nextCursor")
            if not cursor:
                break
        return turns, cursor

    def read(self, project: Project, thread_id: str, *, cursor: str | None, limit: int, limits: Limits) -> Page:
        """A page of whole turns, newest first, holding at least ``limit`` events when there are that many."""
        ev = Evidence(limits.excerpt_chars)
        with self.server or AppServer() as app:
            thread = self._thread(app, project, thread_id)
            turns, nxt = self._turns(app, thread_id, limit, cursor)
        events, omitted = normalize(list(reversed(turns)), thread_id, ev)
        gaps = history_gaps(app)
        events.reverse()
        page: Page = {
            "trust": TRUST,
            "from": "codex",
            "source": "app-server",
            "session": session_meta(thread),
            "cursor": cursor,
            "limit": limit,
            "nextCursor": nxt,
            "events": events,
            "coverage": {"gaps": gaps, "omitted": omitted},
            "redactions": ev.summary(),
        }
        return ev.redactor.walk(page)

    def observe(self, project: Project, thread_id: str, limits: Limits) -> Observed:
        """What a packet takes from the thread: the newest events up to the window, and the first objective."""
        ev = Evidence(limits.excerpt_chars)
        with self.server or AppServer() as app:
            thread = self._thread(app, project, thread_id)
            turns, more = self._turns(app, thread_id, limits.window_events)
            first_turns = self._turns(app, thread_id, 1, direction="asc")[0] if more else []
        events, omitted = normalize(list(reversed(turns)), thread_id, ev)
        gaps = [
            *history_gaps(app),
            gap(
                "local_hash",
                "read through the app server: no local source bytes were hashed, so this packet "
                "can be inspected but not imported",
                transcript=thread.get("path"),
            ),
        ]
        if more:
            gaps.append(gap("event_window", f"only the newest turns holding {limits.window_events} events are kept"))
        first = first_objective(normalize(first_turns, thread_id, ev)[0]) if more else first_objective(events)
        last_turn = turns[0] if turns else {}
        observed: Observed = {
            "agent": "codex",
            "kind": "app-server",
            "transcript": thread.get("path"),
            "session": session_meta(thread),
            "hash": None,
            "events": events,
            "totalEvents": None,
            "firstObjective": first,
            "coverage": {"gaps": gaps, "omitted": omitted, "unknown": {}},
            "graph": graph(events),
            "lastPrompt": None,
            "checkpoints": [],
            "edits": _edits(events),
            "turn": {"state": last_turn.get("status"), "turnId": last_turn.get("id")},
            "subagents": [],
        }
        observed = ev.redactor.walk(observed)
        observed["redactions"] = ev.summary()
        return observed


def session_meta(t: AppThread) -> Session:
    """The thread's identity in the sources' common shape (thread, session and fork ids apart)."""
    git = t.get("gitInfo") or {}
    return {
        "threadId": t.get("id"),
        "sessionId": t.get("sessionId"),
        "forkedFromId": t.get("forkedFromId"),
        "parentThreadId": t.get("parentThreadId"),
        "cwd": t.get("cwd"),
        "gitBranch": git.get("branch"),
        "gitCommit": git.get("sha"),
        "agentVersion": t.get("cliVersion"),
        "source": t.get("source"),
        "threadSource": t.get("threadSource"),
        "model": t.get("model"),
        "title": t.get("name"),
        "preview": t.get("preview"),
        "createdAt": t.get("createdAt"),
        "updatedAt": t.get("updatedAt"),
    }


def normalize(turns: list[AppTurn], thread_id: str, ev: Evidence) -> tuple[list[Event], dict[str, int]]:
    """Turns (oldest first) as common events, and counts of the items never shown."""
    events: list[Event] = []
    omitted: dict[str, int] = {}
    parent = None
    seen: set[str] = set()
    for turn in turns:
        for item in turn.get("items") or []:
            event = _item(item, ev, omitted)
            if event is None:
                continue
            base = str(item.get("id") or f"{turn.get('id')}:{len(events)}")
            event_id = base if base not in seen else f"{base}#{len(events)}"
            seen.add(event_id)
            event["id"], event["parent"], event["branch"], event["turnId"] = event_id, parent, "active", turn.get("id")
            event["pointer"] = {"threadId": thread_id, "turnId": turn.get("id"), "itemId": item.get("id")}
            events.append(event)
            parent = event_id
        if turn.get("status") == "interrupted":
            events.append(
                {
                    "id": f"{turn.get('id')}:aborted",
                    "kind": "turn_aborted",
                    "text": "turn interrupted",
                    "parent": parent,
                    "branch": "active",
                    "turnId": turn.get("id"),
                    "pointer": {"threadId": thread_id, "turnId": turn.get("id")},
                }
            )
            parent = events[-1]["id"]
    return events, omitted


def _item(item: AppItem, ev: Evidence, omitted: dict[str, int]) -> Event | None:
    t = item.get("type")
    if t == "userMessage":
        parts = [
            c.get("text", "") if c.get("type") == "text" else f"[{c.get('type')}]"
            for c in item.get("content") or []
            if isinstance(c, dict)
        ]
        return {"kind": "user", "text": ev.text("\n".join(parts))}
    if t == "agentMessage":
        return {"kind": "assistant", "text": ev.text(str(item.get("text") or ""))}
    if t == "commandExecution":
        code = item.get("exitCode")

        command = str(item.get("command") or "")
        text = OMITTED_SECRET_OUTPUT if secret_command(command) else ev.text(str(item.get("aggregatedOutput") or ""))
        status = {
            "completed": "completed" if code in (None, 0) else "failed",
            "failed": "failed",
            "declined": "declined",
        }.get(str(item.get("status")), "unfinished")
        tool: Tool = {
            "name": "exec_command",
            "callId": item.get("id"),
            "command": ev.text(command),
            "input": ev.text(command),
            "status": status,
        }
        if status in ("completed", "failed"):
            tool["result"] = {"text": text, "exitCode": code, "isError": status == "failed"}
        return {"kind": "tool", "tool": tool}
    if t == "fileChange":
        paths = [str(c["path"]) for c in item.get("changes") or [] if isinstance(c, dict) and c.get("path")]
        status = {"completed": "completed", "failed": "failed", "declined": "declined"}.get(
            str(item.get("status")), "unfinished"
        )
        return {
            "kind": "tool",
            "tool": {
                "name": "apply_patch",
                "callId": item.get("id"),
                "paths": paths,
                "status": status,
                "input": ev.text("\n".join(paths)),
            },
        }
    if t == "mcpToolCall":
        return {
            "kind": "tool",
            "tool": {
                "name": f"{item.get('server')}.{item.get('tool')}",
                "callId": item.get("id"),
                "input": ev.value(item.get("arguments")),
                "status": "completed" if item.get("status") == "completed" else "unfinished",
            },
        }
    if t == "webSearch":
        return {"kind": "web_search", "text": ev.text(str(item.get("query") or ""))}
    if t == "plan":
        return {"kind": "plan", "text": ev.text(str(item.get("text") or ""))}
    key = {"reasoning": "reasoning", "contextCompaction": "encrypted"}.get(str(t), "unknownItems")
    omitted[key] = omitted.get(key, 0) + 1
    return None


def _edits(events: list[Event]) -> list[Edit]:
    edits: dict[str, Edit] = {}
    for event in events:
        tool = event.get("tool") or {}
        if tool.get("name") == "apply_patch":
            for path in tool.get("paths") or []:
                edits.pop(path, None)
                edits[path] = {
                    "path": path,
                    "tool": "apply_patch",
                    "status": "applied" if tool.get("status") == "completed" else tool.get("status"),
                    "id": event["id"],
                }
    return list(edits.values())
