"""The one test of whether a Codex thread is a subagent, from its rollout's ``session_meta`` payload.

Child threads (subagents) say so with ``agent_path``, ``thread_source: "subagent"`` or a ``source.subagent``
object; user forks carry only ``forked_from_id`` and stay eligible. Kept apart from :mod:`.sessions` (which
re-exports it) so the rollout fold can ask without that module's imports (dataclasses, inspect: ~10 ms).
Its stand-alone twin is ``is_subagent_rollout`` in ``codex/assets/handoff/scripts/handoff_hook.py``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autopilot.codex.shapes import Payload


def child_marker(payload: Payload) -> str:
    """Why a rollout's ``session_meta`` payload marks a child thread ('' for a root session, forks included)."""
    if payload.get("agent_path"):
        return f"a subagent (agent_path {payload['agent_path']})"
    if payload.get("thread_source") == "subagent":
        return "a subagent (thread_source: subagent)"
    source = payload.get("source")
    if isinstance(source, dict) and "subagent" in source:
        return "a subagent (source.subagent)"
    return ""
