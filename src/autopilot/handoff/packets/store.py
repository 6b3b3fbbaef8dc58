"""Handover packets on disk: immutable canonical JSON named by its sha256, with its evidence index beside it.

A packet is stored as ``$AUTOPILOT_HOME/handoff/packets/<hex>.json`` holding exactly the
canonical bytes (sorted keys, compact separators, UTF-8) whose sha256 is ``<hex>``; its id
is ``sha256:<hex>``. The redacted evidence index sits beside it as ``<hex>.evidence.json``
and is bound to the packet by the hash the packet records. Both files are written once,
atomically, and made read-only; :func:`verify` re-derives every hash, so a changed byte,
a re-serialised file or a swapped evidence index is caught and named. Packets live under
the autopilot home, never inside a repository.

Import receipts (``imports/<agent>-<session>.jsonl``) record which packet was imported into
which receiving session; the packet builder uses them to link a later packet to the one
its session started from.
"""

from __future__ import annotations

import os

# contextvars' C half: the module itself only re-exports it (~0.2 ms of a search)
from _contextvars import ContextVar

from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write
from autopilot.handoff.packets import shared
from autopilot.paths import handoff_dir, handoff_folder, joined
from autopilot.patterns import lazy

# `handoff search` loads this module (bench/bench_search.py): typing (~2 ms), pathlib, contextlib and re (~4, ~1 and
# ~7 ms with what they import) stay off it; its folders are strings there (packets_folder)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from autopilot.handoff.packets.shapes import EvidenceIndex, ListedPacket, Origin, Packet, Receipt

SCHEMA = "codex-autopilot/handoff-packet"
VERSION = 1
ID = lazy(r"(?:sha256:)?([0-9a-f]{12,64})")
UNREADABLE = "not readable JSON"
MENTION = lazy(r"sha256:([0-9a-f]{64})")


class PacketError(BridgeError):
    """A packet that cannot be trusted (tampered, re-serialised, foreign); the message says why."""


_ARCHIVED: ContextVar[bool] = ContextVar("archived", default=False)


def archive_dir() -> Path:
    """Where pruned packets and their evidence index go: ``$AUTOPILOT_HOME/handoff/archive``."""
    from pathlib import Path

    return Path(archive_folder())


def archive_folder() -> str:
    """:func:`archive_dir` as a string."""
    return joined(handoff_folder(), "archive")


def archived() -> _Archived:
    """Inside (``with archived():``), packets and the evidence index are the archive's (``handoff prune``; ``search
    --archived``)."""
    return _Archived()


class _Archived:
    """The context :func:`archived` gives (a class: contextlib's decorator would load contextlib on every search)."""

    def __enter__(self) -> None:
        self.token = _ARCHIVED.set(True)

    def __exit__(self, *exc: object) -> None:
        _ARCHIVED.reset(self.token)


def in_archive() -> bool:
    """Whether packets and the index are the archive's here (see :func:`archived`)."""
    return _ARCHIVED.get()


def packets_dir() -> Path:
    """Where packets live: ``$AUTOPILOT_HOME/handoff/packets`` (the archive's ``packets`` inside :func:`archived`)."""
    from pathlib import Path

    return Path(packets_folder())


def packets_folder() -> str:
    """:func:`packets_dir` as a string."""
    return joined(archive_folder() if _ARCHIVED.get() else handoff_folder(), "packets")


def packet_id(data: bytes) -> str:
    """The id of a packet's canonical bytes."""
    return "sha256:" + sha256_hex(data)


def seal(packet: Packet, evidence: EvidenceIndex) -> tuple[str, bytes, bytes]:
    """Bind the evidence index to the packet and return (id, packet bytes, evidence bytes)."""
    ev_bytes = canonical(evidence)
    bound = packet.copy()
    bound["evidenceIndex"] = {
        "sha256": "sha256:" + sha256_hex(ev_bytes),
        "entries": len(evidence.get("entries") or []),
        "bytes": len(ev_bytes),
    }
    data = canonical(bound)
    return packet_id(data), data, ev_bytes


def store(packet: Packet, evidence: EvidenceIndex, *, durable: bool = True) -> tuple[str, Path]:
    """Write a packet and its evidence index once; writing the same packet again is a no-op.

    ``durable=False`` leaves the fsyncs to the caller (``share pull`` stores many, then syncs once)."""
    pid, data, ev_bytes = seal(packet, evidence)
    folder = packets_dir()
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not folder.is_symlink():  # a store the user linked elsewhere keeps the permissions they gave it
        os.chmod(folder, 0o700)
    hexid = pid.removeprefix("sha256:")
    path, ev_path = folder / f"{hexid}.json", folder / f"{hexid}.evidence.json"
    if path.exists() and verify(hexid, path.read_bytes()) is None:
        return pid, path
    # Read-only, and its user's alone; the index first: a packet always has its evidence.
    atomic_write(ev_path, ev_bytes, mode=0o400, durable=durable)
    atomic_write(path, data, mode=0o400, durable=durable)
    return pid, path


def verify(hexid: str, data: bytes) -> str | None:
    """Why ``data`` is not the packet ``hexid`` (None when it is)."""
    return _check(hexid, data)[0]


def _check(hexid: str, data: bytes) -> tuple[str | None, Packet | None]:
    """(why ``data`` is not the packet ``hexid`` or None, the parsed packet when it is)."""
    import json  # not at the top: a search loads this module and parses no packet

    actual = sha256_hex(data)
    if actual != hexid:
        return f"its content hashes to sha256:{actual[:16]}…, not to its id: the file was changed after export", None
    try:
        packet = json.loads(data)
    except ValueError:
        return "it is not valid JSON", None
    if not _ours(packet):
        return "it is not a codex-autopilot handoff packet", None
    if packet.get("version") != VERSION:
        return f"it is packet version {packet.get('version')}, this codex-bridge reads version {VERSION}: upgrade", None
    if canonical(packet) != data:
        return "it is not in canonical form (sorted keys, compact separators): it was rewritten", None
    return None, packet  # its hash is its id, its schema and version are ours: a packet as build wrote it


def _ours(value: object) -> bool:
    """Whether a parsed file is a JSON object of this bridge's packet schema."""
    return isinstance(value, dict) and value.get("schema") == SCHEMA


def resolve(ref: str) -> Path:
    """The packet file for an id (``sha256:<hex>``, or a unique prefix of at least 12 hex digits)."""
    found = ID.fullmatch(ref.strip().lower()) if isinstance(ref, str) else None
    if found is None:
        raise BridgeError(
            f"{ref!r} is not a packet id",
            hint="pass the id export printed (sha256: and 64 hex digits, or its first 12 or more)",
        )
    hexid = found.group(1)
    folder = packets_dir()
    if len(hexid) == 64:
        path = folder / f"{hexid}.json"
        if not path.exists():
            raise BridgeError(f"no packet {ref} in {folder}", hint="list packets with `ls` there, or export again")
        return path
    matches = sorted(p for p in folder.glob(f"{hexid}*.json") if not p.name.endswith(".evidence.json"))
    if not matches:
        raise BridgeError(f"no packet starting with {hexid} in {folder}", hint="check the id, or export again")
    if len(matches) > 1:
        raise BridgeError(f"{hexid} matches {len(matches)} packets", hint="give more digits of the id")
    return matches[0]


def load(ref: str) -> tuple[str, Packet, EvidenceIndex]:
    """A verified packet and its verified evidence index, or a PacketError saying why not."""
    import json  # not at the top: a search loads this module and parses no packet

    path = resolve(ref)
    hexid = path.name.removesuffix(".json")
    reason, packet = _check(hexid, path.read_bytes())
    if reason or packet is None:
        raise PacketError(
            f"packet sha256:{hexid} is refused: {reason}",
            hint="do not use it; export a fresh packet from the source session",
        )
    ev_path = path.with_name(f"{hexid}.evidence.json")
    try:
        ev_bytes = ev_path.read_bytes()
    except OSError:
        raise PacketError(
            f"packet sha256:{hexid} is refused: its evidence index {ev_path.name} is missing",
            hint="export a fresh packet from the source session",
        ) from None
    bound = packet.get("evidenceIndex")
    recorded = bound.get("sha256") if bound else None
    if "sha256:" + sha256_hex(ev_bytes) != recorded:
        raise PacketError(
            f"packet sha256:{hexid} is refused: its evidence index does not match the hash the "
            "packet records (it was changed or swapped)",
            hint="export a fresh packet from the source session",
        )
    return f"sha256:{hexid}", packet, json.loads(ev_bytes)


def _receipt_path(agent: str, session: str) -> Path:
    return handoff_dir() / "imports" / f"{agent}-{session}.jsonl"


def record_import(agent: str, session: str, receipt: Receipt) -> Path:
    """Append one import receipt for a receiving session."""
    import json  # not at the top: a search loads this module and parses no packet

    path = _receipt_path(agent, session)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(receipt, sort_keys=True) + "\n")
    return path


def imported_into(agent: str, session: str) -> list[str]:
    """Ids of the packets imported into a session, oldest first (a packet imported again counts at its last import)."""
    import json  # not at the top: a search loads this module and parses no packet

    try:
        lines = _receipt_path(agent, session).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    out: list[str] = []
    for line in lines:
        try:
            pid = json.loads(line).get("packet")
        except ValueError:
            continue
        if isinstance(pid, str):
            if pid in out:
                out.remove(pid)
            out.append(pid)
    return out


def listing(repo_id: str | None = None) -> list[ListedPacket]:
    """Every stored packet (of repository ``repo_id`` when given), newest first: id, source, destination, objective.

    A packet that fails verification is listed with why, never hidden: a tampered one must be seen. A packet a
    teammate shared and this repository pulled is listed with its origin (``shared``).
    """
    try:
        files = [p for p in packets_dir().glob("*.json") if not p.name.endswith(".evidence.json")]
    except OSError:
        return []
    pulled = shared.origins(repo_id)
    found = [row for repo, row in map(listed, files) if row is not None and belongs(repo, row, repo_id, pulled)]
    found.sort(key=lambda p: str(p.get("createdAt") or ""), reverse=True)
    return found


def belongs(repo: str | None, row: ListedPacket, repo_id: str | None, pulled: dict[str, Origin] | None = None) -> bool:
    """Whether a listing row is shown for ``repo_id``: its own packets, the ones it pulled from a teammate (``pulled``,
    labelled with their origin), and every unreadable one (whose is unknown)."""
    origin = (pulled or {}).get(row["packet"])
    if origin is not None:
        row["shared"] = origin
        return True
    return repo_id is None or repo == repo_id or row.get("problem") == UNREADABLE


def listed(path: Path) -> tuple[str | None, ListedPacket | None]:
    """One packet file's listing row and the repository it belongs to (None, None: not a packet object)."""
    import json  # not at the top: a search loads this module and parses no packet

    try:
        data = path.read_bytes()
        packet = json.loads(data)
    except (OSError, ValueError):
        return None, {"packet": "sha256:" + path.stem, "problem": UNREADABLE, "path": str(path)}
    if not isinstance(packet, dict):
        return None, None
    repo = packet.get("repository") or {}
    source = packet.get("source") or {}
    objective = packet.get("objective") or {}
    return repo.get("repoId"), {
        "packet": "sha256:" + path.stem,
        "createdAt": packet.get("createdAt"),
        "from": source.get("agent"),
        "session": source.get("threadId") or source.get("sessionId"),
        "to": (packet.get("destination") or {}).get("agent"),
        "worktree": repo.get("worktree"),
        "branch": repo.get("branch"),
        "objective": objective.get("text") if isinstance(objective, dict) else objective,
        "problem": verify(path.stem, data),
    }
