"""What a Codex rollout line says: its line, payload and item types, what each kind means, and readers of its fields.

A rollout (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) holds one JSON object a line,
``{timestamp, type, payload}`` (:class:`~autopilot.codex.shapes.RolloutLine`). The line ``type`` says
what the payload is: ``session_meta``, a ``response_item`` (a message, a tool call or its output,
reasoning...), an ``event_msg`` (whose 0.169+ ``item_completed`` events carry an item:
``UserMessage``, ``FileChange``...), a ``turn_context``, a ``compacted`` summary, or telemetry.
Rollouts have no stable schema: these tables name the kinds known (and which of them repeat,
carry nothing to recover, or must never be shown), and the small functions read a field whatever
shape the file gave it. What a reader keeps of a session is its own: the handoff's fold and intake
(``handoff/transcripts/codex_fold.py``, ``codex_intake.py``) use this vocabulary.
"""

from __future__ import annotations

from autopilot.fastjson import parse_json_line
from autopilot.patterns import MULTILINE, lazy

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every rollout page loads this module
if TYPE_CHECKING:
    from typing import Any

    from autopilot.codex.shapes import Payload, RolloutLine

# 0.169+ marks what the human typed with these content-item kinds; anything else in a
# user-role message (environment context, skills, goal notes, hook context) is harness text.
HUMAN_KINDS = frozenset({"user.text", "user.image", "user.local_image"})
# Older files have no kinds: harness text is recognised by its wrapper.
HARNESS_PREFIXES = (
    "<environment_context",
    "<user_instructions",
    "<skill",
    "<codex_internal_context",
    "<turn_aborted",
    "<permissions",
    "<collaboration_mode",
    "<subagent_notification",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<user_shell_command",
)

KNOWN_LINE_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "token_usage_record",
        "world_state",
        "security_risk_score",
        "retained_context",
        "realtime_item",
        "inter_agent_communication",
        "inter_agent_communication_metadata",
    }
)
TELEMETRY_LINES = frozenset({"token_usage_record", "security_risk_score", "realtime_item"})
TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "tool_search_call"})
TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})
KNOWN_RESPONSE_TYPES = (
    TOOL_CALLS
    | TOOL_OUTPUTS
    | frozenset(
        {
            "message",
            "reasoning",
            "web_search_call",
            "image_generation_call",
            "agent_message",
            "additional_tools",
            "compaction",
            "compaction_summary",
            "context_compaction",
            "configuration_update",
            "compaction_trigger",
            "other",
        }
    )
)
# Events that repeat something recorded elsewhere, or carry nothing to recover.
QUIET_EVENTS = frozenset(
    {
        "exec_command_begin",
        "exec_command_end",
        "exec_command_output_delta",
        "terminal_interaction",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "image_generation_begin",
        "patch_apply_begin",
        "patch_apply_updated",
        "turn_diff",
        "thread_settings_applied",
        "session_configured",
        "mcp_startup_update",
        "mcp_startup_complete",
        "item_started",
        "hook_started",
        "hook_completed",
        "raw_response_item",
        "plan_update",
        "plan_delta",
        "agent_message_content_delta",
        "agent_message_delta",
        "agent_reasoning_delta",
        "agent_reasoning_raw_content_delta",
        "reasoning_content_delta",
        "reasoning_raw_content_delta",
        "agent_reasoning_section_break",
        "shutdown_complete",
        "entered_review_mode",
        "exited_review_mode",
        "deprecation_notice",
        "model_reroute",
        "model_verification",
        "thread_queue_changed",
        "environment_connected",
        "environment_disconnected",
        "turn_moderation_metadata",
        "safety_buffering",
        "guardian_assessment",
        "exec_approval_request",
        "apply_patch_approval_request",
        "request_permissions",
        "request_user_input",
        "elicitation_request",
        "elicitation_abandoned",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "view_image_tool_call",
        "realtime_conversation_started",
        "realtime_conversation_realtime",
        "realtime_conversation_closed",
        "realtime_conversation_sdp",
        "realtime_conversation_list_voices_response",
        "get_history_entry_response",
        "collab_agent_spawn_begin",
        "collab_agent_interaction_begin",
        "collab_agent_interaction_end",
        "collab_waiting_begin",
        "collab_waiting_end",
        "collab_close_begin",
        "collab_close_end",
        "collab_resume_begin",
        "collab_resume_end",
        "context_compacted",
    }
)
REASONING_EVENTS = frozenset({"agent_reasoning", "agent_reasoning_raw_content"})
TELEMETRY_EVENTS = frozenset({"token_count"})
TURN_START = frozenset({"task_started", "turn_started"})
TURN_END = frozenset({"task_complete", "turn_complete"})
ERROR_EVENTS = frozenset({"error", "stream_error", "warning", "guardian_warning"})
QUIET_ITEMS = frozenset(
    {
        "CommandExecution",
        "WebSearch",
        "CollabAgentToolCall",
        "McpToolCall",
        "DynamicToolCall",
        "HookPrompt",
        "Sleep",
        "ImageView",
        "EnteredReviewMode",
        "ExitedReviewMode",
    }
)
NEVER_ITEMS = frozenset({"Reasoning", "ContextCompaction"})

_NAME = lazy(r"[^A-Za-z0-9_.:-]")
_PATCH_FILE = lazy(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", MULTILINE)


def clean_name(value: Any) -> str:
    """A type or tool name from the file, reduced to safe characters and cut short."""
    return _NAME.sub("_", str(value))[:48] or "_"


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def payload_of(line: RolloutLine | None) -> Payload:
    """A rollout line's payload when it is a JSON object, else an empty one."""
    payload: Any = line.get("payload") if line else None
    found: Payload = payload if _is_object(payload) else {}
    return found


def _is_object(value: object) -> bool:
    """Whether a value the file holds is a JSON object."""
    return isinstance(value, dict)


def texts(content: Any) -> list[str]:
    """The text parts of a content list (input/output text only; images and encrypted parts skipped)."""
    if isinstance(content, str):
        return [content]
    out = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in ("input_text", "output_text", "text", "Text"):
                text = part.get("text")
                if isinstance(text, str):
                    out.append(text)
    return out


_IMAGE_OPEN = lazy(r"^\s*<image\b[^>]*>\s*$")
_IMAGE_PATH = lazy(r'\bpath="([^"]*)"')


def split_images(parts: list[str]) -> tuple[str, list[str]]:
    """The prompt text without ``<image ...>`` wrappers, and the image paths they name."""
    kept, paths = [], []
    for part in parts:
        if _IMAGE_OPEN.match(part):
            m = _IMAGE_PATH.search(part)
            if m:
                paths.append(m.group(1))
        elif part.strip() != "</image>":
            kept.append(part)
    return "\n".join(kept), paths


def is_harness(text: str) -> bool:
    """Whether user-role text is a harness wrapper rather than the human's words (pre-kinds files)."""
    return text.lstrip().startswith(HARNESS_PREFIXES)


def uuid7_ms(value: Any) -> int | None:
    """The millisecond timestamp inside a UUIDv7 string, or None for anything else."""
    if not isinstance(value, str) or len(value) != 36 or value[14:15] != "7":
        return None
    try:
        return int(value[:8] + value[9:13], 16)
    except ValueError:
        return None


def patch_body(p: Payload) -> Any:
    """The patch an apply_patch call carries (custom tool input or function argument), else None."""
    if p.get("name") != "apply_patch":
        return None
    if p.get("type") == "custom_tool_call":
        return p.get("input")
    return _patch_argument(p.get("arguments")) if p.get("type") == "function_call" else None


def patch_files(patch: Any) -> list[tuple[str, str]]:
    """(change, path) for each file an apply_patch body names (``*** Add/Update/Delete File:``, ``*** Move to:``)."""
    if not isinstance(patch, str) or "*** " not in patch:
        return []
    return [
        ("move", m.group(3).strip()) if m.group(3) else (m.group(1).lower(), m.group(2).strip())
        for m in _PATCH_FILE.finditer(patch)
    ]


def _patch_argument(arguments: Any) -> Any:
    try:  # as orjson reads it, without importing orjson for a page (fastjson.parse_json_line)
        value = parse_json_line(arguments.encode("utf-8", "surrogatepass")) if isinstance(arguments, str) else arguments
    except ValueError:
        return arguments
    return value.get("input") if isinstance(value, dict) else None
