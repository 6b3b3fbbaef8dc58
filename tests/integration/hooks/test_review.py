"""PostToolUse: Codex reviews the new diff in a worker; findings reach Claude once; Claude never waits long."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import filelock
import pytest

from autopilot.loop.review_worker import LOCK, in_flight
from autopilot.loop.state import Store
from autopilot.paths import run_dir
from autopilot.scripted.responses_server import delay, http_error, reply_json
from tests.support.hooks import OTHER_SESSION, SESSION, context_of, count_state_reads, run_hook
from tests.support.loop import APPROVE, PLAN, state_of

REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "feature.py sets x but the task wants a function",
    "issues": [{"severity": "major", "file": "feature.py", "line": 1, "message": "define feature()"}],
}


def edit(bridge, repo, name="feature.py", content="x = 1\n", tool="Write"):
    (Path(repo) / name).write_text(content)
    return run_hook(
        bridge,
        "PostToolUse",
        repo,
        tool_name=tool,
        tool_input={"file_path": str(Path(repo) / name), "content": content},
        tool_response={"type": "create", "filePath": str(Path(repo) / name)},
        tool_use_id="toolu_1",
    )


def reviews(server) -> int:
    return sum(1 for r in server.requests if "issues" in json.dumps(r.get("text") or {}))


def test_edit_is_reviewed_and_findings_reach_claude(planned, openai_env, bridge):
    """A Write that changes the work tree is reviewed; the findings come back as additionalContext."""
    openai_env.push(reply_json(REQUEST_CHANGES))
    text = context_of(edit(bridge, planned))
    assert "task T1 and asks for changes" in text and '- [major] feature.py:1: "define feature()"' in text
    review = state_of(bridge, planned)["last_review"]
    assert (review["decision"], review["task_id"], review["issues_count"]) == ("request_changes", "T1", 1)


def test_review_is_recorded_in_events(planned, openai_env, bridge):
    """The hook's review is one events.jsonl line with phase review and outcome ok."""
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    events = [json.loads(x) for x in (run_dir(str(planned)) / "events.jsonl").read_text().splitlines()]
    assert [(e["phase"], e["outcome"]) for e in events] == [("plan", "ok"), ("review", "ok")]


def test_approval_is_one_short_line(planned, openai_env, bridge):
    """An approval without issues is a single sentence of context."""
    openai_env.push(reply_json(APPROVE))
    assert (
        context_of(edit(bridge, planned))
        == 'Codex reviewed your changes against task T1: approved. Its summary: "looks right"'
    )


def test_same_work_tree_is_not_reviewed_twice(planned, openai_env, bridge):
    """A tool call that leaves the work tree as last reviewed asks Codex nothing and repeats nothing."""
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    again = edit(bridge, planned, tool="Bash")
    assert again is None and reviews(openai_env) == 1


def test_no_change_since_base_is_not_reviewed(planned, openai_env, bridge):
    """A Bash call in a clean work tree asks Codex nothing."""
    assert run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"}) is None
    assert reviews(openai_env) == 0


def test_edits_made_before_the_plan_are_not_reviewed(git_repo, openai_env, bridge):
    """Uncommitted edits already there when Codex planned are not the task's work: a tool call reviews nothing."""
    (Path(git_repo) / "notes.txt").write_text("mine, from before the plan\n")
    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    assert run_hook(bridge, "PostToolUse", git_repo, tool_name="Bash", tool_input={"command": "ls"}) is None
    assert reviews(openai_env) == 0


def test_hook_compares_only_the_tree_id(planned, openai_env, bridge, monkeypatch):
    """Deciding whether to review computes the work tree's id and never takes the diff (the worker does)."""
    from autopilot.loop import snapshot

    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    diffs = []
    monkeypatch.setattr(snapshot, "snapshot", lambda *a, **k: diffs.append(a))
    assert edit(bridge, planned, tool="Bash") is None and diffs == []


def test_other_tools_are_ignored(planned, openai_env, bridge):
    """Read (or any tool outside the matcher) never triggers a review."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    assert run_hook(bridge, "PostToolUse", planned, tool_name="Read", tool_input={"file_path": "x"}) is None
    assert reviews(openai_env) == 0


def test_one_review_in_flight_per_run(planned, openai_env, bridge):
    """While a worker holds the review lock, another edit starts no second review."""
    store = Store(planned)
    with filelock.FileLock(str(store.dir / LOCK)):
        assert in_flight(store)
        assert edit(bridge, planned) is None
    assert not in_flight(store) and reviews(openai_env) == 0


@pytest.mark.slow  # a review slower than the wait, by design
def test_slow_review_leaves_claude_working_and_arrives_later(planned, openai_env, bridge, monkeypatch):
    """A review slower than the hook's wait lets Claude carry on; the next tool result brings its findings."""
    monkeypatch.setenv("AUTOPILOT_HOOK_REVIEW_WAIT", "0.5")
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 4.0))
    started = time.monotonic()
    answer = edit(bridge, planned)
    assert time.monotonic() - started < 3.5 and "still reviewing" in answer["systemMessage"]
    assert "decision" not in answer
    deadline = time.monotonic() + 20
    while state_of(bridge, planned)["last_review"] is None and time.monotonic() < deadline:
        time.sleep(0.1)
    later = run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"})
    assert "define feature()" in context_of(later)


def test_findings_are_given_once(planned, openai_env, bridge):
    """Once delivered, a review's findings are not repeated by later tool calls."""
    openai_env.push(reply_json(REQUEST_CHANGES))
    edit(bridge, planned)
    assert run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"}) is None


def test_codex_failure_is_reported_and_claude_carries_on(planned, openai_env, bridge):
    """An unavailable reviewer is a systemMessage with the failure count, never a block."""
    openai_env.push(http_error(400, "bad request"))
    answer = edit(bridge, planned)
    assert "could not review this change" in answer["systemMessage"] and "failure 1 of 3" in answer["systemMessage"]
    assert "decision" not in answer and state_of(bridge, planned)["last_error"]["phase"] == "review"


@pytest.mark.slow  # three failing reviews in a row
def test_third_failure_in_a_row_pauses_the_run(planned, openai_env, bridge):
    """Three unavailable reviews in a row pause the run as paused_reviewer_unavailable."""
    openai_env.push(*(http_error(400, "bad request") for _ in range(3)))
    answers = [edit(bridge, planned, content=f"x = {n}\n") for n in range(3)]
    assert "paused" in answers[2]["systemMessage"] and "/autopilot resume" in answers[2]["systemMessage"]
    assert state_of(bridge, planned)["status"] == "paused_reviewer_unavailable"


def test_other_session_edits_are_not_reviewed(planned, openai_env, bridge):
    """Edits in a session that does not own the run ask Codex nothing."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    run_hook(bridge, "PostToolUse", planned, tool_name="Write", session_id=OTHER_SESSION)
    assert reviews(openai_env) == 0


def test_a_200_finding_review_reaches_claude_under_the_cap(planned, openai_env, bridge):
    """Findings beyond the cap are counted and pointed to (the review file), the most severe first."""
    from autopilot.hooks.context import Hook
    from autopilot.hooks.review import deliver
    from autopilot.loop.state import Store
    from tests.support.hooks import payload

    issues = [
        {"severity": ["nit", "major"][i % 2], "file": f"m{i}.py", "line": i, "message": "y" * 300} for i in range(200)
    ]
    store = Store(planned)
    with store.transaction() as s:
        s["last_review"] = {
            "task_id": s["current_task"]["id"],
            "decision": "request_changes",
            "summary": "z" * 5000,
            "issues": issues,
            "issues_count": 200,
            "base_sha": None,
            "head_sha": None,
            "fingerprint": "f",
            "timestamp": "2026-12-01T00:00:00.000000Z",
            "review_path": "/runs/r/review-9.json",
        }
        state = dict(s)
    text = deliver(Hook("PostToolUse", payload("PostToolUse", planned)), state)["hookSpecificOutput"][
        "additionalContext"
    ]
    assert len(text) < 10_000 and "(all in /runs/r/review-9.json)" in text
    assert "[major]" in text and "[nit]" not in text  # 100 majors do not all fit; no nit comes before them


def test_a_busy_call_slot_is_told_and_never_pauses_the_run(planned, openai_env, bridge, monkeypatch):
    """A review that waited out another call of the run says so; three in a row leave the run running."""
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "0.3")
    with filelock.FileLock(str(Store(planned).dir / "call.lock")):
        answers = [edit(bridge, planned, content=f"x = {n}\n") for n in range(3)]
    assert all("another call of this run" in a["systemMessage"] for a in answers)
    assert all("does not count toward pausing" in a["systemMessage"] for a in answers)
    s = state_of(bridge, planned)
    assert (s["status"], s["consecutive_errors"], s["last_error"]["kind"]) == ("running", 0, "busy")
    assert reviews(openai_env) == 0


@pytest.mark.slow  # waits out the hook's budget by design
def test_a_review_wait_past_the_hook_budget_is_cut_to_it(planned, openai_env, bridge, monkeypatch):
    """AUTOPILOT_HOOK_REVIEW_WAIT=200 still lets Claude carry on before the hook's budget (less its margin) is out."""
    from autopilot import hooks
    from autopilot.hooks.context import RECORD_MARGIN_S

    monkeypatch.setenv("AUTOPILOT_HOOK_REVIEW_WAIT", "200")
    monkeypatch.setitem(hooks.BUDGET_S, "PostToolUse", RECORD_MARGIN_S + 1.5)  # 1.5 s to wait, not 200
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 5.0))
    started = time.monotonic()
    answer = edit(bridge, planned)
    assert time.monotonic() - started < 4 and "still reviewing" in answer["systemMessage"]
    deadline = time.monotonic() + 20  # the worker goes on and records the review
    while state_of(bridge, planned)["last_review"] is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state_of(bridge, planned)["last_review"]["decision"] == "request_changes"


def test_a_reviewed_edit_reads_state_at_most_three_times(planned, openai_env, bridge, monkeypatch):
    """An edit on an unowned run: see it and claim it, then the worker's review read and marked given in one
    transaction; one Workspace (the worker's reads are its own process's)."""
    openai_env.push(reply_json(REQUEST_CHANGES))
    counts = count_state_reads(monkeypatch)
    assert "define feature()" in context_of(edit(bridge, planned))
    assert counts["reads"] <= 3 and counts["workspaces"] == 1
    state = state_of(bridge, planned)
    assert state["owner_session_id"] == SESSION and state["notices"] == [f"review:{state['last_review']['timestamp']}"]
