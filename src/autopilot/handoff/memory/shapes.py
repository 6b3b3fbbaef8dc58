"""The shapes of the active memory's state and answers, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (the memory recorder is on every hook's path).
:class:`Active` is what the reducer makes of a session's logs (``active.json``, ``handoff active``).
The logs' own records (observations, checkpoints, injections) are read leniently, a line at a time,
and stay plain JSON dicts checked field by field. Keys are camelCase, as ``handoff active`` prints them;
a checkpoint's body keeps the snake_case of the schema agents write it in (``next_action``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from autopilot.handoff.transcripts.shapes import Judged
from autopilot.redact.shapes import Redactions

if TYPE_CHECKING:
    from typing import NotRequired


class FedRef(TypedDict, total=False):
    """Where a fed document is in the session's store: its log and index (and, for an observation, how it came)."""

    log: str
    index: int
    via: Any
    source: Any
    sha256: Any
    claim: bool


class Fed(TypedDict):
    """A checkpoint or observation as a document for the evidence index (``memory.feed``)."""

    session: str
    agent: str
    worktree: str
    branch: str | None
    kind: str  # memory.checkpoint, memory.<observation kind>
    time: Any
    text: str
    outcome: str | None
    ref: FedRef
    task: dict[str, Any] | None  # the autopilot task the session was on then ({"id", "title"}), if a run owned it
    symbols: NotRequired[list[str]]  # an edit's: the names it changed (memory.names)


class StatedNext(TypedDict):
    """The next steps the agent stated at a turn's end (Stop's last message): its claim, one step a line."""

    steps: list[str]
    source: str  # stated
    at: Any


class Stated(TypedDict):
    """What the session is about or must do next, and where that came from (a checkpoint, a request, a run)."""

    text: Any
    source: str  # checkpoint | first-request | observed | stated
    at: Any
    via: NotRequired[Any]
    checkpointSaid: NotRequired[Any]  # what the checkpoint said next, when a failing run overrides it
    writer: NotRequired[str]  # who wrote the checkpoint, when not the agent (person, autopilot, packet-import)
    packet: NotRequired[str]  # the packet a packet-import checkpoint came from
    carriedFrom: NotRequired[str]  # the session a /clear replaced, whose request this is


class Constraint(TypedDict):
    """A rule the work must keep."""

    text: str
    source: str


class Item(TypedDict):
    """An unresolved or completed item: its text, since when, and whether the newest checkpoint repeats it."""

    text: Any
    since: Any
    source: NotRequired[str]  # checkpoint | observed
    restated: NotRequired[bool]


class Run(Judged):
    """The newest run of a validating command, judged, with the outcome it superseded."""

    command: str
    kind: str | None  # test | build | lint ...
    exit: int | None
    at: Any
    via: Any
    runs: int
    previous: str | None


class Edited(TypedDict):
    """A file edit as the hooks or the transcript showed it."""

    path: Any
    tool: Any
    result: Any
    at: Any
    via: NotRequired[Any]


class Edits(TypedDict):
    """How many edits, of how many files, how many failed; the newest."""

    total: int
    files: int
    failed: int
    recent: list[Edited]


class Request(TypedDict):
    """The newest request the person typed."""

    text: Any
    at: Any


class CurrentWork(TypedDict):
    """The newest request, and the files edited since the newest checkpoint."""

    request: Request | None
    editedSinceCheckpoint: list[Edited]


class Compaction(TypedDict):
    """A compaction that happened, once."""

    at: str
    trigger: Any
    via: Any
    instructions: NotRequired[Any]


class Boundary(TypedDict):
    """A session's start or end."""

    at: Any
    event: Any
    source: Any
    reason: Any


ModelChange = TypedDict("ModelChange", {"at": Any, "from": str, "to": str, "via": Any})  # `from`: a keyword


class CheckpointFacts(TypedDict):
    """The newest stored checkpoint that counts (or the newest automatic one): when, its hash, how many."""

    at: Any
    sha256: Any
    source: Any
    count: int
    claim: Any
    inheritedFrom: Any
    writer: str  # who wrote it (handoff/memory/checkpoint.py WRITERS)
    packet: Any  # the packet a packet-import checkpoint came from
    ageSeconds: NotRequired[float | None]  # added when it is shown


class FirstHook(TypedDict):
    """The first observation a hook recorded."""

    at: Any
    event: Any
    source: Any


class ObservationCounts(TypedDict):
    """The observations by how they came (hook, recover) and by kind."""

    total: int
    byVia: dict[str, int]
    byKind: dict[str, int]
    firstHook: FirstHook | None


class Recovery(TypedDict):
    """A note ``handoff recover`` left of what it added from the transcript, as it wrote it."""

    at: Any
    transcript: Any
    added: Any  # observations added, by kind
    gaps: Any  # the transcript's coverage gaps


class Active(TypedDict):
    """One session's active state, reduced from its observation and checkpoint logs (``handoff/memory/reduce.py``)."""

    objective: Stated | None
    constraints: list[Constraint]
    nextAction: Stated | None
    nextSteps: StatedNext | None
    unresolved: list[Item]
    completed: list[Item]
    currentWork: CurrentWork
    validation: list[Run]
    edits: Edits
    compactions: list[Compaction]
    boundaries: list[Boundary]
    model: str | None
    modelChanges: list[ModelChange]
    turns: int
    requests: int
    checkpoint: CheckpointFacts | None
    automaticCheckpoint: CheckpointFacts | None
    recoveries: list[Recovery]
    observations: ObservationCounts
    lastAt: str | None


class Probe(TypedDict, total=False):
    """What a fact is made of, so a compaction's summary can be checked for it: a sentence, a path or a run."""

    kind: str  # sentence | path | run
    text: str
    path: str
    command: str
    outcome: str


class CheckpointBody(TypedDict):
    """A checkpoint as an agent writes it (handoff/memory/checkpoint_schema.json: snake_case, the agents' input)."""

    objective: str
    constraints: NotRequired[list[str]]
    next_action: str
    unresolved: NotRequired[list[str]]
    completed: NotRequired[list[str]]


class GapFields(TypedDict, total=False):
    """What a coverage gap may add to its kind and detail."""

    added: Any  # recovered: the observations added, by kind
    counts: dict[str, int]  # malformed_lines: by log
    commands: list[str]  # exit_codes_unknown


class CoverageGap(GapFields):
    """One reason the active memory's coverage is degraded (a transcript's own gaps come as recover noted them,
    with ``from``: ``transcript``)."""

    kind: str
    detail: str


class Coverage(TypedDict):
    """Complete, or degraded with every reason."""

    status: str  # complete | degraded
    reasons: list[CoverageGap]
    hookObservations: int
    recoveredObservations: int


class HeldBack(TypedDict):
    """A stored checkpoint that does not reach the session, and why."""

    at: Any
    writer: Any
    origin: Any
    sha256: Any
    why: str


class RecentEvidence(TypedDict):
    """The newest validation runs and edits."""

    validation: list[Run]
    edits: list[Edited]
    editsTotal: int


class Injected(TypedDict, total=False):
    """One injection into the session, as the injection log recorded it."""

    at: Any
    session: Any
    event: Any
    reset: Any
    fields: Any  # the fields that changed
    items: Any
    omitted: Any
    bytes: Any
    sourceHash: Any


class CompactionReport(TypedDict, total=False):
    """What one compaction dropped and what was restored, as the injection log recorded it."""

    at: Any
    compaction: Any
    dropped: Any
    restored: Any
    bytes: Any
    line: Any


class Injections(TypedDict):
    """What was injected into the session: how many times, and the newest."""

    total: int
    shown: list[Injected]


class ActiveView(TypedDict):
    """``handoff active``: one session's active state, its coverage and what was injected (redacted)."""

    trust: str
    agent: str
    session: str
    worktree: str
    store: str
    transcript: str | None
    objective: Stated | None
    constraints: list[Constraint]
    currentWork: CurrentWork
    nextAction: Stated | None
    nextSteps: StatedNext | None
    unresolved: list[Item]
    completed: list[Item]
    recentEvidence: RecentEvidence
    checkpoint: CheckpointFacts | None
    automaticCheckpoint: CheckpointFacts | None
    notInjected: list[HeldBack]
    compactions: list[Compaction]
    compactionReports: list[CompactionReport]
    model: str | None
    modelChanges: list[ModelChange]
    turns: int
    requests: int
    lastObservedAt: str | None
    coverage: Coverage
    injections: Injections
    redactions: NotRequired[Redactions]


class LimitWindow(TypedDict):
    """One plan window as ``handoff/limits.json`` keeps it (handoff/memory/limits.py): percent used, and when it resets
    (unix seconds; None: not said)."""

    used: float
    resetsAt: int | None


class SeenLimits(TypedDict):
    """One agent's windows by name (``5-hour``, ``weekly``) and when they were read (unix seconds)."""

    windows: dict[str, LimitWindow]
    at: float


class Limits(TypedDict, total=False):
    """``handoff/limits.json``: each agent's windows as last seen. Written by this bridge alone, but read
    leniently (:func:`autopilot.handoff.memory.limits.near` checks each value)."""

    claude: SeenLimits
    codex: SeenLimits
