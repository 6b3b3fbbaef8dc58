"""What the share ref's tree holds, and the checks a tree from a remote passes before anything in it is used.

Every file is named by the sha256 of its bytes (``git ls-tree`` of the ref)::

    packets/<hex>.json            a packet's canonical bytes (handoff/packets/store.py): sha256 = <hex>
    packets/<hex>.evidence.json   its evidence index, bound by the hash the packet records
    rules/<hex>.json              a shared rule or decision, or a revocation (:func:`rule_record`,
                                  :func:`revocation_record`): canonical JSON, sha256 = <hex>

So two trees merge by taking the union of their names (the same name is the same bytes), and a file changed
on the remote no longer matches its name. A tree from a remote is untrusted: a name under ``packets/`` or
``rules/`` that is not such an address (a path that climbs, a control character, a nested folder), a mode
other than a plain file, a file over its size limit, bytes that do not hash to their name, a packet that
does not verify or whose evidence index is missing, a record that is not canonical or not of this schema:
each refuses that file (and a packet's other half), before anything is read into the stores, and the rest
of the tree is used; the refusals are told (:func:`told`). A tree past the bounds of a share ref (too many
files or rule records) is refused whole (:class:`Refused`). Other top-level names are ignored and counted
(a later version's additions).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.handoff.packets import store

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import Refusal

PACKET = re.compile(r"packets/([0-9a-f]{64})\.json")
EVIDENCE = re.compile(r"packets/([0-9a-f]{64})\.evidence\.json")
RULE = re.compile(r"rules/([0-9a-f]{64})\.json")
OURS = ("packets", "rules")
MAX_FILES = 200_000
MAX_RULES = 2_000  # rule records and revocations: each becomes a line of the durable log here
MAX_PACKET_BYTES = 8 << 20  # a packet or its evidence index (a default packet is 10-100 KB)
MAX_RULE_BYTES = 16 << 10
SCHEMA = "codex-autopilot/shared-rule"
VERSION = 1
SHARE_ID = re.compile(r"sha256:[0-9a-f]{64}")
RULE_ID = re.compile(r"[RD]-[0-9a-f]{12}")
MAX_TEXT = 2000
MAX_NAME = 80
MAX_TIME = 40


class Refused(BridgeError):
    """A shared tree, or a file in it, that cannot be trusted: nothing from it was used, and the message names the
    file and why."""


# Why one file of a tree was refused, by kind: ``tampered`` (its bytes are not what its name or its packet says:
# never valid in any version), ``malformed`` (a name, mode, size or content this format never has), ``newer`` (a
# record of a later version of this format: kept for the codex-bridge that reads it).
TAMPERED, MALFORMED, NEWER = "tampered", "malformed", "newer"


def refusal(path: str, oid: str | None, kind: str, why: str) -> Refusal:
    """One refused file: its path, its blob (None when it is no plain file) and why."""
    return {"path": path, "oid": oid, "kind": kind, "why": why}


def scan(entries: list[tuple[str, str, str, int, str]], commit: str) -> tuple[dict[str, str], int, dict[str, Refusal]]:
    """Check every entry's name, mode and size: (path -> object id of our files, how many other entries were
    ignored, the refused ones by path). One bad entry refuses that entry only (and a packet's other half); a tree
    past the bounds of a share ref raises :class:`Refused`."""
    ours: dict[str, str] = {}
    refused: dict[str, Refusal] = {}
    ignored = 0
    for mode, kind, oid, size, path in entries:
        top = path.split("/", 1)[0]
        if top not in OURS:
            ignored += 1
            continue
        blob = oid if kind == "blob" and mode == "100644" else None
        limit = MAX_RULE_BYTES if top == "rules" else MAX_PACKET_BYTES
        if mode != "100644" or kind != "blob":
            refused[path] = refusal(path, blob, MALFORMED, f"a {kind} of mode {mode}, not a plain file")
        elif not (PACKET.fullmatch(path) or EVIDENCE.fullmatch(path) or RULE.fullmatch(path)):
            refused[path] = refusal(path, blob, MALFORMED, "not a content address of this format")
        elif not 0 <= size <= limit:
            refused[path] = refusal(path, blob, MALFORMED, f"{size:,} bytes, over the limit of {limit:,}")
        else:
            ours[path] = oid
    rules = sum(1 for p in ours if p.startswith("rules/"))
    if rules > MAX_RULES:
        raise Refused(f"{where(commit)} holds {rules:,} rule records, more than {MAX_RULES:,}: refused")
    for path in list(ours):
        packet = PACKET.fullmatch(path)
        if packet and f"packets/{packet.group(1)}.evidence.json" not in ours:
            refused[path] = refusal(path, ours.pop(path), MALFORMED, "a packet without its evidence index")
        evidence = EVIDENCE.fullmatch(path)
        if evidence and f"packets/{evidence.group(1)}.json" not in ours and path in ours:
            refused[path] = refusal(path, ours.pop(path), MALFORMED, "an evidence index without its packet")
    return ours, ignored, refused


def told(refused: dict[str, Refusal], commit: str) -> list[str]:
    """What a person is told of the refused files of ``commit``'s tree: one line each, and what to do."""
    if not refused:
        return []
    lines = [f"{where(commit)}: {json.dumps(r['path'][:120])} was refused ({r['why']})" for r in refused.values()]
    lines.append(
        f"{len(refused)} file(s) on the shared ref were refused and not used; everything else was. The one who "
        "shared a file can push it again (its good copy replaces the bad one), or anyone can run "
        "`codex-bridge share repair`"
    )
    return lines


def where(commit: str) -> str:
    """The shared ref at a commit, as messages name it."""
    return f"the shared ref at {commit[:12]}"


class FileRefused(Exception):
    """One file that is not what its name says (:func:`check`): its kind of refusal and why."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind, self.why = kind, why


def check(path: str, data: bytes, contents: dict[str, bytes]) -> None:
    """Raise :class:`FileRefused` unless ``data`` read at ``path`` is what its name says (``contents``: the tree's
    other files)."""
    hexid = path.rsplit("/", 1)[1].split(".", 1)[0]
    evidence = EVIDENCE.fullmatch(path)
    if evidence:  # its packet was checked first (the caller checks packets, then evidence indexes)
        packet = json.loads(contents[f"packets/{hexid}.json"])
        recorded = (packet.get("evidenceIndex") or {}).get("sha256")
        if "sha256:" + sha256_hex(data) != recorded:
            raise FileRefused(TAMPERED, "it does not match the hash its packet records: it was changed on the remote")
        try:
            index = json.loads(data)
        except ValueError:
            index = None
        if not isinstance(index, dict):
            raise FileRefused(MALFORMED, "the evidence index is not a JSON object")
        return
    actual = sha256_hex(data)
    if actual != hexid:
        raise FileRefused(TAMPERED, f"it hashes to sha256:{actual[:16]}…, not to its name: changed on the remote")
    if PACKET.fullmatch(path):
        why = store.verify(hexid, data)
        if why:
            raise FileRefused(MALFORMED, f"the packet does not verify: {why}")
        return
    why = rule_problem(data)
    if why:
        raise FileRefused(NEWER if why.endswith(": upgrade") else MALFORMED, f"the rule record is refused: {why}")


def _text(value: Any, low: int, high: int) -> bool:
    return isinstance(value, str) and low <= len(value) <= high


def rule_problem(data: bytes) -> str | None:
    """Why ``data`` is not a shared rule or revocation record of this format (None: it is)."""
    try:
        record = json.loads(data)
    except ValueError:
        return "it is not JSON"
    if not isinstance(record, dict) or record.get("schema") != SCHEMA:
        return "it is not a codex-autopilot shared rule"
    if record.get("version") != VERSION:
        return f"it is version {record.get('version')!r}; this codex-bridge reads version {VERSION}: upgrade"
    if canonical(record) != data:
        return "it is not in canonical form (sorted keys, compact separators)"
    origin = record.get("origin")
    if not isinstance(origin, dict) or not isinstance(origin.get("id"), str) or not RULE_ID.fullmatch(origin["id"]):
        return "its origin is not a rule id"
    if record.get("type") == "rule":
        if set(record) != {"schema", "version", "type", "kind", "text", "origin", "supersedes"}:
            return "its fields are not a rule's"
        if record.get("kind") not in ("rule", "decision") or not _text(record.get("text"), 3, MAX_TEXT):
            return "its kind or text is not a rule's"
        if set(origin) != {"id", "approvedBy", "approvedAt"} or not (
            _text(origin["approvedBy"], 1, MAX_NAME) and _text(origin["approvedAt"], 1, MAX_TIME)
        ):
            return "its approval is not a name and a time"
        old = record.get("supersedes")
        if old is not None and not (isinstance(old, str) and SHARE_ID.fullmatch(old)):
            return "what it supersedes is not a shared rule's id"
        return None
    if record.get("type") == "revoke":
        if set(record) != {"schema", "version", "type", "rule", "origin", "reason"}:
            return "its fields are not a revocation's"
        if not (isinstance(record.get("rule"), str) and SHARE_ID.fullmatch(record["rule"])):
            return "it does not name a shared rule"
        reason = record.get("reason")
        if reason is not None and not _text(reason, 0, MAX_TEXT):
            return "its reason is not a text"
        if set(origin) != {"id", "revokedBy", "revokedAt"} or not (
            _text(origin["revokedBy"], 1, MAX_NAME) and _text(origin["revokedAt"], 1, MAX_TIME)
        ):
            return "its revocation is not a name and a time"
        return None
    return f"its type {str(record.get('type'))[:20]!r} is neither rule nor revoke"


def rule_record(kind: str, text: str, origin_id: str, by: str, at: str, supersedes: str | None) -> bytes:
    """The record of an approved rule or decision (its sha256 is its id everywhere: ``sha256:<hex>``)."""
    return canonical(
        {
            "schema": SCHEMA,
            "version": VERSION,
            "type": "rule",
            "kind": kind,
            "text": text,
            "origin": {"id": origin_id, "approvedBy": by[:MAX_NAME], "approvedAt": at[:MAX_TIME]},
            "supersedes": supersedes,
        }
    )


def revocation_record(rule: str, origin_id: str, by: str, at: str, reason: str | None) -> bytes:
    """The record that withdraws the shared rule ``rule`` (``sha256:<hex>``) everywhere it was delivered."""
    return canonical(
        {
            "schema": SCHEMA,
            "version": VERSION,
            "type": "revoke",
            "rule": rule,
            "origin": {"id": origin_id, "revokedBy": by[:MAX_NAME], "revokedAt": at[:MAX_TIME]},
            "reason": reason[:MAX_TEXT] if reason else None,
        }
    )


def share_id(data: bytes) -> str:
    """A record's id: ``sha256:`` and the hash of its bytes."""
    return "sha256:" + sha256_hex(data)


def rule_path(data: bytes) -> str:
    """Where a record lives in the tree."""
    return f"rules/{sha256_hex(data)}.json"


def share_of_path(path: str) -> str:
    """The share id of the record at ``path`` (``rules/<hex>.json``)."""
    return "sha256:" + path.rsplit("/", 1)[1].split(".", 1)[0]


def path_of(share: str) -> str:
    """Where the record ``share`` (``sha256:<hex>``) lives in the tree."""
    return f"rules/{share.removeprefix('sha256:')}.json"
