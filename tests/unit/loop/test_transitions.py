"""The transitions the background reviews add: reviews kept until handed over, a run-ending verdict that waits for
findings, the budget's room for two calls at once, and whose conversation a call beside another keeps."""

from __future__ import annotations

from freezegun import freeze_time

from autopilot.loop import transitions
from autopilot.loop.backends import Usage
from autopilot.loop.reviewer import Answer
from autopilot.loop.state import new_state

FINDING = {"severity": "major", "file": "a.py", "line": 3, "message": "fix it"}
TASKS = [
    {"id": "T1", "title": "one", "description": "d1", "acceptance": ["a1"]},
    {"id": "T2", "title": "two", "description": "d2", "acceptance": ["b1"]},
]


def plan(state, owner=None):
    transitions.apply_plan(
        state,
        run_id="run-1",
        goal="g",
        plan={"summary": "s", "tasks": [dict(t) for t in TASKS]},
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


def verdict(decision="continue", next_task_id="T2"):
    return {"decision": decision, "reason": "r", "next_task_id": next_task_id, "progressed": True, "criteria": []}


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
