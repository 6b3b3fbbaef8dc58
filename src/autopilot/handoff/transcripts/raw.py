"""Raw diagnostic views of a Claude Code transcript: file facts, and rows with private parts masked.

These back ``codex-bridge handoff raw inspect|read``. Unlike the intake they show rows as
parsed, field by field, so a human can see why a row was or was not an entry; the parts
the intake never emits are still masked here (replaced by what they were and how big),
and every string is redacted and cut. What the intake and export omit from secret-bearing
files is omitted the same way (``evidence.tool_omission``): a result row is matched to its
call, however far back. A line that cannot be parsed (malformed, cut off or oversize)
cannot be masked, so only its size, the reason and its row type are shown.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import orjson

from autopilot.errors import BridgeError
from autopilot.handoff.transcripts import jsonl
from autopilot.handoff.transcripts.claude_fold import (
    HOOK_CONTEXT,
    SYSTEM_PROMPT_ROWS,
    TELEMETRY_ROWS,
    ClaudeFold,
    safe_name,
    sniff_type,
    update_lineage,
    uuid_key,
)
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    SECRET_CONTENT_KEYS,
    TRUST,
    Evidence,
    secret_path,
    tool_omission,
)
from autopilot.handoff.transcripts.jsonl_index import Index, LineReader

if TYPE_CHECKING:
    from autopilot.handoff.transcripts.shapes import ClaudeFoldState, RawFacts, RawRow, RawRows

# How far back a result row's call is looked for (rows); past it only the row's own path counts.
CALL_SEARCH_ROWS = 5000

# Keys whose values the intake never emits, wherever they appear in a row.
PRIVATE_KEYS = {
    "thinking": "thinking",
    "signature": "thinking signature",
    "usage": "usage telemetry",
    "systemPrompt": "system prompt",
    "system": "system prompt",
    "tools": "tool definitions",
    "rendered": "injected context",
    "modelUsage": "usage telemetry",
}


def inspect(path: str) -> RawFacts:
    """File-level facts: sizes, row types, malformed and oversize lines, lineage and index state."""
    index = jsonl.scan(path, ClaudeFold())
    st = index.state
    update_lineage(st, index.lines)
    return {
        "trust": TRUST,
        "transcript": path,
        "bytes": os.path.getsize(path),
        "lines": index.lines,
        "partialLastLine": index.partial,
        "rows": sum(st["rowTypes"].values()) + sum(st["unknownTypes"].values()),
        "rowTypes": dict(sorted(st["rowTypes"].items())),
        "unknownRowTypes": dict(sorted(st["unknownTypes"].items())),
        "unknownBlockTypes": dict(sorted(st["unknownBlocks"].items())),
        "malformedLines": dict(sorted(index.malformed.items())),
        "malformedSample": index.malformed_sample,
        "oversizeLines": index.oversize[:50],
        "entries": len(index.entries),
        "nonLineageEntries": sum(1 for n in index.entries if not st["active"][n]),
        "leafLine": st["leafLine"] or None,
        "compactSummaryLines": [line for line, _ in st["compacts"]],
        "index": index.status,
    }


def read(path: str, *, line: int, count: int = 1, max_chars: int = 500) -> RawRows:
    """Rows ``line`` .. ``line + count - 1`` as parsed, redacted, with private parts masked."""
    index = jsonl.scan(path, ClaudeFold())
    if line > index.lines:
        raise BridgeError(f"line {line} is past the end; {path} has {index.lines} lines")
    st = index.state
    update_lineage(st, index.lines)
    ev = Evidence(max_chars)
    first = bisect_left(index.entries, line)
    entries = set(index.entries[first : bisect_left(index.entries, line + count)])
    rows: list[RawRow] = []
    with index.reader() as reader:
        calls = _Calls(index, reader)
        for n in range(line, min(line + count, index.lines + 1)):
            size = reader.size(n)
            obj = reader.load(n)
            out: RawRow = {"line": n, "bytes": size}
            if obj is None:  # its text could hold anything mask() would hide: say only what it is
                out["parsed"] = False
                out["reason"] = "oversize" if size > jsonl.MAX_LINE_BYTES else "malformed"
                out["rowType"] = sniff_type(*reader.head_tail(n, 4096))
            else:
                shown = omit_secrets(obj, partial(calls.args, line=n, row=obj))
                out["parsed"], out["entry"], out["active"] = True, n in entries, bool(st["active"][n])
                out["row"] = mask(shown, ev)
            rows.append(out)
    return {"trust": TRUST, "transcript": path, "rows": rows, "redactions": ev.summary()}


def omit_secrets(row: dict[str, Any], call_args: Callable[[Any], dict[str, Any] | None]) -> dict[str, Any]:
    """``row`` without what the intake omits from secret-bearing files: contents written, results returned.

    ``call_args(call_id)`` gives the input of the tool call a result answers (None when unknown).
    """
    message = row.get("message")
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return row
    content = message["content"]
    blocks, omitted_any = [], None
    for block in content:
        if isinstance(block, dict) and block.get("type") == "tool_use" and isinstance(block.get("input"), dict):
            if tool_omission(block["input"]) == OMITTED_SECRET:
                written = {k: OMITTED_SECRET if k in SECRET_CONTENT_KEYS else v for k, v in block["input"].items()}
                block = {**block, "input": written}
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            call = call_args(block.get("tool_use_id"))
            omitted = tool_omission(call) if call is not None else _result_omission(row)
            if omitted:
                block, omitted_any = {**block, "content": omitted}, omitted
        blocks.append(block)
    shown = {**row, "message": {**message, "content": blocks}}
    if omitted_any and "toolUseResult" in row:  # the same output, structured: file contents, stdout
        shown["toolUseResult"] = omitted_any
    return shown


def _result_omission(row: dict[str, Any]) -> str | None:
    """For a result whose call is not found: omit it when the row itself names a secret file."""
    result = row.get("toolUseResult")
    if not isinstance(result, dict):
        return None
    file = result.get("file")
    paths = [result.get("filePath"), file.get("filePath") if isinstance(file, dict) else None]
    return OMITTED_SECRET if any(secret_path(p) for p in paths) else None


class _Calls:
    """Finds the tool call a result row answers: by the row's ``sourceToolAssistantUUID``, else by its id."""

    def __init__(self, index: Index[ClaudeFoldState], reader: LineReader) -> None:
        self.st, self.reader = index.state, reader
        self.found: dict[str, dict[str, Any] | None] = {}

    def args(self, call_id: Any, line: int, row: dict[str, Any]) -> dict[str, Any] | None:
        """The input of call ``call_id``, looked for before ``line``; None when it is not found."""
        if not isinstance(call_id, str) or not call_id:
            return None
        if call_id not in self.found:
            self.found[call_id] = self._search(call_id, line, row.get("sourceToolAssistantUUID"))
        return self.found[call_id]

    def _search(self, call_id: str, line: int, source: Any) -> dict[str, Any] | None:
        lines, keys = self.st["nodeLine"], self.st["nodeKey"]
        candidates = []
        if source:
            key = uuid_key(source)
            stop = bisect_left(lines, line)
            candidates = [lines[i] for i in range(stop - 1, max(-1, stop - 1 - CALL_SEARCH_ROWS), -1) if keys[i] == key]
        needle = call_id.encode()
        candidates += [n for n in range(line - 1, max(0, line - 1 - CALL_SEARCH_ROWS), -1) if n not in candidates]
        for n in candidates:
            if needle not in self.reader.raw(n):
                continue
            obj = self.reader.load(n)
            content = ((obj or {}).get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("id") == call_id:
                    args = block.get("input")
                    return args if isinstance(args, dict) else {}
        return None


def mask(row: dict[str, Any], ev: Evidence) -> dict[str, Any]:
    """A row with what the intake never emits replaced by a note of what it was and its size."""
    kind = row.get("type")
    if kind in SYSTEM_PROMPT_ROWS or kind in TELEMETRY_ROWS:
        what = "system prompt or request snapshot" if kind in SYSTEM_PROMPT_ROWS else "telemetry"
        keep: dict[str, Any] = {k: ev.value(row[k]) for k in ("type", "sessionId", "timestamp") if k in row}
        return {**keep, "[omitted]": f"{what}, {_size(row)} chars"}
    if kind == "attachment" and isinstance(row.get("attachment"), dict):
        att = row["attachment"]
        if att.get("type") in HOOK_CONTEXT or att.get("type") == "prompt_snapshot":
            note = {
                "type": safe_name(att.get("type")),
                "[omitted]": f"hook context or system prompt, {_size(att)} chars",
            }
            return {**_walk({k: v for k, v in row.items() if k != "attachment"}, ev), "attachment": note}
    if row.get("isMeta") and isinstance(row.get("message"), dict):
        masked = dict(
            row,
            message={
                "role": row["message"].get("role"),
                "[omitted]": f"harness-injected meta content, {_size(row['message'])} chars",
            },
        )
        shown: dict[str, Any] = _walk(masked, ev)
        return shown
    whole: dict[str, Any] = _walk(row, ev)
    return whole


def _walk(value: Any, ev: Evidence, depth: int = 0) -> Any:
    if isinstance(value, str):
        return ev.text(value)
    if depth > 12:
        return "[omitted: nested too deep]"
    if isinstance(value, list):
        return [_walk(v, ev, depth + 1) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    redacted_thinking = value.get("type") == "redacted_thinking"
    for key, item in value.items():
        # "tools" as a list of names (tools-used rows) is harmless; as definitions it is not.
        definitions = key == "tools" and not all(isinstance(t, str) for t in item or [])
        if (key in PRIVATE_KEYS and (key != "tools" or definitions)) or (redacted_thinking and key == "data"):
            out[key] = f"[omitted: {PRIVATE_KEYS.get(key, 'redacted thinking')}, {_size(item)} chars]"
        else:
            out[ev.text(str(key), 200)] = _walk(item, ev, depth + 1)
    return out


def _size(value: Any) -> int:

    return len(value) if isinstance(value, str) else len(orjson.dumps(value))
