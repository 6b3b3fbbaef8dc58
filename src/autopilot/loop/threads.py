"""The Codex threads the autopilot's own reviewer used: never a user's session to hand over.

The codex-cli backend talks to Codex in ordinary root ``codex exec`` threads, so a scan for the newest Codex
session of a folder would find the reviewer's; ``handoff from-codex`` passes these to
``codex.sessions.latest()`` to be passed over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from autopilot import paths
from autopilot.loop.state import Store


def own_threads() -> set[str]:
    """Every Codex thread codex-autopilot's reviewer used, in any run, now or before: never a user's session.

    A run's current ``conversation_id`` (state.json), every thread the codex-cli backend charged
    (the keys of ``codex-thread-usage.json``) and every codex-cli call's ``conversation_id`` in
    ``events.jsonl``: reviewer threads from earlier plans are ordinary root ``codex exec`` sessions.
    """
    ids: set[str] = set()
    try:
        runs = [run for run in (paths.autopilot_home() / "runs").iterdir() if run.is_dir()]
    except OSError:
        return ids
    for run in runs:
        state = Store.peek(str(run))
        if state is not None and isinstance(state.get("conversation_id"), str):
            ids.add(state["conversation_id"])
        totals = _json(run / "codex-thread-usage.json")
        if isinstance(totals, dict):
            ids.update(key for key in totals if isinstance(key, str))
        ids.update(_event_threads(run / "events.jsonl"))
    return ids


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _event_threads(path: Path) -> set[str]:
    """The conversation ids of codex-cli calls in one run's events.jsonl."""
    ids: set[str] = set()
    try:
        with open(path, "rb") as fh:
            lines = [line for line in fh if b"codex-cli" in line]  # the rest are another backend's
    except OSError:
        return ids
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        thread = event.get("conversation_id") if isinstance(event, dict) else None
        if isinstance(thread, str) and event.get("backend") == "codex-cli":  # a str thread means a dict event
            ids.add(thread)
    return ids
