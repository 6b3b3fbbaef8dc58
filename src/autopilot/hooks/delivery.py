"""What Codex's reviews tell Claude and the person, handed over by the next hook: at least once, and each once.

The review worker records every review in state.json's ``reviews_pending`` (``loop/review_worker.py``); the next hook
that answers for the run (a tool use, the Stop hook, a session's start) hands them over. Their findings go into
Claude's context, and only findings: an approval without any is a line for the person, never the model's business.
Each review is one line for the person ("Codex asks for changes on T1: 2 findings"), and so is the run's plan, once,
after ``/autopilot`` or ``/codex-plan``. A review of a tree that has changed since, or of a task Codex has moved the
run on from, says so.

The reviews leave the pending list only once the hook's answer is written (``hooks.AFTER_ANSWER``), in one
transaction that also records the plan as shown: a hook killed before its answer is out leaves them for the next one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import RESUME
from autopilot.errors import RunChanged
from autopilot.hooks import AFTER_ANSWER, REVIEW_ERROR, review_error_key
from autopilot.hooks.context import PREFIX, TEXT_BUDGET, Hook, alert, cost_text, paused_message
from autopilot.loop import control, status, transitions
from autopilot.loop.findings import findings_text
from autopilot.output import one_line, quoted
from autopilot.text import clip, clip_counted

if TYPE_CHECKING:
    from autopilot.hooks.shapes import HookAnswer
    from autopilot.loop.shapes import LastReview
    from autopilot.loop.state import State

SUMMARY_CHARS = 1_500  # of a reviewer's summary, quoted to Claude
PLAN_LINES = 8  # tasks shown to the person; the rest are counted
CAUTION = "This is a reviewer's opinion of the diff: check it against the code before you act on it."


class Handover:
    """What one hook hands over: findings for Claude, lines for the person, and what to record once they are out."""

    def __init__(
        self, context: str | None, lines: list[str], stamps: list[str], plan: bool, failure: str | None = None
    ) -> None:
        self.context = context  # the findings, for Claude's context (None: nothing for the model)
        self.lines = lines  # for the person, one line each
        self.stamps = stamps  # the pending reviews it hands over (their timestamps)
        self.plan = plan  # it shows the run's plan
        self.failure = failure  # the notices key of the failed review it tells of

    def notice(self) -> str | None:
        """The person's lines as one systemMessage (None: none)."""
        return PREFIX + "\n".join(self.lines) if self.lines else None

    def given_by(self, hook: Hook) -> None:
        """This is in ``hook``'s answer: once the answer is out, its reviews leave the pending list and the plan
        counts as shown (``hooks.AFTER_ANSWER``; nothing when there is nothing to record)."""
        if self.stamps or self.plan or self.failure:
            AFTER_ANSWER.append(lambda: acknowledge(hook, self))

    def plan_with_write(self) -> bool:
        """Whether the plan it shows is to be recorded as shown by a write the hook makes before its answer (the Stop
        hook's block): a display the person can always ask for again (``/codex-status``), so it costs no read of its
        own. The reviews still leave the pending list only once the answer is out."""
        shown, self.plan = self.plan, False
        return shown


def asks_changes(state: State) -> bool:
    """Whether a review not yet handed over asks for changes (its findings go to Claude before any verdict)."""
    return any(r.get("decision") == "request_changes" for r in state.get("reviews_pending") or [])


def handover(hook: Hook, state: State, *, room: int = TEXT_BUDGET) -> Handover | None:
    """What the run ``state`` (as the hook just read it) has to hand over, within ``room`` characters of context for
    Claude; None when nothing. The caller that puts it in its answer says so (:meth:`Handover.given_by`)."""
    pending = state.get("reviews_pending") or []
    notices = state.get("notices") or []
    show_plan = bool(state.get("plan")) and bool(state.get("plan_to_show"))
    failure = review_error_key(state)
    failure = failure if failure not in notices else None
    if not pending and not show_plan and failure is None:
        return None
    lines = [plan_text(state)] if show_plan else []
    tree = current_tree(hook) if any(r.get("issues") for r in pending) else None
    parts: list[str] = []
    stamps: list[str] = []
    used = len(CAUTION) + 2
    for review in pending:
        text = review_text(review, state, tree) if review.get("issues") else None
        if text is not None:
            if used + len(text) + 2 > room:
                if parts:
                    break  # the rest stay pending for the next hook, whole
                text = review_text(
                    review, state, tree, budget=room - used - 2
                )  # alone: what fits, and where the rest is
            parts.append(text)
            used += len(text) + 2
        stamps.append(review["timestamp"])
        lines.append(review_line(review, state, tree))
    if failure is not None:
        lines.append(failure_line(state))
    context = "\n\n".join([*parts, CAUTION]) if parts else None
    return Handover(context, lines, stamps, show_plan, failure)


def acknowledge(hook: Hook, given: Handover) -> None:
    """Record that ``given`` is out: its reviews leave the pending list, the plan counts as shown."""
    with hook.store.transaction() as s:
        transitions.take_pending(s, given.stamps)
        if given.plan:
            s["plan_to_show"] = False
        if given.failure is not None:  # the newest failure replaces the one told before
            s["notices"] = [n for n in s["notices"] if not n.startswith(REVIEW_ERROR)] + [given.failure]


def failure_line(state: State) -> str:
    """One line for the person: the last review failed, and how far the run is from pausing over it."""
    from autopilot.errors import CallBusy

    error = state.get("last_error") or {}
    if error.get("kind") == CallBusy.KIND:
        return "Codex could not review the latest change: a verdict was being asked (this counts toward no pause)"
    return (
        f"Codex could not review the latest change ({one_line(error.get('kind'))}: "
        f"{one_line(error.get('message'), 200)}); failure {state.get('consecutive_errors')} of "
        f"{transitions.INFRA_PAUSE_AFTER} in a row before the run pauses"
    )


def review_line(review: LastReview, state: State, tree: str | None) -> str:
    """One line for the person about one review."""
    task = one_line(review.get("task_id"))
    issues = review.get("issues") or []
    count = f"{len(issues)} finding{'s' if len(issues) != 1 else ''}"
    if review.get("decision") == "request_changes":
        line = f"Codex asks for changes on {task}: {count}"
    else:
        line = f"Codex approves {task}" + (f", with {count}" if issues else "")
    if issues:
        first = issues[0]
        place = str(first.get("file") or "") + (f":{first['line']}" if first.get("line") and first.get("file") else "")
        line += f" ({one_line(place) + ': ' if place else ''}{one_line(first.get('message'), 80)}"
        line += " …)" if len(issues) > 1 else ")"
    return line + stale(review, state, tree, short=True)


def review_text(review: LastReview, state: State, tree: str | None, *, budget: int = TEXT_BUDGET) -> str:
    """A review's findings as Claude reads them, within ``budget`` characters (what does not fit is counted, with the
    review's file): what it reviewed, the reviewer's summary, each finding on a line."""
    task = one_line(review.get("task_id"))
    verb = "asks for changes" if review.get("decision") == "request_changes" else "approves, with notes"
    summary = quoted(clip_counted(str(review.get("summary") or ""), SUMMARY_CHARS))  # the reviewer's words
    head = f"Codex reviewed your changes against task {task} and {verb}{stale(review, state, tree)}. "
    head += f"Its summary: {summary}\nFindings:\n"
    issues = review.get("issues") or []
    return head + findings_text(issues, budget=max(600, budget - len(head)), where=review.get("review_path"))


def stale(review: LastReview, state: State, tree: str | None, *, short: bool = False) -> str:
    """What has changed since ``review`` was made ('' when nothing has): the work tree, or the task."""
    notes = []
    current = state.get("current_task")
    if current and current.get("id") != review.get("task_id"):
        notes.append(f"Codex has since moved the run on to {one_line(current.get('id'))}")
    if tree and review.get("fingerprint") and tree != review.get("fingerprint"):
        when = str(review.get("timestamp") or "")[11:19]
        notes.append(
            "of an earlier state of the work" if short else f"the work has changed since it was reviewed at {when} UTC"
        )
    if not notes:
        return ""
    return f" ({'; '.join(notes)})"


def plan_text(state: State) -> str:
    """The run's plan for the person, in a few lines: each task with its acceptance criteria."""
    plan = state.get("plan")
    tasks = plan["tasks"] if plan else []
    head = f"Codex planned {len(tasks)} task{'s' if len(tasks) != 1 else ''}"
    if state.get("plan_path"):
        head += f" ({one_line(state.get('plan_path'))})"
    lines = [head + ":"]
    for task in tasks[:PLAN_LINES]:
        criteria = "; ".join(one_line(c) for c in task.get("acceptance") or [])
        lines.append(clip(f"  {one_line(task['id'])} {one_line(task.get('title', ''))}: {criteria}", 240))
    if len(tasks) > PLAN_LINES:
        lines.append(f"  … and {len(tasks) - PLAN_LINES} more")
    return "\n".join(lines)


def current_tree(hook: Hook) -> str | None:
    """The work tree's id now (None when git cannot say), to tell a review of an earlier state of the work."""
    from autopilot.errors import BridgeError
    from autopilot.loop.snapshot import work_tree

    try:
        return work_tree(hook.workspace.root, hook.workspace.index_cache)
    except (BridgeError, OSError):
        return None


def told(hook: Hook, state: State) -> HookAnswer | None:
    """Say once what a review in the background did to the run ``state``: paused it (Codex kept failing) or stopped
    it (the budget was spent); None for anything else, or when it was said (``control.UNTOLD``)."""
    if control.UNTOLD not in state["notices"]:
        return None
    error = state.get("last_error") or {}
    if state["status"] == status.PAUSED_REVIEWER_UNAVAILABLE:
        message = paused_message(str(state.get("stop_reason")), str(error.get("message") or ""))
    elif state["status"] == status.STOPPED_BUDGET:
        message = alert(
            f"the autopilot run stopped: {state.get('stop_reason')} ({cost_text(state)}). Claude carries on without "
            f"Codex; raise the cap with `codex-bridge budget set USD`, then {RESUME}."
        )
    else:
        return None
    try:
        with hook.store.transaction(expect=state) as s:
            if control.UNTOLD not in s["notices"]:
                return None
            s["notices"].remove(control.UNTOLD)
    except RunChanged:  # re-planned meanwhile: that run is not this one
        return None
    return message
