"""Claude Code sessions on disk: ``$CLAUDE_CONFIG_DIR/projects/<key>/<session>.jsonl`` and their subagents.

Discovery never reverses a project directory's name (the encoding replaces every
non-alphanumeric character with ``-``, so it is lossy): it only uses the names to skip
directories that cannot belong to this repository's worktrees, then reads the ``cwd``
the session's own rows recorded and classifies it with :class:`~autopilot.handoff.sources.project.Project`.
Sessions of Claude Code worktrees (``.claude/worktrees/<name>``, registered or deleted)
are another worktree, never this one. Events come from the Claude intake, in parentUuid
order: each event's ``parent`` is its nearest ancestor on the chain, so a rewind's new
branch hangs off the row it rewound to, not off the row before it in the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from autopilot.config import reader_dir
from autopilot.errors import BridgeError
from autopilot.handoff.sources import UNNAMED, Limits, check_session_id, gap, is_session_id
from autopilot.handoff.sources.local import LocalSource, exit_code, listing, over_read_cap
from autopilot.handoff.sources.project import THIS_WORKTREE, Project
from autopilot.handoff.sources.window import Span
from autopilot.handoff.transcripts import jsonl
from autopilot.handoff.transcripts.claude_fold import ClaudeFold
from autopilot.handoff.transcripts.claude_intake import intake
from autopilot.handoff.transcripts.evidence import OMITTED_SECRET_OUTPUT, secret_command

if TYPE_CHECKING:
    from autopilot.handoff.sources.shapes import (
        Checkpoint,
        Coverage,
        Edit,
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
    from autopilot.handoff.transcripts.shapes import ClaudeBlock, ClaudeEntry, ClaudeFoldState, ClaudeIntake

PROBE_BYTES = 256 << 10
LONG_KEY = 200  # Claude Code cuts longer project keys and appends a hash: they cannot be pre-filtered
PATH_KEYS = ("file_path", "notebook_path", "path")


def projects_root() -> Path:
    """Where Claude Code keeps transcripts: ``claude_projects_dir``, default ``$CLAUDE_CONFIG_DIR/projects``."""
    return reader_dir("claude_projects_dir")[0]


def project_key(path: str) -> str:
    """Claude Code's directory name for a launch directory (lossy: used only to skip directories)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _may_hold(name: str, keys: list[str]) -> bool:
    return len(name) >= LONG_KEY or any(name == k or name.startswith(k + "-") for k in keys)


class ClaudeSource(LocalSource["ClaudeFoldState", "ClaudeIntake"]):
    """Claude Code project transcripts, read through the Claude intake."""

    agent = "claude"

    def locate(self, session_id: str) -> str:
        """The main transcript of ``session_id`` (one glob per project directory, no reading)."""
        check_session_id(session_id)
        found = sorted(projects_root().glob(f"*/{session_id}.jsonl"))
        if not found:
            raise BridgeError(
                f"no Claude Code session {session_id} under {projects_root()}",
                hint="list this project's sessions with `codex-bridge handoff list --from claude`",
            )
        if len(found) > 1:
            raise BridgeError(
                f"session {session_id} has {len(found)} transcripts: " + ", ".join(str(p) for p in found),
                hint="keep the one you mean and move the others aside",
            )
        return str(found[0])

    def probe(self, path: str) -> dict[str, str]:
        """Session id, cwd, branch and version from the first rows that carry them."""
        with open(path, "rb") as fh:
            head = fh.read(PROBE_BYTES)
        for raw in head.split(b"\n")[:-1] if len(head) == PROBE_BYTES else head.split(b"\n"):
            if b'"cwd"' not in raw:
                continue
            try:
                row = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("cwd"), str):
                return {k: v for k in ("sessionId", "cwd", "gitBranch", "version") if isinstance(v := row.get(k), str)}
        return {}

    def scan(self, span: Span) -> jsonl.Index[ClaudeFoldState]:
        """The Claude fold's index of a span (cached for a whole file)."""
        return jsonl.scan(span.scan_path, ClaudeFold(), cache=span.cached)

    def intake(self, span: Span, **kwargs: Any) -> ClaudeIntake:
        """The Claude intake of a span."""
        return intake(span.scan_path, cache=span.cached, **kwargs)

    def session(self, answer: ClaudeIntake, path: str) -> Session:
        """Session id, cwd, branch, Claude Code version and title."""
        s = answer["session"]
        return {
            "sessionId": s.get("sessionId") or Path(path).stem,
            "cwd": s.get("cwd"),
            "gitBranch": s.get("gitBranch"),
            "agentVersion": s.get("claudeVersion"),
            "title": answer.get("title"),
            "firstTimestamp": answer.get("firstTimestamp"),
            "lastTimestamp": answer.get("lastTimestamp"),
            "models": answer.get("models"),
        }

    # -- events ---------------------------------------------------------------------------------

    def normalize(self, answer: ClaudeIntake, index: jsonl.Index[ClaudeFoldState], span: Span) -> list[Event]:
        """The intake's entries as events, oldest first, each hung off its parentUuid ancestor."""
        entries = sorted(answer["entries"], key=lambda e: e["line"])
        parents = _entry_parents(index, {e["line"] for e in entries})
        last_event: dict[int, str] = {}
        out: list[Event] = []
        for entry in entries:
            line = entry["line"]
            parent_line = parents.get(line)
            parent = (last_event.get(parent_line) or f"L{span.line(parent_line)}") if parent_line else None
            pointer = self.pointer(index, span, line)
            for k, event in enumerate(self._blocks(entry, index, span)):
                event["id"] = f"L{span.line(line)}" + (f".{k}" if k else "")
                event["parent"] = parent
                event["pointer"] = pointer
                if entry.get("timestamp"):
                    event["timestamp"] = entry["timestamp"]
                event["branch"] = entry.get("branch", "active")
                out.append(event)
                parent = event["id"]
            if parent:
                last_event[line] = parent
        return out

    def _blocks(self, entry: ClaudeEntry, index: jsonl.Index[ClaudeFoldState], span: Span) -> list[Event]:
        role = entry.get("role")
        if role == "system":
            kind = "error" if entry.get("level") == "error" else "system"
            return [{"kind": kind, "text": entry.get("text", ""), "subtype": entry.get("subtype")}]
        events: list[Event] = []
        for block in entry.get("content") or []:
            t = block.get("type")
            event: Event
            if t == "text":
                event = {"kind": "assistant" if role == "assistant" else "user", "text": block["text"]}
            elif t == "tool_use":
                event = {"kind": "tool", "tool": self._tool(block, index, span)}
            elif t == "tool_result":
                event = {
                    "kind": "tool_result",
                    "tool": {
                        "callId": block.get("toolUseId"),
                        "status": "orphan",
                        "result": {"text": block.get("text", ""), "isError": block.get("isError")},
                    },
                }
            elif t in ("image", "document"):
                event = {
                    "kind": "assistant" if role == "assistant" else "user",
                    "text": f"[{t}: {block.get('mediaType')}]",
                    "attachment": t,
                }
            else:
                continue
            if entry.get("origin"):
                event["origin"] = entry["origin"]
            if entry.get("via"):
                event["via"] = entry["via"]
            if entry.get("apiError"):
                event["kind"] = "error"
            events.append(event)
        return events

    def _tool(self, block: ClaudeBlock, index: jsonl.Index[ClaudeFoldState], span: Span) -> Tool:
        args = block["input"] if isinstance(block.get("input"), dict) else {}
        tool: Tool = {"name": block.get("name"), "callId": block.get("id"), "input": args}
        if isinstance(command := args.get("command"), str):
            tool["command"] = command
        paths = [path for k in PATH_KEYS if isinstance(path := args.get(k), str)]
        if paths:
            tool["paths"] = paths
        result = block.get("result")
        if result is None:
            tool["status"] = "unfinished"
            return tool
        text = result.get("text", "")
        if secret_command(tool.get("command")):
            text = OMITTED_SECRET_OUTPUT
        out: ToolResult = {
            "id": f"L{span.line(result['line'])}",
            "text": text,
            "isError": result.get("isError"),
            "pointer": self.pointer(index, span, result["line"]),
        }
        code = exit_code(text) if result.get("isError") else None
        if code is not None:
            out["exitCode"] = code
        tool["status"] = "failed" if result.get("isError") else "completed"
        tool["result"] = out
        return tool

    # -- packet facts ---------------------------------------------------------------------------

    def extras(
        self, answer: ClaudeIntake, index: jsonl.Index[ClaudeFoldState], span: Span, path: str
    ) -> tuple[Facts, list[Gap]]:
        """Edited files, compaction summaries, the last prompt, branches and subagent pointers."""
        st = index.state
        cp = answer.get("checkpoint")
        # Summaries on the session's history, and the one the model was sent (after a print-mode
        # /compact it hangs off no chain the rows after it follow).
        compacts = [line for line, _ in st["compacts"] if st["active"][line] or (cp and cp.get("line") == line)]
        checkpoints: list[Checkpoint] = [
            {"id": f"L{span.line(line)}", "pointer": self.pointer(index, span, line)} for line in compacts
        ]
        if cp and checkpoints and compacts[-1] == cp.get("line"):
            last = checkpoints[-1]
            last["text"], last["trigger"] = cp.get("text"), cp.get("trigger")
            last["timestamp"], last["truncated"] = cp.get("timestamp"), cp.get("truncated")
        edits: list[Edit] = [
            {
                "path": e["path"],
                "tool": e["tool"],
                "status": {"ok": "applied"}.get(e["status"], e["status"]),
                "id": f"L{span.line(e['line'])}",
                "pointer": self.pointer(index, span, e["line"]),
            }
            for e in reversed(answer.get("editedFiles") or [])
        ]
        subagents = subagent_files(path)
        facts: Facts = {
            "lastPrompt": {"text": answer["lastPrompt"]} if answer.get("lastPrompt") else None,
            "checkpoints": checkpoints,
            "edits": edits,
            "subagents": subagents,
            "branches": answer.get("branches"),
        }
        if not subagents:
            return facts, []
        told = f"{len(subagents)} subagent transcript(s) are pointed to, not read into this packet"
        return facts, [gap("subagents", told, paths=[s["path"] for s in subagents])]


def _entry_parents(index: jsonl.Index[ClaudeFoldState], wanted: set[int]) -> dict[int, int | None]:
    """For each wanted entry line, the line of its nearest ancestor that is an entry (by parentUuid)."""
    st = index.state
    keys, parents, where = st["nodeKey"], st["nodeParent"], st["nodeLine"]
    entries = set(index.entries)
    newest_line: dict[int, int] = {}
    parent_of: dict[int, int | None] = {}
    for i in range(len(keys)):
        p = parents[i]
        parent_of[where[i]] = newest_line.get(p) if p else None
        newest_line[keys[i]] = where[i]
    out: dict[int, int | None] = {}
    for line in wanted:
        up = parent_of.get(line)
        hops = 0
        while up is not None and up not in entries and hops < 100_000:
            up = parent_of.get(up)
            hops += 1
        out[line] = up
    return out


def subagent_files(path: str) -> list[Subagent]:
    """Pointers to a session's subagent transcripts (``<session>/subagents/**/agent-*.jsonl``)."""
    base = Path(path).with_suffix("") / "subagents"
    if not base.is_dir():
        return []
    found: list[Subagent] = []
    for p in sorted(base.glob("**/agent-*.jsonl")):
        st = p.stat()
        found.append({"agentId": p.stem.removeprefix("agent-"), "path": str(p), "bytes": st.st_size})
    return found


def sessions(project: Project, limits: Limits, *, latest: bool = False) -> Listing:
    """This worktree's Claude Code sessions (newest first), other worktrees' counted apart, and gaps."""
    source = ClaudeSource()
    root = projects_root()
    keys = [project_key(w) for w in project.worktrees]
    mine: list[SessionRow] = []
    siblings: list[SessionRow] = []
    skipped = 0
    missing: list[str] = []
    unreadable: list[str] = []
    unnamed: list[str] = []
    dirs = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in dirs:
        if not _may_hold(folder.name, keys):
            skipped += 1
            continue
        for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "subagents").is_dir()):
            if not (folder / f"{sub.name}.jsonl").exists():
                missing.append(str(folder / f"{sub.name}.jsonl"))
        for path in sorted(folder.glob("*.jsonl")):
            if not is_session_id(path.stem):  # nothing could name it again: --session takes ids only
                unnamed.append(str(path))
                continue
            try:
                probe = source.probe(str(path))
                size = path.stat().st_size
            except OSError:
                unreadable.append(str(path))
                continue
            scope = project.classify(probe.get("cwd"))
            row: SessionRow = {
                "sessionId": path.stem,
                "cwd": probe.get("cwd"),
                "gitBranch": probe.get("gitBranch"),
                "transcript": str(path),
                "bytes": size,
                "scope": scope,
                "modified": os.stat(path).st_mtime,
            }
            if scope == THIS_WORKTREE:
                mine.append(_summary(source, path, size, limits, row))
            elif scope != "other-project":
                siblings.append(row)
    gaps: list[Gap] = []
    if missing:
        gaps.append(
            gap("deleted_transcripts", "session folders (with subagents) whose main transcript is gone", paths=missing)
        )
    if unreadable:
        gaps.append(gap("unreadable", "transcripts that could not be opened", paths=unreadable))
    if unnamed:
        gaps.append(gap("unnamed", UNNAMED, paths=unnamed))
    coverage: Coverage = {"projectDirs": len(dirs) - skipped, "skippedProjectDirs": skipped, "gaps": gaps}
    note = "sessions are listed, never chosen: pass --session ID to read, export or import"
    return listing("claude", str(root), project, mine, siblings, coverage, latest=latest, note=note)


def _summary(source: ClaudeSource, path: Path, size: int, limits: Limits, row: SessionRow) -> SessionRow:
    if over_read_cap(row, size, limits):
        return row
    answer = intake(str(path), limit=1, max_chars=200)
    row["title"], row["firstTimestamp"] = answer["title"], answer["firstTimestamp"]
    row["lastTimestamp"], row["lastPrompt"] = answer["lastTimestamp"], answer["lastPrompt"]
    row["agentVersion"] = answer["session"].get("claudeVersion")
    row["events"] = answer["counts"]["entries"]
    row["hasCheckpoint"] = answer["checkpoint"] is not None
    row["subagents"] = len(subagent_files(str(path)))
    if answer["diagnostics"]["malformedLines"]:
        row["malformedLines"] = answer["diagnostics"]["malformedLines"]
    return row
