"""The answers the hooks print: Claude Code's hook output contract, for the type checker only.

Modules import these names under ``if TYPE_CHECKING:`` (the hot path's imports are pinned by
``tests/integration/test_hooks.py``), so a misspelt field is a mypy error, not an answer Claude Code
silently ignores. The fields and what each event makes of them are in ``/work/shared/reference/claude-code.md``
(§2.4, read from the pinned binary's own output schema): every field is optional; the keys are Claude Code's,
camelCase.

The hook's *input* stays a plain JSON object (``hooks.Json``): another program's JSON, checked field by field
(``hooks.untrusted``) and read with ``.get``. The active memory's answers (``memory.inject``, ``durable.deliver``)
are built below this layer, for Codex as well, and are merged in here field by field (``hooks.memory.merge``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired


class HookSpecificOutput(TypedDict):
    """What an answer adds for its event. Every event that takes one needs ``hookEventName``; the autopilot and
    the memory only ever add ``additionalContext`` (other events' own fields, such as PreToolUse's
    ``permissionDecision`` or SessionStart's ``sessionTitle``, are not answered by this plugin)."""

    hookEventName: str  # the event the answer is for
    # Context for the model, wrapped in a system reminder: SessionStart at the start, UserPromptSubmit next to the
    # prompt, PostToolUse next to the tool result, Stop at the end of the turn (and the turn continues: "Stop hook
    # says", from Claude Code 2.1.163). Refused for PostCompact (its answer is printed as plain text instead).
    additionalContext: NotRequired[str]


# `continue` is a Python keyword, so the answer is declared the functional way.
HookAnswer = TypedDict(
    "HookAnswer",
    {
        "continue": bool,  # false stops Claude entirely (wins over everything); stopReason says why, to the user
        "stopReason": str,
        "suppressOutput": bool,  # documented as having no effect now
        "systemMessage": str,  # a notice for the user, never the model
        # Written to the terminal as it is: OSC 0/1/2/9/99/777 and BEL only, interactive only; the one field
        # StopFailure honours.
        "terminalSequence": str,
        # "block": a Stop keeps Claude working with ``reason`` as its next instruction; a UserPromptSubmit erases
        # the prompt and shows ``reason`` to the user only; a PostToolUse shows ``reason`` to Claude beside the
        # tool's result. Other events have no decision control. "approve" is in the schema and means nothing.
        "decision": Literal["block", "approve"],
        "reason": str,
        "hookSpecificOutput": HookSpecificOutput,
    },
    total=False,
)
