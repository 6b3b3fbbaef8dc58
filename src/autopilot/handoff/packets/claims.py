"""Where a packet keeps its claims: the one list of claim groups, and a walk over every claim in them.

A claim is a dict with ``refs`` (evidence references) or ``"basis": "inference"``. Some
groups hold one claim (the objective, the next action), the others a list; a claim in a
list is named by its group and index, as ``staleClaims`` and ``unavailableClaims`` name them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import Claim, Packet

# (group, where it sits in the packet, whether it holds a list of claims)
GROUPS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("objective", ("objective",), False),
    ("constraints", ("constraints",), True),
    ("nextAction", ("nextAction",), False),
    ("filesChanged", ("completedWork", "filesChanged"), True),
    ("validations", ("completedWork", "validations"), True),
    ("pendingCommands", ("unresolved", "pendingCommands"), True),
    ("failedAttempts", ("unresolved", "failedAttempts"), True),
    ("blockers", ("unresolved", "blockers"), True),
    ("hypotheses", ("unresolved", "hypotheses"), True),
    ("latestMessages", ("latestMessages",), True),
    ("compactionSummaries", ("compactionSummaries",), True),
)


def walk(packet: Packet) -> Iterator[tuple[str, int | None, Claim]]:
    """Every claim of a packet as (group, index in its list or None, claim), in the order of GROUPS."""
    for group, path, many in GROUPS:
        value: Any = packet
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        items = (value or []) if many else [value]
        for i, claim in enumerate(items):
            if isinstance(claim, dict):  # a JSON object where a claim belongs: one of the packet's claims
                yield group, (i if many else None), cast("Claim", claim)
