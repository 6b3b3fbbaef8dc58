"""The autopilot state machine, with the original Node bridge's plan / review / verdict semantics."""

from __future__ import annotations

import copy

from freezegun import freeze_time

from autopilot.loop import transitions
from autopilot.loop.backends import Usage
from autopilot.loop.reviewer import Answer
from autopilot.loop.state import new_state

TASKS = [
    {"id": "T1", "title": "one", "description": "d1", "acceptance": ["a1", "a2"]},
    {"id": "T2", "title": "two", "description": "d2", "acceptance": ["b1"]},
]


def plan(state, owner=None):
    """``state`` planned afresh (two tasks, a $2 budget), for a session ``owner`` or none."""
    transitions.apply_plan(
        state,
        run_id="run-1",
        goal="g",
        plan={"summary": "s", "tasks": copy.deepcopy(TASKS)},
        plan_path="p.md",
        conversation_id="c1",
        base_sha="base0",
        plan_tree="tree0",
        budget_usd=2.0,
        max_iterations=5,
        no_progress_threshold=2,
        backend="openai",
        model="m",
        owner_session_id=owner,
        usage=Usage(100, 10, 20),
        usd=0.01,
        calls=1,
    )
    return state


def planned(**overrides):
    s = plan(new_state("/w"))
    s.update(overrides)
    return s


def verdict(decision="continue", next_task_id="T2", progressed=True, criteria=()):
    return {
        "decision": decision,
        "reason": f"because {decision}",
        "next_task_id": next_task_id,
        "progressed": progressed,
        "criteria": list(criteria),
    }


@freeze_time("2026-11-30 12:00:00")
def test_plan_resets_every_field_of_the_run():
    """cmdPlan: goal, plan, conversation, first task, base, counters, status, budget and plan usage all reset."""
    s = new_state("/w")
    s.update(
        iteration=7,
        no_progress_streak=2,
        status="aborted",
        budget_used_usd=3.0,
        stop_reason="x",
        last_review={"task_id": "T9"},
        last_verdict={"decision": "abort"},
    )
    s["token_usage"]["review"]["calls"] = 9
    transitions.apply_plan(
        s,
        run_id="run-1",
        goal="g",
        plan={"summary": "s", "tasks": TASKS},
        plan_path="p.md",
        conversation_id="c1",
        base_sha="base0",
        plan_tree="tree0",
        budget_usd=2.0,
        max_iterations=5,
        no_progress_threshold=2,
        backend="openai",
        model="m",
        owner_session_id="sess",
        usage=Usage(100, 10, 20),
        usd=0.01,
        calls=1,
    )
    assert {
        k: s[k]
        for k in (
            "goal",
            "plan_path",
            "run_id",
            "conversation_id",
            "base_sha",
            "iteration",
            "no_progress_streak",
            "status",
            "budget_used_usd",
            "budget_usd",
            "stop_reason",
            "last_review",
            "last_verdict",
            "owner_session_id",
        )
    } == {
        "goal": "g",
        "plan_path": "p.md",
        "run_id": "run-1",
        "conversation_id": "c1",
        "base_sha": "base0",
        "iteration": 0,
        "no_progress_streak": 0,
        "status": "running",
        "budget_used_usd": 0.0,
        "budget_usd": 2.0,
        "stop_reason": None,
        "last_review": None,
        "last_verdict": None,
        "owner_session_id": "sess",
    }
    assert s["current_task"] == TASKS[0]
    assert s["token_usage"] == {
        "plan": {"input": 100, "cached": 10, "output": 20, "calls": 1},
        "review": {"input": 0, "cached": 0, "output": 0, "calls": 0},
        "verdict": {"input": 0, "cached": 0, "output": 0, "calls": 0},
    }
    assert s["created_at"] == "2026-11-30T12:00:00.000000Z"


def test_review_never_changes_task_base_status_or_iteration():
    """cmdReview records last_review only."""
    s = planned(iteration=3)
    before = {k: copy.deepcopy(s[k]) for k in ("current_task", "base_sha", "status", "iteration")}
    transitions.apply_review(
        s,
        {
            "decision": "request_changes",
            "summary": "fix",
            "issues": [{"severity": "major", "file": "a.py", "line": 3, "message": "m"}],
        },
        task_id="T1",
        base_sha="base0",
        head_sha="h1",
        fingerprint="tree1",
        review_path="/r.json",
    )
    assert {k: s[k] for k in before} == before
    assert s["last_review"]["issues_count"] == 1 and s["last_review"]["decision"] == "request_changes"


def test_continue_advances_task_base_and_iteration():
    """continue: iteration+1, current_task becomes next_task_id, base_sha becomes HEAD, streak resets."""
    s = planned(no_progress_streak=1)
    transitions.apply_verdict(s, verdict(), head_sha="head1", fingerprint="f1", verdict_path="/v.json")
    assert (s["iteration"], s["current_task"]["id"], s["base_sha"], s["no_progress_streak"], s["status"]) == (
        1,
        "T2",
        "head1",
        0,
        "running",
    )
    assert s["last_verdict"]["decision"] == "continue" and s["last_verdict"]["progressed"] is True


def test_continue_without_next_task_keeps_the_current_one():
    """A continue with next_task_id null keeps Claude on the same task."""
    s = planned()
    transitions.apply_verdict(s, verdict(next_task_id=None), head_sha="h", fingerprint="f", verdict_path="/v")
    assert s["current_task"]["id"] == "T1"


def test_done_finishes_the_run():
    """done: status done, streak 0, task and base unchanged."""
    s = planned(no_progress_streak=1)
    transitions.apply_verdict(s, verdict("done", None), head_sha="h", fingerprint="f", verdict_path="/v")
    assert (s["status"], s["no_progress_streak"], s["iteration"], s["base_sha"]) == ("done", 0, 1, "base0")


def test_abort_records_the_reason():
    """abort: status aborted and stop_reason is Codex's reason."""
    s = planned()
    transitions.apply_verdict(
        s, verdict("abort", None, progressed=False), head_sha="h", fingerprint="f", verdict_path="/v"
    )
    assert (s["status"], s["stop_reason"]) == ("aborted", "because abort")


def test_no_progress_streak_forces_abort_at_threshold():
    """Two verdicts without progress (threshold 2) force an abort."""
    s = planned()
    transitions.apply_verdict(s, verdict(progressed=False), head_sha="h", fingerprint="f1", verdict_path="/v")
    assert (s["status"], s["no_progress_streak"]) == ("running", 1)
    transitions.apply_verdict(s, verdict(progressed=False), head_sha="h", fingerprint="f2", verdict_path="/v")
    assert s["status"] == "aborted" and "no progress for 2" in s["stop_reason"]


def test_unchanged_work_is_not_progress_whatever_codex_says():
    """Progress is the work fingerprint: the same fingerprint twice is no progress even if Codex claims it."""
    s = planned()
    transitions.apply_verdict(s, verdict(next_task_id="T1"), head_sha="h", fingerprint="same", verdict_path="/v")
    transitions.apply_verdict(s, verdict(next_task_id="T1"), head_sha="h", fingerprint="same", verdict_path="/v")
    assert s["last_verdict"]["progressed"] is False and s["no_progress_streak"] == 1


def test_iteration_limit_stops_the_run():
    """A continue that reaches max_iterations stops the run with stopped_iteration_limit."""
    s = planned(iteration=4)
    transitions.apply_verdict(s, verdict(), head_sha="h", fingerprint="f", verdict_path="/v")
    assert (s["iteration"], s["status"]) == (5, "stopped_iteration_limit")


def test_done_at_the_iteration_limit_is_still_done():
    """done takes precedence over the iteration limit."""
    s = planned(iteration=4)
    transitions.apply_verdict(s, verdict("done", None), head_sha="h", fingerprint="f", verdict_path="/v")
    assert s["status"] == "done"


def test_done_requires_evidence_for_every_criterion():
    """The verdict check refuses a done that leaves an acceptance criterion without met evidence."""
    check = transitions.verdict_check(planned())
    partial = verdict(
        "done",
        None,
        criteria=[
            {"criterion": "a1", "met": True, "evidence": "x.py:3"},
            {"criterion": "a2", "met": True, "evidence": "  "},
        ],
    )
    assert "a2" in check(partial)
    full = verdict(
        "done",
        None,
        criteria=[
            {"criterion": "A1", "met": True, "evidence": "x.py:3"},
            {"criterion": "a2", "met": True, "evidence": "test_x"},
        ],
    )
    assert check(full) is None


def test_unknown_next_task_is_refused():
    """The verdict check refuses a next_task_id the plan does not have."""
    assert "T9" in transitions.verdict_check(planned())(verdict(next_task_id="T9"))


def test_plan_check_needs_unique_ids_and_criteria():
    """A plan without tasks, with duplicate ids, or with a task lacking criteria is refused."""
    assert transitions.check_plan({"summary": "", "tasks": []})
    assert transitions.check_plan({"summary": "", "tasks": [TASKS[0], TASKS[0]]})
    assert transitions.check_plan({"summary": "", "tasks": [{**TASKS[0], "acceptance": [" "]}]})
    assert transitions.check_plan({"summary": "", "tasks": TASKS}) is None


def test_budget_guard_flips_only_a_running_run_over_cap():
    """budget-guard stops a running run at or over its cap, and leaves others alone."""
    s = planned(budget_used_usd=2.0)
    assert transitions.budget_guard(s) is True and s["status"] == "stopped_budget"
    s = planned(budget_used_usd=1.99)
    assert transitions.budget_guard(s) is False and s["status"] == "running"
    s = planned(budget_used_usd=9.0, status="done")
    assert transitions.budget_guard(s) is False and s["status"] == "done"


def test_stop_returns_to_idle_and_keeps_usage():
    """stop: status idle with the reason; token_usage and spend are kept."""
    s = planned(budget_used_usd=0.7)
    usage = copy.deepcopy(s["token_usage"])
    transitions.apply_stop(s, "manual reset")
    assert (s["status"], s["stop_reason"], s["budget_used_usd"], s["token_usage"]) == (
        "idle",
        "manual reset",
        0.7,
        usage,
    )


def test_charge_sums_tokens_calls_and_usd():
    """charge adds to the phase's counters and to budget_used_usd."""
    s = planned()
    transitions.charge(s, "review", Usage(10, 3, 2), 0.25, 1)
    transitions.charge(s, "review", Usage(5, 0, 1), 0.125, 2)
    assert s["token_usage"]["review"] == {"input": 15, "cached": 3, "output": 3, "calls": 3}
    assert s["budget_used_usd"] == 0.375


def test_done_accepts_criteria_copied_with_their_numbering():
    """Criteria quoted with the prompt's "1." numbering or a trailing period still count as quoted exactly."""
    check = transitions.verdict_check(planned())
    numbered = verdict(
        "done",
        None,
        criteria=[
            {"criterion": "1. A1.", "met": True, "evidence": "x.py:3"},
            {"criterion": "- a2", "met": True, "evidence": "test_x"},
        ],
    )
    assert check(numbered) is None


def test_forecast_is_spend_per_iteration_times_iterations_left():
    """After 2 iterations costing $0.60, 3 more of 5 would bring the run to $1.50; $2.00 pays for 4 more."""
    s = planned(iteration=2, budget_used_usd=0.6)
    assert transitions.forecast(s) == {
        "usd_per_iteration": 0.3,
        "iterations_left": 3,
        "usd_at_limit": 1.5,
        "over_budget": False,
        "iterations_affordable": 4,
    }


def test_no_forecast_before_the_first_iteration():
    """Nothing can be said per iteration before one has ended."""
    assert transitions.forecast(planned(iteration=0, budget_used_usd=0.2)) is None


def test_budget_warning_from_the_warn_level_on():
    """Under the level no warning; at it, the spend, the share and how many more iterations fit."""
    assert transitions.budget_warning(planned(iteration=1, budget_used_usd=1.59), 80) is None
    assert transitions.budget_warning(planned(iteration=1, budget_used_usd=1.6), 0) is None
    assert transitions.budget_warning(planned(iteration=2, budget_used_usd=1.6), 80) == (
        "the autopilot run has spent $1.60 of its $2.00 budget (80%); at $0.80 an iteration, the $0.40 left "
        "may not pay for another. `codex-bridge budget set USD` raises the cap (said once per run)."
    )
    assert "1 more iteration fit" in transitions.budget_warning(planned(iteration=4, budget_used_usd=1.6), 80)


def test_pause_sets_the_paused_status_and_restarts_the_block_count():
    """A pause records its status and reason and clears the Stop-block count (Claude Code's restarts too)."""
    s = planned(consecutive_blocks=4)
    transitions.apply_pause(s, "paused_block_cap", "the cap")
    assert (s["status"], s["stop_reason"], s["consecutive_blocks"]) == ("paused_block_cap", "the cap", 0)


def test_resume_of_an_iteration_limited_run_gives_half_its_limit_again():
    """resume: running, counts cleared; a run stopped at its iteration limit gets max // 2 more iterations."""
    s = planned(status="stopped_iteration_limit", iteration=5, stop_reason="limit", consecutive_errors=2)
    s.update(verdict_errors=1, consecutive_blocks=3)
    transitions.apply_resume(s)
    assert (s["status"], s["stop_reason"], s["max_iterations"]) == ("running", None, 7)
    assert (s["consecutive_errors"], s["verdict_errors"], s["consecutive_blocks"]) == (0, 0, 0)


def test_resume_of_a_paused_run_keeps_its_limit():
    """A paused run resumes with the iteration limit it had."""
    s = planned(status="paused_reviewer_unavailable", iteration=2)
    transitions.apply_resume(s)
    assert (s["status"], s["max_iterations"]) == ("running", 5)


def test_verdict_failures_count_the_verdicts_own_streak():
    """A verdict counts the larger of the failures in a row and its own; a review only the failures in a row."""
    s = planned(consecutive_errors=1, verdict_errors=3)
    assert (transitions.failures(s, "verdict"), transitions.failures(s, "review")) == (3, 1)


def test_third_failure_in_a_row_pauses_the_run():
    """INFRA_PAUSE_AFTER failures in a row pause a running run as reviewer-unavailable, saying why."""
    s = planned(consecutive_errors=transitions.INFRA_PAUSE_AFTER)
    assert (
        transitions.pause_if_unavailable(s, "review", "timeout")
        == "Codex was unavailable 3 times in a row (last: timeout)"
    )
    assert s["status"] == "paused_reviewer_unavailable"


def test_fewer_failures_or_a_run_not_running_do_not_pause():
    """Two failures, or a run that is no longer running, leave the status alone."""
    two, done = planned(consecutive_errors=2), planned(status="done", consecutive_errors=5)
    assert transitions.pause_if_unavailable(two, "review", "timeout") is None and two["status"] == "running"
    assert transitions.pause_if_unavailable(done, "verdict", "timeout") is None and done["status"] == "done"


def test_a_block_under_the_cap_is_counted():
    """A Stop block below Claude Code's cap adds one to the count; with no cap it always does."""
    s, uncapped = planned(), planned()
    assert transitions.count_block(s, 2, 8) is None and s["consecutive_blocks"] == 3
    assert transitions.count_block(uncapped, 500, None) is None and uncapped["consecutive_blocks"] == 501


def test_the_block_before_the_cap_pauses_instead():
    """One block before Claude Code would end the turn the run pauses (paused_block_cap) and the count restarts."""
    s = planned(consecutive_blocks=7)
    reason = transitions.count_block(s, 7, 8)
    assert reason is not None and "after 8 Stop-hook blocks" in reason and "paused after 7" in reason
    assert (s["status"], s["consecutive_blocks"], s["stop_reason"]) == ("paused_block_cap", 0, reason)


def answered(context: int | None, exchanged: int, *, fresh: bool = False, restarted: bool = False):
    """An answer of the openai backend with the conversation sizes the bound is kept from."""
    from autopilot.loop.reviewer import Answer

    return Answer(
        {},
        Usage(),
        0.0,
        1,
        "m",
        "resp_9",
        None,
        "openai",
        context_tokens=context,
        exchanged_tokens=exchanged,
        fresh=fresh,
        restarted=restarted,
    )


def test_a_fresh_conversation_measures_its_base_and_counts_history_from_it():
    """The first call's size less what it exchanged is the base; later sizes less the base are the history."""
    s = planned(conversation_tokens=7000, conversation_base=40, conversation_restarts=2)
    transitions.track_conversation(s, answered(900, 800, fresh=True, restarted=True))
    assert (s["conversation_base"], s["conversation_tokens"], s["conversation_restarts"]) == (100, 800, 3)
    transitions.track_conversation(s, answered(2100, 1000))
    assert s["conversation_tokens"] == 2000


def test_without_the_providers_count_the_exchanged_tokens_add_up():
    """A backend that reports no conversation size leaves the count to what each exchange sent and got back."""
    s = planned(conversation_tokens=500, conversation_base=None)
    transitions.track_conversation(s, answered(None, 300))
    assert s["conversation_tokens"] == 800
    transitions.track_conversation(s, answered(None, 200, fresh=True))
    assert (s["conversation_tokens"], s["conversation_restarts"]) == (200, 0)


def test_the_history_is_full_at_the_bound_and_never_with_no_bound():
    """history_full is true from the bound up; a bound of 0 never restarts a conversation."""
    assert (
        transitions.history_full(planned(conversation_tokens=9999), 10_000),
        transitions.history_full(planned(conversation_tokens=10_000), 10_000),
    ) == (False, True)
    assert transitions.history_full(planned(conversation_tokens=10**9), 0) is False


def test_a_task_is_done_when_a_verdict_leaves_it_with_every_criterion_met():
    """Moving on with every criterion met, or done, marks the task done; moving on with one unmet does not."""
    met = [{"criterion": "a1", "met": True, "evidence": "x"}, {"criterion": "a2", "met": True, "evidence": "y"}]
    s = planned()
    transitions.apply_verdict(s, verdict(criteria=met), head_sha="h1", fingerprint="f1", verdict_path=None)
    assert s["tasks_done"] == ["T1"]
    s = planned()
    transitions.apply_verdict(
        s, verdict(criteria=[{**met[0], "met": False}]), head_sha="h1", fingerprint="f1", verdict_path=None
    )
    assert s["tasks_done"] == []
    transitions.apply_verdict(s, verdict("done", None), head_sha="h2", fingerprint="f2", verdict_path=None)
    assert s["tasks_done"] == ["T2"]


# -- the background reviews: kept until handed over, a run-ending verdict that waits for findings, the room for
# -- two calls at once, and whose conversation a call beside another keeps

FINDING = {"severity": "major", "file": "a.py", "line": 3, "message": "fix it"}


def record(state, decision="request_changes", issues=(FINDING,), fingerprint="tree1"):
    transitions.apply_review(
        state,
        {"decision": decision, "summary": "s", "issues": list(issues)},
        task_id="T1",
        base_sha="b",
        head_sha="h",
        fingerprint=fingerprint,
        review_path="/r.json",
    )


def answer(conversation: str, *, fresh: bool = False, continued: str | None = None) -> Answer:
    done = Answer({}, Usage(100, 0, 10), 0.001, 1, "m", conversation, None, "openai", context_tokens=110)
    done.fresh, done.continued = fresh, continued
    return done


@freeze_time("2026-12-01 10:00:00")
def test_a_review_is_kept_pending_whole_until_handed_over():
    """A review is the last review and, the same record, the oldest pending one; taking it by its time removes it."""
    s = planned()
    record(s)
    assert s["reviews_pending"] == [s["last_review"]] and s["reviews_pending"][0] is not s["last_review"]
    assert s["reviews_pending"][0]["issues"] == [FINDING]
    transitions.take_pending(s, [s["last_review"]["timestamp"]])
    assert s["reviews_pending"] == [] and s["last_review"]["issues"] == [FINDING]


def test_only_the_reviews_handed_over_are_taken():
    """A review recorded after a hook built its answer stays pending for the next hook."""
    s = planned()
    with freeze_time("2026-12-01 10:00:00"):
        record(s)
    given = [s["last_review"]["timestamp"]]
    with freeze_time("2026-12-01 10:00:05"):
        record(s, fingerprint="tree2")
    transitions.take_pending(s, given)
    assert [r["fingerprint"] for r in s["reviews_pending"]] == ["tree2"]


def test_pending_reviews_are_bounded_and_approvals_go_first():
    """Past MAX_PENDING (reviews no hook ran after) the oldest approval goes; findings are kept longest."""
    s = planned()
    for n in range(transitions.MAX_PENDING + 2):
        with freeze_time(f"2026-12-01 10:00:{n:02d}"):
            if n in (1, 2):
                record(s, "approve", (), fingerprint=f"t{n}")
            else:
                record(s, fingerprint=f"t{n}")
    kept = [r["fingerprint"] for r in s["reviews_pending"]]
    assert len(kept) == transitions.MAX_PENDING and "t1" not in kept and "t2" not in kept and kept[0] == "t0"


def test_a_run_ending_verdict_waits_for_a_pending_request_for_changes():
    """done and abort wait while a request for changes is pending; continue, or a pending approval, does not."""
    s = planned()
    record(s, "approve", ())
    assert not transitions.findings_first(s, verdict("done", None))
    record(s)
    assert transitions.findings_first(s, verdict("done", None))
    assert transitions.findings_first(s, verdict("abort", None))
    assert not transitions.findings_first(s, verdict("continue", "T2"))


def test_the_plan_resets_what_reviews_left_and_a_sessions_plan_is_to_be_shown():
    """A new plan clears the pending reviews and the judged tree; a plan made for a session waits to be shown, one
    made in a terminal was printed there."""
    s = planned(verdict_tree="tree9")
    record(s)
    plan(s)
    assert (s["reviews_pending"], s["verdict_tree"], s["plan_to_show"]) == ([], None, False)
    assert plan(new_state("/w"), owner="session-1")["plan_to_show"] is True


def test_a_verdict_records_the_tree_it_judged():
    """The tree a verdict judged is kept, so the review worker does not review it again against the next task."""
    s = planned()
    transitions.apply_verdict(s, verdict(), head_sha="h", fingerprint="f", verdict_path="/v", tree="tree7")
    assert s["verdict_tree"] == "tree7"


def test_room_beside_needs_twice_the_dearest_call_left():
    """A call may start beside another while the budget left covers two of the run's dearest calls so far."""
    s = planned(budget_usd=1.0, budget_used_usd=0.6, plan_usd=0.05)
    s["token_usage"]["review"]["calls"], s["token_usage"]["verdict"]["calls"] = 3, 1  # $0.15 a call on average
    assert transitions.room_beside(s)  # 0.40 left >= 0.30
    s["budget_used_usd"] = 0.75  # 0.25 left < 2 x 0.1875
    assert not transitions.room_beside(s)
    fresh = planned(budget_usd=1.0, plan_usd=0.6)  # no call yet: the plan's cost is the measure
    assert not transitions.room_beside(fresh)


def test_a_call_that_continued_a_conversation_the_run_left_keeps_the_run_on_the_new_one():
    """A verdict beside a review starts a fresh conversation; the review that continued the old one, recording
    after it, is charged but does not take the run back to the old conversation."""
    s = planned(conversation_id="c1")
    transitions.settle(s, "verdict", answer("fresh-v", fresh=True))
    transitions.settle(s, "review", answer("c1-next", continued="c1"))
    assert s["conversation_id"] == "fresh-v" and s["token_usage"]["review"]["calls"] == 1


def test_a_call_that_continued_the_runs_conversation_keeps_it_going():
    """The usual case: the call went on with the run's conversation, which now ends at its answer."""
    s = planned(conversation_id="c1")
    transitions.settle(s, "review", answer("c1-next", continued="c1"))
    assert s["conversation_id"] == "c1-next"
