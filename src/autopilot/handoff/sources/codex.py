"""Codex rollouts on disk: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl`` and the archive.

A rollout names its *thread* (the id in the file name and in ``session_meta.id``). The
*session* id is another thing: subagents share their root thread's. Forks name the
thread they were forked from, spawned subagents their parent thread; both are kept as
``ancestry``, never merged. ``--session`` takes a thread id; a session id shared by several
threads is refused with the candidates. Subagent rollouts are listed under their parent,
never as sessions of their own; user-made forks are sessions. Events come from the Codex
intake in file order (Codex records no per-message parent ids): each event's ``parent``
is the event before it, and a turn that was rolled back is marked ``rolled-back``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from autopilot.codex.rollout import patch_files
from autopilot.codex.sessions import find_rollout, open_rollout, readable, rollout_files, scan_roots
from autopilot.errors import BridgeError
from autopilot.handoff.sources import UNNAMED, Limits, check_session_id, gap, is_session_id
from autopilot.handoff.sources.local import LocalSource, listing, over_read_cap
from autopilot.handoff.sources.project import THIS_WORKTREE, Project
from autopilot.handoff.sources.window import Span
from autopilot.handoff.transcripts import codex_fold
from autopilot.handoff.transcripts.codex_intake import intake
from autopilot.handoff.transcripts.evidence import OMITTED_SECRET_OUTPUT, secret_command
from autopilot.handoff.transcripts.jsonl import Index
from autopilot.paths import codex_home

if TYPE_CHECKING:
    from autopilot.handoff.sources.shapes import (
        Ancestor,
        Checkpoint,
        Event,
        Facts,
        Gap,
        Listing,
        Session,
        SessionRow,
        Subagent,
        Tool,
        ToolResult,
    )
    from autopilot.handoff.transcripts.shapes import CodexEntry, CodexFoldState, CodexIntake, CodexMeta

PROBE_BYTES = 1 << 20
ANCESTRY_DEPTH = 8
SHELL_TOOLS = frozenset({"exec_command", "shell", "local_shell", "shell_command", "container.exec"})
KINDS = {
    "user": "user",
    "assistant": "assistant",
    "tool_call": "tool",
    "tool_result": "tool_result",
    "web_search": "web_search",
    "error": "error",
    "warning": "system",
    "turn_aborted": "turn_aborted",
    "rolled_back": "rolled_back",
    "goal": "goal",
    "plan": "plan",
}


def probe_file(path: str) -> CodexMeta:
    """The whitelisted ``session_meta`` of a rollout's first line (empty when it has none)."""
    with open_rollout(path) as fh:
        first = fh.readline(PROBE_BYTES)
    try:
        row = orjson.loads(first)
    except orjson.JSONDecodeError:
        return {}
    if not isinstance(row, dict) or row.get("type") != "session_meta" or not isinstance(row.get("payload"), dict):
        return {}
    return codex_fold._session_fields(row["payload"])


def is_subagent(meta: CodexMeta) -> bool:
    """Whether a thread was spawned by another (listed under its parent, not as a session)."""
    return bool(meta.get("isSubagent"))  # the fold asks codex.sessions.child_marker, the one test


class CodexSource(LocalSource["CodexFoldState", "CodexIntake"]):
    """Codex rollout files, read through the Codex intake."""

    agent = "codex"

    def locate(self, session_id: str) -> str:
        """The rollout of thread ``session_id`` (found by file name; session ids are told apart)."""
        check_session_id(session_id)
        found = find_rollout(session_id)
        if found is not None:
            return str(readable(found))  # a .jsonl.zst is read from its decompressed copy
        sharing = [
            m.get("id")
            for p in rollout_files()
            if p.suffix == ".jsonl"
            for m in [_quiet_probe(p)]
            if m.get("sessionId") == session_id
        ]
        if sharing:
            raise BridgeError(
                f"{session_id} is a Codex session id shared by thread(s) {', '.join(map(str, sharing))}",
                hint="pass one thread id with --session (thread and session ids are distinct)",
            )
        raise BridgeError(
            f"no Codex thread {session_id} under {' or '.join(map(str, scan_roots()))}",
            hint="list this project's threads with `codex-bridge handoff list --from codex`",
        )

    def probe(self, path: str) -> CodexMeta:
        """The rollout's session metadata."""
        return probe_file(path)

    def scan(self, span: Span) -> Index[CodexFoldState]:
        """The Codex fold's index of a span (cached for a whole file)."""
        return codex_fold.scan(span.scan_path, cache=span.cached)

    def intake(self, span: Span, **kwargs: Any) -> CodexIntake:
        """The Codex intake of a span."""
        return intake(span.scan_path, cache=span.cached, **kwargs)

    def session(self, answer: CodexIntake, path: str) -> Session:
        """Thread id, session id and ancestry kept apart, plus cwd, git, version and model."""
        s = answer["session"]
        git = s.get("git") or {}
        return {
            "threadId": s.get("id"),
            "sessionId": s.get("sessionId"),
            "forkedFromId": s.get("forkedFromId"),
            "parentThreadId": s.get("parentThreadId"),
            "cwd": s.get("cwd"),
            "gitBranch": git.get("branch"),
            "gitCommit": git.get("commitHash"),
            "agentVersion": s.get("cliVersion"),
            "source": s.get("source"),
            "threadSource": s.get("threadSource"),
            "model": s.get("model"),
            "isSubagent": s.get("isSubagent"),
            "title": None,
            "firstTimestamp": answer.get("firstTimestamp"),
            "lastTimestamp": answer.get("lastTimestamp"),
            "ancestry": ancestry(s),
        }

    # -- events ---------------------------------------------------------------------------------

    def normalize(self, answer: CodexIntake, index: Index[CodexFoldState], span: Span) -> list[Event]:
        """The intake's entries as events, oldest first, each following the one before it."""
        out: list[Event] = []
        parent = None
        for entry in sorted(answer["entries"], key=lambda e: e["line"]):
            line = entry["line"]
            event: Event = {
                "id": f"L{span.line(line)}",
                "kind": KINDS.get(entry.get("kind", ""), "other"),
                "parent": parent,
                "pointer": self.pointer(index, span, line),
                "branch": "rolled-back"
                if entry.get("rolledBack")
                else "compacted"
                if entry.get("compacted")
                else "active",
            }
            if entry.get("timestamp"):
                event["timestamp"] = entry["timestamp"]
            if entry.get("turnId"):
                event["turnId"] = entry["turnId"]
            text = _text(entry)
            if text is not None:
                event["text"] = text
            if entry.get("kind") in ("tool_call", "tool_result"):
                event["tool"] = self._tool(entry, index, span)
            if entry.get("kind") == "goal":
                event["status"] = entry.get("status")
            out.append(event)
            parent = event["id"]
        return out

    def _tool(self, entry: CodexEntry, index: Index[CodexFoldState], span: Span) -> Tool:
        name = entry.get("name")
        command = entry.get("input") if name in SHELL_TOOLS or entry.get("kind") == "tool_result" else None
        tool: Tool = {"name": name, "callId": entry.get("callId"), "input": entry.get("input")}
        if command:
            tool["command"] = command
        if name == "apply_patch" and isinstance(entry.get("input"), str):
            paths = [path for _, path in patch_files(entry["input"].replace("\\n", "\n"))]
            if paths:
                tool["paths"] = paths
        result = entry.get("result")
        if entry.get("kind") == "tool_result":
            result = {"line": entry["line"], "text": entry.get("text", ""), "exitCode": entry.get("exitCode")}
            tool["status"] = "orphan"
        if result is None:
            tool["status"] = "unfinished"
            return tool
        code = result.get("exitCode")
        text = OMITTED_SECRET_OUTPUT if secret_command(command) else result.get("text", "")
        out: ToolResult = {
            "id": f"L{span.line(result['line'])}",
            "text": text,
            "isError": code not in (None, 0),
            "pointer": self.pointer(index, span, result["line"]),
        }
        if code is not None:
            out["exitCode"] = code
        tool.setdefault("status", "failed" if out["isError"] else "completed")
        tool["result"] = out
        return tool

    # -- packet facts ---------------------------------------------------------------------------

    def extras(
        self, answer: CodexIntake, index: Index[CodexFoldState], span: Span, path: str
    ) -> tuple[Facts, list[Gap]]:
        """Goal, edited files, the readable compaction summary, turn state, fork and subagent pointers."""
        st = index.state
        last_user = st.get("last_user_line")
        cp = answer.get("checkpoint")
        checkpoints: list[Checkpoint] = (
            [
                {
                    "id": f"L{span.line(cp['line'])}",
                    "pointer": self.pointer(index, span, cp["line"]),
                    "text": cp.get("text"),
                    "timestamp": cp.get("timestamp"),
                    "truncated": cp.get("truncated"),
                }
            ]
            if cp
            else []
        )
        goal = answer.get("goal")
        subagents: list[Subagent] = [
            {"threadId": s.get("threadId"), "path": s.get("path"), "agentPath": s.get("agentPath")}
            for s in answer.get("subagents") or []
        ]
        facts: Facts = {
            "lastPrompt": {"text": answer["lastPrompt"], "id": f"L{span.line(last_user)}"}
            if answer.get("lastPrompt") and last_user
            else None,
            "goal": {"text": goal["objective"], "status": goal.get("status"), "id": f"L{span.line(goal['line'])}"}
            if goal and goal.get("objective")
            else None,
            "checkpoints": checkpoints,
            "edits": [
                {
                    "path": e["path"],
                    "tool": e.get("change"),
                    "status": e["status"],
                    "id": f"L{span.line(e['line'])}",
                    "pointer": self.pointer(index, span, e["line"]),
                }
                for e in reversed(answer.get("editedFiles") or [])
            ],
            "turn": answer.get("turn"),
            "fork": answer.get("fork"),
            "subagents": subagents,
            "compactions": answer["counts"].get("compactions", 0),
        }
        if not subagents:
            return facts, []
        told = f"{len(subagents)} subagent rollout(s) are pointed to, not read into this packet"
        return facts, [gap("subagents", told, threads=[s["threadId"] for s in subagents])]


def _text(entry: CodexEntry) -> str | None:
    kind = entry.get("kind")
    if kind == "goal":
        return entry.get("objective")
    if kind == "web_search":
        return entry.get("query") or entry.get("url") or entry.get("action")
    if kind == "image_generation":
        return entry.get("revisedPrompt")
    if kind == "turn_aborted":
        return f"turn aborted ({entry.get('reason') or 'no reason recorded'})"
    if kind == "rolled_back":
        return f"the last {entry.get('numTurns')} turn(s) were rolled back"
    if kind in ("tool_call", "tool_result"):
        return None
    return entry.get("text") if isinstance(entry.get("text"), str) else None


def _quiet_probe(path: Path) -> CodexMeta:
    try:
        return probe_file(str(path))
    except OSError:
        return {}


def _find(thread_id: str) -> str | None:
    try:
        return CodexSource().locate(thread_id)
    except BridgeError:
        return None


def ancestry(meta: CodexMeta) -> list[Ancestor]:
    """The threads this one came from, nearest first: forks' origins and spawning parents, never merged."""
    chain: list[Ancestor] = []
    seen = {meta.get("id")}
    current = meta
    while len(chain) < ANCESTRY_DEPTH:
        relation, parent = (
            ("forked-from", current.get("forkedFromId"))
            if current.get("forkedFromId")
            else ("spawned-by", current.get("parentThreadId"))
        )
        if not isinstance(parent, str) or parent in seen:
            break
        seen.add(parent)
        path = _find(parent) if re.fullmatch(r"[0-9A-Za-z_-]{4,80}", parent) else None
        chain.append({"threadId": parent, "relation": relation, "transcript": path})
        current = _quiet_probe(Path(path)) if path else {}
    return chain


def sessions(project: Project, limits: Limits, *, latest: bool = False) -> Listing:
    """This worktree's Codex threads (newest first), subagents counted under parents, others apart."""
    source = CodexSource()
    mine: list[SessionRow] = []
    siblings: list[SessionRow] = []
    unreadable: list[str] = []
    unnamed: list[str] = []
    children: dict[str, int] = {}
    for path in rollout_files():
        try:
            meta = probe_file(str(path))
            size = path.stat().st_size
        except Exception:  # unreadable, or a damaged .zst
            unreadable.append(str(path))
            continue
        if not meta:
            unreadable.append(str(path))
            continue
        if is_subagent(meta):
            parent = meta.get("parentThreadId") or "?"
            children[parent] = children.get(parent, 0) + 1
            continue
        if not is_session_id(meta.get("id")):  # nothing could name it again: --session takes ids only
            unnamed.append(str(path))
            continue
        scope = project.classify(meta.get("cwd"))
        row: SessionRow = {
            "threadId": meta.get("id"),
            "sessionId": meta.get("sessionId"),
            "forkedFromId": meta.get("forkedFromId"),
            "cwd": meta.get("cwd"),
            "source": meta.get("source"),
            "modelProvider": meta.get("modelProvider"),
            "createdAt": meta.get("timestamp"),
            "archived": "archived_sessions" in path.parts,
            "transcript": str(path),
            "bytes": size,
            "scope": scope,
            "modified": os.stat(path).st_mtime,
        }
        if scope == THIS_WORKTREE:
            mine.append(_summary(source, readable(path), size, limits, row))
        elif scope != "other-project":
            siblings.append(row)
    for row in mine:
        row["subagents"] = children.get(row["threadId"], 0)
    gaps: list[Gap] = []
    if unreadable:
        gaps.append(gap("unreadable", "rollouts without a readable session_meta first line", paths=unreadable))
    if unnamed:
        gaps.append(gap("unnamed", UNNAMED, paths=unnamed))
    note = "sessions are listed, never chosen: pass --session THREAD_ID to read, export or import"
    return listing("codex", str(codex_home()), project, mine, siblings, {"gaps": gaps}, latest=latest, note=note)


def _summary(source: CodexSource, path: Path, size: int, limits: Limits, row: SessionRow) -> SessionRow:
    if over_read_cap(row, size, limits):
        return row
    answer = intake(str(path), limit=1, max_chars=200)
    row["lastPrompt"], row["firstTimestamp"] = answer["lastPrompt"], answer["firstTimestamp"]
    row["lastTimestamp"], row["agentVersion"] = answer["lastTimestamp"], answer["session"].get("cliVersion")
    row["events"], row["turn"] = answer["counts"]["entries"], answer["turn"]["state"]
    if answer["diagnostics"]["malformedLines"]:
        row["malformedLines"] = answer["diagnostics"]["malformedLines"]
    return row
