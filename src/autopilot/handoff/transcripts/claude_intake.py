"""The Claude Code transcript intake: a bounded, newest-first, evidence-only view of a session.

:func:`intake` scans the transcript once through the cached index (``jsonl.scan`` with
:class:`~autopilot.handoff.transcripts.claude_fold.ClaudeFold`) and renders one page: session
identity, counts, the summary the model was sent after the newest compaction as ``checkpoint``
(on the newest page only), ``lastPrompt``,
edited files, subagent transcripts, and up to ``limit`` meaningful entries older than
``beforeLine`` (exclusive), newest first, with tool calls paired with their results by
id and each entry marked ``active`` (in what the model is sent now), ``compacted`` (history a
compaction summarised) or ``non-lineage`` (a branch a rewind left). Only whitelisted fields are
read back from the rows on the page; thinking, system prompts, tool definitions, hook
context and usage telemetry are never emitted, and every string is redacted.
"""

from __future__ import annotations

import os

from autopilot.fastjson import parse_json_line
from autopilot.handoff.transcripts import jsonl, paging
from autopilot.handoff.transcripts.claude_fold import ClaudeFold, safe_name, update_lineage
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    SECRET_CONTENT_KEYS,
    TRUST,
    Evidence,
    tool_omission,
)
from autopilot.handoff.transcripts.jsonl_index import find_line
from autopilot.patterns import DOTALL, lazy

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every intake page loads this module
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from autopilot.handoff.transcripts.shapes import (
        Checkpoint,
        ClaudeBlock,
        ClaudeEdit,
        ClaudeEntry,
        ClaudeFoldState,
        ClaudeIntake,
        ClaudeRow,
        ClaudeSession,
        ClaudeSubagent,
        IntakeResult,
    )

CHECKPOINT_FACTOR = 4  # the checkpoint may be this many times --max-chars: it is the baseline
EDITED_FILES_SHOWN = 50
# Claude Code appends subagent token counts to Agent results: telemetry, never emitted.
_USAGE_BLOCK = lazy(r"<usage>.*?</usage>\s*", DOTALL)


def intake(
    path: str | os.PathLike[str],
    *,
    before_line: int | None = None,
    limit: int = paging.DEFAULT_LIMIT,
    max_chars: int | None = paging.DEFAULT_MAX_CHARS,
    cache: bool = True,
) -> ClaudeIntake:
    """The intake answer for one page of a Claude Code transcript (``max_chars`` None: strings uncut)."""
    path = os.fspath(path)
    index = jsonl.scan(path, ClaudeFold(), cache=cache)
    st = index.state
    update_lineage(st, index.lines)  # a partial last row may have moved the leaf
    ev = Evidence(max_chars)
    lines, next_before = index.page(before_line, limit)
    newest_page = before_line is None or before_line > index.lines
    with index.reader() as reader:
        view = _View(index, reader, ev)
        entries = [e for e in (view.entry(n) for n in lines) if e is not None]
        answer: ClaudeIntake = {
            "trust": TRUST,
            "format": "claude-code-transcript",
            "transcript": path,
            "session": view.session(),
            "title": view.title(),
            "firstTimestamp": st["first"],
            "lastTimestamp": st["last"],
            "models": sorted(st["models"]),
            "counts": {
                "lines": index.lines,
                "rows": sum(st["rowTypes"].values()) + sum(st["unknownTypes"].values()),
                "rowTypes": dict(sorted(st["rowTypes"].items())),
                "toolCalls": dict(sorted(st["tools"].items())),
                "entries": len(index.entries),
                "malformedLines": index.malformed_total,
                "omittedThinking": st["thinking"],
            },
            # The checkpoint belongs to the session, not to a page: only the newest page carries it.
            "checkpoint": view.checkpoint() if newest_page else None,
            "lastPrompt": view.last_prompt(),
            "editedFiles": view.edited_files(),
            "editedFilesTotal": len(st["edits"]),
            "subagents": view.subagents(),
            "beforeLine": before_line,
            "limit": limit,
            "nextBeforeLine": next_before,
            "entries": entries,
        }
    non_lineage, compacted = branch_counts(st, index.entries)
    answer["branches"] = {
        "leafLine": st["leafLine"] or None,
        "nonLineageEntries": non_lineage,
        "compactedEntries": compacted,
        "compactionLine": st["boundaries"][st["viewBoundary"]][0] if st["viewBoundary"] is not None else None,
    }
    answer["diagnostics"] = {
        "malformedLines": dict(sorted(index.malformed.items())),
        "malformedSample": index.malformed_sample,
        "oversizeLines": index.oversize[:20],
        "unknownRowTypes": dict(sorted(st["unknownTypes"].items())),
        "unknownBlockTypes": dict(sorted(st["unknownBlocks"].items())),
        "omitted": {
            **st["omitted"],
            "thinkingBlocks": st["thinking"],
            "systemReminders": ev.reminders,
            "usageBlocks": view.usage_blocks,
        },
        "index": index.status,
        "scannedBytes": index.scanned_bytes,
    }
    answer["redactions"] = ev.summary()
    return answer


class _View:
    """Reads back the few lines a page needs and renders them through the whitelist."""

    def __init__(self, index: jsonl.Index[ClaudeFoldState], reader: jsonl.LineReader, ev: Evidence) -> None:
        self.index, self.reader, self.ev, self.st = index, reader, ev, index.state
        self.usage_blocks = 0

    def _load(self, line: int) -> ClaudeRow | None:
        return self.reader.load(line) if line else None

    def _oversize(self, line: int) -> str:
        size = self.reader.size(line)
        return f"[line {line} is {size} bytes, too large to show]"

    def session(self) -> ClaudeSession:
        s = self.st["session"]

        def shown(value: Any) -> Any:  # each string redacted and cut
            return self.ev.text(value, 500) if isinstance(value, str) else value

        out: ClaudeSession = {
            "sessionId": shown(s.get("sessionId")),
            "agentId": shown(s.get("agentId")),
            "isSidechain": bool(self.st["sidechainFile"]),
            "cwd": shown(s.get("cwd")),
            "gitBranch": shown(s.get("gitBranch")),
            "claudeVersion": shown(s.get("version")),
            "entrypoint": shown(s.get("entrypoint")),
        }
        # A subagent lives at <dir>/<session>/subagents/[…/]agent-<id>.jsonl, beside <session>.jsonl.
        if self.st["sidechainFile"]:
            from pathlib import Path  # only for a subagent's transcript: ~3 ms a main session's page does not pay

            folder = next((p for p in Path(self.index.path).parents if p.name == "subagents"), None)
            if folder is not None:
                main = folder.parent.parent / f"{folder.parent.name}.jsonl"
                out["parentTranscript"] = shown(str(main)) if main.is_file() else None
        return out

    def title(self) -> str | None:
        fields = (("custom-title", "customTitle"), ("ai-title", "aiTitle"), ("summary", "summary"))
        for kind, field in fields:
            row = self._load(self.st["titleLines"].get(kind, 0))
            if row and isinstance(title := row.get(field), str):
                return self.ev.text(title, 300)
        return None

    def last_prompt(self) -> str | None:
        row = self._load(self.st["lastPromptLine"])
        if row and isinstance(row.get("lastPrompt"), str):
            return self.ev.prose(row["lastPrompt"])
        row = self._load(self.st["lastUserLine"])
        if row:
            texts = [b["text"] for b in _user_blocks(row) if b.get("type") == "text"]
            # The same row is usually an entry too: count its reminders there, not twice.
            return self.ev.prose("\n".join(texts), count=False) if texts else None
        return None

    def checkpoint(self) -> Checkpoint | None:
        """The summary the model was sent after the newest compaction (Claude Code's rebuild rule).

        With a boundary it is that boundary's summary, whatever the parentUuid chain says (after a
        print-mode ``/compact`` the rows that follow chain to the pre-compaction leaf, not to it).
        Older transcripts without boundaries fall back to the newest summary on the active lineage.
        """
        b = self.st["viewBoundary"]
        if b is not None:
            line, trigger = self.st["boundaries"][b][6], self.st["boundaries"][b][1]
            candidates = [(line, trigger)] if line else []
        else:
            active = self.st["active"]
            candidates = [(n, t) for n, t in reversed(self.st["compacts"]) if active[n]][:1]
        for line, trigger in candidates:
            row = self._load(line)
            out: Checkpoint = {"line": line, "trigger": trigger, "timestamp": row.get("timestamp") if row else None}
            if row is None:
                out["text"] = self._oversize(line)
                return out
            texts = [b["text"] for b in _user_blocks(row) if b.get("type") == "text"]
            text = "\n".join(texts)
            bound = None if self.ev.max_chars is None else self.ev.max_chars * CHECKPOINT_FACTOR
            out["chars"] = len(text)
            out["truncated"] = bound is not None and len(text) > bound
            out["text"] = self.ev.prose(text, bound)
            return out
        return None

    def edited_files(self) -> list[ClaudeEdit]:
        edits = list(self.st["edits"].items())[-EDITED_FILES_SHOWN:]
        return [
            {"path": self.ev.text(path, 500), "tool": tool, "line": line, "edits": count, "status": status}
            for path, (tool, line, count, status) in reversed(edits)
        ]

    def subagents(self) -> list[ClaudeSubagent]:
        base = os.path.join(os.path.splitext(self.index.path)[0], "subagents")
        if not os.path.isdir(base):
            return []  # the usual answer
        found: list[tuple[int, ClaudeSubagent]] = []
        for path, st in _agent_files(base):  # os.scandir, not pathlib (~3 ms to import, and a page of a long session
            meta: dict[str, Any] = {}  # with subagents paid it)
            try:
                with open(path[: -len(".jsonl")] + ".meta.json", "rb") as fh:
                    loaded = parse_json_line(fh.read())
                meta = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                pass
            found.append(
                (
                    st.st_mtime_ns,
                    {
                        "path": path,
                        "agentId": safe_name(os.path.basename(path)[: -len(".jsonl")].removeprefix("agent-")),
                        "agentType": self.ev.text(meta["agentType"], 100)
                        if isinstance(meta.get("agentType"), str)
                        else None,
                        "description": self.ev.text(meta["description"], 300)
                        if isinstance(meta.get("description"), str)
                        else None,
                        "bytes": st.st_size,
                    },
                )
            )
        found.sort(key=lambda item: (-item[0], item[1]["path"]))
        return [item for _, item in found]

    def entry(self, line: int) -> ClaudeEntry | None:
        row = self._load(line)
        where = branch(self.st, line)
        if row is None:  # too large to parse: the fold kept only its envelope
            head, _ = self.reader.head_tail(line, 4096)
            role = "assistant" if b'"type":"assistant"' in head else "user"
            return {
                "line": line,
                "role": role,
                "branch": where,
                "oversize": True,
                "content": [{"type": "text", "text": self._oversize(line)}],
            }
        kind = row.get("type")
        out: ClaudeEntry = {"line": line, "role": kind, "timestamp": row.get("timestamp"), "branch": where}
        if row.get("isSidechain") is True and not self.st["sidechainFile"]:
            out["sidechain"] = True
        if kind == "assistant":
            out["content"] = self._assistant_blocks(row)
            if row.get("isApiErrorMessage"):
                out["apiError"] = True
        elif kind == "user":
            origin = row.get("origin")
            if isinstance(origin, dict) and origin.get("kind"):
                out["origin"] = safe_name(origin["kind"])
            elif row.get("promptSource") == "system":
                out["origin"] = "system"
            out["content"] = self._user_content(row)
        elif kind == "system":
            self._system(row, out)
        elif kind == "attachment":
            out["role"] = "user"
            out["via"] = "queued_command"
            out["content"] = [{"type": "text", "text": self.ev.prose(row["attachment"]["prompt"])}]
        return out

    def _assistant_blocks(self, row: ClaudeRow) -> list[ClaudeBlock]:
        content = (row.get("message") or {}).get("content")
        if isinstance(content, str):
            return [{"type": "text", "text": self.ev.prose(content)}]
        out: list[ClaudeBlock] = []
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                text = self.ev.prose(block["text"])
                if text:
                    out.append({"type": "text", "text": text})
            elif block.get("type") == "tool_use":
                out.append(self._tool_use(block))
        return out

    def _tool_use(self, block: dict[str, Any]) -> ClaudeBlock:
        args = _dict(block.get("input"))
        omitted = tool_omission(args)
        secret = omitted == OMITTED_SECRET
        shown = {
            k: (OMITTED_SECRET if secret and k in SECRET_CONTENT_KEYS else self.ev.value(v)) for k, v in args.items()
        }
        call_id = block["id"] if isinstance(block.get("id"), str) else ""
        return {
            "type": "tool_use",
            "id": safe_name(call_id),
            "name": safe_name(block.get("name")),
            "input": shown,
            "result": self._result(call_id, omitted),
        }

    def _result(self, call_id: str, omitted: str | None) -> IntakeResult | None:
        """The result row of ``call_id``; its text replaced by ``omitted`` when that is given."""
        line = find_line(self.st["results"], call_id)
        if not line:
            return None  # no result row (yet): the call was interrupted or is still running
        row = self._load(line)
        if row is None:
            return {"line": line, "isError": None, "text": self._oversize(line)}
        for block in _user_blocks(row):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                text = omitted or self.ev.prose(self._no_usage(_result_text(block.get("content"))))
                return {"line": line, "isError": bool(block.get("is_error")), "text": text}
        return {"line": line, "isError": None, "text": ""}

    def _no_usage(self, text: str) -> str:
        if "<usage>" not in text:
            return text
        text, n = _USAGE_BLOCK.subn("", text)
        self.usage_blocks += n
        return text

    def _user_content(self, row: ClaudeRow) -> list[ClaudeBlock]:
        out: list[ClaudeBlock] = []
        orphans = self.st["orphans"]
        for block in _user_blocks(row):
            kind = block.get("type")
            if kind == "text":
                text = self.ev.prose(block["text"])
                if text:
                    out.append({"type": "text", "text": text})
            elif kind in ("image", "document"):
                source = _dict(block.get("source"))
                out.append({"type": kind, "mediaType": safe_name(source.get("media_type"))})
            elif kind == "tool_result":
                call_id = block.get("tool_use_id")
                # A result is shown with its call; only one whose call was never seen stands alone.
                if not isinstance(call_id, str) or call_id in orphans:
                    out.append(
                        {
                            "type": "tool_result",
                            "toolUseId": safe_name(call_id),
                            "isError": bool(block.get("is_error")),
                            "text": self.ev.prose(_result_text(block.get("content"))),
                        }
                    )
        return out

    def _system(self, row: ClaudeRow, out: ClaudeEntry) -> None:
        """Fill in a system row's subtype, level, text, status and retry counts."""
        out["subtype"], out["level"] = safe_name(row.get("subtype")), safe_name(row.get("level"))
        content = row.get("content")
        error = _dict(row.get("error"))
        if isinstance(content, str) and content.strip():
            out["text"] = self.ev.prose(content)
        elif isinstance(error.get("formatted"), str):
            out["text"] = self.ev.text(error["formatted"])
        if isinstance(error.get("status"), int):
            out["status"] = error["status"]
        if isinstance(row.get("retryAttempt"), int):
            out["retryAttempt"] = row["retryAttempt"]
        if isinstance(row.get("maxRetries"), int):
            out["maxRetries"] = row["maxRetries"]


def _agent_files(folder: str) -> list[tuple[str, os.stat_result]]:
    """Every ``agent-*.jsonl`` under ``folder`` and its stat: nested folders too, symlinked ones not (as pathlib's
    ``**/agent-*.jsonl`` finds them)."""
    out: list[tuple[str, os.stat_result]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return out
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                out += _agent_files(entry.path)
            elif entry.name.startswith("agent-") and entry.name.endswith(".jsonl") and entry.is_file():
                out.append((entry.path, entry.stat()))
        except OSError:
            continue
    return out


def branch(st: ClaudeFoldState, line: int) -> str:
    """Where a row stands: ``active`` (the model is sent it now), ``compacted`` (the session's history before
    the newest compaction, which the model sees only through the summary) or ``non-lineage`` (a branch
    left by a rewind)."""
    if st["viewBoundary"] is None:
        return "active" if st["active"][line] else "non-lineage"
    if st["view"][line]:
        return "active"
    return "compacted" if st["active"][line] else "non-lineage"


def branch_counts(st: ClaudeFoldState, entries: Sequence[int]) -> tuple[int, int]:
    """How many of ``entries`` are ``non-lineage`` and how many ``compacted`` (as :func:`branch` says of each).

    Every page reports them for the whole file, so they are counted as bits: each per-line flag column (one byte a
    line) read as one integer, the fold's entry flags, the lineage's and the view's, combined with ``&`` and counted
    (~1 ms for 200,000 lines; gathering each entry's flags cost ~10 ms of each page of a long session, and judging
    them one by one more).
    """
    flags = st.get("entryFlags")
    if flags is not None:
        e = int.from_bytes(flags, "little")
        if e.bit_count() == len(entries):  # the fold's flags are these entries' (a state built otherwise gathers)
            a = int.from_bytes(st["active"], "little") & e
            if st["viewBoundary"] is None:
                return len(entries) - a.bit_count(), 0
            v = int.from_bytes(st["view"], "little")
            return len(entries) - (e & v | a).bit_count(), a.bit_count() - (a & v).bit_count()
    on = int.from_bytes(bytes(map(st["active"].__getitem__, entries)), "little")
    if st["viewBoundary"] is None:
        return len(entries) - on.bit_count(), 0
    seen = int.from_bytes(bytes(map(st["view"].__getitem__, entries)), "little")
    return len(entries) - (on | seen).bit_count(), (on & ~seen).bit_count()


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _user_blocks(row: ClaudeRow) -> list[dict[str, Any]]:
    """A user row's content as a list of blocks (a plain string becomes one text block)."""
    content = (row.get("message") or {}).get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and (b.get("type") != "text" or isinstance(b.get("text"), str))]


def _result_text(content: Any) -> str:
    """The text of a tool_result's content (string or blocks); images become placeholders."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict):
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            else:
                parts.append(f"[{safe_name(block.get('type'))}]")
    return "\n".join(parts)
