"""The active memory's side of the hooks: inject the changed facts, and merge that into the autopilot's answer.

Recording is done before this module is ever loaded (``autopilot.memory.observe``, on the hot path);
this runs only when an injection may be due (a compaction, a ``/clear``, a resume or a prompt after
facts changed), so it may load the reducer, the config and the redactor.
"""

from __future__ import annotations

from typing import Any

from autopilot.memory.inject import hook_answer

Json = dict[str, Any]


def inject(event: str, data: Json) -> Json | None:
    """The hook answer carrying the facts that changed since the last injection, or None."""
    return hook_answer("claude", event, data)


def merge(event: str, out: Json | None, memory: Json) -> Json:
    """One hook answer from the autopilot's (which wins on decisions) and the memory's (context, notices)."""
    if not out:
        return memory
    merged = dict(out)
    notes = [m for m in (out.get("systemMessage"), memory.get("systemMessage")) if m]
    if notes:
        merged["systemMessage"] = "\n".join(notes)
    extra = (memory.get("hookSpecificOutput") or {}).get("additionalContext")
    if extra:
        specific = dict(out.get("hookSpecificOutput") or {"hookEventName": event})
        before = specific.get("additionalContext")
        specific["additionalContext"] = f"{before}\n\n{extra}" if before else extra
        merged["hookSpecificOutput"] = specific
    return merged
