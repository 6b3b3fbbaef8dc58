"""The Codex rollout fold: one whitelist pass over rollout JSONL into pointers, counts and turn state.

Rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) have no stable schema, so this
reader knows a short list of recovery-bearing fields and nothing else. It folds every line
once through :mod:`autopilot.handoff.transcripts.jsonl` (which caches the result per file) and
keeps: session metadata, the current turn's completion state, edited files, subagent
pointers, goal and compaction checkpoint, tool calls paired with their results by
``call_id``, and schema diagnostics. Each human prompt and assistant message is one entry
although Codex writes it up to three times (legacy ``user_message``/``agent_message``
events, 0.169+ ``item_completed`` items, and ``response_item`` messages).

Never read into the answer: reasoning (summaries too), encrypted content, developer and
system prompts, ``base_instructions``, tool definitions, ``world_state``, token usage,
rate limits and other telemetry, and the contents of unknown line types. A fork that
replays its parent's history is recognised by ids and the replayed lines are not entries.
The answer is rendered by :mod:`autopilot.handoff.transcripts.codex_intake`.
What each line, payload and item kind is (and the readers of their fields) is
:mod:`autopilot.codex.rollout`'s, Codex's rollout vocabulary; this module is the fold.
"""

from __future__ import annotations

import os
from array import array

from autopilot.codex.rollout import (
    ERROR_EVENTS,
    HUMAN_KINDS,
    KNOWN_LINE_TYPES,
    KNOWN_RESPONSE_TYPES,
    NEVER_ITEMS,
    QUIET_EVENTS,
    QUIET_ITEMS,
    REASONING_EVENTS,
    TELEMETRY_EVENTS,
    TELEMETRY_LINES,
    TOOL_CALLS,
    TOOL_OUTPUTS,
    TURN_END,
    TURN_START,
    as_dict,
    clean_name,
    is_harness,
    patch_body,
    patch_files,
    payload_of,
    split_images,
    texts,
    uuid7_ms,
)
from autopilot.digest import blake2b
from autopilot.handoff.transcripts import jsonl
from autopilot.handoff.transcripts.jsonl_index import add_line
from autopilot.patterns import lazy

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every rollout page loads this module
if TYPE_CHECKING:
    from typing import Any

    from autopilot.codex.shapes import Payload, RolloutLine
    from autopilot.handoff.transcripts.shapes import CodexFoldState, CodexMeta

FOLD_VERSION = 7  # 4: compaction lines, what the newest compaction kept, model changes; 5: counts per message
# text, results in a ledger; 6: telemetry, quiet items and tool outputs skimmed; 7: patches settled by their output
RETAINED_KEPT = 200  # user messages of one replacement_history remembered (by hash)
MODEL_CHANGES_KEPT = 500
PENDING_KEEP = 512  # message keys remembered for de-duplication within a turn
EDITED_KEEP = 2000
PATCHES_KEEP = 64  # apply_patch calls awaiting their output (one at a time, or a few in parallel)

# Bits for the three ways Codex records one message.
REP_RESPONSE, REP_EVENT, REP_ITEM = 1, 2, 4

# Lines read from their raw bytes, not parsed: token telemetry, the item events that repeat a command's output, and
# the tool outputs (of which only the call id is kept). Together half the lines and three quarters of the bytes of a
# long rollout. The envelope codex writes: {"timestamp":…,["ordinal":n,]"type":…,"payload":{…
_ENVELOPE = lazy(
    rb'\{"timestamp":"([0-9A-Za-z:.+-]{0,64})",(?:"ordinal":\d{1,20},)?"type":"([a-z_]{1,40})","payload":\{'
)
_QUIET_ITEM = lazy(
    rb'"type":"item_completed","thread_id":"[^"\\]{0,100}","turn_id":"[^"\\]{0,100}","item":\{"type":"([A-Za-z]{1,40})"'
)
_OUTPUT = lazy(
    rb'"type":"(function_call_output|custom_tool_call_output)",(?:"id":"[^"\\]{0,200}",)?"call_id":"([!#-\[\]-~]{1,200})","'
)
_TELEMETRY_LINES = frozenset(name.encode() for name in TELEMETRY_LINES)


def _bump(bucket: dict[str, int], name: Any) -> None:
    """Count ``name`` in ``bucket``; names are cleaned and capped because they come from the file."""
    key = clean_name(name)
    if key not in bucket and len(bucket) >= 32:
        key = "(other)"
    bucket[key] = bucket.get(key, 0) + 1


def _omit(state: CodexFoldState, what: str, n: int = 1) -> None:
    omitted = state["omitted"]
    omitted[what] = omitted.get(what, 0) + n


def message_key(role: str, text: str) -> str:
    """A short key identifying one message across its representations."""
    digest = blake2b("".join(text.split()).encode("utf-8", "replace"), digest_size=8)
    return f"{role}:{digest.hexdigest()}"


def text_hash(text: str) -> str:
    """A short hash of a message's text (what a compaction kept is compared by it)."""
    return blake2b(" ".join(text.split()).encode(), digest_size=8).hexdigest()


def retained_hashes(history: Any) -> list[str]:
    """The hashes of the user messages a ``replacement_history`` carries (the model is sent them again)."""
    out: list[str] = []
    for item in history if isinstance(history, list) else []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            text, _ = split_images(texts(item.get("content")))
            if text.strip() and len(out) < RETAINED_KEPT:
                out.append(text_hash(text))
    return out


# What oversize() looks for in the head of a line too large to parse: its call id and that it is a tool's output.
_BIG_CALL_ID = lazy(rb'"call_id"\s*:\s*"([^"]{1,128})"')
_BIG_OUTPUT_TYPE = lazy(rb'"type"\s*:\s*"(?:function|custom)_call_output"')


class CodexFold:
    """The rollout whitelist as a pure left fold for :func:`jsonl.scan`."""

    name = "codex"
    version = FOLD_VERSION
    skim_prefixes = (b'{"timestamp":"',)

    def start(self) -> CodexFoldState:
        """A fresh state for an empty rollout."""
        return {
            "meta": None,
            "meta_line": None,
            "fork": None,
            "model": None,
            "first_ts": None,
            "last_ts": None,
            "turn": {"state": "none"},
            "turns": 0,
            "pending": {},
            "calls": {},
            "patches": [],  # lines of the apply_patch calls whose output has not yet said applied or failed
            "results": bytearray(),  # call id -> line of its output (jsonl_index.add_line; negative: too large)
            "user_turns": array("q"),
            "rolled_back": [],
            "edited": {},
            "subagents": {},
            "images": {},
            "goal_line": None,
            "checkpoint_line": None,
            "last_user_line": None,
            "compactions": 0,
            "compaction_events": 0,
            "compaction_lines": [],  # every `compacted` line, oldest first
            "retained": [],  # hashes of the user messages the newest compaction kept verbatim
            "modelChanges": [],  # [line, model] each time turn_context names another model
            "replayed": 0,
            "omitted": {},
            "unknown": {},
            "entries_by_kind": {},
            "tools": {},
            "models": [],
        }

    # -- the fold ---------------------------------------------------------------------------

    def skim(self, state: CodexFoldState, line: int, raw: bytes) -> bool | None:
        """Fold a telemetry line, a quiet item event or a tool output from its raw bytes, as :meth:`row` would fold the
        parsed line; None for any other line (and for every line of a fork's replayed history), which is parsed."""
        m = _ENVELOPE.match(raw)
        if m is None:
            return None
        fork = state["fork"]
        if fork is not None and fork.get("replaying"):
            return None
        kind, at = m.group(2), m.end()
        if kind == b"response_item":
            out = _OUTPUT.match(raw, at)
            if out is None:
                return None
            self._time(state, m.group(1))
            call_id = out.group(2).decode()
            if state["calls"].get(call_id) in state["patches"]:
                return None  # the output of a patch settles its paths: parsed
            add_line(state["results"], call_id, line)
            if state["calls"].pop(call_id, None) is not None:
                return False  # shown with its call
            return _entry(state, "tool_result")
        if kind == b"event_msg":
            if raw.startswith(b'"type":"token_count"', at):
                self._time(state, m.group(1))
                _omit(state, "telemetry")
                return False
            item = _QUIET_ITEM.match(raw, at)
            if item is None or item.group(1).decode() not in QUIET_ITEMS:
                return None
            self._time(state, m.group(1))
            return False
        if kind in _TELEMETRY_LINES:
            self._time(state, m.group(1))
            _omit(state, "telemetry")
            return False
        return None

    @staticmethod
    def _time(state: CodexFoldState, ts: bytes) -> None:
        text = ts.decode()
        state["last_ts"] = text
        if state["first_ts"] is None:
            state["first_ts"] = text

    def row(self, state: CodexFoldState, line: int, obj: RolloutLine) -> bool:
        """Fold one rollout line; True when it is a meaningful entry."""
        kind = obj.get("type")
        payload = payload_of(obj)
        ts = obj.get("timestamp")
        if isinstance(ts, str):
            state["last_ts"] = ts
            if state["first_ts"] is None:
                state["first_ts"] = ts
        if kind == "session_meta":
            return self._session_meta(state, line, payload)
        fork = state["fork"]
        if fork is not None and fork.get("replaying"):
            if not self._replay_ends(state, kind, payload):
                state["replayed"] += 1
                fork["replay_to"] = line
                return False
            fork["replaying"] = False
        if kind == "response_item":
            return self._response_item(state, line, payload, obj.get("metadata"))
        if kind == "event_msg":
            return self._event(state, line, payload)
        if kind == "turn_context":
            model = payload.get("model")
            if isinstance(model, str):
                if model != state["model"] and len(state["modelChanges"]) < MODEL_CHANGES_KEPT:
                    state["modelChanges"].append([line, model])
                state["model"] = model
                if model not in state["models"] and len(state["models"]) < 16:
                    state["models"].append(model)
            _omit(state, "turnContext")
            return False
        if kind == "compacted":
            state["compactions"] += 1
            state["compaction_lines"].append(line)
            if isinstance(payload.get("message"), str) and payload["message"].strip():
                state["checkpoint_line"] = line
            history = payload.get("replacement_history")
            state["retained"] = retained_hashes(history)
            if history:
                _omit(state, "compactionHistory")
            return False
        if kind == "world_state":
            _omit(state, "worldState")
            return False
        if kind in TELEMETRY_LINES:
            _omit(state, "telemetry")
            return False
        if kind in KNOWN_LINE_TYPES:
            return False
        _bump(state["unknown"].setdefault("lineTypes", {}), kind)
        return False

    def oversize(self, state: CodexFoldState, line: int, head: bytes, tail: bytes, size: int) -> bool:
        """A line too large to parse: a huge tool output is remembered against its call, else counted."""
        m = _BIG_CALL_ID.search(head)
        if m and _BIG_OUTPUT_TYPE.search(head[:4096]):
            call_id = m.group(1).decode("utf-8", "replace")
            add_line(state["results"], call_id, -line)  # negative: the output is too large to show
            state["calls"].pop(call_id, None)
        else:
            _omit(state, "oversizeLines")
        return False

    # -- session metadata and fork replay -------------------------------------------------

    def _session_meta(self, state: CodexFoldState, line: int, p: Payload) -> bool:
        meta = state["meta"]
        if meta is None:
            state["meta"] = _session_fields(p)
            state["meta_line"] = line
            if p.get("base_instructions") or p.get("instructions"):
                _omit(state, "baseInstructions")
            if p.get("dynamic_tools"):
                _omit(state, "dynamicTools", len(p["dynamic_tools"]) if isinstance(p["dynamic_tools"], list) else 1)
            if as_dict(p.get("history_base")).get("thread_id") == p.get("id"):
                # A paginated thread continued in a new window after thread/revert.
                state["turn"] = {"state": "rolled_back", "line": line, "reason": "reverted"}
            if p.get("forked_from_id"):
                state["fork"] = {"forked_from_id": p["forked_from_id"], "replaying": False}
            return False
        if p.get("id") == meta.get("id"):
            return False  # the same thread announced again: nothing new
        fork = state["fork"]
        if fork is None:
            fork = state["fork"] = {"forked_from_id": None, "replaying": False}
        if fork.get("replay_from") is None:
            # The parent's history, copied into this file when it was forked.
            fork["replaying"], fork["replay_from"], fork["parent_meta_id"] = True, line, p.get("id")
        if fork.get("replaying"):  # a fork of a fork replays its grandparent's meta too
            fork["replay_to"] = line
            state["replayed"] += 1
        return False

    def _replay_ends(self, state: CodexFoldState, kind: Any, p: Payload) -> bool:
        own = (state["meta"] or {}).get("id")
        for key in ("thread_id", "threadId"):
            if p.get(key) == own and own:
                return True
        if (kind == "event_msg" and p.get("type") in TURN_START) or kind == "turn_context":
            born, turn = uuid7_ms(own), uuid7_ms(p.get("turn_id"))
            if born is not None and turn is not None and turn >= born:
                return True
        return False

    # -- response items ---------------------------------------------------------------------

    def _response_item(self, state: CodexFoldState, line: int, p: Payload, metadata: Any) -> bool:
        t = p.get("type")
        if t == "message":
            return self._message(state, line, p, metadata)
        if t in TOOL_CALLS:
            _bump(state["tools"], p.get("name") or t)
            call_id = p.get("call_id") or p.get("id")
            if isinstance(call_id, str):
                state["calls"][call_id] = line
            _patch_paths(state, line, patch_body(p), "proposed")
            return _entry(state, "tool_call")
        if t in TOOL_OUTPUTS:
            call_id = p.get("call_id")
            if isinstance(call_id, str):
                add_line(state["results"], call_id, line)
                called = state["calls"].pop(call_id, None)
                if called is not None:
                    _settle_patch(state, called, p.get("output"))
                    return False  # shown with its call
            if t == "tool_search_output":
                _omit(state, "toolDefinitions")
            return _entry(state, "tool_result")
        if t == "reasoning":
            _omit(state, "reasoning")
            if p.get("encrypted_content"):
                _omit(state, "encrypted")
            return False
        if t in ("web_search_call", "image_generation_call"):
            return _entry(state, t.removesuffix("_call"))
        if t == "agent_message":  # inter-agent mail; encrypted parts never shown
            return _entry(state, "agent_mail")
        if t == "additional_tools":
            _omit(state, "toolDefinitions")
            return False
        if t in ("compaction", "compaction_summary", "context_compaction"):
            _omit(state, "encrypted")
            return False
        if t not in KNOWN_RESPONSE_TYPES:
            _bump(state["unknown"].setdefault("responseTypes", {}), t)
        return False

    def _message(self, state: CodexFoldState, line: int, p: Payload, metadata: Any) -> bool:
        role = p.get("role")
        if role == "assistant":
            if isinstance(metadata, dict) and metadata.get("compaction_output"):
                _omit(state, "compactionSummary")
                return False
            return self._seen(state, line, "assistant", "\n".join(texts(p.get("content"))), REP_RESPONSE)
        if role != "user":
            _omit(state, "developerMessages")
            return False
        parts = texts(p.get("content"))
        kinds = (p.get("internal_chat_message_metadata_passthrough") or {}).get("content_item_kinds")
        text, _ = split_images(parts)
        if kinds is not None:
            human = bool(kinds) and all(k in HUMAN_KINDS for k in kinds)
        else:
            human = bool(parts) and not any(is_harness(part) for part in parts)
        if not human:
            _omit(state, "harnessMessages")
            return False
        return self._seen(state, line, "user", text, REP_RESPONSE)

    def _seen(self, state: CodexFoldState, line: int, role: str, text: str, rep: int) -> bool:
        """Record one representation of a message; True only for the first one seen.

        Codex writes one message up to three ways (``REP_*``), and a turn may hold several copies of one text
        ("continue", "Done.", the same announcement before every tool call). A representation belongs to the oldest
        copy still missing it, so the copies holding a representation are always the oldest ones: per text it is
        enough to count each representation, and a copy begins when this one's count has reached the number of
        copies (the largest count). One step per line however often a text repeats (scanning a list of masks per
        copy made a rollout that repeats its texts quadratic).
        """
        if not text.strip() and role == "assistant":
            return False
        pending = state["pending"]
        key = message_key(role, text)
        counts = pending.get(key)
        if counts is None:
            counts = pending[key] = [0, 0, 0]
            if len(pending) > PENDING_KEEP:
                del pending[next(iter(pending))]
        slot = rep >> 1  # REP_RESPONSE, REP_EVENT, REP_ITEM -> 0, 1, 2
        copies = max(counts)
        seen = counts[slot]
        counts[slot] = seen + 1
        if seen < copies:
            _omit(state, "duplicateMessages")
            return False
        if role == "user":
            state["user_turns"].append(line)
            state["last_user_line"] = line
        return _entry(state, role)

    # -- events -----------------------------------------------------------------------------

    def _event(self, state: CodexFoldState, line: int, p: Payload) -> bool:
        t = p.get("type")
        if t == "user_message":
            if p.get("kind") not in (None, "plain"):
                _omit(state, "harnessMessages")
                return False
            message = p.get("message")
            return isinstance(message, str) and self._seen(state, line, "user", message, REP_EVENT)
        if t == "agent_message":
            message = p.get("message")
            return isinstance(message, str) and self._seen(state, line, "assistant", message, REP_EVENT)
        if t == "item_completed":
            return self._item(state, line, p)
        if t in TURN_START:
            state["turns"] += 1
            state["pending"] = {}
            state["turn"] = {"state": "running", "line": line, "turn_id": p.get("turn_id")}
            return False
        if t in TURN_END:
            state["turn"] = {"state": "complete", "line": line, "turn_id": p.get("turn_id")}
            return False
        if t == "turn_aborted":
            state["turn"] = {"state": "aborted", "line": line, "turn_id": p.get("turn_id"), "reason": p.get("reason")}
            return _entry(state, "turn_aborted")
        if t == "thread_rolled_back":
            _rollback(state, line, p.get("num_turns"))
            state["turn"] = {"state": "rolled_back", "line": line}
            return _entry(state, "rolled_back")
        if t == "patch_apply_end":
            status = "applied" if p.get("success", True) else "failed"
            _change_paths(state, line, p.get("changes"), status)
            return False
        if t == "thread_goal_updated":
            state["goal_line"] = line
            return _entry(state, "goal")
        if t in ERROR_EVENTS:
            return _entry(state, "error")
        if t in REASONING_EVENTS:
            _omit(state, "reasoning")
            return False
        if t in TELEMETRY_EVENTS:
            _omit(state, "telemetry")
            return False
        if t == "context_compacted":
            state["compaction_events"] += 1
            return False
        if t == "image_generation_end":
            path = p.get("saved_path") or p.get("path")
            if isinstance(path, str) and isinstance(p.get("call_id"), str):
                state["images"][p["call_id"]] = path
            return False
        if t in ("collab_agent_spawn_end", "sub_agent_activity"):
            _subagent(
                state,
                line,
                p.get("new_thread_id") or p.get("agent_thread_id"),
                p.get("agent_path") or p.get("new_agent_path"),
                p.get("kind") or "started",
            )
            return False
        if t not in QUIET_EVENTS:
            _bump(state["unknown"].setdefault("eventTypes", {}), t)
        return False

    def _item(self, state: CodexFoldState, line: int, p: Payload) -> bool:
        item = p.get("item")
        if not isinstance(item, dict):
            return False
        t = item.get("type")
        if t == "UserMessage":
            text = "\n".join(texts(item.get("content")))
            return self._seen(state, line, "user", text, REP_ITEM)
        if t == "AgentMessage":
            text = "\n".join(texts(item.get("content")))
            return self._seen(state, line, "assistant", text, REP_ITEM)
        if t == "FileChange":
            status = "applied" if item.get("status") in (None, "completed") else "failed"
            _change_paths(state, line, item.get("changes"), status)
            return False
        if t == "SubAgentActivity":
            _subagent(state, line, item.get("agent_thread_id"), item.get("agent_path"), item.get("kind"))
            return False
        if t == "Plan":
            return _entry(state, "plan")
        if t == "Error":
            return _entry(state, "error")
        if t == "ImageGeneration":
            path = item.get("saved_path") or item.get("path")
            if isinstance(path, str) and isinstance(item.get("id"), str):
                state["images"][item["id"]] = path
            return False
        if t in NEVER_ITEMS:
            _omit(state, "reasoning" if t == "Reasoning" else "encrypted")
            return False
        if t not in QUIET_ITEMS:
            _bump(state["unknown"].setdefault("itemTypes", {}), t)
        return False


def _entry(state: CodexFoldState, kind: str) -> bool:
    counts = state["entries_by_kind"]
    counts[kind] = counts.get(kind, 0) + 1
    return True


def _session_fields(p: Payload) -> CodexMeta:
    """The whitelisted session_meta fields, camelCased (never base_instructions or dynamic tools)."""
    from autopilot.codex.subagent import child_marker  # only a scan meets a session_meta line

    source = p.get("source")
    spawn: dict[str, Any] = {}
    if isinstance(source, dict):
        spawn = as_dict(as_dict(source.get("subagent")).get("thread_spawn"))
        source = "subagent" if "subagent" in source else next(iter(source), None)
    git = as_dict(p.get("git"))
    base = as_dict(p.get("history_base"))
    fields = {
        "id": p.get("id"),
        "sessionId": p.get("session_id"),
        "timestamp": p.get("timestamp"),
        "cwd": p.get("cwd"),
        "originator": p.get("originator"),
        "cliVersion": p.get("cli_version"),
        "source": source,
        "threadSource": p.get("thread_source"),
        "modelProvider": p.get("model_provider"),
        "historyMode": p.get("history_mode") or ("paginated" if base else None),
        "git": {
            new: git[old]
            for old, new in (("commit_hash", "commitHash"), ("branch", "branch"), ("repository_url", "repositoryUrl"))
            if git.get(old)
        },
        "forkedFromId": p.get("forked_from_id"),
        "parentThreadId": p.get("parent_thread_id") or spawn.get("parent_thread_id"),
        "agentPath": p.get("agent_path") or spawn.get("agent_path"),
        "agentNickname": p.get("agent_nickname") or spawn.get("agent_nickname"),
        "agentRole": p.get("agent_role") or p.get("agent_type") or spawn.get("agent_role"),
        "subagentDepth": spawn.get("depth"),
        "isSubagent": bool(child_marker(p)),
        "historyBase": {"threadId": base.get("thread_id"), "endOrdinalExclusive": base.get("end_ordinal_exclusive")}
        if base
        else None,
    }
    # Only the fields the file filled with a string, a number or an object are kept: CodexMeta's keys.
    return {k: v for k, v in fields.items() if isinstance(v, (str, int, dict)) and v != {}}  # type: ignore[return-value]


def _rollback(state: CodexFoldState, line: int, num_turns: Any) -> None:
    """Mark the last ``num_turns`` user turns as rolled back (Codex drops them from history)."""
    turns: array[int] = state["user_turns"]
    n = num_turns if isinstance(num_turns, int) and num_turns > 0 else 0
    if not n or not turns:
        return
    start = turns[max(0, len(turns) - n)]
    del turns[max(0, len(turns) - n) :]
    state["rolled_back"].append([start, line])


def _subagent(state: CodexFoldState, line: int, thread_id: Any, agent_path: Any, kind: Any) -> None:
    if not isinstance(thread_id, str):
        return
    record = state["subagents"].setdefault(thread_id, {"line": line})
    if isinstance(agent_path, str):
        record["agentPath"] = agent_path
    if isinstance(kind, str):
        record["status"] = kind
    record["lastLine"] = line


def _record_edit(state: CodexFoldState, path: str, change: str, line: int, status: str) -> None:
    edited = state["edited"]
    meta = state["meta"] or {}
    cwd = meta.get("cwd")
    if not os.path.isabs(path) and isinstance(cwd, str) and cwd.startswith("/"):
        path = os.path.normpath(os.path.join(cwd, path))
    if status == "proposed" and path in edited and edited[path][2] != "proposed":
        return  # an applied change already recorded: the later call only re-proposes it
    edited.pop(path, None)
    edited[path] = [change, line, status]
    if len(edited) > EDITED_KEEP:
        del edited[next(iter(edited))]


# What apply_patch answers (every Codex version seen, and the rollouts other tools write): success names the files.
PATCH_APPLIED = "Success. Updated the following files"
PATCH_FAILED = lazy(r"apply_patch verification failed|Exit code: [1-9]|\"exit_code\": ?[1-9]")


def _settle_patch(state: CodexFoldState, call_line: int, output: Any) -> None:
    """The paths an apply_patch call at ``call_line`` proposed, applied or failed as its output says: a rollout with no
    patch event (Codex before FileChange items, other tools' rollouts) settles them only there."""
    if call_line not in state["patches"]:
        return
    state["patches"].remove(call_line)
    text = output if isinstance(output, str) else str(output or "")
    status = "applied" if PATCH_APPLIED in text else "failed" if PATCH_FAILED.search(text) else None
    if status is None:
        return
    for entry in state["edited"].values():
        if entry[1] == call_line and entry[2] == "proposed":
            entry[2] = status


def _patch_paths(state: CodexFoldState, line: int, patch: Any, status: str) -> None:
    found = False
    for change, path in patch_files(patch):
        _record_edit(state, path, change, line, status)
        found = True
    if found and status == "proposed":
        patches = state["patches"]
        patches.append(line)
        if len(patches) > PATCHES_KEEP:  # calls whose output never came
            del patches[0]


def _change_paths(state: CodexFoldState, line: int, changes: Any, status: str) -> None:
    """Paths from a FileChange item or a legacy patch_apply_end event."""
    if isinstance(changes, dict):
        for path, change in changes.items():
            kind = "update"
            if isinstance(change, dict):
                kind = str(change.get("type") or next(iter(change), "update"))
                inner = as_dict(change.get(kind)) or change
                if isinstance(inner.get("move_path"), str):
                    _record_edit(state, inner["move_path"], "move", line, status)
            _record_edit(state, str(path), kind, line, status)
    elif isinstance(changes, list):
        for change in changes:
            if isinstance(change, dict) and isinstance(change.get("path"), str):
                _record_edit(state, change["path"], str(change.get("kind") or "update"), line, status)


def scan(path: str | os.PathLike[str], *, cache: bool = True) -> jsonl.Index[CodexFoldState]:
    """The (cached) index of a rollout, folded with :class:`CodexFold`."""
    return jsonl.scan(path, CodexFold(), cache=cache)
