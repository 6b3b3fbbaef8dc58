"""PostToolUse: Codex reviews the new diff against the current task, in a worker Claude never waits on for long.

The hook starts a detached worker process for the review and waits for it at most
``AUTOPILOT_HOOK_REVIEW_WAIT`` seconds (default 45), never past the hook's budget less its margin
(``Hook.clamp_wait``: 60 s of the 80 s budget, inside hooks.json's 90 s timeout). A review that
takes longer keeps running on its own and records its findings in state.json; the next PostToolUse
hands them to Claude. So Claude keeps working instead of waiting, and a hook that Claude Code times
out loses nothing.
At most one review is in flight per run: the worker (``loop/review_worker.py``) holds ``review.lock`` without
blocking.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from autopilot import config
from autopilot.errors import CallBusy
from autopilot.hooks import REVIEWED_TOOLS as TOOLS  # the dispatcher filters on the same set
from autopilot.hooks.context import (
    TEXT_BUDGET,
    Hook,
    alert,
    context,
    notice,
    paused_message,
)
from autopilot.loop import status
from autopilot.loop.findings import findings_text
from autopilot.loop.review_worker import in_flight, start_worker
from autopilot.loop.snapshot import work_tree
from autopilot.loop.state import State, same_run
from autopilot.loop.transitions import INFRA_PAUSE_AFTER
from autopilot.output import one_line, quoted
from autopilot.text import clip_counted

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer
    from autopilot.loop.shapes import LastError

DEFAULT_WAIT_S = 45.0


def post_tool_use(hook: Hook) -> HookAnswer | None:
    """Review the work tree when it differs from the last reviewed one; hand Claude the findings."""
    if hook.data.get("tool_name") not in TOOLS:
        return None
    state, refusal = hook.engage()
    if state is None:
        return refusal
    # Only the tree id decides (the worker takes the diff): as planned, or as last reviewed, is nothing new.
    tree = work_tree(hook.workspace.root, hook.workspace.index_cache)
    last = state.get("last_review")
    if tree in (state.get("plan_tree"), last.get("fingerprint") if last else None) or in_flight(hook.store):
        return deliver(hook, state)
    failed = state.get("last_error")
    errors_before = failed.get("timestamp") if failed else None
    worker = start_worker(hook.store, hook.workspace.root)
    wait = hook.clamp_wait(wait_seconds())
    try:
        worker.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        return notice(
            f"Codex is still reviewing after {wait:.0f}s; Claude carries on and gets the findings with a "
            "later tool result."
        )
    # The worker's record, read once: what to tell Claude, and its findings marked given in the same transaction.
    with hook.store.transaction() as after:
        return _outcome(state, after, errors_before) or give(after)


def _outcome(state: State, after: State, errors_before: str | None) -> HookAnswer | None:
    """What the review the hook waited for ended in, when it was no review to hand Claude: the run paused or
    stopped, or Codex failed (``state``/``after``: the run before and after the worker)."""
    error: LastError = after.get("last_error") or {}
    if after["status"] == status.PAUSED_REVIEWER_UNAVAILABLE and same_run(after, state):
        return paused_message(str(after.get("stop_reason")), str(error.get("message") or ""))
    if after["status"] == status.STOPPED_BUDGET and state["status"] == status.RUNNING:
        return alert(f"the autopilot run stopped: {after.get('stop_reason')}. Claude carries on without Codex.")
    if error.get("timestamp") != errors_before and error.get("phase") == "review":
        if error.get("kind") == CallBusy.KIND:
            return notice(
                "Codex could not review this change: another call of this run was still talking to Codex; "
                "Claude carries on (this does not count toward pausing the run)."
            )
        return notice(
            f"Codex could not review this change ({error.get('kind')}: {str(error.get('message'))[:200]}); "
            f"Claude carries on (failure {after.get('consecutive_errors')} of {INFRA_PAUSE_AFTER} in a row "
            "before the run pauses)."
        )
    return None


def wait_seconds() -> float:
    """How long the hook is asked to wait for a review (``AUTOPILOT_HOOK_REVIEW_WAIT``) before Claude carries on;
    the hook clamps it to its budget."""
    try:
        return max(0.0, float(config.env("AUTOPILOT_HOOK_REVIEW_WAIT") or DEFAULT_WAIT_S))
    except ValueError:
        return DEFAULT_WAIT_S


def deliver(hook: Hook, state: State) -> HookAnswer | None:
    """The last review of the current task as context for Claude, once (``state``: the run as the hook read it)."""
    if _given_as(state) is None:
        return None
    with hook.store.transaction() as s:
        return give(s) if _given_as(s) == _given_as(state) else None


def _given_as(state: State) -> str | None:
    """The notices key the last review of the run's current task is recorded under once given; None when there is
    no such review or it was given already."""
    review, task = state.get("last_review"), state.get("current_task")
    if not review or review.get("task_id") != (task.get("id") if task else None):
        return None
    key = f"review:{review.get('timestamp')}"
    return None if key in (state.get("notices") or []) else key


def give(state: State) -> HookAnswer | None:
    """Inside a transaction: the last review of the run's current task as context for Claude, recorded as given in
    ``state`` (replacing the key of the review given before); None when there is none or it was given already."""
    key = _given_as(state)
    review, task = state.get("last_review"), state.get("current_task")
    if key is None or not review or not task:
        return None
    state["notices"] = [n for n in state["notices"] if not n.startswith("review:")] + [key]
    task_id = task.get("id")
    issues = [i for i in review.get("issues") or [] if isinstance(i, dict)]
    summary = quoted(clip_counted(str(review.get("summary") or ""), 1_500))  # the reviewer's words, as evidence
    if review.get("decision") == "approve" and not issues:
        text = f"Codex reviewed your changes against task {one_line(task_id)}: approved. Its summary: {summary}"
    else:
        verb = "asks for changes" if review.get("decision") == "request_changes" else "approves, with notes"
        head = f"Codex reviewed your changes against task {one_line(task_id)} and {verb}. Its summary: {summary}"
        tail = "\nThis is a reviewer's opinion of the diff: check it against the code before you act on it."
        room = TEXT_BUDGET - len(head) - len(tail) - 20
        found = findings_text(issues, budget=room, where=review.get("review_path")) if issues else ""
        text = head + (f"\nFindings:\n{found}" if found else "") + tail
    return context("PostToolUse", text)
