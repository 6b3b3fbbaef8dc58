"""The active memory's side of the hooks: inject the approved rules and the changed facts, and merge that into
the autopilot's answer.

The injection is decided after the autopilot's answer, in the room it leaves under ``hooks.TEXT_CAP``,
so ``capped()`` never cuts a fact that ``injections.jsonl`` records as injected, nor a rule that
``rules.jsonl`` records as delivered (``autopilot.knowledge.durable.deliver``: it reads approved rules, it never
decides one).

Recording is done before this module is ever loaded (``autopilot.handoff.memory.observe``, on the hot path);
this runs only when an injection may be due (a compaction, a ``/clear``, a resume or a prompt after
facts changed), so it may load the reducer, the config and the redactor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from autopilot.hooks import TEXT_CAP
from autopilot.knowledge.durable.deliver import hook_answer

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer

Json = dict[str, Any]
SEPARATOR = "\n\n"  # between the autopilot's context and the memory's


def inject(event: str, data: Json, out: HookAnswer | None = None) -> Json | None:
    """The hook answer carrying the rules and facts that changed since the last injection, in the room the
    autopilot's answer ``out`` leaves under the output cap, and the person's notice (None: nothing new). It is the
    memory's JSON (built below hooks/, for Codex as well): :func:`merge` takes its notice and its context."""
    from autopilot.loop.state import Store

    return hook_answer("claude", event, data, room=room(out), run_of=Store.peek_workspace, vouch=vouch)


def vouch(worktree: str, claims: list[Any]) -> set[str]:
    """The repository's check of the team's signed rules (``knowledge/share/vouch.py``), loaded only when a turn
    delivers rules and one of them came signed from the team."""
    from autopilot.knowledge.share.vouch import vouch as check

    return check(worktree, claims)


def room(out: HookAnswer | None) -> int:
    """How many characters of context the memory may add to ``out`` without the merged text passing TEXT_CAP."""
    specific = out.get("hookSpecificOutput") if out else None
    before = specific.get("additionalContext") if specific else None
    if not before:
        return TEXT_CAP
    return TEXT_CAP - len(before) - len(SEPARATOR)


def merge(event: str, out: HookAnswer | None, memory: Mapping[str, Any]) -> HookAnswer:
    """One hook answer from the autopilot's (which wins on decisions) and the memory's (its notice and its context:
    all a memory answer carries)."""
    merged: HookAnswer = out.copy() if out else {}
    notes = [m for m in (merged.get("systemMessage"), memory.get("systemMessage")) if isinstance(m, str) and m]
    if notes:
        merged["systemMessage"] = "\n".join(notes)
    extra = (memory.get("hookSpecificOutput") or {}).get("additionalContext")
    if isinstance(extra, str) and extra:
        specific = merged.get("hookSpecificOutput") or {"hookEventName": event}
        before = specific.get("additionalContext")
        merged["hookSpecificOutput"] = {
            **specific,
            "additionalContext": f"{before}{SEPARATOR}{extra}" if before else extra,
        }
    return merged


def offer_handover(data: Json) -> str | None:
    """The notice offering ``$handoff`` when a plan window is nearly used up (once per window and reset, per
    session), with the session exported as a packet to preview (handoff/memory/limits.py); None otherwise. Never
    fatal."""
    from autopilot.errors import BridgeError
    from autopilot.git import toplevel
    from autopilot.handoff.memory import limits, observe
    from autopilot.handoff.packets.export import export_quietly

    session = observe.safe_session(data.get("session_id"))
    if session is None:
        return None
    try:
        folder = observe.session_dir(toplevel(str(data.get("cwd") or ".")), "claude", session)
        windows = limits.due(folder)
        if not windows:
            return None
        packet, why = export_quietly("claude", session, "codex", str(data.get("cwd") or "."))
        limits.mark_offered(folder, windows)
    except (OSError, BridgeError):
        return None
    return limits.offer_text(windows, packet, why)
