"""Retention: old packets and their evidence-index rows move to an archive, which stays searchable.

``handoff prune --older-than DAYS [--keep N]`` moves every packet made more than DAYS days ago (by its
``createdAt``), except the N newest packets of all, from ``$AUTOPILOT_HOME/handoff/packets`` to
``$AUTOPILOT_HOME/handoff/archive/packets`` (the packet and its evidence index, both still read-only and
verified by their hashes), drops its documents from the evidence index and indexes it in the archive's own
index (``archive/index``), so ``handoff search --archived`` finds what moved. Nothing is deleted; moving a
packet back is moving its two files back (the next search re-indexes it). The active memory's documents
are not packets and stay where they are.
"""

from __future__ import annotations

import os
from contextlib import suppress
from datetime import datetime, timedelta, timezone
from typing import Any

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.handoff.packets import store
from autopilot.handoff.search import index


def _created(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        at = clock.parse(value)
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def prune(older_than_days: float, keep: int = 0, *, now: datetime | None = None) -> dict[str, Any]:
    """Move the packets older than ``older_than_days`` (all but the ``keep`` newest) to the archive; what moved."""
    if older_than_days < 0:
        raise BridgeError(f"--older-than {older_than_days:g} is negative", hint="give a number of days, 0 or more")
    if keep < 0:
        raise BridgeError(f"--keep {keep} is negative", hint="give how many of the newest packets to keep, 0 or more")
    cutoff = (now or clock.utc_now()) - timedelta(days=older_than_days)
    rows = [r for r in store.listing() if not r.get("problem")]  # a packet that fails verification is not moved
    rows.sort(key=lambda r: str(r.get("createdAt") or ""), reverse=True)
    moved: list[dict[str, Any]] = []
    folder = store.packets_dir()
    with store.archived():
        target = store.packets_dir()
    target.mkdir(parents=True, exist_ok=True)
    removed = added = 0
    for row in rows[keep:]:
        created = _created(row.get("createdAt"))
        if created is None or created >= cutoff:
            continue
        hexid = row["packet"].removeprefix("sha256:")
        for name in (f"{hexid}.json", f"{hexid}.evidence.json"):
            source = folder / name
            if source.exists():
                os.replace(source, target / name)
        removed += index.remove_origin(row["packet"])
        with store.archived(), suppress(BridgeError):  # the archive's index is a cache: a search rebuilds it
            added += index.add_packet(row["packet"])
        moved.append({k: row.get(k) for k in ("packet", "createdAt", "from", "to", "session", "objective")})
    return {
        "moved": moved,
        "kept": len(rows) - len(moved),
        "olderThanDays": older_than_days,
        "keepNewest": keep,
        "archive": str(target),
        "indexRows": {"removed": removed, "archived": added},
    }


def archived_packets(repo_id: str | None = None) -> list[dict[str, Any]]:
    """The packets in the archive (of repository ``repo_id`` when given), newest first, as ``handoff packets``
    lists them."""
    with store.archived():
        return [dict(row) for row in store.listing(repo_id)]
