"""Claude Code hooks: one entry point, one dispatch table; they fail open, but visibly.

``codex-bridge hook <Event>`` reads the event's JSON on stdin and prints at most one JSON
object on stdout (PostCompact: at most one line of plain text, which Claude Code shows as it is).
Every hook exits 0: a block happens only on purpose, through
``{"decision": "block"}``; an internal error becomes a ``systemMessage`` and a crash-log line.

The fast path comes first. Most events arrive in workspaces without a run, so before anything
else is imported this module checks, with ``os`` and ``autopilot.git`` alone, whether the workspace has
a state.json; heavy modules (openai, jsonschema, yaml) load only inside the handlers that need them.
Every event the active memory follows is recorded first, run or no run, by ``autopilot.handoff.memory.observe``
(one append; docs/memory.md); only when facts changed does ``hooks.memory`` load to inject them.
"""

from __future__ import annotations

import os
import sys

from autopilot import config
from autopilot.fastjson import parse_json

TYPE_CHECKING = False  # see below: `typing` stays off the hot path
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeAlias

    from autopilot.hooks.shapes import HookAnswer

    Json: TypeAlias = dict[str, Any]  # one decoded JSON object: a hook's input, read field by field
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
# The events the active memory records (autopilot.handoff.memory.observe), with or without a run. Not
# PostModelSwitch: Claude Code before 2.1.2xx refuses a plugin's whole hooks.json over an event it does
# not know (verified on 2.1.143), so model changes come from the transcript (`handoff recover`).
MEMORY_EVENTS = frozenset(
    {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "PostToolUseFailure",
        "PreCompact",
        "PostCompact",
        "Stop",
        "SessionEnd",
    }
)
# Each hook's total time budget in seconds, below its timeout in hooks/hooks.json (a test keeps them apart):
# a hook records any failure and answers before Claude Code would kill it. Model calls inside a hook get
# a deadline inside this budget (Hook.deadline).
BUDGET_S = {
    "SessionStart": 280.0,  # the first one may build the plugin's venv (scripts/bootstrap.py)
    "UserPromptSubmit": 25.0,
    "PostToolUse": 25.0,  # notes the edit for the review worker (starting it if needed); never waits for Codex
    "Stop": 870.0,  # one verdict exchange (AUTOPILOT_TIMEOUT, 300 s by default) fits with room to spare
    "StopFailure": 8.0,
    "SessionEnd": 1.5,  # Claude Code gives every SessionEnd hook together 1.5 s
    # memory only: one observation appended
    "PostToolUseFailure": 8.0,
    "PreCompact": 8.0,
    "PostCompact": 8.0,
}
# `hook ToolUse` is PostToolUse for every tool (hooks.json's "*" group): it notes that a tool ran, and hands over
# what reviews found when there is anything (hooks.review.tool_use).
EVENT_OF = {"ToolUse": "PostToolUse"}
TOOL_USE_HANDLER = ("review", "tool_use")
# Claude Code (and Codex, for additionalContext) cut hook output at 10,000 characters and move the rest
# to a file; every text a hook prints stays under TEXT_CAP (capped() guards the last step).
TEXT_CAP = 9_500
TOOL_MARK = "last-tool-use"  # touched on every PostToolUse: Claude Code's Stop-block count restarts after a tool
# The review worker's pid and the Claude Code process it serves (loop/review_worker.PID_FILE, which a test holds equal:
# the hot path imports neither that module nor what it loads), and how long SessionEnd waits for it to go.
WORKER_PID = "review-worker.pid"
WORKER_STOP_S = 0.8
REVIEW_LANE = "review-call.lock"  # loop/state.REVIEW_LANE (held equal by the same test)
REVIEW_LEFT = "review-left.json"  # loop/review.LEFT: a review left running at the provider (the same test)
REVIEW_ERROR = "review-error:"  # the notices key (and the failure's time): the person was told a review failed
CODEX_SIDE_ENV = "AUTOPILOT_CODEX_SIDE_FROM"  # the version that set up the Codex side, after a plugin update
REVIEWED_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"})
# Fields every event carries and their JSON types: input without them, or with other types, is not acted on.
REQUIRED: tuple[tuple[str, type], ...] = (("session_id", str), ("cwd", str))
OPTIONAL: tuple[tuple[str, type], ...] = (
    ("hook_event_name", str),
    ("transcript_path", str),
    ("stop_hook_active", bool),
    ("last_assistant_message", str),
    ("prompt", str),
    ("tool_name", str),
    ("agent_id", str),
    ("reason", str),
    ("source", str),
)
# Claude Code 2.1.332 shows a PostCompact hook's stdout under "Compacted" as it is (JSON included, unparsed) and
# refuses hookSpecificOutput for it: a notice there is printed as plain text.
PLAIN_EVENTS = frozenset({"PostCompact"})
# Typed exactly (after trimming) by a human in a root session: record the handoff pointer, no model request.
HANDOFF_PROMPTS = ("$handoff", "/handoff", "/codex-autopilot:handoff")
# Typed exactly: the run's status shown to the person by the UserPromptSubmit hook, with no model turn.
STATUS_PROMPTS = ("/codex-status", "/codex-autopilot:codex-status")
# What a hook does once its answer is written (hooks.review: handed-over reviews are taken off the pending list):
# a hook killed before its answer is out leaves them for the next hook.
AFTER_ANSWER: list[Callable[[], None]] = []


def main(event: str) -> int:
    """Handle one hook event read from stdin and print its JSON answer; always returns 0."""
    AFTER_ANSWER.clear()
    try:
        raw = sys.stdin.read()
    except (OSError, ValueError):
        raw = ""
    try:
        data = parse_json(raw) if raw.strip() else None
    except (ValueError, RecursionError):  # RecursionError: JSON nested past what Python parses
        data = None
    try:
        problem = untrusted(event, data)
        if problem:
            out: HookAnswer | None = {
                "systemMessage": f"codex-autopilot: the {event} hook got input it cannot trust ({problem}); "
                "it did nothing (is Claude Code up to date?)"
            }
        else:
            assert isinstance(data, dict)
            out = dispatch(event, data)
    except Exception as exc:  # fail open, visibly
        out = failed(event, exc)
    if out and event in PLAIN_EVENTS and set(out) == {"systemMessage"}:
        sys.stdout.write(str(capped(out)["systemMessage"]) + "\n")  # shown as it is, not as JSON
        sys.stdout.flush()
    elif out:
        import json

        sys.stdout.write(json.dumps(capped(out)) + "\n")
        sys.stdout.flush()
    if out:
        answered(event)
    return 0


def answered(event: str) -> None:
    """Run what the hook does once its answer is out (AFTER_ANSWER); a failure there is logged, never raised."""
    while AFTER_ANSWER:
        action = AFTER_ANSWER.pop(0)
        try:
            action()
        except Exception as exc:  # the answer is out already: what failed stays to be done by the next hook
            failed(event, exc)


def capped(out: HookAnswer) -> HookAnswer:
    """``out`` with every text Claude Code shows or hands the model printable and under its 10,000-character cap.

    Handlers already build their texts inside TEXT_BUDGET, most important part first; this is the last
    guard, so no input can make Claude Code cut a message and move the rest to a file. Every text field of the
    contract is named here (``tests/unit/hooks/test_shapes.py`` checks that none is missed); terminalSequence is
    the one meant to be an escape sequence (built from printable text, alerts), so it is left as it is.
    """

    from autopilot.output import printable

    def cut(text: str) -> str:
        text = printable(text)  # a model's or a transcript's escape sequences never reach the TUI
        if len(text) <= TEXT_CAP:
            return text
        note = f"\n[cut by codex-autopilot: {len(text) - TEXT_CAP + 200:,} more characters were left out]"
        return text[: TEXT_CAP - 200] + note

    answer = out.copy()
    if "systemMessage" in answer:
        answer["systemMessage"] = cut(answer["systemMessage"])
    if "reason" in answer:
        answer["reason"] = cut(answer["reason"])
    if "stopReason" in answer:
        answer["stopReason"] = cut(answer["stopReason"])
    specific = answer.get("hookSpecificOutput")
    if specific is not None and "additionalContext" in specific:
        answer["hookSpecificOutput"] = {**specific, "additionalContext": cut(specific["additionalContext"])}
    return answer


def untrusted(event: str, data: object) -> str | None:
    """Why hook input cannot be acted on (empty, not an object, a field of the wrong type), or None."""
    if data is None:
        return "empty or not JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    for name, kind in REQUIRED:
        if not isinstance(data.get(name), kind) or not data[name]:
            return f"{name} is missing or not a {kind.__name__}"
    for name, kind in OPTIONAL:
        if name in data and data[name] is not None and not isinstance(data[name], kind):
            return f"{name} is not a {kind.__name__}"
    if data.get("hook_event_name") not in (None, EVENT_OF.get(event, event)):
        return f"it is a {data['hook_event_name']} event, not {event}"
    return None


def dispatch(event: str, data: Json) -> HookAnswer | None:
    """Route one event to its handler, or answer nothing when there is nothing to do.

    Every event the active memory follows is recorded first (cheap, with or without a run); when
    facts changed since the last injection, the changed ones are added to the answer's context, in
    the room the autopilot's own answer leaves under the output cap (so every fact recorded as
    injected reaches the model).
    """
    if event == "UserPromptSubmit" and is_handoff_prompt(data):
        from autopilot.hooks.handoff import record

        return record(data)
    if event == "UserPromptSubmit" and is_prompt(data, STATUS_PROMPTS):
        from autopilot.hooks.session import show_status

        return show_status(data)
    memory: Mapping[str, Any] | None
    due, memory = remember(event, data) if event in MEMORY_EVENTS else (False, None)
    out = run_handler(event, data)
    if due:
        memory = recall(event, data, out)
    if memory:
        from autopilot.hooks.memory import merge

        out = merge(event, out, memory)
    if event in ("UserPromptSubmit", "Stop") and limits_recorded():  # a plan window may be nearly used up
        from autopilot.hooks.memory import merge, offer_handover

        note = offer_handover(data)
        if note:
            out = merge(event, out, {"systemMessage": note})
    if event == "SessionStart" and config.env(CODEX_SIDE_ENV):  # set by scripts/bootstrap.py after an update
        from autopilot.hooks.session import codex_side_notice

        out = codex_side_notice(out, config.env(CODEX_SIDE_ENV) or "")
    return out


def run_handler(event: str, data: Json) -> HookAnswer | None:
    """The autopilot's handler for the event when this workspace has a run; None otherwise."""
    target = TOOL_USE_HANDLER if event == "ToolUse" else HANDLERS.get(event)
    if target is None:
        return None
    run = run_dir_of(str(data["cwd"]))
    if run is None:
        return None
    if event == "SessionEnd" and data.get("reason") != "clear":
        stop_worker(run)  # the session is over (a /clear goes on in the same process, with the same worker)
        return None
    if event in ("PostToolUse", "ToolUse"):
        # Claude Code starts its count of Stop blocks again once a continuation runs a tool: note when one did
        # (the Stop hook compares it with its own last block; the review worker, that Claude is still working).
        # The editing tools and Bash (hooks.json's first group) note work to review and hand over what reviews
        # found; every other tool (its "*" group) only hands that over, when there is anything (one look at the run).
        touch(os.path.join(run, TOOL_MARK))
        reviewed = data.get("tool_name") in REVIEWED_TOOLS
        if event == "PostToolUse" and not reviewed:
            return None
        if event == "ToolUse" and (reviewed or not handover_due(run)):
            return None
    assert target is not None
    from importlib import import_module

    from autopilot.hooks.context import Hook

    module = import_module(f"autopilot.hooks.{target[0]}")
    handler = getattr(module, target[1])
    return handler(Hook(event, data))  # type: ignore[no-any-return]


def remember(event: str, data: Json) -> tuple[bool, HookAnswer | None]:
    """Record the event in the session's active memory: (whether an injection may be due, a failure notice or None).

    A failure here never stops the autopilot's own handler: it becomes a notice (and a crash-log line).
    """
    try:
        from autopilot.handoff.memory import observe

        recorded = observe.record(event, data, "claude")
        return recorded is not None and recorded[1], None
    except Exception as exc:  # the memory fails open, visibly
        return False, memory_failed(event, exc)


def recall(event: str, data: Json, out: HookAnswer | None) -> Mapping[str, Any] | None:
    """The memory's answer (the changed facts, within the room ``out`` leaves), a failure notice, or None."""
    try:
        from autopilot.hooks.memory import inject

        return inject(event, data, out)
    except Exception as exc:  # the memory fails open, visibly
        return memory_failed(event, exc)


def memory_failed(event: str, exc: BaseException) -> HookAnswer:
    """The fail-open answer to an error in the active memory."""
    answer = failed(event, exc)
    answer["systemMessage"] = answer["systemMessage"].replace("hook", "hook's active memory", 1)
    return answer


def limits_recorded() -> bool:
    """Whether the status line recorded plan windows (one ``stat``; handoff/memory/limits.py decides the rest)."""
    return os.path.exists(os.path.join(config.autopilot_home(), "handoff", "limits.json"))


def is_handoff_prompt(data: Json) -> bool:
    """Whether a prompt is the human ``$handoff`` trigger from a root session (never a subagent)."""
    return is_prompt(data, HANDOFF_PROMPTS)


def is_prompt(data: Json, prompts: tuple[str, ...]) -> bool:
    """Whether the prompt is exactly one of ``prompts`` (after trimming), typed in a root session (never a subagent)."""
    prompt = data.get("prompt")
    return isinstance(prompt, str) and prompt.strip() in prompts and not data.get("agent_id")


def stop_worker(run: str) -> None:
    """Ask the run's review worker to exit now when it serves this Claude Code process (SIGTERM), and give it
    WORKER_STOP_S to go; one with a codex-cli review in flight finishes and records it first, unwaited for (an openai
    review in flight is left running at the provider, and fetched by the next worker). Best effort: a
    worker also exits on its own once the process it serves is gone (loop/review_worker.py)."""
    try:
        with open(os.path.join(run, WORKER_PID)) as fh:
            pid_text, _, serves = fh.read().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return
    if serves.strip() != (config.env("CLAUDE_PID") or ""):
        return  # another Claude Code process's worker
    try:
        os.kill(pid, 15)  # SIGTERM (the same number on Linux and macOS; `signal` would cost an import)
    except OSError:
        return
    from autopilot.fsutil import is_held

    if is_held(os.path.join(run, REVIEW_LANE)) and not os.path.exists(os.path.join(run, REVIEW_LEFT)):
        return  # a codex-cli review in flight is finished and recorded first: the session does not wait for it
    import time  # (an openai review in flight is left running at the provider: the worker goes at once)

    end = time.monotonic() + WORKER_STOP_S
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.02)


def handover_due(run: str) -> bool:
    """Whether the run in ``run`` has anything for the next tool use to hand over: a review not yet handed over, or
    a plan not yet shown (a cheap read of state.json as stored; hooks.review decides the rest)."""
    from autopilot.loop.state import Store

    state = Store.peek(run)
    if not state or state.get("status") != "running":
        return False
    notices = state.get("notices") or []
    failed = review_error_key(state)
    told = failed is None or failed in notices
    return bool(state.get("reviews_pending")) or bool(state.get("plan_to_show")) or not told


def review_error_key(state: Mapping[str, Any]) -> str | None:
    """The notices key under which the run's last failed review is told to the person (None: no review failed)."""
    error = state.get("last_error")
    if not isinstance(error, dict) or error.get("phase") != "review":
        return None
    return f"{REVIEW_ERROR}{error.get('timestamp')}"


def touch(path: str) -> None:
    """Set ``path``'s mtime to now, creating it empty if needed (best effort)."""
    try:
        with open(path, "a"):
            os.utime(path)
    except OSError:
        pass


def has_run(cwd: str) -> bool:
    """Whether the git work tree around ``cwd`` has a state.json, using nothing heavier than ``os`` and git.py (and
    loop.state's look at the file, only when the tree has a run directory)."""
    return run_dir_of(cwd) is not None


def run_dir_of(cwd: str) -> str | None:
    """The run directory of the git work tree around ``cwd`` when it holds a state.json, else None."""
    runs = os.path.join(config.autopilot_home(), "runs")
    try:
        names = os.listdir(runs)
    except OSError:
        return None
    if not names:
        return None
    from autopilot.errors import BridgeError
    from autopilot.git import toplevel  # finds `.git` by walking up, without forking git

    try:
        top = toplevel(cwd)
    except BridgeError:  # not in a git repository
        return None
    from autopilot.digest import sha256_hex

    suffix = "-" + sha256_hex(top.encode("utf-8"))[:12]  # paths.run_dir: runs/<slug>-<sha256(realpath)[:12]>
    mine = [os.path.join(runs, name) for name in names if name.endswith(suffix)]
    if not mine:
        return None
    from autopilot.loop.state import Store

    return next((run for run in mine if Store.holds_run(run)), None)


def failed(event: str, exc: BaseException) -> HookAnswer:
    """The fail-open answer to an error: a systemMessage (and a crash-log line for bugs); never a block."""
    from autopilot.errors import BridgeError, unwritable

    exc = unwritable(exc) or exc  # a full or read-only disk is said as it is, not as a bug
    if isinstance(exc, BridgeError):
        return {"systemMessage": f"codex-autopilot: the {event} hook did nothing: {exc}"}
    from autopilot.paths import autopilot_home
    from autopilot.plugin import write_crash_log

    log = write_crash_log(str(autopilot_home()), exc)
    return {
        "systemMessage": f"codex-autopilot: the {event} hook failed ({type(exc).__name__}: {exc}); Claude "
        f"was not blocked. The traceback is in {log}; please report it."
    }
