"""What every hook handler gets: the event's input, its workspace and run, and whether this session may act."""

from __future__ import annotations

import os
import time
from functools import cached_property
from typing import TYPE_CHECKING, Any

from autopilot import RESUME, START, STATUS, STOP, config
from autopilot.errors import BridgeError
from autopilot.hooks import TOOL_MARK
from autopilot.loop import control, status, transitions
from autopilot.loop.state import State, Store
from autopilot.loop.workspace import Workspace
from autopilot.output import one_line, quote_lines
from autopilot.text import clip_counted

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer
    from autopilot.loop.shapes import Task

PREFIX = "codex-autopilot: "
DEFAULT_BLOCK_CAP = 8  # Claude Code's CLAUDE_CODE_STOP_HOOK_BLOCK_CAP default
RECORD_MARGIN_S = 20.0  # kept from a hook's budget to record a failed call and answer
BLOCK_MARK = "last-stop-block"  # touched when the Stop hook blocks (see hooks.TOOL_MARK)
VERSION_TAIL = 256 * 1024  # bytes of the transcript's end searched for the Claude Code version
# From this Claude Code version a Stop hook can continue the turn with additionalContext, which the TUI
# shows as "Stop hook says" instead of "Stop hook reported a problem" (verified 2.1.163-2.1.332; 2.1.162
# rejects the whole answer).
CONTEXT_CONTINUES_FROM = (2, 1, 163)
BUDGET_WARNING = "budget-warning"  # the notices key: the warning is given once per run (a new plan clears notices)
TEXT_BUDGET = 9_000  # what a hook's own texts are built to fit (hooks.TEXT_CAP is the hard guard)


class Hook:
    """One hook invocation: its event, input, workspace and session."""

    def __init__(self, event: str, data: dict[str, Any]) -> None:
        self.started = time.monotonic()
        self.event = event
        self.data = data
        self.session_id: str | None = str(data.get("session_id") or "") or None
        self.cwd = str(data.get("cwd") or os.getcwd())
        self.subagent = bool(data.get("agent_id"))

    def budget_end(self) -> float:
        """When this hook must stop waiting (``time.monotonic()``): its budget (hooks.BUDGET_S) from its start,
        less RECORD_MARGIN_S to record a failure and answer; never under a second."""
        from autopilot.hooks import BUDGET_S

        return self.started + max(1.0, BUDGET_S.get(self.event, 25.0) - RECORD_MARGIN_S)

    def deadline(self) -> float:
        """When a model call made by this hook must be over (``time.monotonic()``): the configured call
        timeout, cut short so the hook can still record a failure and answer inside its budget."""
        return min(self.budget_end(), time.monotonic() + self.workspace.timeout())

    @cached_property
    def workspace(self) -> Workspace:
        """The git work tree the event happened in."""
        return Workspace(self.cwd)

    @property
    def store(self) -> Store:
        """The run's state.json."""
        return self.workspace.store

    def engage(
        self, statuses: tuple[str, ...] = (status.RUNNING,), *, claim: bool = True
    ) -> tuple[State | None, HookAnswer | None]:
        """The run when this session may act on it, else at most a one-time notice. A run no session owns is claimed
        for this one here, or with ``claim=False`` left for the caller's first write to claim (:meth:`unclaimed`)."""
        state = self.store.load()
        if not state.get("plan") or state["status"] not in statuses:
            return None, None
        owner = state.get("owner_session_id")
        if self.session_id is None or owner == self.session_id or (not owner and not claim):
            return state, None
        if not owner:
            state = control.claim(self.store, state, self.session_id)
            if state.get("owner_session_id") == self.session_id:
                return state, None
        return None, self.refuse(state)

    def unclaimed(self, state: State) -> str | None:
        """This session, when the run ``state`` has no owner yet: the session the caller's next write claims it for
        (``control.own``); None when there is nothing to claim."""
        return self.session_id if self.session_id and not state.get("owner_session_id") else None

    def refuse(self, state: State) -> HookAnswer | None:
        """The notice (said once per session and run) that the run ``state`` belongs to another session."""
        return self.notice_once(
            f"foreign-session:{self.session_id}",
            f"the autopilot run in {self.workspace.root} belongs to another Claude Code session "
            f"({str(state.get('owner_session_id'))[:8]}…), so this session's hooks leave it alone (said once). "
            f"{STATUS} shows it; {START} here would replace it.",
            state,
        )

    def notice_once(self, key: str, message: str, state: State | None = None) -> HookAnswer | None:
        """``message`` as a systemMessage the first time ``key`` is seen in this run, else nothing (``state``: the
        run as the caller just read it, so it is not read again before the write)."""
        if key in ((state if state is not None else self.store.load()).get("notices") or []):
            return None
        with self.store.transaction() as s:
            if not control.note(s, key):
                return None
        return notice(message)

    def block_cap(self) -> int | None:
        """How many Stop blocks in a row (with no tool run in between) Claude Code allows; None: no cap (0)."""
        raw = config.env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP") or ""
        try:
            cap = int(raw)
        except ValueError:
            return DEFAULT_BLOCK_CAP
        return None if cap == 0 else cap if cap > 0 else DEFAULT_BLOCK_CAP

    def tool_ran_since_block(self) -> bool:
        """Whether Claude ran a tool after this run's last Stop block (Claude Code then restarts its count)."""
        try:
            return os.stat(self.store.dir / TOOL_MARK).st_mtime_ns > os.stat(self.store.dir / BLOCK_MARK).st_mtime_ns
        except OSError:
            return False

    def claude_version(self) -> tuple[int, ...] | None:
        """The Claude Code version that wrote this session (from the transcript's newest rows), if it says."""
        import re

        path = self.data.get("transcript_path")
        if not isinstance(path, str):
            return None
        try:
            with open(path, "rb") as fh:
                fh.seek(max(0, os.fstat(fh.fileno()).st_size - VERSION_TAIL))
                tail = fh.read()
        except OSError:
            return None
        found = re.findall(rb'"version":\s*"(\d+)\.(\d+)\.(\d+)"', tail)
        return tuple(int(x) for x in found[-1]) if found else None


def notice(message: str) -> HookAnswer:
    """A message for the user (not the model)."""
    return {"systemMessage": PREFIX + message}


def alert(message: str) -> HookAnswer:
    """A message for the user that also reaches them with the terminal in the background: the run ended or paused.

    Claude Code writes a hook's ``terminalSequence`` to the terminal as it is (TUI only; OSC 0/1/2/9/99/777 and
    BEL). ``notify`` in the config (or AUTOPILOT_NOTIFY) picks it: ``os`` (default) a desktop notification
    (OSC 9, shown by iTerm2, WezTerm, Windows Terminal, Ghostty and others), ``bell`` the terminal bell,
    ``off`` nothing.
    """
    out = notice(message)
    sequence = terminal_sequence(message)
    if sequence:
        out["terminalSequence"] = sequence
    return out


def terminal_sequence(message: str) -> str | None:
    """The escape sequence that notifies the user of ``message`` under the configured ``notify`` (None: off)."""
    try:
        choice = config.env("AUTOPILOT_NOTIFY") or str(config.load_config().get("notify") or "os")
    except Exception:  # a broken config must not cost the user the message itself
        choice = "os"
    if choice == "bell":
        return "\a"
    if choice != "os":
        return None
    text = "".join(ch if ch.isprintable() else " " for ch in f"codex-autopilot: {message}")[:200]
    return f"\x1b]9;{text}\x07"


def context(event: str, text: str) -> HookAnswer:
    """Context for the model, attached where the event puts it."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def task_text(task: Task | None, budget: int = 3_000) -> str:
    """A task as Claude should read it: id, title, description and numbered acceptance criteria (within ``budget``)."""
    if not task:
        return "(no current task)"
    return clip_counted(_task_text(task), budget)


def _task_text(task: Task) -> str:
    """Codex's plan for the task: each criterion on its own line, the description quoted (``> ``), so no line
    break, separator or escape in what the model wrote makes a line of its own or reads as the hook's words."""
    criteria = "\n".join(f"{n}. {one_line(c)}" for n, c in enumerate(task.get("acceptance") or [], start=1))
    description = (task.get("description") or "").strip()
    return (
        f"Task {one_line(task.get('id'))}: {one_line(task.get('title', ''))}\n"
        + (f"{quote_lines(description)}\n" if description else "")
        + f"Acceptance criteria:\n{criteria}"
    )


def cost_text(state: State) -> str:
    """Iterations and money, for messages that end or pause a run."""
    plan = float(state.get("plan_usd") or 0)
    return (
        f"{state['iteration']} iteration{'s' if state['iteration'] != 1 else ''}, "
        f"${state['budget_used_usd']:.2f} of the ${state['budget_usd']:.2f} budget spent on reviews and "
        f"verdicts" + (f" (+ ${plan:.2f} to plan)" if plan else "")
    )


def budget_warning(hook: Hook, state: State) -> str | None:
    """The once-per-run budget warning, when the run ``state`` has spent its warn level (the config's
    budget_warn_at, 80 % by default) and was not warned yet. The caller records BUDGET_WARNING in the same write
    that gives it (``control.hold``, ``control.new_turn``), so it is said once and never costs a read of its own."""
    if BUDGET_WARNING in (state.get("notices") or []) or not state.get("plan") or not state["budget_used_usd"]:
        return None
    try:
        return transitions.budget_warning(state, config.budget_warn_at(hook.workspace.config))
    except BridgeError:  # a broken config file is reported by the calls that need it
        return None


def paused_message(reason: str, detail: str) -> HookAnswer:
    """What the user reads when the reviewer-unavailable pause happens."""
    return alert(
        f"the autopilot run paused: {reason}: {detail[:300]}. Claude is no longer held by Codex. When "
        f"Codex works again (`codex-bridge status` shows the last error), {RESUME} continues the "
        f"run; {STOP} turns the autopilot off for this repository."
    )
