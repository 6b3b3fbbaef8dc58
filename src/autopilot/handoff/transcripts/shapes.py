"""The shapes of the transcript readers' states and answers, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (nothing here runs on a hook's or a search's
path). The fold states are what :mod:`.claude_fold` and :mod:`.codex_fold` keep in the cached index
(JSON values plus ``array`` columns); the intake answers are what ``handoff intake`` prints. A row
read from a transcript stays a plain dict: it is another program's JSON, checked field by field.
Keys are camelCase in what the readers print (they mirror Claude Code's transcript fields); the
Codex fold's own state keeps the snake_case it was first written with (it is saved in the index
cache, and renaming a key would be a fold version bump for nothing a user sees).
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired

    from autopilot.redact.shapes import Redactions


class Judged(TypedDict):
    """What a validation run showed (``transcripts.validation.classify``)."""

    outcome: str  # pass | fail | no-tests | unknown | interrupted
    summary: str | None
    masked: bool


# -- a row of a Claude Code transcript, as Claude Code writes it ------------------------------------


class ClaudeRow(TypedDict, total=False):
    """One row of a Claude Code transcript: the fields the readers look at (docs/claude-intake.md).

    The file is Claude Code's, so every value is as it wrote it (``Any``): each is checked where it is read.
    """

    type: Any  # user | assistant | system | attachment | progress | summary | last-prompt | ...
    uuid: Any
    parentUuid: Any
    logicalParentUuid: Any
    isSidechain: Any
    timestamp: Any
    sessionId: Any
    agentId: Any
    entrypoint: Any
    cwd: Any
    gitBranch: Any
    version: Any
    message: Any  # the API message: role, model, content (a string or blocks)
    isCompactSummary: Any
    isMeta: Any
    isVisibleInTranscriptOnly: Any
    isApiErrorMessage: Any
    origin: Any
    promptSource: Any
    attachment: Any
    subtype: Any
    level: Any
    content: Any
    error: Any
    retryAttempt: Any
    maxRetries: Any
    compactMetadata: Any
    toolUseResult: Any
    sourceToolAssistantUUID: Any
    lastPrompt: Any
    customTitle: Any
    aiTitle: Any
    summary: Any


# -- the Claude Code fold ---------------------------------------------------------------------


class ClaudeOmitted(TypedDict):
    """Rows the Claude fold counts and never shows."""

    hookContext: int
    systemPrompts: int
    telemetry: int
    metaRows: int


class ClaudeOmittedShown(ClaudeOmitted):
    """Everything a Claude intake left out, the fold's counts and the page's."""

    thinkingBlocks: int
    systemReminders: int
    usageBlocks: int


class ClaudeFoldState(TypedDict):
    """What the Claude fold keeps per transcript (line numbers and counts; text is read back by line)."""

    session: dict[str, object]  # sessionId, agentId, entrypoint, cwd, gitBranch, version as the rows said
    first: str | None
    last: str | None
    models: dict[str, int]
    rowTypes: dict[str, int]
    unknownTypes: dict[str, int]
    unknownBlocks: dict[str, int]
    tools: dict[str, int]
    thinking: int
    omitted: ClaudeOmitted
    titleLines: dict[str, int]
    lastPromptLine: int
    lastUserLine: int
    edits: dict[str, list[Any]]  # path -> [tool, line, edits, status]
    pendingEdits: dict[str, str]  # call id -> path
    pending: dict[str, int]  # call id -> line of a call without a result yet
    results: bytearray  # call id -> line of its result (jsonl_index.add_line)
    orphans: dict[str, int]  # call id -> line of a result whose call was never seen
    compacts: list[list[Any]]  # [line, trigger]
    boundary: list[Any] | None  # [uuid key, trigger]
    # [line, trigger, uuid key, anchor key, preserved keys | None, [head, tail] keys | None, summary line]
    boundaries: list[list[Any]]
    modelChanges: list[list[Any]]  # [line, model]
    lastModel: str | None
    leaf: int
    leafLine: int
    sidechainFile: bool | None
    nodeLine: array[int]
    nodeKey: array[int]
    nodeParent: array[int]
    nodeKind: bytearray
    nodeUp: array[int]  # each node's parent node + 1 (0: none)
    active: bytearray
    activeLeaf: int  # the leaf line ``active`` was walked from
    view: bytearray
    entryFlags: bytearray  # per raw line: 1 for an entry
    viewKey: list[int]
    viewBoundary: int | None
    viewPath: array[int]  # the view's walk, boundary first
    activeLines: int


# -- the Codex fold ---------------------------------------------------------------------------


class CodexGit(TypedDict, total=False):
    """A rollout's git facts, camelCased."""

    commitHash: str
    branch: str
    repositoryUrl: str


class CodexHistoryBase(TypedDict):
    """Where a paginated thread's history continues from."""

    threadId: Any
    endOrdinalExclusive: Any


class CodexMeta(TypedDict, total=False):
    """The whitelisted ``session_meta`` fields of a rollout, camelCased (values as the file wrote them)."""

    id: str
    sessionId: str
    timestamp: str
    cwd: str
    originator: str
    cliVersion: str
    source: str
    threadSource: str
    modelProvider: str
    historyMode: str
    git: CodexGit
    forkedFromId: str
    parentThreadId: str
    agentPath: str
    agentNickname: str
    agentRole: str
    subagentDepth: int
    isSubagent: bool
    historyBase: CodexHistoryBase
    model: str | None  # added by the intake: the newest turn_context's model


class CodexFork(TypedDict, total=False):
    """How a forked rollout replays its parent's history."""

    forked_from_id: Any
    replaying: bool
    replay_from: int
    replay_to: int
    parent_meta_id: Any


class CodexTurn(TypedDict, total=False):
    """The current turn's completion state."""

    state: str  # none | running | complete | aborted | rolled_back
    line: int
    turn_id: Any
    reason: Any


class CodexSubagent(TypedDict):
    """A thread this one spawned."""

    line: int
    agentPath: NotRequired[str]
    status: NotRequired[str]
    lastLine: NotRequired[int]


class CodexFoldState(TypedDict):
    """What the Codex fold keeps per rollout (line numbers and counts; text is read back by line)."""

    meta: CodexMeta | None
    meta_line: int | None
    fork: CodexFork | None
    model: str | None
    first_ts: str | None
    last_ts: str | None
    turn: CodexTurn
    turns: int
    pending: dict[str, list[int]]  # message key -> how many of its copies each representation (REP_*) was seen for
    calls: dict[str, int]  # call id -> line of a call without a result yet
    patches: list[int]  # lines of the apply_patch calls whose output has not yet settled their paths
    results: bytearray  # call id -> line of its result (jsonl_index.add_line; negative: too large to show)
    user_turns: array[int]
    rolled_back: list[list[int]]  # [first line, rollback line]
    edited: dict[str, list[Any]]  # path -> [change, line, status]
    subagents: dict[str, CodexSubagent]
    images: dict[str, str]  # call id -> saved path
    goal_line: int | None
    checkpoint_line: int | None
    last_user_line: int | None
    compactions: int
    compaction_events: int
    compaction_lines: list[int]
    retained: list[str]
    modelChanges: list[list[Any]]  # [line, model]
    replayed: int
    omitted: dict[str, int]
    unknown: dict[str, dict[str, int]]
    entries_by_kind: dict[str, int]
    tools: dict[str, int]
    models: list[str]


# -- what both intakes print ------------------------------------------------------------------


class Checkpoint(TypedDict, total=False):
    """The summary the model was sent after the newest compaction."""

    line: int
    trigger: Any
    timestamp: Any
    chars: int
    truncated: bool
    text: str


class IntakeResult(TypedDict):
    """A tool call's result, as an intake entry shows it."""

    line: int
    text: str
    isError: NotRequired[bool | None]
    exitCode: NotRequired[int | None]


# -- the Claude intake ------------------------------------------------------------------------


class ClaudeSession(TypedDict, total=False):
    """Who and where a Claude Code session is."""

    sessionId: Any
    agentId: Any
    isSidechain: bool
    cwd: Any
    gitBranch: Any
    claudeVersion: Any
    entrypoint: Any
    parentTranscript: str | None


class ClaudeBlock(TypedDict, total=False):
    """One block of an entry's content: text, a tool call with its result, an image, a lone result."""

    type: str
    text: str
    id: str
    name: str
    input: dict[str, object]
    result: IntakeResult | None
    mediaType: str
    toolUseId: str
    isError: bool


class ClaudeEntry(TypedDict):
    """One meaningful row of a Claude Code transcript."""

    line: int
    role: Any  # the row's type: user | assistant | system | attachment
    branch: str  # active | compacted | non-lineage
    timestamp: NotRequired[Any]
    content: NotRequired[list[ClaudeBlock]]
    oversize: NotRequired[bool]
    sidechain: NotRequired[bool]
    apiError: NotRequired[bool]
    origin: NotRequired[str]
    via: NotRequired[str]
    subtype: NotRequired[str]
    level: NotRequired[str]
    text: NotRequired[str]
    status: NotRequired[int]
    retryAttempt: NotRequired[int]
    maxRetries: NotRequired[int]


class ClaudeEdit(TypedDict):
    """A file a Claude Code session edited."""

    path: str
    tool: str
    line: int
    edits: int
    status: str  # pending | ok | error


class ClaudeSubagent(TypedDict):
    """A subagent transcript of a Claude Code session."""

    path: str
    agentId: str
    agentType: str | None
    description: str | None
    bytes: int


class ClaudeCounts(TypedDict):
    """How much a Claude Code transcript holds."""

    lines: int
    rows: int
    rowTypes: dict[str, int]
    toolCalls: dict[str, int]
    entries: int
    malformedLines: int
    omittedThinking: int


class ClaudeBranches(TypedDict):
    """Where the transcript's entries stand against the active lineage and the newest compaction."""

    leafLine: int | None
    nonLineageEntries: int
    compactedEntries: int
    compactionLine: int | None


class ClaudeDiagnostics(TypedDict):
    """What a Claude intake could not read or chose not to show."""

    malformedLines: dict[str, int]
    malformedSample: list[int]
    oversizeLines: list[int]
    unknownRowTypes: dict[str, int]
    unknownBlockTypes: dict[str, int]
    omitted: ClaudeOmittedShown
    index: str
    scannedBytes: int


class ClaudeIntake(TypedDict):
    """``handoff intake`` of a Claude Code transcript: the session and one newest-first page."""

    trust: str
    format: str
    transcript: str
    session: ClaudeSession
    title: str | None
    firstTimestamp: str | None
    lastTimestamp: str | None
    models: list[str]
    counts: ClaudeCounts
    checkpoint: Checkpoint | None
    lastPrompt: str | None
    editedFiles: list[ClaudeEdit]
    editedFilesTotal: int
    subagents: list[ClaudeSubagent]
    beforeLine: int | None
    limit: int
    nextBeforeLine: int | None
    entries: list[ClaudeEntry]
    branches: NotRequired[ClaudeBranches]
    diagnostics: NotRequired[ClaudeDiagnostics]
    redactions: NotRequired[Redactions]


class RawFacts(TypedDict):
    """``handoff raw inspect``: file-level facts of a Claude Code transcript."""

    trust: str
    transcript: str
    bytes: int
    lines: int
    partialLastLine: bool
    rows: int
    rowTypes: dict[str, int]
    unknownRowTypes: dict[str, int]
    unknownBlockTypes: dict[str, int]
    malformedLines: dict[str, int]
    malformedSample: list[int]
    oversizeLines: list[int]
    entries: int
    nonLineageEntries: int
    leafLine: int | None
    compactSummaryLines: list[int]
    index: str


class RawRow(TypedDict):
    """One row as ``handoff raw read`` shows it: parsed and masked, or only what it is."""

    line: int
    bytes: int
    parsed: NotRequired[bool]
    reason: NotRequired[str]  # why it was not parsed: oversize | malformed
    rowType: NotRequired[str | None]
    entry: NotRequired[bool]
    active: NotRequired[bool]
    row: NotRequired[dict[str, Any]]  # the transcript's own row, private parts masked


class RawRows(TypedDict):
    """``handoff raw read``: rows as parsed, redacted, with private parts masked."""

    trust: str
    transcript: str
    rows: list[RawRow]
    redactions: Redactions


# -- the Codex intake -------------------------------------------------------------------------


class CodexEntry(TypedDict):
    """One meaningful line of a Codex rollout (the fields after ``kind`` depend on it)."""

    line: int
    kind: NotRequired[str]  # user | assistant | tool_call | tool_result | web_search | ... | unreadable
    timestamp: NotRequired[str]
    text: NotRequired[str]
    images: NotRequired[list[str]]
    phase: NotRequired[str]
    name: NotRequired[str]
    callId: NotRequired[Any]
    input: NotRequired[str]
    status: NotRequired[Any]
    note: NotRequired[str]
    result: NotRequired[IntakeResult]
    exitCode: NotRequired[int]
    action: NotRequired[str]
    query: NotRequired[str]
    url: NotRequired[str]
    pattern: NotRequired[str]
    revisedPrompt: NotRequired[str]
    savedPath: NotRequired[str]
    author: NotRequired[Any]
    recipient: NotRequired[Any]
    omittedParts: NotRequired[int]
    reason: NotRequired[Any]
    numTurns: NotRequired[Any]
    objective: NotRequired[str]
    turnId: NotRequired[str]
    rolledBack: NotRequired[bool]
    compacted: NotRequired[bool]


class CodexGoal(TypedDict):
    """The thread's goal as last set."""

    line: int
    objective: str
    status: Any


class CodexReplay(TypedDict):
    """The parent's history a fork copied in."""

    fromLine: int
    toLine: int | None
    lines: int
    stillReplaying: bool
    note: str


class CodexForkInfo(TypedDict):
    """Where a forked thread came from."""

    forkedFromId: Any
    historyBase: Any
    replayed: NotRequired[CodexReplay]
    parentRollout: NotRequired[str | None]


class CodexTurnInfo(TypedDict):
    """The current turn's state, as the intake prints it."""

    state: str | None
    line: int | None
    turnId: Any
    reason: Any


class CodexCounts(TypedDict):
    """How much a rollout holds."""

    lines: int
    entries: int
    turns: int
    entryKinds: dict[str, int]
    toolCalls: dict[str, int]
    malformedLines: int
    compactions: int


class CodexEdit(TypedDict):
    """A file a Codex thread changed."""

    path: str
    change: str
    status: str
    line: int


class CodexSubagentInfo(TypedDict):
    """A thread this one spawned, and its rollout when found."""

    threadId: str
    line: int
    agentPath: NotRequired[str]
    status: NotRequired[str]
    lastLine: NotRequired[int]
    path: str | None


class CodexUnfinished(TypedDict):
    """A tool call with no result recorded."""

    callId: str
    name: str
    line: int


class CodexDiagnostics(TypedDict):
    """What a Codex intake could not read or chose not to show."""

    malformedLines: dict[str, int]
    malformedSample: list[int]
    oversizeLines: list[int]
    partialLastLine: bool
    unknownTypes: dict[str, dict[str, int]]
    omitted: dict[str, int]
    replayedLines: int
    index: str
    scannedBytes: int
    warning: NotRequired[str]


class CodexSummary(TypedDict):
    """Everything in a Codex intake but the page."""

    session: CodexMeta
    firstTimestamp: str | None
    lastTimestamp: str | None
    models: list[str]
    turn: CodexTurnInfo
    fork: CodexForkInfo | None
    counts: CodexCounts
    goal: CodexGoal | None
    checkpoint: Checkpoint | None
    lastPrompt: str | None
    editedFiles: list[CodexEdit]
    editedFilesTotal: int
    subagents: list[CodexSubagentInfo]
    unfinishedCalls: list[CodexUnfinished]


class CodexPage(CodexSummary):
    """A Codex intake before its last redaction pass: the thread and one newest-first page."""

    trust: str
    format: str
    transcript: str
    beforeLine: int | None
    limit: int
    maxChars: int | None
    nextBeforeLine: int | None
    entries: list[CodexEntry]
    diagnostics: CodexDiagnostics


class CodexIntake(CodexPage):
    """``handoff intake`` of a Codex rollout: the thread, one newest-first page, what was redacted."""

    redactions: Redactions
