"""The ``$handoff`` trigger: a human asks Claude Code to hand this session over to Codex."""

from __future__ import annotations

import json
import os
from typing import Any

from autopilot import paths
from autopilot.clock import now_us
from autopilot.fsutil import atomic_write

POINTER = "claude-latest.json"
# What the user types in Codex to pick the session up (the from-claude skill `codex-bridge install codex` adds).
CODEX_LINE = "$from-claude"


def record(data: dict[str, Any]) -> dict[str, Any]:
    """Write the handoff pointer atomically and block the prompt, so no model request is made."""
    transcript = data.get("transcript_path")
    cwd = str(data.get("cwd") or os.getcwd())
    if not isinstance(transcript, str) or not transcript:
        return {
            "decision": "block",
            "reason": "codex-autopilot: Claude Code did not say where this session's transcript is, so no "
            "handoff was recorded (update Claude Code, then type $handoff again).",
        }
    pointer = {"transcript_path": transcript, "cwd": cwd, "session_id": data.get("session_id"), "created_at": now_us()}
    target = paths.handoff_dir() / POINTER
    atomic_write(target, json.dumps(pointer, indent=2, sort_keys=True) + "\n")
    return {
        "decision": "block",
        "reason": f"codex-autopilot: handoff recorded for session {str(data.get('session_id') or '?')[:8]}… "
        f"(pointer: {target}). Now, in Codex in {cwd}, type:  {CODEX_LINE}",
    }
