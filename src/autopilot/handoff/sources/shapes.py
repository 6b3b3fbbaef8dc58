"""The shapes the session sources answer with, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (``handoff search`` loads the sources package
and must not load ``typing``). One *event* shape serves every source (see the package's docstring);
a listing and a page are what ``handoff list`` and ``handoff read`` print, an observation is what a
packet is built from. Keys are camelCase: they are printed as the CLI's JSON and mirror the
agents' own transcript fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired

    from autopilot.handoff.transcripts.shapes import ClaudeBranches, ClaudeOmittedShown, CodexForkInfo, CodexTurnInfo
    from autopilot.redact.shapes import Redactions


class Pointer(TypedDict, total=False):
    """Where an event is exactly: a line, its byte offset and length (local); thread, turn and item (app server)."""

    line: int
    offset: int
    bytes: int
    threadId: str
    turnId: Any
    itemId: Any


class ToolResult(TypedDict, total=False):
    """A tool call's result."""

    id: str
    text: str
    isError: bool | None
    exitCode: Any
    pointer: Pointer


class Tool(TypedDict, total=False):
    """A tool call: its name, input, the command or paths it names, and its result."""

    name: Any
    callId: Any
    input: Any  # the call's arguments as the agent wrote them (redacted): an object or a string
    command: str
    paths: list[str]
    status: str  # completed | failed | unfinished | orphan | declined
    result: ToolResult


class Event(TypedDict):
    """One event of a session, in the shape every source emits."""

    kind: str
    id: NotRequired[str]
    parent: NotRequired[str | None]
    pointer: NotRequired[Pointer]
    branch: NotRequired[str]  # active | compacted | non-lineage | rolled-back
    timestamp: NotRequired[Any]
    turnId: NotRequired[Any]
    text: NotRequired[str]
    tool: NotRequired[Tool]
    status: NotRequired[Any]
    subtype: NotRequired[Any]
    origin: NotRequired[str]
    via: NotRequired[str]
    attachment: NotRequired[str]


class GapFields(TypedDict, total=False):
    """What a coverage gap may say besides its kind and detail."""

    line: int
    counts: dict[str, int]
    sample: list[int]
    lines: list[int]
    count: int
    omittedEvents: int
    keptFromLine: int
    paths: list[str]
    threads: list[str]
    transcript: Any
    fromLine: int
    toLine: int
    skippedBytes: int
    dropped: dict[str, int]
    packetId: str


class Gap(GapFields):
    """One coverage gap: what is missing from the view, and why."""

    kind: str
    detail: str


class Coverage(TypedDict, total=False):
    """What a read or a listing covers: its gaps and the deliberate omissions."""

    gaps: list[Gap]
    omitted: ClaudeOmittedShown | dict[str, int]
    unknown: Any  # the reader's unknown-type counts (flat for Claude, grouped for Codex)
    lines: int
    index: Any
    projectDirs: int
    skippedProjectDirs: int


class Ancestor(TypedDict):
    """A thread this one came from."""

    threadId: str
    relation: str  # forked-from | spawned-by
    transcript: str | None


class Session(TypedDict, total=False):
    """A session's identity in the sources' common shape (thread, session and fork ids kept apart)."""

    sessionId: Any
    threadId: Any
    forkedFromId: Any
    parentThreadId: Any
    cwd: Any
    gitBranch: Any
    gitCommit: Any
    agentVersion: Any
    source: Any
    threadSource: Any
    model: Any
    isSubagent: Any
    title: Any
    preview: Any
    createdAt: Any
    updatedAt: Any
    firstTimestamp: Any
    lastTimestamp: Any
    models: Any
    ancestry: list[Ancestor]


class SessionRow(TypedDict, total=False):
    """One session of a listing (``handoff list``)."""

    sessionId: Any
    threadId: Any
    forkedFromId: Any
    parentThreadId: Any
    cwd: Any
    gitBranch: Any
    source: Any
    title: Any
    preview: Any
    createdAt: Any
    updatedAt: Any
    agentVersion: Any
    modelProvider: Any  # Codex: the provider the thread was recorded with
    transcript: Any
    status: Any
    archived: bool
    bytes: int
    scope: str
    modified: float  # for sorting only: dropped before the listing is printed
    note: str
    firstTimestamp: Any
    lastTimestamp: Any
    lastPrompt: str | None
    events: int
    hasCheckpoint: bool
    subagents: int
    turn: Any
    malformedLines: dict[str, int]


class Identity(TypedDict):
    """A project's identity as a listing or a packet records it."""

    repoId: str
    worktreeId: str
    root: str
    worktree: str


class DirtyPath(TypedDict):
    """A changed or untracked path, with a hash of its content (never of a secret file)."""

    path: str
    status: str
    contentHash: str | None
    secretFile: NotRequired[bool]


class GitState(TypedDict):
    """Branch, HEAD, dirty paths and one hash over the whole dirty state."""

    branch: str | None
    head: str | None
    dirty: list[DirtyPath]
    diffHash: str


class Hidden(TypedDict):
    """The threads a listing left out, and why: how many, never which."""

    count: int
    why: str


# `from` is a Python keyword: these two are spelt the functional way.
# One agent's sessions of this worktree (``handoff list``), newest first.
Listing = TypedDict(
    "Listing",
    {
        "trust": str,
        "from": str,
        "source": str,
        "root": "NotRequired[str]",
        "project": Identity,
        "sessions": list[SessionRow],
        "otherWorktrees": list[SessionRow],
        "coverage": Coverage,
        "note": str,
        "sourceUsed": "NotRequired[str]",
        "sourceNote": "NotRequired[str]",
        "hidden": "NotRequired[Hidden]",
    },
)

# One page of a session's events, newest first (``handoff read``).
Page = TypedDict(
    "Page",
    {
        "trust": str,
        "from": str,
        "source": str,
        "transcript": "NotRequired[str]",
        "session": Session,
        "beforeLine": "NotRequired[int | None]",
        "cursor": "NotRequired[str | None]",
        "limit": int,
        "nextBeforeLine": "NotRequired[int | None]",
        "nextCursor": "NotRequired[Any]",
        "events": list[Event],
        "coverage": Coverage,
        "redactions": "Redactions | None",
        "sourceUsed": "NotRequired[str]",
        "sourceNote": "NotRequired[str]",
    },
)


class TranscriptHash(TypedDict):
    """The hash of every byte of a transcript a packet was built from."""

    algorithm: str
    ranges: list[list[int]]
    fileBytes: int
    sha256: str


class EventGraph(TypedDict):
    """The event graph's size and one hash over every event."""

    events: int
    edges: int
    sha256: str


class Checkpoint(TypedDict, total=False):
    """A compaction summary as a packet cites it."""

    id: str
    pointer: Pointer
    text: Any
    trigger: Any
    timestamp: Any
    truncated: Any


class Edit(TypedDict, total=False):
    """A file the session edited."""

    path: str
    tool: Any
    status: Any
    id: str
    pointer: Pointer


class Mention(TypedDict, total=False):
    """A prompt or goal a packet may cite."""

    text: Any
    id: str
    status: Any


class Subagent(TypedDict, total=False):
    """A subagent's transcript or thread, pointed to and not read."""

    agentId: str
    threadId: Any
    path: Any
    agentPath: Any
    bytes: int


class AppServerTurn(TypedDict):
    """The newest turn's state as the app server reports it."""

    state: Any
    turnId: Any


class Facts(TypedDict, total=False):
    """What a packet takes from a session beyond its events (each source fills what it knows)."""

    lastPrompt: Mention | None
    goal: Mention | None
    checkpoints: list[Checkpoint]
    edits: list[Edit]
    subagents: list[Subagent]
    branches: ClaudeBranches | None
    turn: CodexTurnInfo | AppServerTurn
    fork: CodexForkInfo | None
    compactions: int


class Observed(Facts):
    """Everything a packet takes from one session, within the coverage limits (``observe``)."""

    agent: str
    kind: str  # local | app-server
    transcript: Any
    session: Session
    hash: TranscriptHash | None
    events: list[Event]
    totalEvents: int | None
    firstObjective: Event | None
    coverage: Coverage
    redactions: NotRequired[Redactions | None]
    graph: EventGraph
