"""The shapes of what ``share push | pull | list`` read, record and answer, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:``. Keys are camelCase, as the answers print them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from autopilot.handoff.packets.shapes import Origin

if TYPE_CHECKING:
    from typing import NotRequired


class Record(TypedDict, total=False):
    """A rule record of the share ref (``knowledge/share/layout.py``), as read back after its checks: a rule or a
    revocation."""

    schema: str
    version: int
    type: str  # rule | revoke
    kind: str  # a rule's: rule | decision
    text: str
    origin: dict[str, str]  # id and approvedBy, approvedAt (a rule) or revokedBy, revokedAt (a revocation)
    supersedes: str | None
    rule: str  # a revocation's: the share id of the rule it withdraws
    reason: str | None


class Said(TypedDict):
    """Who a commit says made it, when, from which machine (printable, bounded)."""

    by: str
    at: str
    machine: str


class Signature(TypedDict):
    """What git says of a commit's signature: good (SSH, a listed signer), unlisted, unsigned or bad."""

    status: str
    signer: str | None
    key: str | None


class Seal(TypedDict):
    """The best signature among the commits that brought one file, and what that commit says."""

    status: str
    signer: str | None
    key: str | None
    commit: str
    by: str
    at: str
    machine: str


class NewSigner(TypedDict):
    """A signer the default branch's history added, in a commit an already-trusted signer signed."""

    principal: str
    key: str  # the key's SHA256 fingerprint
    commit: str
    by: str  # the commit's author, as it says
    signer: str | None  # who signed it


class Signers(TypedDict):
    """The signers the default branch's history trusts, as git is given them (``file`` None: nobody is trusted,
    ``note`` says why)."""

    file: str | None
    blob: str | None
    principals: list[str]
    note: str | None
    windows: dict[str, tuple[str | None, str | None]]  # key fingerprint -> (valid-after, valid-before), UTC
    newSigners: list[NewSigner]
    seen: dict[str, str]  # commit -> when this machine first saw it


class Outgoing(TypedDict):
    """A rule record ``share push --rules`` adds."""

    path: str
    data: bytes
    rule: str  # the rule's id here
    action: str  # rule | revoke
    text: str


class Arrived(TypedDict):
    """A rule record a pull brought, and what it became here."""

    id: str
    share: str
    text: NotRequired[Any]
    reason: NotRequired[Any]
    why: NotRequired[str]
    signature: str
    signer: str | None
    commit: str
    by: str
    machine: str


class RulesPulled(TypedDict):
    """What a pull's rule records became: delivered (signed), candidates, revoked here, waiting for a person."""

    delivered: list[Arrived]
    candidates: list[Arrived]
    revoked: list[Arrived]
    waiting: list[Arrived]


class Refusal(TypedDict):
    """One file of a shared tree that was refused: its path, its blob (None: no plain file), the kind, and why."""

    path: str
    oid: str | None
    kind: str  # tampered | malformed | newer
    why: str


class PacketPulled(TypedDict):
    """A packet a pull found: new here (with its origin), or this machine's own."""

    packet: str
    status: str  # new | own
    shared: NotRequired[Origin]


class Pulled(TypedDict):
    """``share pull``."""

    remote: str
    ref: str
    commit: str | None
    packets: list[PacketPulled]
    rules: RulesPulled
    signers: NotRequired[list[str]]
    notes: list[str]
    refused: list[Refusal]


PlannedPacket = TypedDict(  # "from" is a keyword: the agent the packet was made from
    "PlannedPacket",
    {
        "packet": str,
        "new": "NotRequired[bool]",
        "from": Any,
        "to": Any,
        "createdAt": Any,
        "objective": str,
        "bytes": int,
    },
)


class PlannedRule(TypedDict):
    """A rule record a push sends (or would)."""

    rule: str
    action: str
    share: str
    text: str
    new: bool


class Pushed(TypedDict):
    """``share push``: the plan, and (unless ``dryRun``) what was sent."""

    remote: str
    ref: str
    packets: list[PlannedPacket]
    rules: list[PlannedRule]
    newFiles: int
    signedWith: str | None
    leaves: str
    dryRun: bool
    sent: bool
    commit: NotRequired[str]
    attempts: NotRequired[int]
    merges: NotRequired[int]
    refused: NotRequired[list[Refusal]]  # what the remote's tree held that was refused, as a merge met it
    replaced: NotRequired[list[str]]  # the refused files this push's good copies replaced


class Sent(TypedDict):
    """What sending the ref took."""

    sent: bool
    commit: str
    attempts: int
    merges: int
    refused: list[Refusal]
    replaced: list[str]


class Repaired(TypedDict):
    """``share repair``: the refused files of the remote's share ref, replaced by a good copy from here or left
    out, and the commit that did it."""

    remote: str
    ref: str
    refused: list[Refusal]
    replaced: list[str]
    removed: list[str]
    kept: list[str]  # refused as a later version's: left for the codex-bridge that reads them
    commit: str | None
    sent: bool


class SharedPacket(TypedDict):
    """A packet on the share ref as ``share list`` shows it."""

    packet: str
    by: str | None
    machine: str | None
    at: str | None
    commit: str | None
    onRemote: bool
    here: str  # pulled | own | not pulled
    objective: NotRequired[str]


class SharedRule(TypedDict):
    """A rule record on the share ref as ``share list`` shows it."""

    share: str
    type: str
    kind: str | None
    text: str | None
    rule: str | None
    origin: dict[str, str]
    by: str | None
    machine: str | None
    at: str | None
    commit: str | None
    signature: str
    signer: str | None
    onRemote: bool


class Listed(TypedDict):
    """``share list``."""

    remote: str
    ref: str
    local: str | None
    remoteAsPulled: str | None
    unsent: bool
    packets: list[SharedPacket]
    rules: list[SharedRule]
    notes: list[str]
    newSigners: list[NewSigner]


class State(TypedDict, total=False):
    """What the last pull verified, per repository (``$AUTOPILOT_HOME/share/<key>/state.json``)."""

    verified: dict[str, str]  # path -> object id
    tip: str
    pulledAt: str
    firstSeen: dict[str, str]  # commit -> when this machine first saw it (keys' validity windows are judged by it)
