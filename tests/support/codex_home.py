"""Build Codex home contents for tests: rollouts from real first lines, the $handoff pointer, hooks.json."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from autopilot import paths
from tests.support.repo import FIXTURES as _FIXTURES

FIXTURES = _FIXTURES / "codex"
# Real session_meta lines written by codex 0.171: a root exec session, a spawned subagent, a user fork.
META_SOURCES = {"root": "exec_plain", "child": "subagent_child", "fork": "exec_fork"}


def meta_line(kind: str, thread_id: str, cwd: str | os.PathLike[str]) -> dict:
    """A real session_meta line of ``kind`` re-addressed to ``thread_id`` in ``cwd``."""
    with open(FIXTURES / f"{META_SOURCES[kind]}.jsonl", encoding="utf-8") as fh:
        line = json.loads(fh.readline())
    payload = line["payload"]
    payload["id"] = thread_id
    if kind != "child":
        payload["session_id"] = thread_id
    payload["cwd"] = str(cwd)
    payload["runtime_workspace_roots"] = [str(cwd)]
    return line


def thread(n: int) -> str:
    """A UUID-shaped thread id, distinct per ``n``."""
    return f"01a22c55-{n:04x}-7000-8000-{n:012x}"


def rollout(
    thread_id: str,
    cwd: str | os.PathLike[str] | None = None,
    *,
    kind: str = "root",
    age: float = 0.0,
    archived: bool = False,
    body: str | None = None,
) -> Path:
    """Write a rollout under $CODEX_HOME (sessions/ or archived_sessions/), ``age`` seconds old; its path."""
    home = paths.codex_home()
    folder = home / "archived_sessions" if archived else home / "sessions" / "2026" / "11" / "30"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-11-30T11-00-00-{thread_id}.jsonl"
    if body is None:
        first = json.dumps(meta_line(kind, thread_id, cwd or os.getcwd()))
        turn = {"timestamp": "2026-11-30T11:00:01.000Z", "type": "event_msg", "payload": {"type": "task_started"}}
        body = first + "\n" + json.dumps(turn) + "\n"
    path.write_text(body, encoding="utf-8")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def pointer(transcript: str | os.PathLike[str], cwd: str | os.PathLike[str], session_id: str | None = None) -> Path:
    """Write the $handoff pointer as the Codex hook does; its path."""
    target = paths.handoff_dir() / "codex-latest.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(
            {
                "transcript_path": str(transcript),
                "cwd": str(cwd),
                "session_id": session_id,
                "created_at": "2026-11-30T11:00:02.000000Z",
            },
            indent=2,
            sort_keys=True,
        )
        + "\n"
    )
    return target


def hooks_json(doc: object) -> Path:
    """Write $CODEX_HOME/hooks.json; its path."""
    path = paths.codex_home() / "hooks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def load_json(path: Path) -> object:
    """A JSON file's content."""
    return json.loads(path.read_text(encoding="utf-8"))


# A token_count event as codex 0.171 wrote it for a response carrying the x-codex-primary/secondary headers
# (resets_at from x-codex-*-reset-at), and the same event from a session without them (an API-key login).
WITH_WINDOWS = {
    "timestamp": "2026-12-01T03:37:31.098Z",
    "type": "event_msg",
    "payload": {
        "type": "token_count",
        "info": {"total_token_usage": {"input_tokens": 1000, "output_tokens": 20}},
        "rate_limits": {
            "limit_id": "codex",
            "limit_name": None,
            "primary": {"used_percent": 42.5, "window_minutes": 300, "resets_at": 1796103449},
            "secondary": {"used_percent": 17.0, "window_minutes": 10080, "resets_at": 1796499849},
            "credits": None,
            "individual_limit": None,
            "spend_control_reached": None,
            "plan_type": None,
            "rate_limit_reached_type": None,
        },
    },
}
WITHOUT_WINDOWS = {
    **WITH_WINDOWS,
    "payload": {**WITH_WINDOWS["payload"], "rate_limits": {"limit_id": "codex", "primary": None, "secondary": None}},
}


def used(percent: float, event: dict = WITH_WINDOWS, *, resets_at: int | None = None) -> dict:
    """``event`` with the 5-hour window at ``percent`` used (and resetting at ``resets_at`` when given)."""
    limits = event["payload"]["rate_limits"]
    primary = {**limits["primary"], "used_percent": percent}
    if resets_at is not None:
        primary["resets_at"] = resets_at
    return {**event, "payload": {**event["payload"], "rate_limits": {**limits, "primary": primary}}}


def limits_rollout(home: Path, day: float, name: str, *events: dict, mtime: float | None = None) -> Path:
    """A rollout in the ``sessions`` day folder of time ``day`` under ``home``, holding ``events`` after a
    session_meta line, written at ``mtime`` (default: ``day``)."""
    folder = home / "sessions" / time.strftime("%Y/%m/%d", time.localtime(day))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-12-01T00-00-00-{name}.jsonl"
    lines = [{"type": "session_meta", "payload": {"id": name}}, *events]
    path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines))
    stamp = mtime if mtime is not None else day
    os.utime(path, (stamp, stamp))
    return path
