"""Packets a teammate shared through the project's git remote: which local repository pulled each, from whom.

``codex-bridge share pull`` (``autopilot.knowledge.share``) verifies a teammate's packets and stores them in the
ordinary packet store (they are content-addressed: the same bytes, the same id), then records here, per
local repository, where each came from: ``$AUTOPILOT_HOME/handoff/shared/<repository key>.json`` holding
``{"repoId", "root", "packets": {id: origin}}``. The origin (who committed it, from which machine, when,
in which commit, through which remote) is what a teammate's commit said, made printable when it was
pulled (no escape sequence reaches a terminal from here), never a claim that anybody is who they say.

A shared packet belongs to the repository that pulled it, whatever repository identity it records (that
is the teammate's own checkout): ``handoff packets`` lists it there, ``handoff search`` finds it in every
worktree of it (its documents carry :data:`WORKTREE_PREFIX`), and ``handoff import`` imports it into a
session of it. Its source transcript is on the teammate's machine, never here: every claim is the
packet's copy (:data:`NOTE`), as for a packet whose transcript was deleted.
"""

from __future__ import annotations

import os

from autopilot.digest import sha256_hex
from autopilot.fsutil import atomic_write
from autopilot.paths import handoff_dir

TYPE_CHECKING = False  # typing costs ~2 ms to import, pathlib ~4 ms; `handoff search` loads this module
if TYPE_CHECKING:
    from pathlib import Path

    from autopilot.handoff.packets.shapes import Origin

WORKTREE_PREFIX = "shared:"  # a shared packet's worktreeId in the evidence index: "shared:" and the teammate's
NOTE = (
    "shared from another machine through the project's git remote: its source transcript is on that machine, "
    "not here, so its bytes cannot be checked; every excerpt is the packet's copy"
)
_cache: dict[str, tuple[tuple[int, int], str | None, dict[str, Origin]]] = {}


def folder() -> Path:
    """Where the records of pulled packets live: ``$AUTOPILOT_HOME/handoff/shared``."""
    return handoff_dir() / "shared"


def record_path(repo_id: str) -> Path:
    """The record of the packets pulled into the repository ``repo_id``."""
    return folder() / f"{sha256_hex(repo_id.encode())[:24]}.json"


def _read(path: Path) -> tuple[str | None, dict[str, Origin]]:
    """The repository a record is of and the packets it names (an unreadable or foreign record names none), cached
    by size and mtime."""
    import json  # not at the top: a search loads this module and parses no packet

    try:
        st = os.stat(path)
    except OSError:
        return None, {}
    key = (st.st_size, st.st_mtime_ns)
    hit = _cache.get(str(path))
    if hit is not None and hit[0] == key:
        return hit[1], hit[2]
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        doc = None
    found = doc.get("packets") if isinstance(doc, dict) else None
    packets: dict[str, Origin] = {}
    for pid, origin in found.items() if isinstance(found, dict) else ():
        if isinstance(pid, str) and isinstance(origin, dict):
            packets[pid] = origin  # type: ignore[assignment]  # a dict we wrote: Origin's fields
    repo = doc.get("repoId") if isinstance(doc, dict) else None
    _cache[str(path)] = (key, repo if isinstance(repo, str) else None, packets)
    return _cache[str(path)][1], packets


def origins(repo_id: str | None) -> dict[str, Origin]:
    """The packets pulled into repository ``repo_id``, by id, with where each came from (None: none)."""
    return _read(record_path(repo_id))[1] if repo_id else {}


def origin_of(pid: str) -> tuple[str, Origin] | None:
    """The repository a packet was pulled into and its origin, or None for a packet made on this machine."""
    try:
        names = sorted(os.listdir(folder()))
    except OSError:
        return None
    for name in names:
        if not name.endswith(".json"):
            continue
        repo, packets = _read(folder() / name)
        found = packets.get(pid)
        if found is not None and repo is not None:
            return repo, found
    return None


def record(repo_id: str, root: str, found: dict[str, Origin]) -> Path:
    """Add ``found`` (id -> origin) to the record of repository ``repo_id``; the caller holds the share lock."""
    import json  # not at the top: a search loads this module and parses no packet

    path = record_path(repo_id)
    packets = {**origins(repo_id), **found}
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    body = {"repoId": repo_id, "root": root, "packets": dict(sorted(packets.items()))}
    atomic_write(path, json.dumps(body, sort_keys=True) + "\n")
    _cache.pop(str(path), None)
    return path


def label(origin: Origin) -> str:
    """One line naming who shared a packet, from which machine, and when (already printable)."""
    return (
        f"shared by {origin.get('by') or 'someone'} from {origin.get('machine') or 'an unnamed machine'} "
        f"at {origin.get('at') or 'an unknown time'} (commit {str(origin.get('commit') or '')[:12]}, "
        f"pulled from {origin.get('remote') or 'the remote'})"
    )
