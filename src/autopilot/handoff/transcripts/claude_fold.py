"""The one-pass fold over a Claude Code transcript: which rows matter, and the facts kept about them.

This is the scanning half of the Claude reader (``claude.py`` renders the answer). It
is a whitelist: it looks only at the hard-coded recovery-bearing fields of known row
types, counts everything else, and keeps bulky text out of its state (it stores line
numbers; the renderer reads those lines back). The state is saved in the per-file
index, so it holds only JSON values and ``array`` columns.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from itertools import compress

from autopilot.digest import blake2b
from autopilot.handoff.transcripts.evidence import strip_reminders
from autopilot.handoff.transcripts.jsonl_index import add_line
from autopilot.patterns import lazy

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every intake page loads this module
if TYPE_CHECKING:
    from typing import Any, Literal

    from autopilot.handoff.transcripts.shapes import ClaudeFoldState, ClaudeRow

# Chain rows carry uuid/parentUuid; the rest are bookkeeping (as Claude Code writes them: docs/claude-intake.md).
CHAIN_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
KNOWN_TYPES = CHAIN_TYPES | frozenset(
    {
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "last-prompt",
        "custom-title",
        "ai-title",
        "tag",
        "summary",
        "agent-name",
        "agent-color",
        "agent-setting",
        "mode",
        "permission-mode",
        "pr-link",
        "worktree-state",
        "content-replacement",
        "attribution-snapshot",
        "tools-used",
        "derived-from",
        "continued-in",
        "cost-state",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "atis-latch",
    }
)
EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
HOOK_CONTEXT = frozenset(
    {
        "hook_additional_context",
        "hook_success",
        "hook_system_message",
        "hook_non_blocking_error",
        "hook_blocking_error",
        "hook_stopped_continuation",
        "hook_cancelled",
    }
)
SYSTEM_PROMPT_ROWS = frozenset({"api-request-shape", "api-request-blob"})
TELEMETRY_ROWS = frozenset({"api-request", "cost-state"})
_SAFE_NAME = lazy(r"[A-Za-z0-9_.:\-]{1,64}")
# For a row too large to parse, the envelope is read from its head and tail by pattern.
_BIG_TYPE = lazy(rb'"type":"(user|assistant|system|attachment|progress)","(?:message|uuid)"')
_BIG_START = lazy(rb'^\{"type":"([^"]{1,64})"')
_BIG_PARENT = lazy(rb'^\{"parentUuid":(?:"([^"]{1,100})"|null)')
_BIG_LOGICAL = lazy(rb'"logicalParentUuid":"([^"]{1,100})"')
_BIG_UUID = lazy(rb'"uuid":"([^"]{1,100})"')
_BIG_RESULT_ID = lazy(rb'"tool_use_id":"([^"]{1,200})"')
_BIG_TOOL_USE = lazy(rb'"type":"tool_use","id":"([^"]{1,200})","name":"([^"]{1,100})"')
# Rows skimmed without parsing: bookkeeping rows by their leading type, attachments by envelope.
_SKIM_ROWS: dict[bytes, Literal["telemetry", "systemPrompts"] | None] = {
    b"api-request": "telemetry",
    b"cost-state": "telemetry",
    b"api-request-shape": "systemPrompts",
    b"api-request-blob": "systemPrompts",
    b"queue-operation": None,
    b"atis-latch": None,
    b"tools-used": None,
    b"mode": None,
    b"permission-mode": None,
    b"file-history-snapshot": None,
    b"file-history-delta": None,
    b"attribution-snapshot": None,
    b"content-replacement": None,
    b"worktree-state": None,
    b"last-prompt": None,
}
_ATTACHMENT_HEAD = lazy(
    rb'\{"parentUuid":(?:null|"([^"]{1,100})"),"isSidechain":(true|false),"attachment":\{"type":"([A-Za-z0-9_]{1,64})"'
)
_ATTACHMENT_UUID = b',"type":"attachment","uuid":"'
_TIMESTAMP = b'"timestamp":"'


NODE_TYPE = "I"  # the node columns' items: uuid keys are 32-bit, and a transcript of 2**32 lines is 400+ GB
MODEL_CHANGES_KEPT = 500
PRESERVED_KEPT = 5000  # preserved uuids kept per boundary (Claude Code keeps a turn or two)


def uuid_key(value: Any) -> int:
    """A stable unsigned 32-bit integer for a row uuid (0 means none), so lineage fits in 4-byte int arrays.

    32 bits suffice: the lineage walk compares a parent's key only with the rows between
    it and its child, so a collision would have to fall in that short stretch. (A malformed
    uuid such as ``-1234567`` reads as a negative number: it is taken modulo 2**32.)
    """
    if not value:
        return 0
    try:
        return (int(value[:8], 16) & 0xFFFFFFFF) or 1
    except (ValueError, TypeError):
        data = value if isinstance(value, bytes) else str(value).encode()
        return int.from_bytes(blake2b(data, digest_size=4).digest(), "big") or 1


def safe_name(value: Any) -> str:
    """A type or tool name fit to print as a count key; anything odd is bucketed, never echoed."""
    if value.__class__ is str and _SAFE_NAME.fullmatch(value):
        return value
    return "<missing>" if value is None else "<invalid>"


def sniff_type(head: bytes, tail: bytes = b"") -> str | None:
    """The type of a row that cannot be parsed, guessed from its raw head and tail (a safe name or None)."""
    found = _BIG_TYPE.search(head + b"\n" + tail) or _BIG_START.search(head)
    return safe_name(found.group(1).decode("utf-8", "replace")) if found else None


def _flag(flags: bytearray, line: int) -> None:
    """Set ``line``'s byte in a per-line flag column, growing it as far as the line."""
    if len(flags) <= line:
        flags.extend(bytes(line + 1 - len(flags)))
    flags[line] = 1


def _bump(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _meaningful(text: Any) -> bool:
    if text.__class__ is not str:
        return False
    if "<system-reminder>" in text:
        text = strip_reminders(text)[0]
    return bool(text.strip())


class ClaudeFold:
    """Folds Claude Code transcript rows into recovery facts; entries are the rows a page shows."""

    name = "claude"

    def __init__(self) -> None:
        self._keys: array[int] | None = None  # the key column ``_raw`` copies (a scan's own, never saved)
        self._raw = bytearray()

    version = 6  # 2: the model's view after a compaction (boundaries, relinking), model changes, node kinds; 3: node
    # columns of 4-byte unsigned ints (NODE_TYPE), a quarter less index to read and write on every append; 4: results
    # in a ledger; 5: each node's parent node, and the view's walk kept, so an append walks only what it added; 6: entry
    # flags per line, so a page counts branches with a few big-integer operations

    def start(self) -> ClaudeFoldState:
        """A fresh state for an empty transcript."""
        return {
            "session": {},
            "first": None,
            "last": None,
            "models": {},
            "rowTypes": {},
            "unknownTypes": {},
            "unknownBlocks": {},
            "tools": {},
            "thinking": 0,
            "omitted": {"hookContext": 0, "systemPrompts": 0, "telemetry": 0, "metaRows": 0},
            "titleLines": {},
            "lastPromptLine": 0,
            "lastUserLine": 0,
            "edits": {},
            "pendingEdits": {},
            "pending": {},
            "results": bytearray(),  # call id -> line of its result (jsonl_index.add_line)
            "orphans": {},
            "compacts": [],
            "boundary": None,
            # [line, trigger, uuid key, anchor key, preserved keys | None, [head, tail] keys | None, summary line]
            "boundaries": [],
            "modelChanges": [],  # [line, model] each time the assistant's model differs from the one before
            "lastModel": None,
            "leaf": 0,
            "leafLine": 0,
            "sidechainFile": None,
            "nodeLine": array(NODE_TYPE),
            "nodeKey": array(NODE_TYPE),
            "nodeParent": array(NODE_TYPE),
            "nodeKind": bytearray(),  # 1 for user and assistant rows (the relinking rule treats them apart)
            "nodeUp": array(NODE_TYPE),  # each node's parent node + 1 (the nearest earlier row with its uuid), 0: none
            "active": bytearray(),
            "activeLeaf": 0,  # the leaf line the active flags were walked from
            "view": bytearray(),  # per raw line: 1 when the row is in what the model is sent now
            "entryFlags": bytearray(),  # per raw line: 1 when the row is an entry (as far as the last entry)
            "viewKey": [],  # the leaf line, newest boundary line and node count the view was computed for
            "viewBoundary": None,  # the index in ``boundaries`` of the boundary the view starts at
            "viewPath": array(NODE_TYPE),  # the nodes of the view's walk, from its boundary up to the leaf
            "activeLines": 0,
        }

    skim_prefixes = (b'{"type":"', b'{"parentUuid":')

    def skim(self, st: ClaudeFoldState, line: int, raw: bytes) -> bool | None:
        """Count a bookkeeping row or an attachment from its raw bytes; None asks for a full parse."""
        if raw[2] == 116:  # {"type":"…  a bookkeeping row
            end = raw.find(b'"', 9)
            name = raw[9:end]
            if name not in _SKIM_ROWS:
                return None
            kind = name.decode()
            types = st["rowTypes"]
            types[kind] = types.get(kind, 0) + 1
            bucket = _SKIM_ROWS[name]
            if bucket:
                st["omitted"][bucket] += 1
            elif kind == "last-prompt":
                st["lastPromptLine"] = line  # its text is read (and checked) when rendering
            at = raw.find(_TIMESTAMP, 0, 400)
            if at > 0:
                self._when(st, raw[at + 13 : raw.find(b'"', at + 13)].decode("utf-8", "replace"))
            return False
        head = _ATTACHMENT_HEAD.match(raw)
        if head is None or head.group(3) == b"queued_command":
            return None
        at = raw.rfind(_ATTACHMENT_UUID)
        if at < 0:
            return None
        start = at + len(_ATTACHMENT_UUID)
        stop = raw.find(b'"', start)
        types = st["rowTypes"]
        types["attachment"] = types.get("attachment", 0) + 1
        kind = head.group(3).decode()
        if kind in HOOK_CONTEXT:
            st["omitted"]["hookContext"] += 1
        elif kind == "prompt_snapshot":
            st["omitted"]["systemPrompts"] += 1
        self._node(st, line, "attachment", head.group(2) == b"true", uuid_key(raw[start:stop]), uuid_key(head.group(1)))
        if raw.startswith(_TIMESTAMP, stop + 2):  # …uuid":"<uuid>","timestamp":"<ts>"
            self._when(st, raw[stop + 15 : raw.find(b'"', stop + 15)].decode("utf-8", "replace"))
        return False

    @staticmethod
    def _when(st: ClaudeFoldState, ts: str) -> None:
        if st["first"] is None or ts < st["first"]:
            st["first"] = ts
        if st["last"] is None or ts > st["last"]:
            st["last"] = ts

    def row(self, st: ClaudeFoldState, line: int, obj: ClaudeRow) -> bool:
        """Fold one parsed row; True when it is a meaningful entry."""
        kind = obj.get("type")
        ts = obj.get("timestamp")
        if ts.__class__ is str:
            self._when(st, ts)
        types = st["rowTypes"]
        if kind in CHAIN_TYPES:
            types[kind] = types.get(kind, 0) + 1
            uid = obj.get("uuid")
            if uid is not None:
                parent = obj.get("parentUuid") or obj.get("logicalParentUuid")
                self._node(st, line, kind, obj.get("isSidechain") is True, uuid_key(uid), uuid_key(parent))
                self._identity(st, obj)
            if kind == "assistant":
                entry = self._assistant(st, line, obj)
            elif kind == "user":
                entry = self._user(st, line, obj)
            elif kind == "attachment":
                entry = self._attachment(st, obj)
            elif kind == "system":
                entry = self._system(st, line, obj)
            else:
                return False
            if entry:
                _flag(st["entryFlags"], line)
            return entry
        if kind in KNOWN_TYPES:
            types[kind] = types.get(kind, 0) + 1
            if kind in SYSTEM_PROMPT_ROWS:
                st["omitted"]["systemPrompts"] += 1
            elif kind in TELEMETRY_ROWS:
                st["omitted"]["telemetry"] += 1
            elif kind == "last-prompt":
                if obj.get("lastPrompt").__class__ is str:
                    st["lastPromptLine"] = line
            elif kind in ("custom-title", "ai-title", "summary"):
                st["titleLines"][kind] = line
        else:
            _bump(st["unknownTypes"], safe_name(kind))
        return False

    def _node(self, st: ClaudeFoldState, line: int, kind: str, sidechain: bool, key: int, parent: int) -> None:
        keys = st["nodeKey"]
        n = len(keys)
        if not parent:
            st["nodeUp"].append(0)
        elif n and keys[n - 1] == parent:
            st["nodeUp"].append(n)
        else:  # the key column's bytes, kept for this scan and grown as rows come, for the parents further back
            if self._keys is not keys:
                self._keys, self._raw = keys, bytearray()
            st["nodeUp"].append(parent_node(keys, parent, n, self._raw) + 1)
        st["nodeLine"].append(line)
        keys.append(key)
        st["nodeParent"].append(parent)
        st["nodeKind"].append(1 if kind in ("user", "assistant") else 0)
        if st["sidechainFile"] is None:
            st["sidechainFile"] = sidechain
        # The newest leaf is the last row on the main chain; progress rows fork off it.
        if kind != "progress" and (not sidechain or st["sidechainFile"]):
            st["leaf"], st["leafLine"] = key, line

    @staticmethod
    def _identity(st: ClaudeFoldState, obj: ClaudeRow) -> None:
        session = st["session"]
        if "sessionId" not in session:
            session.update({k: obj.get(k) for k in ("sessionId", "agentId", "entrypoint")})
        for field in ("cwd", "gitBranch", "version"):
            value = obj.get(field)
            if value.__class__ is str:
                session[field] = value

    def _assistant(self, st: ClaudeFoldState, line: int, obj: ClaudeRow) -> bool:
        msg = obj.get("message")
        if msg.__class__ is not dict:
            return False
        model = msg.get("model")
        if model.__class__ is str and model != "<synthetic>":
            _bump(st["models"], model)
            if model != st["lastModel"] and len(st["modelChanges"]) < MODEL_CHANGES_KEPT:
                st["modelChanges"].append([line, model])
            st["lastModel"] = model
        content = msg.get("content")
        if content.__class__ is str:
            return _meaningful(content)
        if content.__class__ is not list:
            return False
        entry = False
        for block in content:
            if block.__class__ is not dict:
                continue
            kind = block.get("type")
            if kind == "text":
                entry = entry or _meaningful(block.get("text"))
            elif kind == "tool_use":
                entry = True
                name = safe_name(block.get("name"))
                _bump(st["tools"], name)
                call_id = block.get("id")
                if call_id.__class__ is str:
                    st["pending"][call_id] = line
                    if name in EDIT_TOOLS:
                        self._edit(st, line, call_id, name, block.get("input"))
            elif kind in ("thinking", "redacted_thinking"):
                st["thinking"] += 1
            else:
                _bump(st["unknownBlocks"], safe_name(kind))
        return entry

    def _edit(self, st: ClaudeFoldState, line: int, call_id: str, tool: str, args: Any) -> None:
        if args.__class__ is not dict:
            return
        path = args.get("file_path") or args.get("notebook_path")
        if path.__class__ is not str:
            return
        old = st["edits"].pop(path, None)  # re-inserted so dict order is most-recent-last
        st["edits"][path] = [tool, line, (old[2] if old else 0) + 1, "pending"]
        st["pendingEdits"][call_id] = path

    def _user(self, st: ClaudeFoldState, line: int, obj: ClaudeRow) -> bool:
        if obj.get("isCompactSummary"):
            st["compacts"].append([line, _summary_of(st, line)])
            return False
        if obj.get("isMeta") or obj.get("isVisibleInTranscriptOnly"):
            st["omitted"]["metaRows"] += 1
            return False
        msg = obj.get("message")
        content = msg.get("content") if msg.__class__ is dict else None
        if content.__class__ is str:
            if not _meaningful(content):
                return False
            if not obj.get("origin") and obj.get("promptSource") != "system":
                st["lastUserLine"] = line
            return True
        if content.__class__ is not list:
            return False
        entry = typed = False
        for block in content:
            if block.__class__ is not dict:
                continue
            kind = block.get("type")
            if kind == "tool_result":
                call_id = block.get("tool_use_id")
                if call_id.__class__ is not str or st["pending"].pop(call_id, None) is None:
                    entry = True  # a result whose call we never saw is shown on its own
                    if call_id.__class__ is str:
                        st["orphans"][call_id] = line
                if call_id.__class__ is str:
                    add_line(st["results"], call_id, line)
                    path = st["pendingEdits"].pop(call_id, None)
                    edit = st["edits"].get(path) if path else None
                    if edit:
                        edit[3] = "error" if block.get("is_error") else "ok"
            elif kind == "text":
                if _meaningful(block.get("text")):
                    entry = typed = True
            elif kind in ("image", "document"):
                entry = typed = True
            else:
                _bump(st["unknownBlocks"], safe_name(kind))
        if typed and not obj.get("origin") and obj.get("promptSource") != "system":
            st["lastUserLine"] = line
        return entry

    def _attachment(self, st: ClaudeFoldState, obj: ClaudeRow) -> bool:
        att = obj.get("attachment")
        kind = att.get("type") if att.__class__ is dict else None
        if kind in HOOK_CONTEXT:
            st["omitted"]["hookContext"] += 1
        elif kind == "prompt_snapshot":
            st["omitted"]["systemPrompts"] += 1
        elif kind == "queued_command" and att is not None:
            # Text the user typed while Claude was working: their intent, unless harness-made.
            return not att.get("isMeta") and _meaningful(att.get("prompt"))
        return False

    def _system(self, st: ClaudeFoldState, line: int, obj: ClaudeRow) -> bool:
        subtype = obj.get("subtype")
        if subtype == "compact_boundary":
            meta = obj.get("compactMetadata")
            meta = meta if meta.__class__ is dict else {}
            trigger = meta.get("trigger")
            key = uuid_key(obj.get("uuid"))
            shown = safe_name(trigger) if trigger else None
            st["boundary"] = [key, shown]
            st["boundaries"].append([line, shown, key, *_preserved(meta), 0])
            return False
        return obj.get("level") in ("warning", "error") or subtype == "api_error"

    # A row's own uuid sits between its message and its toolUseResult, so for a huge tool
    # result it is in neither the head nor the tail: have the scanner find it anywhere.
    oversize_marks = lazy(rb'"uuid":"[^"]{1,100}","timestamp":"[^"]{1,40}"')

    def oversize(
        self,
        st: ClaudeFoldState,
        line: int,
        head: bytes,
        tail: bytes,
        size: int,
        marks: list[bytes] | tuple[bytes, ...] = (),
    ) -> bool:
        """Fold a row too large to parse from the envelope fields found in its head, tail and marks."""
        both = head + b"\n" + tail
        kind = sniff_type(head, tail)
        if kind not in KNOWN_TYPES:
            _bump(st["unknownTypes"], "<oversize>")
            return False
        _bump(st["rowTypes"], kind)
        # Nested objects rarely carry uuid+timestamp; the row's own pair comes first.
        uuids = [_BIG_UUID.search(marks[0]).group(1)] if marks else _BIG_UUID.findall(tail)  # type: ignore[union-attr]
        if marks:
            self._when(st, marks[0].rsplit(b'"', 2)[-2].decode("utf-8", "replace"))
        if kind in CHAIN_TYPES and uuids:
            parent = _BIG_PARENT.search(head) or _BIG_LOGICAL.search(both)
            parent_key = uuid_key(parent.group(1)) if parent else 0
            self._node(st, line, kind, b'"isSidechain":true' in head, uuid_key(uuids[-1]), parent_key)
        if kind == "assistant":
            for call_id, name in _BIG_TOOL_USE.findall(head):
                _bump(st["tools"], safe_name(name.decode()))
                st["pending"][call_id.decode()] = line
            _flag(st["entryFlags"], line)
            return True
        if kind == "user":
            if b'"isCompactSummary":true' in both:
                st["compacts"].append([line, _summary_of(st, line)])
                return False
            ids = [i.decode() for i in _BIG_RESULT_ID.findall(head)]
            orphan = False
            for call_id in ids:
                add_line(st["results"], call_id, line)
                if st["pending"].pop(call_id, None) is None:
                    st["orphans"][call_id], orphan = line, True
            if not ids or orphan:
                _flag(st["entryFlags"], line)
                return True
            return False
        return False

    def finish(self, st: ClaudeFoldState, lines: int) -> None:
        """Bring the active-lineage flags up to date with the newest leaf (kept in the index)."""
        update_lineage(st, lines)


def _preserved(meta: dict[str, Any]) -> list[Any]:
    """A boundary's relinking: [anchor key, preserved keys (preservedMessages) or None, [head, tail] or None]."""
    kept = meta.get("preservedMessages")
    if kept.__class__ is dict and kept.get("uuids").__class__ is list:
        uuids = [uuid_key(u) for u in kept["uuids"][:PRESERVED_KEPT] if u.__class__ is str]
        return [uuid_key(kept.get("anchorUuid")), uuids, None]
    segment = meta.get("preservedSegment")
    if segment.__class__ is dict:
        return [
            uuid_key(segment.get("anchorUuid")),
            None,
            [uuid_key(segment.get("headUuid")), uuid_key(segment.get("tailUuid"))],
        ]
    return [0, [], None]


def _summary_of(st: ClaudeFoldState, line: int) -> str | None:
    """The trigger of the boundary a compact summary belongs to (the newest one, if it has no summary yet)."""
    boundaries = st["boundaries"]
    if boundaries and not boundaries[-1][6]:
        boundaries[-1][6] = line
        return boundaries[-1][1]  # type: ignore[no-any-return]
    return None


def parent_node(keys: array[int], key: int, below: int, raw: bytearray | None = None) -> int:
    """The node index of the nearest row before node ``below`` whose uuid key is ``key``, or -1.

    A row's parent is written before it (the file is append-only), so the nearest earlier row with the parent's
    uuid is the parent: Claude Code's own map of uuids says the same of a file without repeated uuids, and a
    32-bit key that collides with a row written later can never be taken for it. The parent is nearly always
    the row just before: that is looked at first, then the last few rows, then the key column's bytes (C speed).
    """
    if not key or below <= 0:
        return -1
    if keys[below - 1] == key:
        return below - 1
    stop = max(0, below - 32)
    for i in range(below - 2, stop - 1, -1):
        if keys[i] == key:
            return i
    if not stop:
        return -1
    width = keys.itemsize
    if raw is None:
        raw = bytearray(keys.tobytes())
    elif len(raw) < stop * width:  # the caller's copy of the column, grown as far as this search needs
        raw.extend(keys[len(raw) // width :].tobytes())
    needle = array(keys.typecode, [key]).tobytes()
    end = stop * width
    while True:
        found = raw.rfind(needle, 0, end)
        if found < 0:
            return -1
        if found % width == 0:
            return found // width
        end = found + width - 1  # a match across two keys: look further back


def link_nodes(st: ClaudeFoldState) -> array[int]:
    """The parent column (``nodeUp``: each node's parent node + 1, 0 for none), brought up to the key column.

    The fold fills it as rows arrive; a state built some other way (a test's) is completed here.
    """
    up: array[int] = st.setdefault("nodeUp", array(NODE_TYPE))
    keys, parents = st["nodeKey"], st["nodeParent"]
    for i in range(len(up), len(keys)):
        up.append(parent_node(keys, parents[i], i) + 1)
    return up


def _leaf_node(st: ClaudeFoldState) -> int:
    """The node index of the newest leaf, or -1 when the leaf row is not a node (too large to read as a row)."""
    where = st["nodeLine"]
    at = bisect_left(where, st["leafLine"])
    return at if at < len(where) and where[at] == st["leafLine"] else -1


def update_lineage(st: ClaudeFoldState, lines: int) -> None:
    """Mark, per raw line, the rows on the parentUuid/logicalParentUuid chain of the newest leaf, then the rows of
    the model's view (:func:`update_view`).

    Walks from the leaf through each row's parent until it meets a row already on the old lineage: an append
    costs the rows it added (and, after a rewind, the branch it left), never the whole chain again.
    """
    _mark_lineage(st, lines)
    update_view(st, lines)


def _mark_lineage(st: ClaudeFoldState, lines: int) -> None:
    active: bytearray = st["active"]
    old_lines = len(active) - 1 if active else 0
    if len(active) < lines + 1:
        active.extend(bytes(lines + 1 - len(active)))
    if st["activeLeaf"] == st["leafLine"] and st["activeLines"]:
        st["activeLines"] = lines
        return
    up, where = link_nodes(st), st["nodeLine"]
    known = bool(st["activeLines"])
    node, marked, joined = (_leaf_node(st) if st["leaf"] else -1), [], 0
    while node >= 0:
        n = where[node]
        if known and n <= old_lines and active[n]:
            joined = n
            break
        marked.append(n)
        node = up[node] - 1
    if known:
        active[joined + 1 : old_lines + 1] = bytes(old_lines - joined)  # the old branch past the fork
    for n in marked:
        active[n] = 1
    st["activeLeaf"], st["activeLines"] = st["leafLine"], lines


class _Relink:
    """How boundary ``b`` relinks the rows it kept (Claude Code 2.1.332's loader, docs/claude-intake.md).

    Its preserved rows P (``preservedMessages.uuids``, else the parentUuid walk from ``preservedSegment``'s tail
    back to its head), each the last row with its uuid before the boundary, hang under the anchor A (the
    summary): P[0] under A, P[i] under P[i-1]; every other row whose parent is A hangs under P[-1], and so does a
    user or assistant row whose parent was dropped (a row before the boundary, or never written). Everything it
    finds is fixed once the anchor row is written: an append never changes it.
    """

    def __init__(self, st: ClaudeFoldState, b: int, up: array[int]) -> None:
        keys, where = st["nodeKey"], st["nodeLine"]
        b_line, _trigger, _key, anchor, kept, segment, _summary = st["boundaries"][b]
        self.anchor = anchor
        ib = bisect_left(where, b_line)
        self.ib = ib if ib < len(where) and where[ib] == b_line else -1  # -1: the boundary row is not a node
        self.before: dict[int, int] = {}  # preserved key -> its node (the last with that key before the boundary)
        if self.ib >= 0 and kept is None:  # the segment: from its tail up to its head, each the parent of the next
            head, tail = segment if segment else (0, 0)
            kept = []
            node = parent_node(keys, tail, self.ib)
            while node >= 0:
                kept.append(keys[node])
                if keys[node] == head:
                    break
                node = parent_node(keys, st["nodeParent"][node], node)
            kept.reverse()
        for k in kept if self.ib >= 0 else ():
            if k not in self.before:
                node = parent_node(keys, k, self.ib)
                if node >= 0:
                    self.before[k] = node
        self.kept: list[int] = [k for k in kept if k in self.before] if self.ib >= 0 else []  # never written: skipped
        self.position = {k: n for n, k in enumerate(self.kept)}
        self.last = self.kept[-1] if self.kept else 0
        self.anchor_node = self._anchor_node(keys)

    def _anchor_node(self, keys: array[int]) -> int:
        """The anchor's row: the first row with its uuid from the boundary on (-1 until it is written)."""
        if self.ib < 0 or not self.anchor:
            return -1
        for i in range(self.ib, min(len(keys), self.ib + 64)):
            if keys[i] == self.anchor:
                return i
        raw, width = keys.tobytes(), keys.itemsize
        needle = array(keys.typecode, [self.anchor]).tobytes()
        start = (self.ib + 64) * width
        while True:
            found = raw.find(needle, start)
            if found < 0:
                return -1
            if found % width == 0:
                return found // width
            start = found + 1

    def step(self, st: ClaudeFoldState, up: array[int], node: int) -> int:
        """The node the model's walk goes to from ``node`` (-1: the walk ends there)."""
        keys = st["nodeKey"]
        k = keys[node]
        position = self.position
        if k in position:
            n = position[k]
            if n:
                return self.before[self.kept[n - 1]]
            if not self.anchor:
                return -1
            return self.before[self.anchor] if self.anchor in position else self.anchor_node
        p = st["nodeParent"][node]
        if not p:
            return -1
        if self.last and p == self.anchor:
            return self.before[self.last]
        if p in position:
            return self.before[p]
        parent = up[node] - 1
        if parent < self.ib:  # dropped: a row before the boundary that it did not keep, or one never written
            if self.last and st["nodeKind"][node]:
                return self.before[self.last]
            return -1
        return parent


def model_view(st: ClaudeFoldState, b: int = -1) -> tuple[list[int], bool]:
    """The raw lines Claude Code rebuilds the conversation from, leaf first, starting at boundary ``b``; and
    whether the walk reached that boundary.

    Claude Code 2.1.332's loader (docs/claude-intake.md, "After a compaction"): take the last
    ``compact_boundary`` B, relink the rows it kept under its summary (:class:`_Relink`), then walk parentUuid
    from the leaf up to B, whose parent is null. ``logicalParentUuid`` is never followed.
    """
    nodes, reached = _walk(st, b % len(st["boundaries"]))
    where = st["nodeLine"]
    return [where[n] for n in nodes], reached


def _walk(st: ClaudeFoldState, b: int, stop: bytearray | None = None) -> tuple[list[int], bool]:
    """The nodes of the model's walk from the leaf towards boundary ``b``, and whether it reached it. With
    ``stop`` (the view's flags per line), the walk ends at the first row flagged there (also "reached")."""
    up = link_nodes(st)
    relink = _Relink(st, b, up)
    node, ib = _leaf_node(st), relink.ib
    if ib < 0:
        return [], False
    where = st["nodeLine"]
    out: list[int] = []
    seen: set[int] = set()
    while node >= 0 and node not in seen:
        if stop is not None and stop[where[node]]:
            out.append(node)
            return out, True
        seen.add(node)
        out.append(node)
        if node == ib:
            return out, True
        node = relink.step(st, up, node)
    return out, False


def update_view(st: ClaudeFoldState, lines: int) -> None:
    """Mark, per raw line, the rows Claude Code sends the model after the newest compaction boundary.

    Without a boundary the model is sent the active lineage, and ``view`` stays empty. With one, the walk from
    the leaf to the boundary is kept (``viewPath``, boundary first): an append walks only from the new leaf to
    where it meets that path, which it cuts there and extends, so the cost is that of the rows added (or of a
    branch a rewind left), however many boundaries the session has. A new boundary, or a leaf whose walk no
    longer reaches the boundary, is walked in full.
    """
    view: bytearray = st["view"]
    if len(view) < lines + 1:
        view.extend(bytes(lines + 1 - len(view)))
    boundaries = st["boundaries"]
    if not boundaries:
        return
    key = [st["leafLine"], boundaries[-1][0], len(st["nodeKey"])]
    if st["viewKey"] == key:
        return
    newest = len(boundaries) - 1
    if st["viewBoundary"] == newest and st["viewKey"] and st["viewKey"][1] == boundaries[-1][0] and _extend(st, view):
        st["viewKey"] = key
        return
    _rebuild(st, view)
    st["viewKey"] = key


def _extend(st: ClaudeFoldState, view: bytearray) -> bool:
    """Walk from the new leaf to the kept path and graft the walk onto it; False when that cannot be done."""
    if st["viewKey"][0] == st["leafLine"]:
        return True  # the same leaf: rows added elsewhere do not change its walk (no row's step changes)
    nodes, reached = _walk(st, st["viewBoundary"], stop=view)  # type: ignore[arg-type]
    if not reached or not nodes:
        return False
    path: array[int] = st["viewPath"]
    where = st["nodeLine"]
    join = nodes.pop()  # on the path (or the boundary itself)
    at = _last_index(path, join)
    if at < 0:
        return False
    for n in path[at + 1 :]:
        view[where[n]] = 0
    del path[at + 1 :]
    for n in reversed(nodes):
        path.append(n)
        view[where[n]] = 1
    return True


def _last_index(column: array[int], value: int) -> int:
    """Where ``value`` last is in ``column`` (-1: nowhere); the view's path is searched from its leaf end."""
    for i in range(len(column) - 1, max(-1, len(column) - 65), -1):
        if column[i] == value:
            return i
    raw, width = column.tobytes(), column.itemsize
    needle = array(column.typecode, [value]).tobytes()
    end = len(raw)
    while True:
        found = raw.rfind(needle, 0, end)
        if found < 0:
            return -1
        if found % width == 0:
            return found // width
        end = found + width - 1


def _rebuild(st: ClaudeFoldState, view: bytearray) -> None:
    """The view walked in full: the newest boundary the leaf's walk reaches (a rewind to before the newest one, not
    seen with the real binary, falls back to an older one). Whether an older boundary is reached is found from the
    leaf's lineage (:class:`_Lineage` rules most out at once, :class:`_Shortcut` judges the rest), not by walking
    it again for each one: a session whose leaf reaches none of hundreds of boundaries took 13 s on every append."""
    view[:] = bytes(len(view))
    path: array[int] = array(NODE_TYPE)
    st["viewPath"], st["viewBoundary"] = path, None
    boundaries = st["boundaries"]
    where = st["nodeLine"]
    judges: tuple[_Lineage, _Shortcut] | None = None
    for b in range(len(boundaries) - 1, -1, -1):
        if b < len(boundaries) - 1:  # the newest one is usually reached: it is walked, the older ones are judged
            if judges is None:
                _mark_lineage(st, len(view) - 1)
                judges = _Lineage(st, link_nodes(st)), _Shortcut(st)
            lineage, shortcut = judges
            if not lineage.may_reach(boundaries[b]) or not shortcut.reaches(b):
                continue
        lines_, reached = model_view(st, b)
        if reached:
            for line in reversed(lines_):
                path.append(bisect_left(where, line))
                view[line] = 1
            st["viewBoundary"] = b
            return


class _Shortcut:
    """Whether boundary ``b``'s walk reaches it, found without walking the leaf's lineage again for each boundary.

    The model's walk from the leaf is the lineage (the rows ``active`` marks, each the parent of the one before)
    until the first row where ``b`` changes the step (:meth:`_Relink.step`): the last lineage row at or after ``b``
    (its parent is before ``b``, or it has none), a row whose parent is ``b``'s anchor or a row ``b`` kept, or a row
    ``b`` kept; or the walk meets ``b`` on the lineage first. That row is found by a search of the flag and key
    columns (C speed); the walk goes on from it as :func:`model_view` would, the lineage above it counted as seen.
    """

    def __init__(self, st: ClaudeFoldState) -> None:
        self.st, self.up = st, link_nodes(st)
        self.leaf = _leaf_node(st)
        keys = st["nodeKey"]
        self.keys, self.parents = keys.tobytes(), st["nodeParent"].tobytes()
        self.width, self.code = keys.itemsize, keys.typecode

    def _found(self, column: bytes, value: int, start: int) -> list[int]:
        """The nodes from ``start`` on whose ``column`` item is ``value``."""
        needle = array(self.code, [value]).tobytes()
        out: list[int] = []
        at = start * self.width
        while True:
            at = column.find(needle, at)
            if at < 0:
                return out
            if at % self.width == 0:
                out.append(at // self.width)
            at += 1

    def reaches(self, b: int) -> bool:
        st, up, leaf = self.st, self.up, self.leaf
        relink = _Relink(st, b, up)
        ib = relink.ib
        if ib < 0 or leaf < 0:
            return False
        active, where = st["active"], st["nodeLine"]
        if leaf < ib:
            first = leaf
        else:
            line = active.find(1, where[ib])  # the lineage's last row at or after the boundary
            first = bisect_left(where, line) if line >= 0 else leaf
            wanted = [*relink.kept, *([relink.anchor] if relink.last and relink.anchor else [])]
            for key in wanted:  # rows the boundary relinks, on the lineage above that row
                for node in self._found(self.parents, key, first + 1):
                    if node <= leaf and active[where[node]]:
                        first = max(first, node)
            for key in relink.kept:
                for node in self._found(self.keys, key, first + 1):
                    if node <= leaf and active[where[node]]:
                        first = max(first, node)
        node, seen = first, set()
        while node >= 0 and node not in seen:
            if node == ib:
                return True
            if node > first and active[where[node]]:
                return False  # the leaf's own walk came down through here: it loops
            seen.add(node)
            node = relink.step(st, up, node)
        return False


class _Lineage:
    """What the leaf's lineage touches, read from its flags, to rule out at once the boundaries it cannot reach.

    The relinked walk (:class:`_Relink`) steps along the lineage except at a row that a boundary relinks or drops:
    a row or parent the boundary preserved, a parent that is its anchor, or a parent before it (dropped, or relinked
    under the preserved rows) or never written. A boundary is reached only through such a row or by lying on the
    lineage, so a boundary after the lineage's lowest row, on it, or one whose anchor or preserved rows the lineage
    touches may be reached; the others are not. Conservative: whatever it cannot rule out :class:`_Shortcut` judges.
    """

    def __init__(self, st: ClaudeFoldState, up: array[int]) -> None:
        active, where, keys, parents = st["active"], st["nodeLine"], st["nodeKey"], st["nodeParent"]
        if active.count(1) * 8 < len(where):  # a short lineage: walked from the leaf
            self.touched: set[int] = set()
            node = _leaf_node(st)
            while node >= 0:
                self.touched.add(keys[node])
                self.touched.add(parents[node])
                node = up[node] - 1
        else:  # a long one: every node's flag gathered at C speed, its rows' keys picked out
            on = bytes(map(active.__getitem__, where))
            self.touched = set(compress(keys, on))  # the keys of its rows and of their parents
            self.touched.update(compress(parents, on))
        self.touched.discard(0)
        self.active = active
        self.low = active.find(1, 1)  # its lowest line (-1: none)
        lowest = bisect_left(where, self.low) if self.low >= 0 else len(where)
        # the lineage ends at a user or assistant row whose parent was never written
        self.orphan = lowest < len(where) and bool(st["nodeKind"][lowest] and parents[lowest] and not up[lowest])

    def may_reach(self, boundary: list[Any]) -> bool:
        """Whether ``boundary``'s walk could leave the lineage, or meet the boundary's row on it."""
        line, _trigger, _key, anchor, kept, _segment, _summary = boundary
        if kept is None or self.low < 0 or line > self.low or anchor in self.touched:
            return True
        if line < len(self.active) and self.active[line]:
            return True
        if self.orphan and kept:
            return True
        return not self.touched.isdisjoint(kept)
