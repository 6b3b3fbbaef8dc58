"""The shapes of the durable log, its view and the passphrase record, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (a session-start hook reads the view). Keys are
camelCase (``supersededBy``, ``lastHash``), as ``rules.json`` and ``codex-bridge durable list`` print them.
A log line is read as it was written and checked by ``view.apply`` before anything believes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired


class Proposed(TypedDict, total=False):
    """Who proposed a rule, where, when."""

    by: Any
    channel: Any
    at: Any


class Decision(TypedDict, total=False):
    """A person's approval or revocation: who, where, when (and, revoking, why); through the ``signed`` channel, a
    teammate's, by the SSH signature of a commit (``person`` is then the signer)."""

    person: Any
    channel: Any
    at: Any
    reason: Any
    signer: Any
    key: Any  # signed channel: the SSH signing key's fingerprint; deciding channels: the person's approval key (hex)
    commit: Any  # the signed commit that brought the rule (or its revocation) to the share ref
    signers: Any  # the allowed_signers blob in HEAD that listed the signer
    action: Any  # in ``pending``: approve or revoke


class Rule(TypedDict):
    """A rule or decision as the log's replay makes it."""

    id: str
    kind: Any  # rule | decision
    text: Any
    why: Any
    status: str  # candidate | approved | revoked | superseded
    proposed: Proposed
    source: Any  # the packet and constraint it came from, or None
    project: Any  # {root, repoId} it holds in, or None: every project
    supersedes: Any
    supersededBy: str | None
    approved: Decision | None
    revoked: Decision | None
    subject: NotRequired[str]  # the proposal's hash, which a decision's signature names
    pending: NotRequired[list[Decision]]  # decisions signed by an anchor not confirmed yet: not applied


class Refused(TypedDict):
    """A log line that could not apply, and why."""

    line: int
    why: str


class Integrity(TypedDict):
    """What is wrong with the log and its view (never raised: said)."""

    ok: bool
    malformedLines: int
    refusedLines: list[Refused]
    chainBreaks: list[int]
    view: NotRequired[str]  # ok | missing | stale | edited
    viewRebuilt: NotRequired[str]


class Anchors(TypedDict):
    """The approval keys and which hold (``knowledge/durable/anchor.py``)."""

    trusted: list[str]
    pending: dict[str, str]  # a reset key not confirmed -> when it was set
    current: str | None
    confirmedResets: dict[str, str]  # a reset key the person confirmed -> when
    problems: list[str]


class View(TypedDict):
    """``rules.json``: every rule by id, and the log it was made from."""

    rules: dict[str, Rule]
    lastHash: str
    lines: int
    anchors: Anchors
    integrity: Integrity


class ManagedRule(TypedDict):
    """One of the administrator's managed rules."""

    id: str
    kind: str
    text: str
    tier: str  # managed
    modified: str


class Managed(TypedDict):
    """The administrator's managed rules in force, and why none are used when they are refused."""

    path: str
    rules: list[ManagedRule]
    refused: str | None


class Listing(TypedDict):
    """``codex-bridge durable list``: every rule, counts by status, the log's integrity, the managed rules."""

    rules: list[Rule]
    counts: dict[str, int]
    integrity: Integrity
    log: str
    managed: Managed
    anchors: Anchors


class Cost(TypedDict):
    """scrypt's cost parameters."""

    n: int
    r: int
    p: int


class PassphraseRecord(Cost):
    """The approval passphrase's record, as ``passphrase.json`` keeps it: scrypt's salt and cost, and the public half
    of the Ed25519 key the passphrase derives (version 2), or scrypt's hash (version 1, before signed decisions)."""

    v: int
    kdf: str
    salt: str
    key: NotRequired[str]
    hash: NotRequired[str]
    set: NotRequired[str]


class InForce(TypedDict):
    """A rule in force in a worktree as a session is given it: managed or approved, who approved it, when."""

    id: str
    kind: str
    text: str
    tier: str  # managed | approved | shared (approved by a teammate's signed commit)
    by: str
    at: str
    fp: str  # what the session compares to tell a changed rule
    commit: NotRequired[str]  # shared: the signed commit
    approvedBy: NotRequired[str]  # shared: who approved it on their machine


# One approval key in ``anchor.json``: how it entered (first, rotated, reset) and its proof: ``key`` (hex Ed25519
# public key), ``how``, ``at``, ``from`` and ``sig`` (rotated: the previous key, and its signature of the rotation),
# ``confirmed`` (reset: ``{"at", "sig"}``, the key's own signature of the person's confirmation). ``from`` is a
# Python keyword: hence the functional form.
AnchorEntry = TypedDict(
    "AnchorEntry",
    {"key": str, "how": str, "at": str, "from": str, "sig": str, "confirmed": "dict[str, str]"},
    total=False,
)


class Confirmed(TypedDict, total=False):
    """``durable confirm``: the key, and whether this confirmed it."""

    key: str
    confirmed: bool
    at: str
    why: str


class AgentSandbox(TypedDict):
    """Whether one agent's shell (or tool) can write the durable store, why, and the fix (``doctor``)."""

    agent: str
    canWriteStore: bool
    why: str
    fix: str | None


class SandboxOn(TypedDict):
    """What ``setup --sandbox`` wrote into each agent's settings, and the paths it protects."""

    claude: dict[str, object]
    codex: CodexSandbox
    protected: list[str]
    record: str


class CodexSandbox(TypedDict):
    """What ``setup --sandbox`` added to Codex's config.toml."""

    config: str
    added: list[str]


class Claim(TypedDict):
    """A rule the log says the team signed, as the hooks ask the repository to vouch for it."""

    id: str
    commit: str
    key: str  # the SSH key's fingerprint
    share: str  # its record's share id (``sha256:...``)
