"""The shapes of the active memory's records and answers, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (the memory recorder is on every hook's path).
"""

from __future__ import annotations

from typing import Any, TypedDict


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
