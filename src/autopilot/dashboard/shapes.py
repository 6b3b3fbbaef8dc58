"""The shapes of the dashboard's own answers (the CLI's, plus what only the page needs), for the type checker only.

Modules import these names under ``if TYPE_CHECKING:``. Every answer the API shares with the CLI is the
operation's own shape (``sources``, ``packets``, ``run``, ``memory``, ``search``, ``durable``); these are
the few the page adds. Keys are camelCase, as the page's JavaScript reads them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from autopilot.handoff.packets.shapes import Drift, Inspected, ListedPacket, Mark
from autopilot.handoff.sources.shapes import Identity

if TYPE_CHECKING:
    from typing import NotRequired


class DriftNow(TypedDict):
    """A packet's git drift against this dashboard's worktree, when the two are comparable."""

    comparable: bool
    why: NotRequired[str]
    gitDrift: NotRequired[Drift]
    staleClaims: NotRequired[dict[str, list[Mark]]]


class PacketView(Inspected):
    """``handoff inspect``, with the drift now when the packet is this worktree's."""

    driftNow: NotRequired[DriftNow]


class Packets(TypedDict):
    """This project's stored packets, newest first (``handoff packets``)."""

    project: Identity
    packets: list[ListedPacket]
    total: int


class Overview(TypedDict):
    """What the page's header shows."""

    version: str
    project: Identity | dict[str, str]  # the error and the directory when it is not a git repository
    runs: dict[str, Any]
    packets: dict[str, int]
    durable: Any
    approvals: dict[str, Any]
