"""PostToolUse: note Claude's work for Codex to review in the background, and hand over what reviews found.

The hook never waits for Codex. After an edit (or a Bash command that changed the work tree) it notes that a review
is wanted and starts the run's review worker when none is running (``loop/review_worker.py``: one warm process per
run, one review in flight, edits made meanwhile reviewed together in the next review, of the newest tree), then
returns. What finished reviews found is handed over by whichever hook comes next (``hooks/delivery.py``): findings
into Claude's context, one line per review for the person. Every other tool's hook (:func:`tool_use`, hooks.json's
``*`` group) only hands over, and only when there is anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import config
from autopilot.hooks import REVIEWED_TOOLS as TOOLS  # the dispatcher filters on the same set
from autopilot.hooks import TOOL_MARK
from autopilot.hooks.context import Hook, context
from autopilot.hooks.delivery import handover, told
from autopilot.loop import review_worker, status
from autopilot.loop.state import State

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer

# What a review in the background did to the run (a pause, a spent budget) is told here, once.
ENGAGED = (status.RUNNING, status.PAUSED_REVIEWER_UNAVAILABLE, status.STOPPED_BUDGET)


def post_tool_use(hook: Hook) -> HookAnswer | None:
    """Note the work for a review (starting the worker if needed); hand Claude what finished reviews found."""
    if hook.data.get("tool_name") not in TOOLS:
        return None
    state, refusal = hook.engage(ENGAGED)
    if state is None:
        return refusal
    if state["status"] != status.RUNNING:
        return told(hook, state)
    note_work(hook, state)
    return answer(hook, state)


def tool_use(hook: Hook) -> HookAnswer | None:
    """Any other tool: hand over what finished reviews found, and the plan, when there is anything."""
    state, refusal = hook.engage()
    if state is None:
        return refusal
    return answer(hook, state)


def note_work(hook: Hook, state: State) -> None:
    """Tell the review worker there is work to review (review mode ``edit``), starting it when none runs and the
    work tree changed since it was last reviewed, planned on or judged (one look at git, only then)."""
    if config.review_mode() != "edit":
        return
    store, root = hook.store, hook.workspace.root
    mark = str(store.dir / TOOL_MARK)
    claude = config.env("CLAUDE_PID")
    pid = int(claude) if claude and claude.isdigit() else None
    if not review_worker.running(store):
        from autopilot.loop.snapshot import work_tree

        last = state.get("last_review")
        seen = {state.get("plan_tree"), state.get("verdict_tree"), last.get("fingerprint") if last else None}
        if work_tree(root, hook.workspace.index_cache) in seen - {None}:
            return
    review_worker.poke(store, root, claude_pid=pid, tool_mark=mark)


def answer(hook: Hook, state: State) -> HookAnswer | None:
    """What the hook hands over now: findings as context for Claude, lines for the person; None when nothing."""
    given = handover(hook, state)
    if given is None:
        return None
    given.given_by(hook)
    out: HookAnswer = context("PostToolUse", given.context) if given.context else {}
    note = given.notice()
    if note:
        out["systemMessage"] = note
    return out
