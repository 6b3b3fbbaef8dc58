"""Claude Code sessions on disk: ``$CLAUDE_CONFIG_DIR/projects/<key>/<session>.jsonl`` and their subagents.

Discovery never reverses a project directory's name (the encoding replaces every
non-alphanumeric character with ``-``, so it is lossy): it only uses the names to skip
directories that cannot belong to this repository's worktrees, then reads the ``cwd``
the session's own rows recorded and classifies it with :class:`~autopilot.sources.project.Project`.
Sessions of Claude Code worktrees (``.claude/worktrees/<name>``, registered or deleted)
are another worktree, never this one. Events come from the Claude intake, in parentUuid
order: each event's ``parent`` is its nearest ancestor on the chain, so a rewind's new
branch hangs off the row it rewound to, not off the row before it in the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from autopilot.errors import BridgeError
from autopilot.paths import claude_config_dir
from autopilot.sources import Limits, check_session_id, gap
from autopilot.sources.local import LocalSource, exit_code
from autopilot.sources.project import THIS_WORKTREE, Project
from autopilot.sources.window import Span
from autopilot.transcripts import jsonl
from autopilot.transcripts.claude_fold import ClaudeFold
from autopilot.transcripts.claude_intake import intake
from autopilot.transcripts.evidence import OMITTED_SECRET_OUTPUT, TRUST, secret_command

PROBE_BYTES = 256 << 10
LONG_KEY = 200  # Claude Code cuts longer project keys and appends a hash: they cannot be pre-filtered
PATH_KEYS = ("file_path", "notebook_path", "path")


def projects_root() -> Path:
    """Where Claude Code keeps transcripts: ``$CLAUDE_CONFIG_DIR/projects``."""
    return claude_config_dir() / "projects"


def project_key(path: str) -> str:
    """Claude Code's directory name for a launch directory (lossy: used only to skip directories)."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _may_hold(name: str, keys: list[str]) -> bool:
    return len(name) >= LONG_KEY or any(name == k or name.startswith(k + "-") for k in keys)


class ClaudeSource(LocalSource):
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

    def probe(self, path: str) -> dict[str, Any]:
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
                return {
                    k: row.get(k) for k in ("sessionId", "cwd", "gitBranch", "version") if isinstance(row.get(k), str)
                }
        return {}

    def scan(self, span: Span) -> jsonl.Index:
        """The Claude fold's index of a span (cached for a whole file)."""
        return jsonl.scan(span.scan_path, ClaudeFold(), cache=span.cached)

    def intake(self, span: Span, **kwargs: Any) -> dict[str, Any]:
        """The Claude intake of a span."""
        return intake(span.scan_path, cache=span.cached, **kwargs)

    def session(self, answer: dict[str, Any], path: str) -> dict[str, Any]:
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

    def normalize(self, answer: dict[str, Any], index: jsonl.Index, span: Span) -> list[dict[str, Any]]:
        """The intake's entries as events, oldest first, each hung off its parentUuid ancestor."""
        entries = sorted(answer["entries"], key=lambda e: e["line"])
        parents = _entry_parents(index, {e["line"] for e in entries})
        last_event: dict[int, str] = {}
        out: list[dict[str, Any]] = []
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

    def _blocks(self, entry: dict[str, Any], index: jsonl.Index, span: Span) -> list[dict[str, Any]]:
        role = entry.get("role")
        if role == "system":
            kind = "error" if entry.get("level") == "error" else "system"
            return [{"kind": kind, "text": entry.get("text", ""), "subtype": entry.get("subtype")}]
        events: list[dict[str, Any]] = []
        for block in entry.get("content") or []:
            t = block.get("type")
            if t == "text":
                event: dict[str, Any] = {"kind": "assistant" if role == "assistant" else "user", "text": block["text"]}
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
            for key in ("origin", "via"):
                if entry.get(key):
                    event[key] = entry[key]
            if entry.get("apiError"):
                event["kind"] = "error"
            events.append(event)
        return events

    def _tool(self, block: dict[str, Any], index: jsonl.Index, span: Span) -> dict[str, Any]:
        args: dict[str, Any] = block["input"] if isinstance(block.get("input"), dict) else {}
        tool: dict[str, Any] = {"name": block.get("name"), "callId": block.get("id"), "input": args}
        if isinstance(args.get("command"), str):
            tool["command"] = args["command"]
        paths = [args[k] for k in PATH_KEYS if isinstance(args.get(k), str)]
        if paths:
            tool["paths"] = paths
        result = block.get("result")
        if result is None:
            tool["status"] = "unfinished"
            return tool
        text = result.get("text", "")
        if secret_command(tool.get("command")):
            text = OMITTED_SECRET_OUTPUT
        out: dict[str, Any] = {
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

    def extras(self, answer: dict[str, Any], index: jsonl.Index, span: Span, path: str) -> dict[str, Any]:
        """Edited files, compaction summaries, the last prompt, branches and subagent pointers."""
        st = index.state
        cp = answer.get("checkpoint")
        # Summaries on the session's history, and the one the model was sent (after a print-mode
        # /compact it hangs off no chain the rows after it follow).
        compacts = [line for line, _ in st["compacts"] if st["active"][line] or (cp and cp.get("line") == line)]
        checkpoints = [{"id": f"L{span.line(line)}", "pointer": self.pointer(index, span, line)} for line in compacts]
        if cp and checkpoints and compacts[-1] == cp.get("line"):
            checkpoints[-1].update(
                text=cp.get("text"),
                trigger=cp.get("trigger"),
                timestamp=cp.get("timestamp"),
                truncated=cp.get("truncated"),
            )
        edits = [
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
        extra: dict[str, Any] = {
            "lastPrompt": {"text": answer["lastPrompt"]} if answer.get("lastPrompt") else None,
            "checkpoints": checkpoints,
            "edits": edits,
            "subagents": subagents,
            "branches": answer.get("branches"),
        }
        if subagents:
            extra["extraGaps"] = [
                gap(
                    "subagents",
                    f"{len(subagents)} subagent transcript(s) are pointed to, not read into this packet",
                    paths=[s["path"] for s in subagents],
                )
            ]
        return extra


def _entry_parents(index: jsonl.Index, wanted: set[int]) -> dict[int, int | None]:
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


def subagent_files(path: str) -> list[dict[str, Any]]:
    """Pointers to a session's subagent transcripts (``<session>/subagents/**/agent-*.jsonl``)."""
    base = Path(path).with_suffix("") / "subagents"
    if not base.is_dir():
        return []
    found = []
    for p in sorted(base.glob("**/agent-*.jsonl")):
        st = p.stat()
        found.append({"agentId": p.stem.removeprefix("agent-"), "path": str(p), "bytes": st.st_size})
    return found


def sessions(project: Project, limits: Limits, *, latest: bool = False) -> dict[str, Any]:
    """This worktree's Claude Code sessions (newest first), other worktrees' counted apart, and gaps."""
    source = ClaudeSource()
    root = projects_root()
    keys = [project_key(w) for w in project.worktrees]
    mine: list[dict[str, Any]] = []
    siblings: list[dict[str, Any]] = []
    skipped = 0
    missing: list[str] = []
    unreadable: list[str] = []
    dirs = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    for folder in dirs:
        if not _may_hold(folder.name, keys):
            skipped += 1
            continue
        for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "subagents").is_dir()):
            if not (folder / f"{sub.name}.jsonl").exists():
                missing.append(str(folder / f"{sub.name}.jsonl"))
        for path in sorted(folder.glob("*.jsonl")):
            try:
                probe = source.probe(str(path))
                size = path.stat().st_size
            except OSError:
                unreadable.append(str(path))
                continue
            scope = project.classify(probe.get("cwd"))
            row = {
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
    mine.sort(key=lambda r: (r.get("lastTimestamp") or "", r["modified"]), reverse=True)
    if latest:
        mine = mine[:1]
    gaps = []
    if missing:
        gaps.append(
            gap("deleted_transcripts", "session folders (with subagents) whose main transcript is gone", paths=missing)
        )
    if unreadable:
        gaps.append(gap("unreadable", "transcripts that could not be opened", paths=unreadable))
    for row in mine + siblings:
        row.pop("modified")
    return {
        "trust": TRUST,
        "from": "claude",
        "source": "local",
        "root": str(root),
        "project": project.identity(),
        "sessions": mine,
        "otherWorktrees": siblings,
        "coverage": {"projectDirs": len(dirs) - skipped, "skippedProjectDirs": skipped, "gaps": gaps},
        "note": "sessions are listed, never chosen: pass --session ID to read, export or import",
    }


def _summary(source: ClaudeSource, path: Path, size: int, limits: Limits, row: dict[str, Any]) -> dict[str, Any]:
    if size > limits.max_read_bytes:
        row["note"] = f"larger than the {limits.max_read_bytes}-byte read cap: summary not read"
        return row
    answer = intake(str(path), limit=1, max_chars=200)
    row.update(
        {
            "title": answer.get("title"),
            "firstTimestamp": answer.get("firstTimestamp"),
            "lastTimestamp": answer.get("lastTimestamp"),
            "lastPrompt": answer.get("lastPrompt"),
            "agentVersion": answer["session"].get("claudeVersion"),
            "events": answer["counts"]["entries"],
            "hasCheckpoint": answer.get("checkpoint") is not None,
            "subagents": len(subagent_files(str(path))),
        }
    )
    if answer["diagnostics"]["malformedLines"]:
        row["malformedLines"] = answer["diagnostics"]["malformedLines"]
    return row
