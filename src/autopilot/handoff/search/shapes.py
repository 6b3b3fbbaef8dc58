"""The shapes of the evidence index's documents and of a search's answer, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (``handoff search`` must not load ``typing``).
A *document* is what the index stores (its searchable columns, and the rest as JSON in ``data``); a
*hit* is a document read back during one search, with its score and the links that brought it; a
*result* is a hit as the answer prints it. Keys are camelCase, as ``handoff search --json`` prints them;
the hit's keys that start with ``_`` are working fields of one search, never printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired

    from autopilot.handoff.packets.shapes import Origin
    from autopilot.handoff.sources.shapes import TranscriptHash


# Where a piece of evidence is: a packet's event and its source's line, or an active-memory log's entry; its keys
# differ by kind (``kind``, ``origin``, ``ref``, ``packet``, ``log``, ``index``, ``line``, ``source``, ``via``...).
Pointer = dict[str, Any]


class DocLink(TypedDict):
    """A causal link from one document to another of the same packet."""

    rel: str  # tests | tested-by | fixed-by | based-on
    ref: str


class DocSource(TypedDict, total=False):
    """The transcript a document's evidence came from, and the hash of the bytes read."""

    path: Any
    hash: TranscriptHash | None


class DocGit(TypedDict, total=False):
    """The commit and dirty-file hashes when the evidence was recorded (to tell later changes)."""

    head: Any
    dirty: dict[str, Any]


class Document(TypedDict, total=False):
    """One searchable piece of evidence: an evidence reference of a packet, a checkpoint or an observation."""

    kind: str  # evidence | checkpoint | observation | durable
    origin: str  # the packet id, the active memory's session, or durable:<repository id>
    ref: str
    text: str
    role: str
    roles: list[str]
    after: list[str]  # an abandoned approach's failed run, while the documents are linked (never stored)
    agent: Any
    session: Any
    repoId: Any
    worktreeId: Any
    worktree: Any
    branch: Any
    time: Any
    seq: int
    pointer: Pointer  # the evidence's place: a packet's event and source pointer, or a memory log's
    resultPointer: dict[str, Any]
    outcome: dict[str, Any] | None
    command: Any
    paths: list[str]
    files: list[str]
    symbols: list[str]
    links: list[DocLink]
    subject: list[str]
    git: DocGit
    source: DocSource
    approval: dict[str, Any]  # a durable document's: id, kind, person, at, scope (autopilot.knowledge.durable.feed)
    shared: Origin  # a teammate's packet's: its origin (handoff/packets/shared.py)
    task: dict[str, Any]  # the autopilot task the session was on then: {"id", "title"} (handoff/memory/autopilot.py)


class Hit(TypedDict, total=False):
    """A document read back by one search: its columns, its JSON ``_data``, and what the search found."""

    id: int
    kind: str
    origin: str
    ref: str
    role: str
    agent: Any
    session: Any
    worktreeId: Any
    branch: Any
    ts: float | None
    text: str
    _data: Document
    score: dict[str, float]
    coverage: float
    matched: list[str]
    freshness: Freshness
    changedFiles: list[str]
    shownFor: str
    alsoIn: list[str]
    _rank: int
    _own: float  # its score before a link lifted it or a turn's request capped it: what breaks a tie
    _via: tuple[Hit, str]
    _supersededBy: Hit
    _supersedes: list[Hit]
    _elsewhere: list[Hit]


class Freshness(TypedDict):
    """Whether a result's source and files are as they were: ``current``, ``changed`` or ``unavailable``."""

    state: str
    reasons: list[str]
    copy: bool
    checked: list[str]


class Here(TypedDict):
    """Where a search runs: the project, the worktree and its branch."""

    repoId: str
    worktreeId: str
    branch: str | None


class Brief(TypedDict):
    """Another result, named by its rank and outcome."""

    rank: int | None
    origin: str
    ref: str
    time: Any
    outcome: Any
    worktree: Any
    branch: Any
    note: NotRequired[str]


class Via(TypedDict):
    """The link that brought a result in."""

    rel: str
    rank: int | None
    origin: str
    ref: str


class Result(TypedDict):
    """One result as ``handoff search`` prints it."""

    rank: int
    score: dict[str, float]
    coverage: float
    matched: list[str]
    role: str
    kind: str
    excerpt: str
    pointer: Pointer
    session: Any
    agent: Any
    worktree: Any
    branch: Any
    scope: str  # this-worktree | other-branch | other-worktree | project (an approved rule) | shared
    time: Any
    outcome: Any
    paths: list[str]
    symbols: list[str]
    links: list[DocLink]
    freshness: Freshness
    changedFiles: NotRequired[list[str]]
    via: NotRequired[Via]
    alsoIn: NotRequired[list[str]]
    shownFor: NotRequired[str]
    supersededBy: NotRequired[Brief]
    supersedes: NotRequired[list[Brief]]
    elsewhere: NotRequired[list[Brief]]
    approval: NotRequired[dict[str, Any]]  # an approved rule or decision: who approved it, when, where it holds
    shared: NotRequired[Origin]  # a teammate's packet: who shared it, from which machine, when; the note
    task: NotRequired[dict[str, Any]]  # the autopilot task the session was on: {"id", "title"}


class ConflictItem(TypedDict):
    """One outcome of a chain of contradicting ones."""

    rank: int | None
    ref: str
    origin: str
    time: Any
    role: str
    outcome: Any
    status: str  # superseded | standing
    supersededBy: int | None


class Conflict(TypedDict):
    """A chain of contradicting outcomes, oldest first, ending with the one that stands."""

    worktree: Any
    branch: Any
    standing: int | None
    items: list[ConflictItem]


class Stats(TypedDict):
    """What the index holds."""

    path: str
    schemaVersion: int
    documents: dict[str, int]
    packets: int
    bytes: int
    generation: str | None


class Built(TypedDict):
    """What a rebuild indexed."""

    packets: int
    documents: int
    kept: int
    skipped: int
    path: NotRequired[str]  # where the index is (``handoff reindex`` adds it)


class Answer(TypedDict):
    """``handoff search``: the ranked, explained answer to one query."""

    trust: str
    query: str
    words: list[str]
    searched: list[str]  # the words searched: stopwords and intent words aside
    unmatched: list[str]  # the searched words no indexed document holds
    intent: list[str]  # what the question asks for: fix, outcome, approach
    paths: list[str]
    symbols: list[str]
    scope: dict[str, Any]
    now: str
    results: list[Result]
    conflicts: list[Conflict]
    notes: list[str]
    ranking: NotRequired[dict[str, str]]
    candidates: NotRequired[dict[str, int]]
    index: NotRequired[Stats]
    archived: NotRequired[bool]  # the archive's packets were searched (``--archived``)
