"""The autopilot state machine: what plan, review, verdict, budget-guard, pause, resume and stop do to a run.

These are pure functions over the state dict, applied inside ``Store.transaction()``; they
keep the semantics of the original Node bridge's plan / review / verdict / budget-guard / stop
commands (whose state.json files this bridge still reads), plus the
bridge's own counters (errors, ownership, Stop blocks, cost of the plan).
Invariant: a run's ``status`` is assigned here and nowhere else (``tests/unit/test_architecture.py``).
``loop/control.py`` applies pause, resume, stop, the budget guard and the Stop-block count; the plan and
verdict operations, and ``Workspace.record_failure`` for a failed call, apply their own transitions.
"""

from __future__ import annotations

from autopilot.clock import now_us
from autopilot.loop import status
from autopilot.loop.migrations import State, empty_usage

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the hot path
if TYPE_CHECKING:
    from collections.abc import Callable, Collection

    from autopilot.loop.backends import Usage
    from autopilot.loop.reviewer import Answer
    from autopilot.loop.shapes import Forecast, LastReview, PhaseUsage, Plan, Review, Task, Verdict

# Consecutive infrastructure failures (timeouts, a missing binary, quota...) before the run pauses.
INFRA_PAUSE_AFTER = 3
# Reviews kept for the next hook to hand over. Each review follows an edit whose own hook hands over what came
# before, so more only pile up for reviews no hook ran after (`codex-bridge review` again and again).
MAX_PENDING = 8


def charge(state: State, phase: str, usage: Usage, usd: float, calls: int) -> None:
    """Add one exchange's tokens and cost to the run (token_usage[phase] and budget_used_usd)."""
    from autopilot.loop.budget import add_usd

    bucket = _bucket(state, phase)
    bucket["input"] += usage.input
    bucket["cached"] += usage.cached
    bucket["output"] += usage.output
    bucket["calls"] += calls
    state["budget_used_usd"] = add_usd(state["budget_used_usd"], usd)


def _bucket(state: State, phase: str) -> PhaseUsage:
    """The token counters of ``phase`` (one of migrations.PHASES)."""
    usage = state["token_usage"]
    return {"plan": usage["plan"], "review": usage["review"], "verdict": usage["verdict"]}[phase]


def settle(state: State, phase: str, answer: Answer) -> None:
    """After a usable answer: charge it, note an unpriced model, clear the failure counts, keep the conversation.

    The conversation is kept only when it lives on the run's own backend (ids do not cross backends) and is still the
    run's: a fresh one always is.
    """
    charge(state, phase, answer.usage, answer.usd, answer.calls)
    note_unknown_model(state, answer.unknown_model)
    state["consecutive_errors"] = 0
    if phase == "verdict":
        state["verdict_errors"] = 0
    # A call that continued a conversation the run has since left (a verdict beside it started a fresh one) leaves
    # the run's conversation as it is.
    moved_on = answer.continued is not None and state.get("conversation_id") not in (None, answer.continued)
    if answer.conversation_id and state.get("backend") == answer.backend and not moved_on:
        state["conversation_id"] = answer.conversation_id
        track_conversation(state, answer)


def track_conversation(state: State, answer: Answer) -> None:
    """Keep count of the history the run's conversation would carry into its next call.

    The provider's count of the conversation after the call (``context_tokens``) less what a call of it
    counts that is not history (``conversation_base``: instructions, tools, output format), measured on a
    conversation's first call as its size less what that exchange sent and got back. Without the provider's
    count, the exchange's own tokens are added up. A conversation first seen mid-way (an older run) has no
    base: its whole size counts, which restarts it sooner rather than later.
    """
    if answer.fresh:
        state["conversation_tokens"], state["conversation_base"] = 0, None
        if answer.restarted:
            state["conversation_restarts"] += 1
        if answer.context_tokens is not None:
            state["conversation_base"] = max(0, answer.context_tokens - answer.exchanged_tokens)
    if answer.context_tokens is None:
        state["conversation_tokens"] += answer.exchanged_tokens
    else:
        state["conversation_tokens"] = max(0, answer.context_tokens - (state["conversation_base"] or 0))


def history_full(state: State, limit: int) -> bool:
    """Whether the run's conversation carries ``limit`` tokens of history or more (0: no limit): then the next
    call starts a fresh conversation, seeded from the run's state (``Workspace.consult``)."""
    return limit > 0 and int(state.get("conversation_tokens") or 0) >= limit


def room_beside(state: State) -> bool:
    """Whether a call may start while another call of the run is in flight: the budget left covers twice what the
    run's calls cost so far, the dearest way of counting (the plan's call, or the average review or verdict), so
    the two together stay under the cap. Nearer the cap, calls take turns and the call that crosses it is the last."""
    calls = sum(int(state["token_usage"][phase]["calls"]) for phase in ("review", "verdict"))
    average = float(state["budget_used_usd"]) / calls if calls else 0.0
    per_call = max(float(state.get("plan_usd") or 0.0), average)
    return float(state["budget_usd"]) - float(state["budget_used_usd"]) >= 2 * per_call


def over_budget(state: State) -> bool:
    """Whether the run has already spent its whole budget."""
    return float(state["budget_used_usd"]) >= float(state["budget_usd"])


def forecast(state: State) -> Forecast | None:
    """Spend per iteration so far × iterations left: what the run will have spent by its iteration limit, and
    how many more iterations its budget pays for at that rate; None before the first verdict."""
    iteration = int(state.get("iteration") or 0)
    if not state.get("plan") or iteration <= 0:
        return None
    used, budget = float(state["budget_used_usd"]), float(state["budget_usd"])
    per = used / iteration
    left = max(0, int(state["max_iterations"]) - iteration)
    at_limit = used + per * left
    return {
        "usd_per_iteration": round(per, 6),
        "iterations_left": left,
        "usd_at_limit": round(at_limit, 6),
        "over_budget": at_limit > budget,
        # (a hair of slack: $0.40 left at $0.40 an iteration is one more, whatever the float sums say)
        "iterations_affordable": int(max(0.0, budget - used) / per + 1e-9) if per > 0 else None,
    }


def budget_warning(state: State, warn_at: float) -> str | None:
    """What to tell the user once the run has spent ``warn_at`` percent of its budget (0: never), else None."""
    used, budget = float(state["budget_used_usd"]), float(state["budget_usd"])
    if warn_at <= 0 or not state.get("plan") or used < budget * warn_at / 100:
        return None
    text = f"the autopilot run has spent ${used:.2f} of its ${budget:.2f} budget ({100 * used / budget:.0f}%)"
    ahead = forecast(state)
    if ahead and ahead["iterations_affordable"] is not None:
        more = min(ahead["iterations_affordable"], ahead["iterations_left"])
        per = f"; at ${ahead['usd_per_iteration']:.2f} an iteration"
        text += (
            f"{per}, the ${max(0.0, budget - used):.2f} left may not pay for another"
            if more == 0
            else f"{per}, {more} more iteration{'s' if more != 1 else ''} fit before it stops"
        )
    return text + ". `codex-bridge budget set USD` raises the cap (said once per run)."


def note_unknown_model(state: State, model: str | None) -> None:
    """Remember a model without a price, so status can flag it (once per model)."""
    if model and model not in state["unknown_models"]:
        state["unknown_models"].append(model)


def apply_plan(
    state: State,
    *,
    run_id: str,
    goal: str,
    plan: Plan,
    plan_path: str,
    conversation_id: str | None,
    base_sha: str | None,
    plan_tree: str | None,
    budget_usd: float,
    max_iterations: int,
    no_progress_threshold: int,
    backend: str,
    model: str | None,
    owner_session_id: str | None,
    usage: Usage,
    usd: float,
    calls: int,
    effort: str | None = None,
    min_rate_limit_left: float | None = None,
) -> None:
    """cmdPlan: reset the whole run around a new plan; the first task becomes current.

    ``run_id`` is the one the plan's calls were logged with in events.jsonl (see :func:`new_run_id`). A plan made
    from a Claude Code session (``owner_session_id``) is still to be shown to the person (the next hook shows it); one
    made anywhere else was printed to whoever asked for it.
    """
    state.update(
        {
            "run_id": run_id,
            "goal": goal,
            "plan_path": plan_path,
            "plan": plan,
            "conversation_id": conversation_id,
            "conversation_tokens": 0,
            "conversation_base": None,
            "conversation_restarts": 0,
            "current_task": plan["tasks"][0],
            "tasks_done": [],
            "base_sha": base_sha,
            "plan_tree": plan_tree,
            "plan_to_show": bool(owner_session_id),
            "iteration": 0,
            "no_progress_streak": 0,
            "status": status.RUNNING,
            "budget_used_usd": 0.0,
            "budget_usd": budget_usd,
            "max_iterations": max_iterations,
            "no_progress_threshold": no_progress_threshold,
            "backend": backend,
            "model": model,
            "effort": effort,
            "min_rate_limit_left": min_rate_limit_left,
            "owner_session_id": owner_session_id,
            "last_review": None,
            "reviews_pending": [],
            "last_verdict": None,
            "verdict_tree": None,
            "stop_reason": None,
            "last_error": None,
            "consecutive_errors": 0,
            "verdict_errors": 0,
            "consecutive_blocks": 0,
            "notices": [],
            "plan_usd": usd,
            "created_at": now_us(),
        }
    )
    state["token_usage"] = {"plan": empty_usage(), "review": empty_usage(), "verdict": empty_usage()}
    bucket = state["token_usage"]["plan"]
    bucket.update({"input": usage.input, "cached": usage.cached, "output": usage.output, "calls": calls})


def new_run_id() -> str:
    """A fresh run id, made before the plan's call so its events.jsonl lines name the run they start."""
    import uuid

    return uuid.uuid4().hex


def apply_review(
    state: State,
    review: Review,
    *,
    task_id: str,
    base_sha: str | None,
    head_sha: str | None,
    fingerprint: str,
    review_path: str | None,
) -> None:
    """cmdReview: record the review, and keep it for the next hook to hand over (``reviews_pending``); never touches
    current_task, base_sha, status or iteration."""
    record: LastReview = {
        "task_id": task_id,
        "decision": review["decision"],
        "summary": review["summary"],
        "issues_count": len(review["issues"]),
        "issues": review["issues"],
        "base_sha": base_sha,
        "head_sha": head_sha,
        "fingerprint": fingerprint,
        "timestamp": now_us(),
        "review_path": review_path,
    }
    state["last_review"] = record
    pending = [*state["reviews_pending"], record.copy()]
    while len(pending) > MAX_PENDING:  # only reviews no hook ever ran after: the approvals go first
        del pending[next((n for n, r in enumerate(pending) if not r.get("issues")), 0)]
    state["reviews_pending"] = pending


def take_pending(state: State, stamps: Collection[str]) -> None:
    """Forget the pending reviews recorded at ``stamps``: their outcome is out (the answer that carried it was
    written); pending reviews recorded since stay."""
    state["reviews_pending"] = [r for r in state["reviews_pending"] if r["timestamp"] not in stamps]


def work_fingerprint(tree: str, task_id: str | None, review: LastReview | None) -> str:
    """What counts as progress: the work tree, the task, and the open findings, hashed together."""
    import hashlib

    findings = "" if not review else f"{review.get('decision')}:{review.get('issues_count')}"
    return hashlib.sha256(f"{tree}|{task_id}|{findings}".encode()).hexdigest()[:16]


def apply_verdict(
    state: State,
    verdict: Verdict,
    *,
    head_sha: str | None,
    fingerprint: str,
    verdict_path: str | None,
    tree: str | None = None,
) -> None:
    """cmdVerdict: advance the run by Codex's decision, the no-progress streak and the iteration limit (``tree``:
    the work tree the verdict judged)."""
    state["verdict_tree"] = tree
    previous = state.get("last_verdict")
    # Codex saying "progressed" does not make an unchanged work tree progress.
    progressed = bool(verdict["progressed"]) and fingerprint != (previous.get("fingerprint") if previous else None)
    state["iteration"] += 1
    state["last_verdict"] = {
        "decision": verdict["decision"],
        "reason": verdict["reason"],
        "timestamp": now_us(),
        "verdict_path": verdict_path,
        "progressed": progressed,
        "next_task_id": verdict.get("next_task_id"),
        "fingerprint": fingerprint,
    }
    decision = verdict["decision"]
    current = state.get("current_task")
    done_id = current.get("id") if current else None
    met = bool(verdict["criteria"]) and all(c["met"] for c in verdict["criteria"])
    moved_on = decision == "continue" and verdict.get("next_task_id") not in (None, done_id)
    if done_id and done_id not in state["tasks_done"] and (decision == "done" or (met and moved_on)):
        state["tasks_done"].append(done_id)
    if decision == "done":
        state["status"] = status.DONE
        state["no_progress_streak"] = 0
        return
    if decision == "abort":
        state["status"] = status.ABORTED
        state["stop_reason"] = verdict["reason"]
        state["no_progress_streak"] = 0
        return
    next_id = verdict.get("next_task_id")
    if next_id:
        state["current_task"] = task_by_id(state, next_id) or state["current_task"]
    state["base_sha"] = head_sha
    if progressed:
        state["no_progress_streak"] = 0
    else:
        state["no_progress_streak"] += 1
        if state["no_progress_streak"] >= state["no_progress_threshold"]:
            state["status"] = status.ABORTED
            state["stop_reason"] = f"no progress for {state['no_progress_streak']} iterations (forced abort)"
            return
    if state["iteration"] >= state["max_iterations"]:
        state["status"] = status.STOPPED_ITERATION_LIMIT
        state["stop_reason"] = f"reached max_iterations ({state['max_iterations']})"


def findings_first(state: State, verdict: Verdict) -> bool:
    """Whether ``verdict`` must wait: it would end the run (done, abort) while a review's request for changes has not
    reached Claude yet (one that finished while Codex decided). Claude gets the findings first; the next Stop asks
    again, with that review in its evidence."""
    return verdict["decision"] in ("done", "abort") and any(
        r.get("decision") == "request_changes" for r in state["reviews_pending"]
    )


def task_by_id(state: State, task_id: str) -> Task | None:
    """The plan's task with this id, if there is one."""
    for task in _tasks(state):
        if task.get("id") == task_id:
            return task.copy()
    return None


def _tasks(state: State) -> list[Task]:
    """The plan's tasks (none before a plan)."""
    plan = state.get("plan")
    return (plan.get("tasks") or []) if plan else []


def check_plan(plan: Plan) -> str | None:
    """Why a plan cannot be used, or None."""
    tasks = plan.get("tasks") or []
    if not tasks:
        return "the plan has no tasks; give at least one"
    ids = [t["id"].strip() for t in tasks]
    if any(not i for i in ids) or len(set(ids)) != len(ids):
        return "every task needs a unique, non-empty id"
    missing = [t["id"] for t in tasks if not [a for a in t["acceptance"] if a.strip()]]
    if missing:
        return f"tasks {', '.join(missing)} have no acceptance criteria; each task needs at least one"
    return None


def _norm(text: str) -> str:
    import re

    # Codex may copy a criterion with the numbering or bullet the prompt showed it with.
    text = re.sub(r"^\s*(?:\d+[.)]|[-*•])\s+", "", text)
    return " ".join(text.lower().split()).rstrip(".")


def verdict_check(state: State) -> Callable[[Verdict], str | None]:
    """A check that refuses unknown task ids and a "done" without evidence for every criterion."""
    ids = [t["id"] for t in _tasks(state)]
    task = state.get("current_task")
    acceptance = (task.get("acceptance") or []) if task else []

    def check(verdict: Verdict) -> str | None:
        next_id = verdict.get("next_task_id")
        if verdict["decision"] == "continue" and next_id is not None and next_id not in ids:
            return f"next_task_id {next_id!r} is not a task of the plan; use one of {', '.join(ids)} or null"
        if verdict["decision"] == "done":
            proven = {_norm(c["criterion"]) for c in verdict["criteria"] if c["met"] and c["evidence"].strip()}
            missing = [a for a in acceptance if _norm(a) not in proven]
            if missing:
                listed = "; ".join(repr(a) for a in missing)
                return (
                    f'"done" needs met: true and concrete evidence for every acceptance criterion, '
                    f"quoted exactly; missing: {listed}"
                )
        return None

    return check


def budget_guard(state: State) -> bool:
    """The budget guard: flip a running run over its cap to stopped_budget; True when it did."""
    if state["status"] == status.RUNNING and over_budget(state):
        state["status"] = status.STOPPED_BUDGET
        state["stop_reason"] = f"budget spent: ${state['budget_used_usd']:.4f} of ${state['budget_usd']:.2f}"
        return True
    return False


def apply_stop(state: State, reason: str) -> None:
    """stop: return the run to idle; token_usage and spend are kept."""
    state["status"] = status.IDLE
    state["stop_reason"] = reason
    state["consecutive_errors"] = state["verdict_errors"] = 0
    state["consecutive_blocks"] = 0


def apply_pause(state: State, paused: str, reason: str) -> None:
    """Pause the run as ``paused`` (one of ``status.PAUSED``) with its reason; Claude Code's block count restarts."""
    assert paused in status.PAUSED, paused
    state.update({"status": paused, "stop_reason": reason, "consecutive_blocks": 0})


def apply_resume(state: State) -> None:
    """resume: running again with the failure and block counts cleared; an iteration-limited run gets half its
    limit again (at least one more iteration)."""
    if state["status"] == status.STOPPED_ITERATION_LIMIT:
        state["max_iterations"] = state["iteration"] + max(1, state["max_iterations"] // 2)
    state.update(
        {
            "status": status.RUNNING,
            "stop_reason": None,
            "consecutive_errors": 0,
            "verdict_errors": 0,
            "consecutive_blocks": 0,
        }
    )


def failures(state: State, phase: str) -> int:
    """Codex's failures in a row as ``phase`` counts them toward the reviewer-unavailable pause.

    A verdict counts its own failures too: a review that succeeds in between clears consecutive_errors but
    not verdict_errors, so it cannot make Claude wait at every stop.
    """
    count = int(state.get("consecutive_errors") or 0)
    return max(count, int(state.get("verdict_errors") or 0)) if phase == "verdict" else count


def pause_if_unavailable(state: State, phase: str, kind: str) -> str | None:
    """Pause a running run whose ``phase`` calls failed INFRA_PAUSE_AFTER times in a row, the last with ``kind``
    (paused_reviewer_unavailable); returns the reason it paused with, or None when it did not."""
    count = failures(state, phase)
    if state["status"] != status.RUNNING or count < INFRA_PAUSE_AFTER:
        return None
    reason = f"Codex was unavailable {count} times in a row (last: {kind})"
    apply_pause(state, status.PAUSED_REVIEWER_UNAVAILABLE, reason)
    return reason


def count_block(state: State, blocks: int, cap: int | None) -> str | None:
    """One more Stop block after ``blocks`` in a row: counted; or, one block before Claude Code's ``cap`` (None: no
    cap) would end the turn, the run pauses as paused_block_cap instead. Returns the pause's reason (None: counted).

    Claude Code ends a turn after CLAUDE_CODE_STOP_HOOK_BLOCK_CAP blocks in a row whose continuations ran no
    tool; the run counts the same way, so it pauses only where Claude Code would stop.
    """
    if cap is not None and blocks + 1 >= cap:
        reason = (
            f"Claude Code ends a turn after {cap} Stop-hook blocks in a row without a tool call "
            f"(CLAUDE_CODE_STOP_HOOK_BLOCK_CAP); the run paused after {blocks}"
        )
        apply_pause(state, status.PAUSED_BLOCK_CAP, reason)
        return reason
    state["consecutive_blocks"] = blocks + 1
    return None


def record_error(state: State, phase: str, kind: str, message: str, *, counts: bool = True) -> None:
    """Remember an infrastructure failure and count it (reviewer unavailable, not a "no").

    ``counts=False`` (a busy call slot: another call of the run held Codex) only remembers it: the failure
    counts that pause the run are neither raised nor cleared.
    """
    state["last_error"] = {"phase": phase, "kind": kind, "message": message[:500], "timestamp": now_us()}
    if not counts:
        return
    state["consecutive_errors"] = int(state.get("consecutive_errors") or 0) + 1
    if phase == "verdict":
        state["verdict_errors"] = int(state.get("verdict_errors") or 0) + 1
