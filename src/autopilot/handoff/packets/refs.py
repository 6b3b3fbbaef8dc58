"""What a packet's claims cite and spend: evidence references, each an exact pointer, and the excerpt budget.

A claim cites the events it rests on through :class:`Refs` (``E<n>``, numbered in order of first
citation, each with its source pointer and an excerpt for the evidence index); the excerpts the
claims quote share one :class:`Budget` of characters, and what does not fit is counted, to be
dropped to its pointer and reported as a gap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.digest import canonical
from autopilot.text import clip_middle

if TYPE_CHECKING:
    from autopilot.handoff.packets.shapes import EvidenceItem
    from autopilot.handoff.sources.shapes import Event, ToolResult

CHARS_PER_TOKEN = 4  # the estimate used everywhere here: tokens ~ characters / 4 (labelled as an estimate)
EVIDENCE_EXCERPT = 2000


class Budget:
    """The excerpt budget: characters handed out until it runs out, and what was dropped."""

    def __init__(self, tokens: int) -> None:
        self.left = tokens * CHARS_PER_TOKEN
        self.tokens = tokens
        self.dropped: dict[str, int] = {}

    def take(self, what: str, text: str | None, limit: int) -> str | None:
        """``text`` cut to ``limit`` if the budget still has room for it, else None (counted)."""
        if not text:
            return text
        cut = clip_middle(text, limit)
        if len(cut) > self.left:
            self.dropped[what] = self.dropped.get(what, 0) + 1
            return None
        self.left -= len(cut)
        return cut


class Refs:
    """Evidence references, numbered in order of first citation, each an exact pointer."""

    def __init__(self, events: list[Event], source: str) -> None:
        self.by_id = {e["id"]: e for e in events}
        self.source = source
        self.items: dict[str, EvidenceItem] = {}

    def cite(self, event_or_id: Event | str | None, part: str = "event") -> list[str]:
        """The reference for an event (or its tool result with ``part="result"``), created on first use."""
        event = self.by_id.get(event_or_id) if isinstance(event_or_id, str) else event_or_id
        if not event:
            return []
        target: ToolResult | Event | None = (event.get("tool") or {}).get("result") if part == "result" else event
        if not target or not target.get("pointer"):
            return []
        key = target.get("id") or event["id"]
        if key not in self.items:
            self.items[key] = {
                "ref": f"E{len(self.items) + 1}",
                "source": self.source,
                "event": key,
                "kind": "tool_result" if part == "result" else event["kind"],
                "timestamp": event.get("timestamp"),
                "pointer": target.get("pointer", {}),
                "excerpt": _excerpt(event, part),
            }
        return [self.items[key]["ref"]]


def _excerpt(event: Event, part: str) -> str:
    tool = event.get("tool") or {}
    if part == "result":
        return clip_middle(str((tool.get("result") or {}).get("text") or ""), EVIDENCE_EXCERPT)
    if tool:
        raw = tool.get("command") or tool.get("input") or ""
        shown = raw if isinstance(raw, str) else canonical(raw).decode()
        return clip_middle(f"{tool.get('name')}: {shown}", EVIDENCE_EXCERPT)
    return clip_middle(str(event.get("text") or ""), EVIDENCE_EXCERPT)
