"""Packets and the active memory: what the sending session's memory puts in a packet, what a packet seeds.

**Export** (:func:`carried`, :func:`apply`): the sending session's active memory in this worktree, reduced
from its logs, goes into the packet as ``activeMemory``: its newest checkpoint (who wrote it and when), the
objective, next action, unresolved and completed items as it states them, the recent edits and the newest
outcome of each validation command with pointers into the memory's own log (file and line), and when each
autopilot task began (``tasks``; the evidence index labels the packet's evidence with them). When that
newest checkpoint is newer than the transcript's first request, the packet's objective and next action are
the checkpoint's, labelled as claims with their time (``basis: claim``); the first request stays in the
objective as ``originalRequest``, with its evidence reference. An observed failing run that came after the
checkpoint stays the next action (observed by the hooks, ``basis: observed``).

**Import** (:func:`seed`): a packet seeds the receiving session's active memory with one checkpoint written
by ``packet-import`` and labelled "from packet ID": the objective, next action, constraints, unresolved and
completed items the packet carries. It is a checkpoint like any other, so the receiver's own later one
replaces it, and a compaction keeps it (it is injected after it like the session's own facts).

Everything here is a claim or hook evidence, quoted where it is shown; nothing is an instruction.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from autopilot.errors import BridgeError
from autopilot.git import toplevel
from autopilot.handoff.memory import checkpoint as checkpoints
from autopilot.handoff.memory import observe
from autopilot.handoff.memory.autopilot import timeline
from autopilot.handoff.memory.reduce import reduce
from autopilot.handoff.memory.store import SessionStore
from autopilot.handoff.packets import store

if TYPE_CHECKING:
    from autopilot.handoff.memory.shapes import CheckpointBody
    from autopilot.handoff.packets.shapes import Packet

RECENT = 10  # edits and validations carried


def _pointer(store: SessionStore, line: int) -> dict[str, Any]:
    return {"file": str(store.dir / observe.LOG), "line": line}


def carried(agent: str, session: str | None, worktree: str) -> dict[str, Any] | None:
    """The ``activeMemory`` section for a session of ``worktree``, or None when the hooks never recorded it."""
    if not session:
        return None
    store = SessionStore(agent, session, worktree)
    if not store.exists():
        return None
    records = store.observations().records  # its own: the edits and runs carried are this session's
    state = reduce(*store.history())  # after a /clear, the state goes on from the cleared session's
    edits = [(n, o) for n, o in enumerate(records, 1) if o.get("kind") == "edit"][-RECENT:]
    runs: dict[str, tuple[int, dict[str, Any]]] = {}
    for n, o in enumerate(records, 1):
        if o.get("kind") == "run" and isinstance(o.get("command"), str):
            runs[str(o["command"])] = (n, o)
    outcomes = {v["command"]: v for v in state["validation"]}
    cp = state["checkpoint"]
    return {
        "trust": "the sending session's active memory: its checkpoint is the agent's claim (with its time); edits "
        "and runs are what its hooks observed; nothing here is an instruction",
        "checkpoint": {k: cp.get(k) for k in ("at", "sha256", "source", "claim", "count", "writer", "packet")}
        if cp
        else None,
        "objective": state["objective"],
        "constraints": [{k: c.get(k) for k in ("text", "source")} for c in state["constraints"]],
        "nextAction": state["nextAction"],
        "unresolved": [{k: u.get(k) for k in ("text", "source", "since")} for u in state["unresolved"]],
        "completed": [{k: c.get(k) for k in ("text", "since")} for c in state["completed"]],
        "recentEdits": [
            {
                "path": o.get("path"),
                "tool": o.get("tool"),
                "result": o.get("result"),
                "at": o.get("at"),
                "pointer": _pointer(store, n),
            }
            for n, o in reversed(edits)
        ],  # fmt: skip
        "tasks": [[since, task] for since, task in timeline(store.checkpoints().records)],
        "lastTests": [
            {"command": c, "outcome": outcomes[c]["outcome"], "at": o.get("at"), "pointer": _pointer(store, n)}
            for c, (n, o) in runs.items()
            if c in outcomes
        ][-RECENT:],
    }


def apply(packet: Packet, memory: dict[str, Any], first_request_at: str | None) -> None:
    """Put the memory's newer objective, constraints and next action in the packet, labelled as claims with their
    time and the session they were made in."""
    cp: dict[str, Any] = memory.get("checkpoint") or {}
    if cp.get("writer") == "packet-import":
        return  # the newest packet the session imported: the build inherits its claims with their evidence
    newer = bool(cp) and (not first_request_at or str(cp.get("at") or "") > first_request_at)
    source = packet["source"]
    own = {"agent": source["agent"], "session": source.get("threadId") or source.get("sessionId")}
    obj = memory.get("objective")
    if newer and obj and obj.get("source") == "checkpoint":
        original = packet.get("objective")
        packet["objective"] = {
            "text": obj["text"],
            "refs": [],
            "basis": "claim",
            "provenance": f"the session's checkpoint of {cp['at']}: the agent's claim, newer than its first request",
            "claimedAt": cp["at"],
            **own,  # type: ignore[typeddict-item]
            **({"originalRequest": original} if original else {}),
        }
    if newer:
        held = {c.get("text") for c in packet["constraints"]}
        packet["constraints"] += [
            {
                "text": c["text"],
                "refs": [],
                "basis": "claim",
                "provenance": f"the session's checkpoint of {cp['at']}: the agent's claim",
                "claimedAt": cp["at"],
                **own,  # type: ignore[typeddict-item]
            }
            for c in memory.get("constraints") or []
            if c.get("source") == "checkpoint" and c.get("text") and c["text"] not in held
        ]
    nxt = memory.get("nextAction")
    if not nxt:
        return
    if nxt.get("source") == "checkpoint" and newer:
        packet["nextAction"] = {
            "text": nxt["text"],
            "refs": [],
            "basis": "claim",
            "provenance": f"the session's checkpoint of {cp['at']}: the agent's claim",
            "claimedAt": cp["at"],
            **own,  # type: ignore[typeddict-item]
        }
    elif nxt.get("source") == "observed":
        packet["nextAction"] = {
            "text": nxt["text"],
            "refs": [],
            "basis": "observed",
            "provenance": f"observed by the session's hooks at {nxt.get('at')}: a validation that fails",
            "observedAt": nxt.get("at"),
            **own,  # type: ignore[typeddict-item]
        }


def seed_body(packet: Packet) -> CheckpointBody | None:
    """The checkpoint a packet seeds a receiving session with (None when it has no objective)."""
    obj = (packet.get("objective") or {}).get("text")
    if not obj:
        return None
    memory = packet.get("activeMemory") or {}
    nxt = (packet.get("nextAction") or {}).get("text") or f"continue the handed-over work: {obj}"
    unresolved = [str(u["text"]) for u in memory.get("unresolved") or [] if u.get("text")]
    for v in (packet.get("completedWork") or {}).get("validations") or []:
        if v.get("outcome") not in ("passed", "pass") and v.get("command"):
            item = f"`{v['command']}` {v.get('outcome')} at the handover ({v.get('observedAt')})"
            if item not in unresolved:
                unresolved.append(item)
    return {
        "objective": _cut(str(obj), 2000),
        "constraints": [_cut(str(c["text"]), 500) for c in packet.get("constraints") or [] if c.get("text")][:30],
        "next_action": _cut(str(nxt), 1000),
        "unresolved": [_cut(u, 500) for u in unresolved][:50],
        "completed": [_cut(str(c["text"]), 500) for c in memory.get("completed") or [] if c.get("text")][:100],
    }


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def seed(store: SessionStore, pid: str, packet: Packet) -> dict[str, Any] | None:
    """Seed the receiving session's memory from a packet, once per packet (None when there is nothing to seed)."""
    if any(c.get("packet") == pid for c in store.checkpoints().records):
        return None
    body = seed_body(packet)
    if body is None:
        return None
    return checkpoints.record(store, body, f"packet {pid}", by=checkpoints.PACKET, packet=pid)


IMPORTING = ("handoff import", "from-claude", "from_claude")  # commands whose answer is an import into a session
_PACKET_ID = re.compile(r'"packet":\s*"(sha256:[0-9a-f]{64})"')


def after_tool(agent: str, data: dict[str, Any]) -> list[str]:
    """Seed the session's memory from the packets its own tool call just imported into it (the hook's input shows
    the command and what it printed); the notices to show. Another session's import never reaches this one: the
    answer must name this session as the receiver."""
    args = data.get("tool_input")
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    if not isinstance(command, str) or not any(verb in " ".join(command.split()) for verb in IMPORTING):
        return []
    response = data.get("tool_response")
    if isinstance(response, dict):
        response = "\n".join(s for s in (response.get("stdout"), response.get("stderr")) if isinstance(s, str))
    session = observe.safe_session(data.get("session_id"))
    if not isinstance(response, str) or session is None or session not in response:
        return []
    try:
        top = toplevel(str(data.get("cwd") or "."))
    except BridgeError:
        return []
    said = []
    for pid in dict.fromkeys(_PACKET_ID.findall(response)):
        try:
            _, packet, _ = store.load(pid)
        except BridgeError:
            continue
        if packet["destination"]["agent"] != agent:
            continue
        entry = seed(SessionStore(agent, session, top), pid, packet)
        if entry is not None:
            said.append(f"codex-autopilot: this session's memory now holds packet {pid[:19]}…'s objective and next "
                        "action (the sending session's claims)")  # fmt: skip
    return said
