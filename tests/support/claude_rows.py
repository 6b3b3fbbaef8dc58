"""Build Claude Code-shaped transcripts for damage and branch tests (real ones come from fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.repo import FIXTURES as _FIXTURES

FIXTURES = _FIXTURES / "claude"
SESSION = "11111111-2222-4333-8444-555555555555"
_SAME = object()


def fixture(name: str) -> Path:
    """The main transcript of a real fixture scenario (tools, compact, subagent)."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    return FIXTURES / manifest[name]["transcript"]


def text(value: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    """A thinking content block."""
    return {"type": "thinking", "thinking": value, "signature": "c2ln"}


def tool_use(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    """A tool_use content block."""
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


class Transcript:
    """Rows in Claude Code's shape and key order, chained by parentUuid unless told otherwise."""

    def __init__(self, session: str = SESSION) -> None:
        self.rows: list[Any] = []
        self.session = session
        self.count = 0
        self.last: str | None = None

    def _uuid(self) -> str:
        self.count += 1
        return f"{self.count:08x}-0000-4000-8000-{self.count:012x}"

    def _stamp(self) -> str:
        return f"2026-07-19T10:{self.count // 60 % 60:02d}:{self.count % 60:02d}.000Z"

    def _chain(self, kind: str, body: dict[str, Any], parent: Any, **extra: Any) -> str:
        uid = self._uuid()
        row = {
            "parentUuid": self.last if parent is _SAME else parent,
            "isSidechain": False,
            "type": kind,
            **body,
            "uuid": uid,
            "timestamp": self._stamp(),
            **extra,
            "userType": "external",
            "entrypoint": "cli",
            "cwd": "/home/dev/work",
            "sessionId": self.session,
            "version": "2.1.332",
            "gitBranch": "main",
        }
        self.rows.append(row)
        self.last = uid
        return uid

    def user(self, content: Any, parent: Any = _SAME, **extra: Any) -> str:
        """A user row (content: a string or a list of blocks)."""
        return self._chain("user", {"message": {"role": "user", "content": content}}, parent, **extra)

    def assistant(self, *blocks: dict[str, Any], parent: Any = _SAME, model: str = "claude-test", **extra: Any) -> str:
        """An assistant row carrying the given blocks and usage telemetry."""
        message = {
            "id": f"msg_{self.count:04d}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": list(blocks),
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 11, "output_tokens": 7, "cache_read_input_tokens": 3},
        }
        return self._chain("assistant", {"message": message, "requestId": "req_1"}, parent, **extra)

    def result(self, call_id: str, content: Any, is_error: bool = False, parent: Any = _SAME) -> str:
        """A user row holding one tool_result; like Claude Code's, its uuid precedes toolUseResult."""
        block = {"tool_use_id": call_id, "type": "tool_result", "content": content, "is_error": is_error}
        uid = self.user([block], parent=parent)
        self.rows[-1]["toolUseResult"] = {"stdout": str(content), "stderr": ""}
        self.rows[-1]["sourceToolAssistantUUID"] = self.rows[-2]["uuid"] if len(self.rows) > 1 else None
        return uid

    def system(self, subtype: str, level: str, content: str | None = None, parent: Any = _SAME, **extra: Any) -> str:
        """A system row."""
        body: dict[str, Any] = {"subtype": subtype, "level": level}
        if content is not None:
            body["content"] = content
        return self._chain("system", body, parent, **extra)

    def attachment(self, kind: str, parent: Any = _SAME, **fields: Any) -> str:
        """An attachment row, keys in the order Claude Code writes them."""
        uid = self._uuid()
        self.rows.append(
            {
                "parentUuid": self.last if parent is _SAME else parent,
                "isSidechain": False,
                "attachment": {"type": kind, **fields},
                "type": "attachment",
                "uuid": uid,
                "timestamp": self._stamp(),
                "sessionId": self.session,
            }
        )
        self.last = uid
        return uid

    def compact(self, summary: str, trigger: str = "manual") -> str:
        """A compact boundary and its summary row; returns the summary's uuid."""
        leaf = self.last
        self._chain(
            "system",
            {
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "level": "info",
                "compactMetadata": {"trigger": trigger, "preTokens": 900},
            },
            None,
            logicalParentUuid=leaf,
        )
        return self.user(
            "This session is being continued from a previous conversation. " + summary,
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )

    def meta(self, kind: str, **fields: Any) -> None:
        """A bookkeeping row (no chain), type first as Claude Code writes it."""
        self.rows.append({"type": kind, **fields, "sessionId": self.session})

    def raw(self, line: bytes) -> None:
        """A line written as given (damage)."""
        self.rows.append(line)

    def write(self, path: Path) -> Path:
        """Write the rows as JSONL the way Claude Code does (compact separators, one per line)."""
        with open(path, "wb") as fh:
            for row in self.rows:
                fh.write(
                    row
                    if isinstance(row, bytes)
                    else json.dumps(row, separators=(",", ":"), ensure_ascii=False).encode()
                )
                fh.write(b"\n")
        return path


def turns(t: Transcript, n: int, start: int = 0) -> None:
    """``n`` prompt / tool / answer turns."""
    for k in range(start, start + n):
        t.user(f"prompt {k}")
        t.assistant(tool_use("Bash", {"command": f"echo {k}"}, f"toolu_{k}"))
        t.result(f"toolu_{k}", f"out {k}")
        t.assistant(text(f"answer {k}"))
