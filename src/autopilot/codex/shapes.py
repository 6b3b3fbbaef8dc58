"""The shapes of the files codex-autopilot keeps in Codex's home, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:``. A skill's marker is ours (camelCase inside the
records install adds, as the CLI prints them); the ``$handoff`` pointer mirrors the hook input it
records, so its keys are snake_case as both clients' hook input spells them (``transcript_path``,
``session_id``). Codex's own files (config.toml, hooks.json, rollouts, the app server's JSON-RPC)
stay plain JSON dicts: they are another program's, read field by field. The rate limits keep the
snake_case Codex records them with (``status --json`` prints them in the run's half).
"""

from __future__ import annotations

from typing import Any, TypedDict


class HookRecord(TypedDict, total=False):
    """The $handoff hook install added to hooks.json."""

    file: str
    commands: list[str]
    createdFile: bool  # hooks.json did not exist before: uninstall removes it when it is empty again


class MemoryRecord(TypedDict, total=False):
    """The active memory's recorder install added to hooks.json, and for which events."""

    commands: list[str]
    events: list[str]


class SkillMarker(TypedDict, total=False):
    """``.codex-autopilot.json`` in a skill directory: whose it is, which version, each file's digest."""

    owner: str
    skill: str
    version: str
    files: dict[str, str]  # path inside the skill -> sha256 of what install wrote
    hook: HookRecord
    memory: MemoryRecord
    trust: list[dict[str, Any]]  # {key, hash} of each hook trust install recorded (read leniently)


class HandoffPointer(TypedDict, total=False):
    """The saved ``$handoff``: which transcript, where, whose session, when (as the hook input said)."""

    transcript_path: str
    cwd: Any
    session_id: Any
    created_at: Any


class Window(TypedDict):
    """One of Codex's rate-limit windows as its rollouts last recorded it."""

    used_percent: float
    left_percent: float  # 100 once the window has reset since the record
    window_minutes: int | None
    resets_at: str | None  # ISO, UTC
    resets_at_unix: int | None
    reset: bool


class RateLimits(TypedDict):
    """The newest rate-limit record of the recent rollouts: where, when, and the two windows."""

    rollout: str
    at: str | None
    limit_id: Any
    limit_name: Any
    plan_type: Any
    primary: Window | None  # the 5-hour window
    secondary: Window | None  # the weekly window
