"""Claude Code hooks: one entry point, one dispatch table; they fail open, but visibly.

``codex-bridge hook <Event>`` reads the event's JSON on stdin and prints at most one JSON
object on stdout. Every hook exits 0: a block happens only on purpose, through
``{"decision": "block"}``; an internal error becomes a ``systemMessage`` and a crash-log line.

The fast path comes first. Most events arrive in workspaces without a run, so before anything
else is imported this module checks, with ``os`` and ``autopilot.git`` alone, whether the workspace has
a state.json; heavy modules (openai, jsonschema, yaml) load only inside the handlers that need them.
Every event the active memory follows is recorded first, run or no run, by ``autopilot.memory.observe``
(one append; docs/memory.md); only when facts changed does ``hooks.memory`` load to inject them.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # see below: `typing` stays off the hot path
if TYPE_CHECKING:
    from typing import Any, TypeAlias

    Json: TypeAlias = dict[str, Any]  # one decoded JSON object
else:
    Json = dict

# Nothing heavy on the hot path: no `typing` (~2 ms; annotations stay strings) and no `json` package
# (its decoder imports `re`, ~4 ms): the input is parsed by the C scanner the json package itself uses.

# event -> (module under autopilot.hooks, function), imported only after the fast path.
HANDLERS: dict[str, tuple[str, str]] = {
    "SessionStart": ("session", "session_start"),
    "UserPromptSubmit": ("session", "user_prompt_submit"),
    "PostToolUse": ("review", "post_tool_use"),
    "Stop": ("stop", "stop"),
    "StopFailure": ("stop", "stop_failure"),
    "SessionEnd": ("session", "session_end"),  # all SessionEnd hooks share 1.5 s: nothing slow
}
# The events the active memory records (autopilot.memory.observe), with or without a run.
MEMORY_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "PreCompact",
        "PostCompact",
        "PostModelSwitch",
        "Stop",
        "SessionEnd",
    }
)
# Typed exactly (after trimming) by a human in a root session: record the handoff pointer, no model request.
HANDOFF_PROMPTS = ("$handoff", "/handoff", "/codex-autopilot:handoff")


def main(event: str) -> int:
    """Handle one hook event read from stdin and print its JSON answer; always returns 0."""
    try:
        raw = sys.stdin.read()
    except (OSError, ValueError):
        raw = ""
    try:
        data = parse_json(raw) if raw.strip() else {}
    except ValueError:
        data = None
    try:
        if not isinstance(data, dict):
            out: Json | None = {
                "systemMessage": f"codex-autopilot: the {event} hook got input that is not a "
                "JSON object; it did nothing (is Claude Code up to date?)"
            }
        else:
            out = dispatch(event, data)
    except Exception as exc:  # fail open, visibly
        out = failed(event, exc)
    if out:
        import json

        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


def parse_json(raw: str) -> object:
    """``json.loads(raw)`` without importing the json package (falls back to it where ``_json`` is missing)."""
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(raw)
    text = raw.strip()
    try:
        value, end = make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


class _ScanContext:
    """The settings json.JSONDecoder gives its scanner, as plain attributes."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity


def dispatch(event: str, data: Json) -> Json | None:
    """Route one event to its handler, or answer nothing when there is nothing to do.

    Every event the active memory follows is recorded first (cheap, with or without a run); when
    facts changed since the last injection, the changed ones are added to the answer's context.
    """
    if event == "UserPromptSubmit" and is_handoff_prompt(data):
        from autopilot.hooks.handoff import record

        return record(data)
    memory = remember(event, data) if event in MEMORY_EVENTS else None
    out = run_handler(event, data)
    if memory:
        from autopilot.hooks.memory import merge

        out = merge(event, out, memory)
    return out


def run_handler(event: str, data: Json) -> Json | None:
    """The autopilot's handler for the event when this workspace has a run; None otherwise."""
    target = HANDLERS.get(event)
    if target is None or (event == "SessionEnd" and data.get("reason") != "clear"):
        return None
    if not has_run(str(data.get("cwd") or os.getcwd())):
        return None
    from importlib import import_module

    from autopilot.hooks.context import Hook

    module = import_module(f"autopilot.hooks.{target[0]}")
    handler = getattr(module, target[1])
    return handler(Hook(event, data))  # type: ignore[no-any-return]


def remember(event: str, data: Json) -> Json | None:
    """Record the event in the session's active memory; the memory's answer (context, a notice) or None.

    A failure here never stops the autopilot's own handler: it becomes a notice (and a crash-log line).
    """
    try:
        from autopilot.memory import observe

        recorded = observe.record(event, data, "claude")
        if recorded is None or not recorded[1]:
            return None
        from autopilot.hooks.memory import inject

        return inject(event, data)
    except Exception as exc:  # the memory fails open, visibly
        answer = failed(event, exc)
        answer["systemMessage"] = answer["systemMessage"].replace("hook", "hook's active memory", 1)
        return answer


def is_handoff_prompt(data: Json) -> bool:
    """Whether a prompt is the human ``$handoff`` trigger from a root session (never a subagent)."""
    prompt = data.get("prompt")
    return isinstance(prompt, str) and prompt.strip() in HANDOFF_PROMPTS and not data.get("agent_id")


def has_run(cwd: str) -> bool:
    """Whether the git work tree around ``cwd`` has a state.json, using nothing heavier than ``os`` and git.py."""
    home = os.environ.get("AUTOPILOT_HOME") or os.path.join(os.path.expanduser("~"), ".codex-autopilot")
    runs = os.path.join(home, "runs")
    try:
        names = os.listdir(runs)
    except OSError:
        return False
    if not names:
        return False
    from autopilot.errors import BridgeError
    from autopilot.git import toplevel  # finds `.git` by walking up, without forking git

    try:
        top = toplevel(cwd)
    except BridgeError:  # not in a git repository
        return False
    from autopilot.digest import sha256_hex

    suffix = "-" + sha256_hex(top.encode("utf-8"))[:12]  # paths.run_dir: runs/<slug>-<sha256(realpath)[:12]>
    return any(name.endswith(suffix) and os.path.isfile(os.path.join(runs, name, "state.json")) for name in names)


def failed(event: str, exc: BaseException) -> Json:
    """The fail-open answer to an error: a systemMessage (and a crash-log line for bugs); never a block."""
    from autopilot.errors import BridgeError

    if isinstance(exc, BridgeError):
        return {"systemMessage": f"codex-autopilot: the {event} hook did nothing: {exc}"}
    from autopilot.errors import write_crash_log
    from autopilot.paths import autopilot_home

    log = write_crash_log(str(autopilot_home()), exc)
    return {
        "systemMessage": f"codex-autopilot: the {event} hook failed ({type(exc).__name__}: {exc}); Claude "
        f"was not blocked. The traceback is in {log}; please report it."
    }
