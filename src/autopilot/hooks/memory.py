"""The active memory's side of the hooks: inject the approved rules and the changed facts, and merge that into
the autopilot's answer.

The injection is decided after the autopilot's answer, in the room it leaves under ``hooks.TEXT_CAP``,
so ``capped()`` never cuts a fact that ``injections.jsonl`` records as injected, nor a rule that
``rules.jsonl`` records as delivered (``autopilot.durable.deliver``: it reads approved rules, it never
decides one).

Recording is done before this module is ever loaded (``autopilot.memory.observe``, on the hot path);
this runs only when an injection may be due (a compaction, a ``/clear``, a resume or a prompt after
facts changed), so it may load the reducer, the config and the redactor.
"""

from __future__ import annotations

from typing import Any

from autopilot.durable.deliver import hook_answer
from autopilot.hooks import TEXT_CAP

Json = dict[str, Any]
SEPARATOR = "\n\n"  # between the autopilot's context and the memory's


def inject(event: str, data: Json, out: Json | None = None) -> Json | None:
    """The hook answer carrying the rules and facts that changed since the last injection, in the room the
    autopilot's answer ``out`` leaves under the output cap, and the person's notice (None: nothing new)."""
    return hook_answer("claude", event, data, room=room(out))


def room(out: Json | None) -> int:
    """How many characters of context the memory may add to ``out`` without the merged text passing TEXT_CAP."""
    before = ((out or {}).get("hookSpecificOutput") or {}).get("additionalContext")
    if not isinstance(before, str) or not before:
        return TEXT_CAP
    return TEXT_CAP - len(before) - len(SEPARATOR)


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
        specific["additionalContext"] = f"{before}{SEPARATOR}{extra}" if before else extra
        merged["hookSpecificOutput"] = specific
    return merged
