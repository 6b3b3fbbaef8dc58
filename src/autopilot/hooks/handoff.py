"""The ``$handoff`` trigger: a human asks Claude Code to hand this session over to Codex.

Before the pointer is written, the session's automatic checkpoint is taken (what its hooks observed up to its
last turn, so a handover never loses the last turn's state) and the session is exported as a packet for Codex
(with its active memory: handoff/packets/memory.py); the pointer names the packet, and ``$from-claude`` in Codex
imports it. No model is asked for any of it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from autopilot import paths
from autopilot.clock import now_us
from autopilot.fsutil import atomic_write

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer

POINTER = "claude-latest.json"
# What the user types in Codex to pick the session up (the from-claude skill `codex-bridge install codex` adds).
CODEX_LINE = "$from-claude"


def record(data: dict[str, Any]) -> HookAnswer:
    """Write the handoff pointer atomically and block the prompt, so no model request is made."""
    transcript = data.get("transcript_path")
    cwd = str(data.get("cwd") or os.getcwd())
    if not isinstance(transcript, str) or not transcript:
        return {
            "decision": "block",
            "reason": "codex-autopilot: Claude Code did not say where this session's transcript is, so no "
            "handoff was recorded (update Claude Code, then type $handoff again).",
        }
    session = str(data.get("session_id") or "")
    checkpointed = checkpoint(session, cwd)
    from autopilot.handoff.packets.export import export_quietly

    packet, why = export_quietly("claude", session, "codex", cwd)
    pointer = {"transcript_path": transcript, "cwd": cwd, "session_id": data.get("session_id"), "created_at": now_us()}
    if packet:
        pointer["packet"] = packet
    target = paths.handoff_dir() / POINTER
    atomic_write(target, json.dumps(pointer, indent=2, sort_keys=True) + "\n")
    ready = (
        f" Packet {packet} is ready (preview: codex-bridge handoff inspect {packet})."
        if packet
        else f" No packet was made ({why}); Codex reads the transcript instead."
    )
    return {
        "decision": "block",
        "reason": f"codex-autopilot: handoff recorded for session {session[:8] or '?'}…"
        + (" with a checkpoint of where it stands" if checkpointed else "")
        + f" (pointer: {target}).{ready} Now, in Codex in {cwd}, type:  {CODEX_LINE}",
    }


def checkpoint(session: str, cwd: str) -> bool:
    """Take the sending session's automatic checkpoint (what its hooks observed, up to its last turn)."""
    from autopilot.errors import BridgeError
    from autopilot.handoff.memory.compaction import checkpoint_before
    from autopilot.handoff.memory.store import SessionStore
    from autopilot.loop.state import Store

    try:
        store = SessionStore.here("claude", session, cwd)
    except BridgeError:  # not in a git worktree: no active memory here
        return False
    return store.exists() and checkpoint_before(store, "$handoff", Store.peek_workspace) is not None
