"""Helpers for driving `codex-bridge hook <Event>` in-process, as Claude Code would call it."""

from __future__ import annotations

import json
from typing import Any

SESSION = "11111111-aaaa-4bbb-8ccc-000000000001"
OTHER_SESSION = "22222222-aaaa-4bbb-8ccc-000000000002"


def payload(event: str, cwd: Any, **fields: Any) -> dict[str, Any]:
    """The stdin JSON Claude Code sends for ``event`` (common fields plus ``fields``)."""
    base = {
        "session_id": SESSION,
        "transcript_path": f"/tmp/claude/{SESSION}.jsonl",
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
    }
    return {**base, **fields}


def run_hook(bridge, event: str, cwd: Any, **fields: Any) -> dict[str, Any] | None:
    """Run one hook in-process; returns its JSON answer (None when it printed nothing; ``{"plain": text}`` for a
    line of plain text); it must exit 0."""
    code, out, err = bridge("hook", event, stdin=json.dumps(payload(event, cwd, **fields)))
    assert code == 0, err
    if not out.strip():
        return None
    return json.loads(out) if out.lstrip().startswith("{") else {"plain": out.strip()}


def context_of(answer: dict[str, Any] | None) -> str:
    """The additionalContext of a hook answer ('' when there is none)."""
    return ((answer or {}).get("hookSpecificOutput") or {}).get("additionalContext", "")


def count_state_reads(monkeypatch: Any) -> dict[str, int]:
    """From here on, every read of a run's state.json (``Store._parse``) and every ``Workspace`` built in this process,
    counted: ``{"reads": n, "workspaces": n}`` (a review worker is another process: its reads are its own)."""
    from autopilot.run.state import Store
    from autopilot.run.workspace import Workspace

    counts = {"reads": 0, "workspaces": 0}
    parse, build = Store._parse, Workspace.__init__

    def counting_parse(self: Store) -> Any:
        counts["reads"] += 1
        return parse(self)

    def counting_build(self: Workspace, *args: Any, **kwargs: Any) -> None:
        counts["workspaces"] += 1
        build(self, *args, **kwargs)

    monkeypatch.setattr(Store, "_parse", counting_parse)
    monkeypatch.setattr(Workspace, "__init__", counting_build)
    return counts
