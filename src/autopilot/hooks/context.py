"""What every hook handler gets: the event's input, its workspace and run, and whether this session may act."""

from __future__ import annotations

import os
import time
from functools import cached_property
from typing import Any

from autopilot.run import loop
from autopilot.run.state import State, Store
from autopilot.run.workspace import Workspace

Output = dict[str, Any]
PREFIX = "codex-autopilot: "
# Consecutive infrastructure failures (timeouts, a missing binary, quota...) before the run pauses.
INFRA_PAUSE_AFTER = 3
DEFAULT_BLOCK_CAP = 8  # Claude Code's CLAUDE_CODE_STOP_HOOK_BLOCK_CAP default
RECORD_MARGIN_S = 20.0  # kept from a hook's budget to record a failed call and answer


class Hook:
    """One hook invocation: its event, input, workspace and session."""

    def __init__(self, event: str, data: dict[str, Any]) -> None:
        self.started = time.monotonic()
        self.event = event
        self.data = data
        self.session_id: str | None = str(data.get("session_id") or "") or None
        self.cwd = str(data.get("cwd") or os.getcwd())
        self.subagent = bool(data.get("agent_id"))

    def deadline(self) -> float:
        """When a model call made by this hook must be over (``time.monotonic()``): the configured call
        timeout, cut short so the hook can still record a failure and answer inside its budget."""
        from autopilot.hooks import BUDGET_S

        budget = BUDGET_S.get(self.event, 25.0) - RECORD_MARGIN_S
        return min(self.started + max(1.0, budget), time.monotonic() + self.workspace.timeout())

    @cached_property
    def workspace(self) -> Workspace:
        """The git work tree the event happened in."""
        return Workspace(self.cwd)

    @property
    def store(self) -> Store:
        """The run's state.json."""
        return self.workspace.store

    def engage(self, statuses: tuple[str, ...] = (loop.RUNNING,)) -> tuple[State | None, Output | None]:
        """The run when this session may act on it (claiming an unowned one), else at most a one-time notice."""
        state = self.store.load()
        if not state.get("plan") or state["status"] not in statuses:
            return None, None
        owner = state.get("owner_session_id")
        if self.session_id is None or owner == self.session_id:
            return state, None
        if not owner:
            with self.store.transaction() as s:
                if s.get("run_id") == state.get("run_id") and not s.get("owner_session_id"):
                    s["owner_session_id"] = self.session_id
                owner = s.get("owner_session_id")
                state = dict(s)
            if owner == self.session_id:
                return state, None
        return None, self.notice_once(
            f"foreign-session:{self.session_id}",
            f"the autopilot run in {self.workspace.root} belongs to another Claude Code session "
            f"({str(owner)[:8]}…), so this session's hooks leave it alone (said once). /codex-status shows it; "
            "/autopilot <goal> here would replace it.",
        )

    def notice_once(self, key: str, message: str) -> Output | None:
        """``message`` as a systemMessage the first time ``key`` is seen in this run, else nothing."""
        if key in (self.store.load().get("notices") or []):
            return None
        with self.store.transaction() as s:
            if key in s["notices"]:
                return None
            s["notices"].append(key)
        return notice(message)

    def block_cap(self) -> int:
        """How many consecutive Stop blocks Claude Code allows before it ends the turn itself."""
        raw = os.environ.get("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "")
        try:
            cap = int(raw)
        except ValueError:
            return DEFAULT_BLOCK_CAP
        return cap if cap > 0 else DEFAULT_BLOCK_CAP


def notice(message: str) -> Output:
    """A message for the user (not the model)."""
    return {"systemMessage": PREFIX + message}


def context(event: str, text: str, **extra: Any) -> Output:
    """Context for the model, attached where the event puts it."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}, **extra}


def task_text(task: dict[str, Any] | None) -> str:
    """A task as Claude should read it: id, title, description and numbered acceptance criteria."""
    if not task:
        return "(no current task)"
    criteria = "\n".join(f"{n}. {c}" for n, c in enumerate(task.get("acceptance") or [], start=1))
    description = (task.get("description") or "").strip()
    return (
        f"Task {task.get('id')}: {task.get('title', '')}\n"
        + (f"{description}\n" if description else "")
        + f"Acceptance criteria:\n{criteria}"
    )


def open_findings(state: State) -> list[dict[str, Any]]:
    """The last review's findings when they concern the current task and asked for changes."""
    review = state.get("last_review") or {}
    task = state.get("current_task") or {}
    if review.get("task_id") != task.get("id") or review.get("decision") != "request_changes":
        return []
    return [i for i in review.get("issues") or [] if isinstance(i, dict)]


def findings_text(issues: list[dict[str, Any]]) -> str:
    """Review findings, one line each: severity, place, message."""
    lines = []
    for issue in issues:
        where = issue.get("file") or ""
        if where and issue.get("line"):
            where += f":{issue['line']}"
        lines.append(f"- [{issue.get('severity', '?')}] {where + ': ' if where else ''}{issue.get('message', '')}")
    return "\n".join(lines)


def cost_text(state: State) -> str:
    """Iterations and money, for messages that end or pause a run."""
    plan = float(state.get("plan_usd") or 0)
    return (
        f"{state['iteration']} iteration{'s' if state['iteration'] != 1 else ''}, "
        f"${state['budget_used_usd']:.2f} of the ${state['budget_usd']:.2f} budget spent on reviews and "
        f"verdicts" + (f" (+ ${plan:.2f} to plan)" if plan else "")
    )


def pause(store: Store, run_id: str | None, status: str, reason: str) -> State | None:
    """Set a still-running run to a paused status with its reason; the run after, or None if it had moved on."""
    with store.transaction() as s:
        if s.get("run_id") != run_id or s["status"] != loop.RUNNING:
            return None
        s.update(status=status, stop_reason=reason, consecutive_blocks=0)
        return dict(s)
