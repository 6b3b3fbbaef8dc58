"""The shapes of the files codex-autopilot keeps in Codex's home, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:``. A skill's marker is ours (camelCase inside the
records install adds, as the CLI prints them); the ``$handoff`` pointer mirrors the hook input it
records, so its keys are snake_case as both clients' hook input spells them (``transcript_path``,
``session_id``). Codex's own files (config.toml, hooks.json, rollouts, the app server's JSON-RPC)
stay plain JSON dicts: they are another program's, read field by field. The rate limits keep the
snake_case Codex records them with (``status --json`` prints them in the run's half).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired


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


class RolloutLine(TypedDict, total=False):
    """One line of a Codex rollout (``{type, timestamp, payload}``; docs: /work/shared/reference/codex.md)."""

    type: Any  # session_meta | response_item | event_msg | turn_context | compacted | ...
    timestamp: Any
    payload: Any  # a Payload when it is an object
    metadata: Any


class Payload(TypedDict, total=False):
    """A rollout line's payload: the fields the readers look at, across its kinds (values as Codex wrote them).

    Rollouts have no stable schema, so every value is checked where it is read.
    """

    type: Any
    id: Any
    role: Any
    content: Any
    message: Any
    phase: Any
    name: Any
    namespace: Any
    call_id: Any
    arguments: Any
    input: Any
    output: Any
    action: Any
    status: Any
    tools: Any
    item: Any
    kind: Any
    turn_id: Any
    reason: Any
    num_turns: Any
    goal: Any
    changes: Any
    success: Any
    author: Any
    recipient: Any
    revised_prompt: Any
    saved_path: Any
    path: Any
    local_images: Any
    encrypted_content: Any
    internal_chat_message_metadata_passthrough: Any
    model: Any
    replacement_history: Any
    new_thread_id: Any
    agent_thread_id: Any
    agent_path: Any
    new_agent_path: Any
    thread_id: Any
    threadId: Any
    # session_meta
    session_id: Any
    timestamp: Any
    cwd: Any
    originator: Any
    cli_version: Any
    source: Any
    thread_source: Any
    model_provider: Any
    history_mode: Any
    history_base: Any
    git: Any
    forked_from_id: Any
    parent_thread_id: Any
    agent_nickname: Any
    agent_role: Any
    agent_type: Any
    base_instructions: Any
    instructions: Any
    dynamic_tools: Any


# -- the app server's JSON-RPC (camelCase, as Codex spells it) --------------------------------------


class AppThread(TypedDict, total=False):
    """A thread as ``thread/list`` and ``thread/read`` describe it (values as the server sent them)."""

    id: Any
    sessionId: Any
    forkedFromId: Any
    parentThreadId: Any
    cwd: Any
    source: Any
    threadSource: Any
    name: Any
    preview: Any
    createdAt: Any
    updatedAt: Any
    cliVersion: Any
    gitInfo: Any
    model: Any
    path: Any
    status: Any


class AppTurn(TypedDict, total=False):
    """A turn as ``thread/turns/list`` returns it, with its items."""

    id: Any
    status: Any
    items: Any


class AppItem(TypedDict, total=False):
    """One item of a turn (a message, a command run, a file change, a tool call, a search, a plan)."""

    type: Any
    id: Any
    content: Any
    text: Any
    command: Any
    aggregatedOutput: Any
    exitCode: Any
    status: Any
    changes: Any
    server: Any
    tool: Any
    arguments: Any
    query: Any


# -- what install and uninstall answer (``codex-bridge install codex``, ``setup``; camelCase) ----------


class TrustRecorded(TypedDict):
    """A hook's trust as recorded in Codex's config.toml (and the codex binary that confirmed it, if any)."""

    recorded: bool
    hash: str
    checkedWith: str | None


class HookTrust(TypedDict):
    """The $handoff hook's trust after an install."""

    config: str
    key: str
    hash: str
    recorded: bool
    checkedWith: str | None
    status: NotRequired[str]  # trusted | modified | untrusted


class MemoryHookTrust(TypedDict):
    """One of the active memory's hooks: where it sits in hooks.json and its trust."""

    position: list[int]
    key: str
    hash: str
    status: NotRequired[str | None]


class HookPlaced(TypedDict):
    """Where install put the $handoff hook."""

    file: str
    event: str
    command: str
    position: list[int]
    changed: bool
    backup: str | None


class MemoryHooks(TypedDict):
    """The active memory's recorder and its hooks, by event."""

    command: str
    events: dict[str, MemoryHookTrust]


class SkillInstalled(TypedDict):
    """A skill directory and the files install wrote there."""

    path: str
    changed: list[str]


class Installed(TypedDict):
    """``codex-bridge install codex``."""

    agent: str
    action: str
    codexHome: str
    changed: bool
    hook: HookPlaced
    trust: HookTrust
    memory: MemoryHooks
    skills: dict[str, SkillInstalled]
    python: str
    bridge: str | None


class HookRemoved(TypedDict):
    """What uninstall did to hooks.json."""

    file: str
    changed: bool
    backup: str | None


class SkillRemoved(TypedDict):
    """A skill directory, the files uninstall removed and those it left (edited since)."""

    path: str
    removed: list[str]
    kept: list[str]


class Uninstalled(TypedDict):
    """``codex-bridge install codex --uninstall``."""

    agent: str
    action: str
    codexHome: str
    changed: bool
    hook: HookRemoved
    trust: dict[str, str]  # trust key -> what happened to it
    skills: dict[str, SkillRemoved]
