"""The redactor's shapes, for the type checker only (imported under ``if TYPE_CHECKING:``)."""

from __future__ import annotations

from typing import TypedDict


class Redactions(TypedDict):
    """How many redactions were made, in total and by kind (``by_kind`` keeps the key it was first printed with)."""

    total: int
    by_kind: dict[str, int]
