"""The shapes of a handover packet and of what export, inspect and import answer, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (``handoff search`` loads the packet store and
must not load ``typing``). A packet is canonical JSON whose hash is its id: these shapes describe it
as :mod:`.build` writes it and as a verified packet is read back. Keys are camelCase (the packet is
printed and handed to another agent as it is; the redactor's own ``by_kind`` becomes ``byKind`` here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict, final

from autopilot.handoff.sources.shapes import EventGraph, Gap, GitState, Identity, Pointer, TranscriptHash

if TYPE_CHECKING:
    from typing import NotRequired


class Claim(TypedDict, total=False):
    """One claim of a packet: what it says, and its evidence (``refs``) or ``"basis": "inference"``.

    Every claim group shares this shape; each uses the fields that fit it (a validation its command and
    outcome, a changed file its path and git state, a message its role).
    """

    text: str | None
    refs: list[str]
    basis: str  # evidence | inference | claim (a checkpoint's, with claimedAt) | observed (by the hooks)
    claimedAt: str
    originalRequest: Claim
    provenance: str
    selection: str
    inheritedFrom: str
    sessionObjective: Claim | None
    agent: str  # the agent of the session the claim was made from (an inherited claim keeps its own)
    session: str | None  # that session's (or thread's) id
    why: str
    note: str
    kind: str
    source: str
    path: str
    tool: Any
    status: Any
    gitNow: str
    outsideRepo: bool
    command: str
    outcome: str
    outcomeBasis: str
    exitCode: Any
    observedAt: Any
    output: str | None
    freshness: str
    laterEdits: list[str]
    after: list[str]  # an abandoned approach: the failed run it followed
    earlierRuns: int
    input: str
    error: str | None
    role: str
    timestamp: Any
    omitted: str
    trigger: Any
    latest: bool


class CompletedWork(TypedDict):
    """Files the session changed and the validations it ran."""

    filesChanged: list[Claim]
    validations: list[Claim]


class Unresolved(TypedDict):
    """What the session left open."""

    hypotheses: list[Claim]
    failedAttempts: list[Claim]
    abandonedApproaches: NotRequired[list[Claim]]  # approaches given up after a failed run (packets since issue 37)
    blockers: list[Claim]
    pendingCommands: list[Claim]


class EvidenceItem(TypedDict, total=False):
    """One evidence reference: an exact pointer into the source, and (in the index) its excerpt."""

    ref: str
    source: str
    event: str
    kind: str
    timestamp: Any
    pointer: Pointer
    excerpt: str
    transcript: Any  # inherited evidence: the earlier packet's transcript
    packetId: str


class EventRange(TypedDict):
    """Which events of the session the packet covers."""

    first: Any
    last: Any
    events: int
    totalEvents: int | None
    firstTimestamp: Any
    lastTimestamp: Any


class PacketSource(TypedDict):
    """The session a packet was built from."""

    agent: str
    kind: str  # local | app-server
    agentVersion: Any
    sessionId: Any
    threadId: Any
    forkedFromId: Any
    ancestry: list[Any]
    title: Any
    cwd: Any
    transcript: Any
    hash: TranscriptHash | None
    eventGraph: EventGraph | None
    eventRange: EventRange


class Repository(Identity, GitState):
    """The project and its git state when the packet was made."""

    sessionBranch: Any
    branchMismatch: bool


class PacketCoverage(TypedDict):
    """What the packet covers and what it had to leave out."""

    gaps: list[Gap]
    omitted: Any
    unknown: Any
    limits: dict[str, int]


class PacketRedactions(TypedDict):
    """What was redacted or omitted, counted."""

    total: int
    byKind: dict[str, int]
    secretFileResultsOmitted: int
    secretFileContentsOmitted: int
    note: str
    packetPass: NotRequired[int]


class Approval(TypedDict):
    """A packet's approval: always unreviewed (nothing in a transcript can approve anything)."""

    status: str
    automaticImport: bool
    note: str


class Estimates(TypedDict):
    """The packet's size, and how much of the excerpt budget it used."""

    bytes: int
    tokens: int
    method: str
    excerptBudgetTokens: int
    excerptBudgetUsedTokens: int


class EvidenceIndexRef(TypedDict):
    """The hash that binds the evidence index to the packet."""

    sha256: str
    entries: int
    bytes: int


class Predecessor(TypedDict):
    """A packet this session started from."""

    packetId: str
    linkedBy: str  # import-receipt | mention
    verified: bool


class Packet(TypedDict):
    """A handover packet (``handoff export``): claims with evidence, coverage gaps, git state."""

    schema: str
    version: int
    createdAt: str
    trust: str
    source: PacketSource
    destination: dict[str, str]
    repository: Repository
    objective: Claim | None
    constraints: list[Claim]
    nextAction: Claim | None
    completedWork: CompletedWork
    unresolved: Unresolved
    latestMessages: list[Claim]
    compactionSummaries: list[Claim]
    evidence: list[EvidenceItem]
    predecessors: list[Predecessor]
    coverage: PacketCoverage
    redactions: PacketRedactions
    approval: Approval
    estimates: NotRequired[Estimates]
    evidenceIndex: NotRequired[EvidenceIndexRef]
    activeMemory: NotRequired[dict[str, Any]]  # the sending session's active memory (handoff/packets/memory.py)


class EvidenceIndex(TypedDict):
    """A packet's evidence index: every reference with its excerpt, redacted."""

    schema: str
    trust: str
    entries: list[EvidenceItem]


class Link(TypedDict):
    """A packet this session started from, as found: verified (with the packet) or why not."""

    packetId: str
    linkedBy: str
    verified: bool
    reason: NotRequired[str]
    packet: NotRequired[Packet]


# One stored packet in a listing (``problem``: why it fails verification, None when it does not).
# `from` is a Python keyword: the shapes that carry it are spelt the functional way.
class Origin(TypedDict, total=False):
    """Where a packet pulled from the project's git remote came from (``handoff/packets/shared.py``): what the
    teammate's commit said, made printable; ``note`` says that its source bytes are not on this machine."""

    by: str  # the commit's author, "Name <email>" (as the commit says: not a proof of identity)
    machine: str  # the machine the commit names (its Codex-Autopilot-Machine trailer)
    at: str  # the commit's author date
    commit: str  # the commit that brought the packet to the shared ref
    remote: str  # the name of the git remote it was pulled from
    pulledAt: str
    note: str


ListedPacket = TypedDict(
    "ListedPacket",
    {
        "packet": str,
        "createdAt": Any,
        "from": Any,
        "session": Any,
        "to": Any,
        "worktree": Any,
        "branch": Any,
        "objective": Any,
        "problem": "str | None",
        "path": str,
        "shared": Origin,
    },
    total=False,
)


@final  # told apart from Exported by its keys (``"estimates" in answer``)
class Preview(TypedDict):
    """``handoff export --preview``: the packet unwritten, with its would-be id."""

    preview: bool
    written: bool
    packet: str
    contents: Packet
    evidenceEntries: int


# ``handoff export``: where the packet went and what it holds.
Exported = TypedDict(
    "Exported",
    {
        "packet": str,
        "path": str,
        "evidenceIndex": str,
        "from": str,
        "to": str,
        "source": str,
        "session": Any,
        "objective": "Claim | None",
        "nextAction": "Claim | None",
        "gaps": "list[str]",
        "estimates": "Estimates",
        "redactions": PacketRedactions,
        "next": str,
    },
)


class Inspected(TypedDict):
    """``handoff inspect``: a verified packet with its evidence index."""

    packet: str
    path: str
    verified: dict[str, bool]
    importable: bool
    importNote: str | None
    contents: Packet
    evidenceIndex: EvidenceIndex
    shared: NotRequired[Origin]


class Change(TypedDict):
    """A value then and now."""

    then: Any
    now: Any
    changed: bool


class DirtyChanges(TypedDict):
    """Dirty paths added, removed and changed since the packet."""

    added: list[str]
    removed: list[str]
    changed: list[str]


class Drift(TypedDict):
    """What changed in git between the packet and now."""

    branch: Change
    head: Change
    committedPaths: list[str] | None
    dirtyPaths: DirtyChanges
    diffHash: Change
    changedPaths: list[str]
    any: bool
    unknownHistory: bool


class Mark(TypedDict, total=False):
    """Why one claim is stale or unavailable (``index``: its place in its group's list)."""

    index: int
    path: str
    command: str
    refs: list[str]
    sources: list[str]
    reasons: list[str]


class Checks(TypedDict):
    """What an import verified."""

    packetHash: bool
    evidenceIndex: bool
    project: bool
    worktree: bool
    sourceHash: bool | None
    sourceAvailable: bool
    sourceGrewBytes: int
    sourceNote: str | None
    shared: NotRequired[Origin]  # a teammate's packet pulled from the project's git remote


class Receiving(TypedDict):
    """The session a packet is imported into."""

    agent: str
    sessionId: str
    found: bool
    note: NotRequired[str]
    transcript: NotRequired[str]


class Receipt(TypedDict):
    """One import, recorded for the receiving session."""

    packet: str
    to: str
    session: str
    importedAt: str
    worktree: str
    stale: int
    unavailable: int


class Imported(TypedDict):
    """``handoff import``: the checks, the drift, the stale claims and the bounded context."""

    packet: str
    to: str
    receivingSession: Receiving
    verified: Checks
    gitDrift: Drift
    staleClaims: dict[str, list[Mark]]
    unavailableClaims: dict[str, list[Mark]]
    missingSources: list[str]
    receipt: str | None
    context: str
    contextChars: int
    contextTokensEstimate: int
    receiptNote: NotRequired[str]
    memory: NotRequired[dict[str, Any]]  # whether the receiving session's active memory was seeded, and how
