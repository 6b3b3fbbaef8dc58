"""The Codex rollout intake: session summary plus one newest-first page of entries, bounded and redacted.

:func:`intake` scans a rollout (through the cached :mod:`codex_fold`), then reads only the
lines the answer needs by offset: the page's entries, their paired tool results, the goal,
checkpoint and last prompt. Every string goes through :class:`~autopilot.handoff.transcripts.evidence.Evidence`
(redacted, then cut to head and tail). The answer's layout and key names mirror the Claude
intake (``trust``, ``session``, ``counts``, ``checkpoint``, ``lastPrompt``, ``editedFiles``,
``subagents``, ``beforeLine``/``nextBeforeLine``, ``entries``, ``diagnostics``,
``redactions``); ``turn``, ``fork``, ``goal`` and ``unfinishedCalls`` are Codex's own.
"""

from __future__ import annotations

import os

from autopilot.codex import rollout
from autopilot.fastjson import dumps, parse_json_line
from autopilot.handoff.transcripts import codex_fold, paging
from autopilot.handoff.transcripts.evidence import (
    OMITTED_SECRET,
    OMITTED_SECRET_OUTPUT,
    TRUST,
    Evidence,
    secret_command,
    secret_path,
)
from autopilot.handoff.transcripts.jsonl import Index, LineReader
from autopilot.handoff.transcripts.jsonl_index import find_line
from autopilot.patterns import lazy

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every rollout page loads this module
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from autopilot.codex.shapes import Payload, RolloutLine
    from autopilot.handoff.transcripts.shapes import (
        Checkpoint,
        CodexDiagnostics,
        CodexEntry,
        CodexFoldState,
        CodexForkInfo,
        CodexGoal,
        CodexIntake,
        CodexMeta,
        CodexPage,
        CodexSubagentInfo,
        CodexSummary,
        CodexUnfinished,
    )

CHECKPOINT_FACTOR = 4  # the checkpoint may be this many times max_chars: it is the baseline
EDITED_FILES_SHOWN = 50
UNFINISHED_SHOWN = 20
_EXIT = lazy(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_CHECKPOINT_PREAMBLE = "Here is the summary produced by the other language model"


class _Page:
    """What rendering needs: the index, a line reader and the evidence bounds."""

    def __init__(self, index: Index[CodexFoldState], reader: LineReader, ev: Evidence) -> None:
        self.index, self.reader, self.ev = index, reader, ev
        self.state = index.state

    def text(self, value: Any, limit: int | None = -1) -> str:
        """Redacted, then cut to ``max_chars`` (or ``limit``) keeping the beginning and the end."""
        return self.ev.text(value if isinstance(value, str) else str(value), limit)

    def load(self, line: int | None) -> RolloutLine | None:
        if line is None or not 1 <= line <= self.index.lines:
            return None
        found: RolloutLine | None = self.reader.load(line)
        return found


def _payload(obj: RolloutLine | None) -> Payload:
    return rollout.payload_of(obj)


def _turn_id(p: Payload) -> str | None:
    value = rollout.as_dict(p.get("internal_chat_message_metadata_passthrough")).get("turn_id") or p.get("turn_id")
    return value if isinstance(value, str) else None


def _user_text(obj: RolloutLine) -> tuple[str, list[str]]:
    """A human prompt's text and attached image paths, from whichever representation was kept."""
    p = _payload(obj)
    if obj.get("type") == "response_item":
        return rollout.split_images(rollout.texts(p.get("content")))
    if p.get("type") == "item_completed":
        content = rollout.as_list(rollout.as_dict(p.get("item")).get("content"))
        paths = [c["path"] for c in content if isinstance(c, dict) and isinstance(c.get("path"), str)]
        return "\n".join(rollout.texts(content)), paths
    return str(p.get("message") or ""), [x for x in rollout.as_list(p.get("local_images")) if isinstance(x, str)]


def _user(page: _Page, obj: RolloutLine, entry: CodexEntry) -> None:
    text, images = _user_text(obj)
    entry["kind"], entry["text"] = "user", page.text(text)
    if images:
        entry["images"] = [page.text(x, 500) for x in images]


def _assistant(page: _Page, obj: RolloutLine, entry: CodexEntry) -> None:
    p = _payload(obj)
    if obj.get("type") == "response_item":
        text = "\n".join(rollout.texts(p.get("content")))
    elif p.get("type") == "item_completed":
        text = "\n".join(rollout.texts(rollout.as_dict(p.get("item")).get("content")))
    else:
        text = str(p.get("message") or "")
    entry["kind"], entry["text"] = "assistant", page.text(text)
    if isinstance(p.get("phase"), str):
        entry["phase"] = p["phase"]


def _call_input(p: Payload) -> str:
    t = p.get("type")
    if t == "custom_tool_call":
        return str(p.get("input") or "")
    if t == "local_shell_call":
        command = rollout.as_dict(p.get("action")).get("command")
        return shell_join(str(c) for c in command) if isinstance(command, list) else ""
    raw = p.get("arguments")
    try:
        args = parse_json_line(raw.encode("utf-8", "surrogatepass")) if isinstance(raw, str) else raw
    except ValueError:
        return str(raw)
    if isinstance(args, dict):
        if isinstance(args.get("cmd"), str):
            return str(args["cmd"])
        if isinstance(args.get("command"), list):
            return shell_join(str(c) for c in args["command"])
    # orjson.dumps's compact text, without orjson's ~15 ms import (nor the json package's) on a page that scans nothing
    return dumps(args, ascii=False) if args is not None else ""


# What shlex.quote leaves bare (``[\w@%+=:,./-]`` in ASCII); shlex itself imports re, enum and functools (~5 ms).
_SHELL_SAFE = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"


def shell_join(words: Iterable[str]) -> str:
    """``shlex.join(words)``: each word as the shell reads it back, quoted only where it needs to be."""
    return " ".join(_shell_quote(w) for w in words)


def _shell_quote(word: str) -> str:
    if not word:
        return "''"
    if not word.strip(_SHELL_SAFE):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _output_text(p: Payload) -> tuple[str, int | None]:
    """A tool result's text and exit code (tool definitions in tool-search results: names only)."""
    if p.get("type") == "tool_search_output":
        names = [t.get("name") for t in rollout.as_list(p.get("tools")) if isinstance(t, dict)]
        return "tools found: " + ", ".join(str(n) for n in names if n), None
    output = p.get("output")
    if isinstance(output, dict):
        output = output.get("content") if "content" in output else output.get("body")
    if isinstance(output, list):
        parts = []
        for part in output:
            if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text"):
                parts.append(str(part.get("text") or ""))
            elif isinstance(part, dict):
                parts.append(f"[{rollout.clean_name(part.get('type'))}]")
        output = "\n".join(parts)
    text = output if isinstance(output, str) else ""
    code = None
    if text.startswith("{") and '"output"' in text:  # 2025 shell results: {"output": ..., "metadata": {...}}
        try:
            legacy = parse_json_line(text.encode("utf-8", "surrogatepass"))
        except ValueError:
            legacy = None
        if isinstance(legacy, dict):
            text = str(legacy.get("output", text))
            code = rollout.as_dict(legacy.get("metadata")).get("exit_code")
    m = _EXIT.search(text[:400])
    if code is None and m:
        code = int(m.group(1))
    return text, code if isinstance(code, int) else None


def _tool_call(page: _Page, p: Payload, entry: CodexEntry) -> None:
    shell = p.get("type") == "local_shell_call"
    name = "local_shell" if shell else rollout.clean_name(p.get("name") or p.get("type"))
    if isinstance(p.get("namespace"), str):
        name = f"{rollout.clean_name(p['namespace'])}.{name}"
    call_id = p.get("call_id") or p.get("id")
    shown = _call_input(p)
    # The same rule as the Claude reader: a patch to a secret file loses its body (like Write
    # and Edit), a command naming one (`cat .env`) keeps its command line but loses its output.
    # Older Codex ran patches as shell commands (`apply_patch '*** Begin Patch…'`): those too.
    patch = rollout.patch_body(p)
    secret_input = any(secret_path(path) for _, path in rollout.patch_files(shown if patch is None else patch))
    secret_output = not secret_input and patch is None and secret_command(shown)
    entry["kind"], entry["name"], entry["callId"] = "tool_call", name, call_id
    entry["input"] = OMITTED_SECRET if secret_input else page.text(shown)
    result_line = find_line(page.state["results"], call_id) if isinstance(call_id, str) else None
    if result_line is None:
        entry["status"] = "unfinished"
        entry["note"] = "no result recorded: the call may still be running, or was cut off"
        return
    entry["status"] = "completed"
    if result_line < 0:
        entry["result"] = {"line": -result_line, "text": "[output too large to show]"}
        return
    text, code = _output_text(_payload(page.load(result_line)))
    entry["result"] = {"line": result_line, "text": OMITTED_SECRET_OUTPUT if secret_output else page.text(text)}
    if code is not None:
        entry["result"]["exitCode"] = code


def _web_search(page: _Page, p: Payload, entry: CodexEntry) -> None:
    action = rollout.as_dict(p.get("action"))
    entry["kind"], entry["action"], entry["status"] = (
        "web_search",
        rollout.clean_name(action.get("type")),
        p.get("status"),
    )
    if isinstance(action.get("query"), str):
        entry["query"] = page.text(action["query"], 500)
    if isinstance(action.get("url"), str):
        entry["url"] = page.text(action["url"], 500)
    if isinstance(action.get("pattern"), str):
        entry["pattern"] = page.text(action["pattern"], 500)


def _render(page: _Page, line: int) -> CodexEntry:
    obj = page.load(line)
    entry: CodexEntry = {"line": line}
    if obj is None:
        return {**entry, "kind": "unreadable", "note": "the line changed or is no longer valid JSON"}
    if isinstance(obj.get("timestamp"), str):
        entry["timestamp"] = obj["timestamp"]
    p = _payload(obj)
    t = p.get("type")
    item = rollout.as_dict(p.get("item"))
    if t == "item_completed":
        t = item.get("type")
    response = obj.get("type") == "response_item"
    if response and t == "message":
        (_user if p.get("role") == "user" else _assistant)(page, obj, entry)
    elif not response and t in ("user_message", "UserMessage"):
        _user(page, obj, entry)
    elif not response and t in ("agent_message", "AgentMessage"):
        _assistant(page, obj, entry)
    elif t in rollout.TOOL_CALLS:
        _tool_call(page, p, entry)
    elif t in rollout.TOOL_OUTPUTS:
        text, code = _output_text(p)
        entry["kind"], entry["callId"], entry["text"] = "tool_result", p.get("call_id"), page.text(text)
        entry["note"] = "no matching call in this file"
        if code is not None:
            entry["exitCode"] = code
    elif t == "web_search_call":
        _web_search(page, p, entry)
    elif t == "image_generation_call":
        entry["kind"], entry["status"] = "image_generation", p.get("status")
        entry["revisedPrompt"] = page.text(p.get("revised_prompt") or "")
        saved = page.state["images"].get(p.get("id") or p.get("call_id") or "")
        if saved:
            entry["savedPath"] = page.text(saved, 500)
    elif t == "agent_message":  # a response_item: mail between agents
        parts = rollout.as_list(p.get("content"))
        hidden = len([c for c in parts if isinstance(c, dict) and c.get("type") not in ("input_text", "output_text")])
        entry["kind"], entry["author"], entry["recipient"] = "agent_mail", p.get("author"), p.get("recipient")
        entry["text"] = page.text("\n".join(rollout.texts(parts)))
        if hidden:
            entry["omittedParts"] = hidden
    elif t == "turn_aborted":
        entry["kind"], entry["reason"] = "turn_aborted", p.get("reason")
    elif t == "thread_rolled_back":
        entry["kind"], entry["numTurns"] = "rolled_back", p.get("num_turns")
    elif t == "thread_goal_updated":
        goal = rollout.as_dict(p.get("goal"))
        entry["kind"], entry["objective"] = "goal", page.text(goal.get("objective") or "")
        entry["status"] = goal.get("status")
    elif t == "Plan":
        entry["kind"], entry["text"] = "plan", page.text(item.get("text") or "")
    else:  # errors and warnings
        message = p.get("message") or item.get("message") or ""
        entry["kind"] = "warning" if t in ("warning", "guardian_warning") else "error"
        entry["text"] = page.text(message)
    turn = _turn_id(p)
    if turn:
        entry["turnId"] = turn
    if any(a <= line < b for a, b in page.state["rolled_back"]):
        entry["rolledBack"] = True
    compacted = page.state["compaction_lines"]
    if compacted and line < compacted[-1] and not _retained(page, entry):
        entry["compacted"] = True  # the newest compaction summarised it: the model no longer sees it verbatim
    return entry


def _retained(page: _Page, entry: CodexEntry) -> bool:
    """Whether the newest compaction kept this user message in the history it sends again."""
    if entry.get("kind") != "user":
        return False
    obj = page.load(entry["line"])
    return obj is not None and codex_fold.text_hash(_user_text(obj)[0]) in page.state["retained"]


def _checkpoint(page: _Page) -> Checkpoint | None:
    """The latest readable compaction summary (Codex's framing removed); encrypted state never."""
    line = page.state["checkpoint_line"]
    obj = page.load(line)
    if obj is None or line is None:
        return None
    message = str(_payload(obj).get("message") or "")
    cut = message.find(_CHECKPOINT_PREAMBLE)
    if cut >= 0:
        newline = message.find("\n", cut)
        message = message[newline + 1 :] if newline >= 0 else ""
    message = message.strip()
    if not message:
        return None
    bound = None if page.ev.max_chars is None else page.ev.max_chars * CHECKPOINT_FACTOR
    return {
        "line": line,
        "timestamp": obj.get("timestamp"),
        "chars": len(message),
        "truncated": bound is not None and len(message) > bound,
        "text": page.text(message, bound),
    }


def _goal(page: _Page) -> CodexGoal | None:
    line = page.state["goal_line"]
    obj = page.load(line)
    if obj is None or line is None:
        return None
    goal = rollout.as_dict(_payload(obj).get("goal"))
    return {"line": line, "objective": page.text(goal.get("objective") or ""), "status": goal.get("status")}


def _last_prompt(page: _Page) -> str | None:
    obj = page.load(page.state["last_user_line"])
    return page.text(_user_text(obj)[0]) if obj is not None else None


def find_rollout(path: str, thread_id: str) -> str | None:
    """The rollout file of another thread near this one (its folder, its sessions tree, the archive, $CODEX_HOME)."""
    from autopilot.codex.sessions import find_rollout as find  # ~10 ms of imports a page without others skips

    found = find(thread_id, near=path)
    return str(found) if found else None


def _unfinished(page: _Page) -> list[CodexUnfinished]:
    calls = sorted(page.state["calls"].items(), key=lambda kv: -kv[1])[:UNFINISHED_SHOWN]
    out: list[CodexUnfinished] = []
    for call_id, line in calls:
        p = _payload(page.load(line))
        out.append({"callId": call_id, "name": rollout.clean_name(p.get("name") or p.get("type")), "line": line})
    return out


def _fork(state: CodexFoldState, session: CodexMeta, path: str) -> CodexForkInfo | None:
    fork = state["fork"]
    if fork is None and not session.get("historyBase"):
        return None
    fork = fork or {}
    info: CodexForkInfo = {
        "forkedFromId": fork.get("forked_from_id") or session.get("forkedFromId"),
        "historyBase": session.get("historyBase"),
    }
    if fork.get("replay_from") is not None:
        info["replayed"] = {
            "fromLine": fork["replay_from"],
            "toLine": fork.get("replay_to"),
            "lines": state["replayed"],
            "stillReplaying": bool(fork.get("replaying")),
            "note": "the parent's history copied in at fork time: not new work, not in the entries",
        }
    if info["forkedFromId"]:
        info["parentRollout"] = find_rollout(path, info["forkedFromId"])
    return info


def _summary(index: Index[CodexFoldState], path: str, page: _Page, newest: bool = True) -> CodexSummary:
    """Everything but the entries: session, turn, fork, goal, checkpoint, files, subagents, counts."""
    state = index.state
    meta = state["meta"]
    session: CodexMeta = meta.copy() if meta else {}
    session.pop("timestamp", None)
    session["model"] = state["model"]
    session["isSubagent"] = bool(session.get("isSubagent"))
    edited = sorted(state["edited"].items(), key=lambda kv: -kv[1][1])
    shown = edited if page.ev.max_chars is None else edited[:EDITED_FILES_SHOWN]
    subagents: list[CodexSubagentInfo] = [
        {"threadId": tid, **rec, "path": find_rollout(path, tid)}
        for tid, rec in sorted(state["subagents"].items(), key=lambda kv: -kv[1]["line"])
    ]
    turn = state["turn"]
    return {
        "session": session,
        "firstTimestamp": (state["meta"] or {}).get("timestamp") or state["first_ts"],
        "lastTimestamp": state["last_ts"],
        "models": list(state["models"]),
        "turn": {
            "state": turn.get("state"),
            "line": turn.get("line"),
            "turnId": turn.get("turn_id"),
            "reason": turn.get("reason"),
        },
        "fork": _fork(state, session, path),
        "counts": {
            "lines": index.lines,
            "entries": len(index.entries),
            "turns": state["turns"],
            "entryKinds": dict(sorted(state["entries_by_kind"].items())),
            "toolCalls": dict(sorted(state["tools"].items())),
            "malformedLines": index.malformed_total,
            "compactions": max(state["compactions"], state["compaction_events"]),
        },
        "goal": _goal(page),
        "checkpoint": _checkpoint(page) if newest else None,
        "lastPrompt": _last_prompt(page),
        "editedFiles": [{"path": page.text(p, 500), "change": c, "status": s, "line": ln} for p, (c, ln, s) in shown],
        "editedFilesTotal": len(edited),
        "subagents": subagents,
        "unfinishedCalls": _unfinished(page),
    }


def intake(
    path: str | os.PathLike[str],
    *,
    before_line: int | None = None,
    limit: int = paging.DEFAULT_LIMIT,
    max_chars: int | None = paging.DEFAULT_MAX_CHARS,
    cache: bool = True,
) -> CodexIntake:
    """The intake answer for one rollout: summary, one newest-first page and its cursor (max_chars None: uncut)."""
    path = os.fspath(path)
    index = codex_fold.scan(path, cache=cache)
    ev = Evidence(max_chars)
    lines, next_before = index.page(before_line=before_line, limit=limit)
    state = index.state
    diagnostics: CodexDiagnostics = {
        "malformedLines": dict(sorted(index.malformed.items())),
        "malformedSample": list(index.malformed_sample),
        "oversizeLines": list(index.oversize[:20]),
        "partialLastLine": index.partial,
        "unknownTypes": state["unknown"],
        "omitted": dict(sorted(state["omitted"].items())),
        "replayedLines": state["replayed"],
        "index": index.status,
        "scannedBytes": index.scanned_bytes,
    }
    if state["meta"] is None and index.lines:
        diagnostics["warning"] = "no session_meta line: not a Codex rollout, or its first line is damaged"
    with index.reader() as reader:
        page = _Page(index, reader, ev)
        answer: CodexPage = {
            "trust": TRUST,
            "format": "codex-rollout",
            "transcript": path,
            # The checkpoint belongs to the session, not to a page: only the newest page carries it.
            **_summary(index, path, page, newest=before_line is None or before_line > index.lines),
            "beforeLine": before_line,
            "limit": limit,
            "maxChars": max_chars,
            "nextBeforeLine": next_before,
            "entries": [_render(page, n) for n in lines],
            "diagnostics": diagnostics,
        }
    # Ids, names and statuses come from the file too: one last pass redacts whatever is left.
    return {**ev.redactor.walk(answer), "redactions": ev.summary()}
