"""Stop: Codex's verdict keeps Claude working or lets it stop; infra failures and Claude Code's block cap."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest

from autopilot.paths import run_dir
from autopilot.scripted.responses_server import delay, drip, http_error, reply_json
from tests.support.hooks import OTHER_SESSION, SESSION, count_state_reads, reviewed, run_hook
from tests.support.loop import APPROVE, PLAN, continue_to, done, state_of

REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "half there",
    "issues": [{"severity": "major", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}


@pytest.fixture
def worked(planned):
    """The planned repo with some work since the plan, so a verdict has something to judge."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    return planned


def stop(bridge, repo, **fields):
    return run_hook(bridge, "Stop", repo, last_assistant_message="T1 is finished.", **fields)


def edit_state(repo, **changes) -> None:
    path = run_dir(str(repo)) / "state.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_continue_blocks_with_the_next_task(worked, openai_env, bridge):
    """continue becomes a block whose reason carries the verdict, the next task and its criteria."""
    openai_env.push(reply_json(continue_to("T2")))
    answer = stop(bridge, worked)
    assert answer["decision"] == "block"
    reason = answer["reason"]
    assert "iteration 1 of 20; the reviewer" in reason and "Task T2: Test it" in reason and "1. test passes" in reason
    assert state_of(bridge, worked)["consecutive_blocks"] == 1


def test_block_carries_open_review_findings(worked, openai_env, bridge):
    """Findings of a request_changes review reach Claude first, with no verdict asked; on the task Claude must
    continue, the next block carries them again as open findings."""
    openai_env.push(reply_json(REQUEST_CHANGES))
    assert bridge("-C", str(worked), "review")[0] == 0
    calls = len(openai_env.requests)
    first = stop(bridge, worked)["reason"]
    assert '- [major] feature.py:1: "add a docstring"' in first and len(openai_env.requests) == calls
    openai_env.push(reply_json(continue_to("T1")))
    reason = stop(bridge, worked, stop_hook_active=True)["reason"]
    assert (
        "Open review findings on this task (the reviewer's opinion; check them):\n"
        '- [major] feature.py:1: "add a docstring"' in reason
    )


def test_verdict_gets_the_last_assistant_message(worked, openai_env, bridge):
    """Claude's last message (from the hook input, not the lagging transcript) is sent to Codex as evidence."""
    openai_env.push(reply_json(continue_to("T2")))
    stop(bridge, worked)
    assert "T1 is finished." in openai_env.requests[-1]["input"]


def test_done_lets_claude_stop_and_says_what_it_cost(worked, openai_env, bridge):
    """done: no block; the user reads that the goal is met, the iterations and the spend."""
    openai_env.push(reply_json(done("feature.py exists")))
    answer = stop(bridge, worked)
    assert "decision" not in answer and answer["systemMessage"].startswith("codex-autopilot: done")
    assert "1 iteration, $0.0" in answer["systemMessage"] and "docs/autopilot/plans/" in answer["systemMessage"]
    assert state_of(bridge, worked)["status"] == "done"


def test_abort_lets_claude_stop_with_the_reason(worked, openai_env, bridge):
    """abort: no block; the user reads Codex's reason."""
    openai_env.push(
        reply_json(
            {
                "decision": "abort",
                "reason": "the goal contradicts the code",
                "next_task_id": None,
                "progressed": False,
                "criteria": [],
            }
        )
    )
    answer = stop(bridge, worked)
    assert "decision" not in answer and "aborted: the goal contradicts the code" in answer["systemMessage"]


def test_iteration_limit_lets_claude_stop(worked, openai_env, bridge):
    """Reaching max_iterations stops the run; the message says how to allow more."""
    edit_state(worked, max_iterations=1)
    openai_env.push(reply_json(continue_to("T2")))
    answer = stop(bridge, worked)
    assert "decision" not in answer and "reached max_iterations (1)" in answer["systemMessage"]
    assert "/autopilot resume" in answer["systemMessage"]


def test_spent_budget_stops_without_asking_codex(worked, openai_env, bridge):
    """With the budget spent no verdict is requested; the run stops and Claude is let go."""
    edit_state(worked, budget_used_usd=5.0, budget_usd=5.0)
    calls = len(openai_env.requests)
    answer = stop(bridge, worked)
    assert len(openai_env.requests) == calls and "decision" not in answer
    assert "budget spent" in answer["systemMessage"] and state_of(bridge, worked)["status"] == "stopped_budget"


def test_skipped_verdict_lets_claude_stop(worked, bridge, monkeypatch):
    """A verdict that was skipped (nothing to judge) lets Claude stop with a short message, not a block."""
    from autopilot.loop import verdict

    skipped = {"applied": False, "skipped": True, "reason": "as planned"}
    monkeypatch.setattr(verdict, "judge", lambda ws, state, **_: (skipped, state))
    answer = stop(bridge, worked)
    assert answer == {
        "systemMessage": "codex-autopilot: Codex planned 2 tasks; nothing has changed yet, so no "
        "verdict was asked for. The run waits on task T1: Add feature."
    }


def test_nothing_to_judge_right_after_the_plan(planned, openai_env, bridge):
    """Stopping before any change (e.g. after /codex-plan) asks Codex nothing and does not block."""
    calls = len(openai_env.requests)
    answer = stop(bridge, planned)
    assert len(openai_env.requests) == calls and "nothing has changed yet" in answer["systemMessage"]
    assert state_of(bridge, planned)["iteration"] == 0


def test_edits_made_before_the_plan_are_not_work_to_judge(git_repo, openai_env, bridge):
    """Uncommitted edits already there when Codex planned are not the task's work: stopping asks Codex nothing."""
    (Path(git_repo) / "notes.txt").write_text("mine, from before the plan\n")
    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test")[0] == 0
    calls = len(openai_env.requests)
    answer = stop(bridge, git_repo)
    assert len(openai_env.requests) == calls and "nothing has changed yet" in answer["systemMessage"]


def test_codex_unavailable_holds_claude_at_most_twice(worked, openai_env, bridge):
    """Three failed verdicts in a row: block, block, then the run pauses and Claude may stop."""
    openai_env.push(http_error(400, "bad request"), http_error(400, "bad request"), http_error(400, "bad request"))
    answers = [stop(bridge, worked, stop_hook_active=n > 0) for n in range(3)]
    assert [a.get("decision") for a in answers] == ["block", "block", None]
    assert "failure 1 of 3" in answers[0]["reason"] and "failure 2 of 3" in answers[1]["reason"]
    state = state_of(bridge, worked)
    assert state["status"] == "paused_reviewer_unavailable" and state["consecutive_errors"] == 3
    assert "/autopilot resume" in answers[2]["systemMessage"] and "/codex-stop" in answers[2]["systemMessage"]


def test_successful_reviews_between_failed_verdicts_do_not_extend_the_hold(worked, openai_env, bridge):
    """Failed verdicts count in a row across successful reviews: block, block, then the run pauses."""
    answers = []
    for n in range(3):
        if n:  # a review that succeeds resets consecutive_errors
            openai_env.push(reply_json(APPROVE))
            (Path(worked) / "feature.py").write_text(f"x = {n + 2}\n")
            before = (state_of(bridge, worked)["last_review"] or {}).get("timestamp")
            run_hook(bridge, "PostToolUse", worked, tool_name="Write", tool_input={"file_path": "feature.py"})
            assert reviewed(bridge, worked, before)["consecutive_errors"] == 0  # the review worker's, in the background
        openai_env.push(http_error(400, "bad request"))
        answers.append(stop(bridge, worked, stop_hook_active=n > 0))
    assert [a.get("decision") for a in answers] == ["block", "block", None]
    assert "failure 2 of 3" in answers[1]["reason"] and "3 times in a row" in answers[2]["systemMessage"]
    assert state_of(bridge, worked)["status"] == "paused_reviewer_unavailable"


def test_paused_run_is_left_alone(worked, openai_env, bridge):
    """After the pause, further stops ask Codex nothing."""
    edit_state(worked, status="paused_reviewer_unavailable")
    calls = len(openai_env.requests)
    assert stop(bridge, worked) is None and len(openai_env.requests) == calls


def test_pauses_before_claude_codes_block_cap(worked, openai_env, bridge, monkeypatch):
    """With CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=3 the run blocks twice, then pauses instead of a third block."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")
    openai_env.push(*(reply_json(continue_to("T1")) for _ in range(3)))
    answers = []
    for n in range(3):
        (Path(worked) / "feature.py").write_text(f"x = {n + 2}\n")  # progress, so the streak never aborts
        answers.append(stop(bridge, worked, stop_hook_active=n > 0))
    assert [a.get("decision") for a in answers] == ["block", "block", None]
    message = answers[2]["systemMessage"]
    assert "after 3 Stop-hook blocks in a row without a tool call" in message and "paused after 2" in message
    assert "/autopilot resume" in message and "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP" in message
    assert state_of(bridge, worked)["status"] == "paused_block_cap"


def test_fresh_stop_resets_the_block_count(worked, openai_env, bridge):
    """A Stop without stop_hook_active starts counting consecutive blocks from zero again."""
    edit_state(worked, consecutive_blocks=6)
    openai_env.push(reply_json(continue_to("T2")))
    assert stop(bridge, worked, stop_hook_active=False)["decision"] == "block"
    assert state_of(bridge, worked)["consecutive_blocks"] == 1


def test_other_session_stop_asks_codex_nothing(worked, openai_env, bridge):
    """A Stop from a session that does not own the run asks no verdict and never blocks."""
    run_hook(bridge, "SessionStart", worked, source="startup")
    calls = len(openai_env.requests)
    answer = stop(bridge, worked, session_id=OTHER_SESSION)
    assert len(openai_env.requests) == calls and "decision" not in answer
    assert state_of(bridge, worked)["iteration"] == 0


def test_stop_failure_is_recorded_and_blocks_nothing(worked, bridge):
    """StopFailure appends a claude event line and answers nothing."""
    answer = run_hook(bridge, "StopFailure", worked, error="rate_limit", error_details="429 Too Many Requests")
    events = (run_dir(str(worked)) / "events.jsonl").read_text().splitlines()
    last = json.loads(events[-1])
    assert answer is None
    assert (last["phase"], last["outcome"], last["detail"]) == (
        "claude",
        "stop_failure:rate_limit",
        "429 Too Many Requests",
    )


HUNG = {
    "accepts and never answers": lambda: delay(reply_json(continue_to("T2")), 120),
    "one byte a second": lambda: drip(reply_json(continue_to("T2")), 1.0),
}


@pytest.mark.slow  # waits out the call deadline by design
@pytest.mark.parametrize("hang", sorted(HUNG))
def test_hung_codex_costs_one_bounded_stop_and_is_recorded(worked, openai_env, bridge, monkeypatch, hang):
    """A backend that never finishes answering holds the Stop hook no longer than the call deadline; it is recorded."""
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "2")
    openai_env.push(*[HUNG[hang]() for _ in range(6)])
    started = time.monotonic()
    answer = stop(bridge, worked)
    took = time.monotonic() - started
    s = state_of(bridge, worked)
    assert took < 6, f"the Stop hook took {took:.1f}s"
    assert s["last_error"]["kind"] == "timeout" and s["verdict_errors"] == 1 and s["iteration"] == 0
    assert answer["decision"] == "block" and "could not give a verdict" in answer["reason"]


@pytest.mark.slow  # waits out three call deadlines by design
def test_hung_codex_pauses_the_run_after_the_documented_failures(worked, openai_env, bridge, monkeypatch):
    """Three hung verdicts in a row pause the run; every Stop returned within its deadline."""
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "1")
    openai_env.push(*[drip(reply_json(continue_to("T2")), 1.0) for _ in range(10)])
    answers = []
    for _ in range(3):
        started = time.monotonic()
        answers.append(stop(bridge, worked, stop_hook_active=True))
        assert time.monotonic() - started < 5
    assert state_of(bridge, worked)["status"] == "paused_reviewer_unavailable"
    assert "paused" in answers[-1]["systemMessage"] and "decision" not in answers[-1]


@pytest.mark.slow  # waits out the hook's budget by design
def test_the_hook_budget_cuts_a_longer_call_timeout(worked, openai_env, bridge, monkeypatch):
    """With AUTOPILOT_TIMEOUT past the Stop hook's budget, the budget wins: the failure is still recorded in time."""
    from autopilot import hooks
    from autopilot.hooks.context import RECORD_MARGIN_S

    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "600")
    monkeypatch.setitem(hooks.BUDGET_S, "Stop", RECORD_MARGIN_S + 2)
    openai_env.push(delay(reply_json(continue_to("T2")), 120))
    started = time.monotonic()
    stop(bridge, worked)
    assert time.monotonic() - started < 6 and state_of(bridge, worked)["last_error"]["kind"] == "timeout"


def ran_a_tool(bridge, repo, tool: str = "Read") -> None:
    """Claude Code's PostToolUse for one tool call (every tool reaches the `*` group as `hook ToolUse`)."""
    time.sleep(0.01)  # the markers compare modification times
    assert run_hook(bridge, "ToolUse", repo, tool_name=tool, hook_event_name="PostToolUse") is None


def test_a_tool_call_between_blocks_restarts_the_count(worked, openai_env, bridge, monkeypatch):
    """As in Claude Code: with a tool run in every continuation, nine tasks' worth of blocks never pause (cap 3)."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "3")
    openai_env.push(*(reply_json(continue_to("T1")) for _ in range(9)))
    for n in range(9):
        (Path(worked) / "feature.py").write_text(f"x = {n + 2}\n")
        answer = stop(bridge, worked, stop_hook_active=n > 0)
        assert answer.get("decision") == "block", (n, answer)
        ran_a_tool(bridge, worked)
    s = state_of(bridge, worked)
    assert s["status"] == "running" and s["consecutive_blocks"] == 1


def test_without_tool_calls_the_run_pauses_before_the_cap(worked, openai_env, bridge, monkeypatch):
    """Continuations that run no tool count up; the run pauses one block before Claude Code would end the turn."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "4")
    openai_env.push(*(reply_json(continue_to("T1")) for _ in range(4)))
    ran_a_tool(bridge, worked)  # a tool before the first block does not count for later ones
    answers = []
    for n in range(4):
        (Path(worked) / "feature.py").write_text(f"x = {n + 2}\n")
        answers.append(stop(bridge, worked, stop_hook_active=n > 0))
    assert [a.get("decision") for a in answers] == ["block", "block", "block", None]
    assert state_of(bridge, worked)["status"] == "paused_block_cap"


def test_cap_zero_means_no_cap(worked, openai_env, bridge, monkeypatch):
    """CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=0 turns Claude Code's cap off; the run never pauses for it."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "0")
    edit_state(worked, consecutive_blocks=50)
    openai_env.push(reply_json(continue_to("T1")))
    assert stop(bridge, worked, stop_hook_active=True)["decision"] == "block"
    assert state_of(bridge, worked)["consecutive_blocks"] == 51


def transcript_of(tmp_path: Path, version: str) -> str:
    path = tmp_path / "session.jsonl"
    path.write_text(
        json.dumps({"type": "user", "version": version, "message": {"role": "user", "content": "go"}}) + "\n"
    )
    return str(path)


@pytest.mark.parametrize(
    "version, shape", [("2.1.332", "context"), ("2.1.163", "context"), ("2.1.162", "block"), (None, "block")]
)
def test_continuation_uses_context_where_claude_code_takes_it(worked, openai_env, bridge, tmp_path, version, shape):
    """From Claude Code 2.1.163 a continuation is additionalContext (no "reported a problem" label); before, a block."""
    openai_env.push(reply_json(continue_to("T2")))
    path = transcript_of(tmp_path, version) if version else str(tmp_path / "missing.jsonl")
    answer = stop(bridge, worked, transcript_path=path)
    if shape == "context":
        assert "decision" not in answer and "Task T2" in answer["hookSpecificOutput"]["additionalContext"]
        assert answer["hookSpecificOutput"]["hookEventName"] == "Stop"
    else:
        assert answer["decision"] == "block" and "Task T2" in answer["reason"]


def test_a_200_finding_review_stays_under_the_output_cap(worked, openai_env, bridge):
    """200 long findings and a long verdict reason: the block stays under 10,000 characters and says what was left."""
    issues = [
        {"severity": ["nit", "minor", "major"][i % 3], "file": f"src/m{i}.py", "line": i, "message": "x" * 300}
        for i in range(200)
    ]
    edit_state(
        worked,
        last_review={
            **REQUEST_CHANGES,
            "issues": issues,
            "issues_count": 200,
            "task_id": "T1",
            "base_sha": None,
            "head_sha": None,
            "fingerprint": "f",
            "timestamp": "2026-12-01T00:00:00.000000Z",
            "review_path": "/runs/x/review-1.json",
        },
    )
    openai_env.push(reply_json({**continue_to("T1"), "reason": "r" * 20_000}))
    reason = stop(bridge, worked)["reason"]
    assert len(reason) < 10_000
    assert "more findings (all in /runs/x/review-1.json)" in reason and "characters cut" in reason
    assert reason.index("[major]") < reason.index("[nit]") if "[nit]" in reason else "[major]" in reason


def test_every_hook_text_is_capped_whatever_a_handler_builds():
    """The dispatcher's last guard cuts any text field over the cap, in hookSpecificOutput too."""
    from autopilot import hooks

    out = hooks.capped({"systemMessage": "a" * 50_000, "hookSpecificOutput": {"additionalContext": "b" * 50_000}})
    assert len(out["systemMessage"]) <= hooks.TEXT_CAP and "were left out" in out["systemMessage"]
    assert len(out["hookSpecificOutput"]["additionalContext"]) <= hooks.TEXT_CAP


@pytest.mark.parametrize("setting, sequence", [(None, "\x1b]9;codex-autopilot: done"), ("bell", "\a"), ("off", None)])
def test_a_finished_run_notifies_the_user_as_configured(worked, openai_env, bridge, monkeypatch, setting, sequence):
    """done: the message carries a terminal notification (OSC 9 by default, the bell, or none with notify: off)."""
    if setting:
        monkeypatch.setenv("AUTOPILOT_NOTIFY", setting)
    openai_env.push(reply_json(done("feature.py exists")))
    answer = stop(bridge, worked)
    assert answer["systemMessage"].startswith("codex-autopilot: done")
    if sequence is None:
        assert "terminalSequence" not in answer
    else:
        assert answer["terminalSequence"].startswith(sequence) and "\x1b" not in answer["terminalSequence"][2:-1]


def test_a_pause_notifies_and_a_continuation_does_not(worked, openai_env, bridge, monkeypatch):
    """Only the end of Claude's supervised work rings: continuing onto the next task stays quiet."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2")
    openai_env.push(reply_json(continue_to("T1")), reply_json(continue_to("T1")))
    first = stop(bridge, worked)
    (Path(worked) / "feature.py").write_text("x = 9\n")
    second = stop(bridge, worked, stop_hook_active=True)
    assert "terminalSequence" not in first and second["terminalSequence"].startswith("\x1b]9;codex-autopilot: the")


def test_notification_text_carries_no_control_characters(worked, openai_env, bridge):
    """A reason holding escape sequences cannot smuggle them into the terminal through the notification."""
    openai_env.push(reply_json({**continue_to("T2"), "decision": "abort", "reason": "bad\x1b]0;pwned\x07 stuff"}))
    seq = stop(bridge, worked)["terminalSequence"]
    assert seq.count("\x1b") == 1 and seq.endswith("\x07") and seq.count("\x07") == 1


def test_a_busy_call_slot_holds_claude_but_never_pauses_the_run(worked, openai_env, bridge, monkeypatch):
    """A verdict that waited out another call of the run is told to Claude; four in a row pause nothing."""
    import filelock

    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "0.3")
    with filelock.FileLock(str(run_dir(str(worked)) / "call.lock")):
        answers = [stop(bridge, worked, stop_hook_active=True) for _ in range(4)]
    assert all("another call of this run was still talking to Codex" in a["reason"] for a in answers)
    s = state_of(bridge, worked)
    assert (s["status"], s["verdict_errors"], s["consecutive_errors"], s["last_error"]["kind"]) == (
        "running",
        0,
        0,
        "busy",
    )
    assert len(openai_env.requests) == 1  # the plan's; no verdict was asked


MAX_STATE_READS = 4  # issue 20; before the lifecycle had one home such a Stop read it 6 to 8 times


def counted_stop(bridge, repo, monkeypatch, **fields):
    """One Stop with every read of state.json and every Workspace it makes counted: (its answer, the counts)."""
    counts = count_state_reads(monkeypatch)
    answer = stop(bridge, repo, **fields)
    return answer, dict(counts)


def test_a_stop_that_keeps_claude_working_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """A verdict of continue: one Workspace, and state.json read at most 4 times (engage, budget, record, block)."""
    edit_state(worked, owner_session_id=SESSION)
    openai_env.push(reply_json(continue_to("T2")))
    answer, counts = counted_stop(bridge, worked, monkeypatch, stop_hook_active=True)
    assert answer["decision"] == "block"
    assert 0 < counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1


def test_a_fresh_stop_restarting_the_block_count_reads_state_at_most_four_times(
    worked, openai_env, bridge, monkeypatch
):
    """A fresh stop after earlier blocks restarts the count in the block's own write: still at most 4 reads."""
    edit_state(worked, owner_session_id=SESSION, consecutive_blocks=5)
    openai_env.push(reply_json(continue_to("T2")))
    answer, counts = counted_stop(bridge, worked, monkeypatch, stop_hook_active=False)
    assert answer["decision"] == "block"
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    assert state_of(bridge, worked)["consecutive_blocks"] == 1


def test_a_stop_that_ends_the_run_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """done: the verdict's own answer is what the hook reports; state.json is not read again for it."""
    edit_state(worked, owner_session_id=SESSION)
    openai_env.push(reply_json(done("feature.py exists")))
    answer, counts = counted_stop(bridge, worked, monkeypatch)
    assert answer["systemMessage"].startswith("codex-autopilot: done")
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1


def test_a_stop_whose_verdict_failed_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """Codex failing: the run as the failure left it decides the answer, without reading state.json again."""
    edit_state(worked, owner_session_id=SESSION)
    openai_env.push(http_error(400, "bad request"))
    answer, counts = counted_stop(bridge, worked, monkeypatch)
    assert "failure 1 of 3" in answer["reason"]
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1


def test_a_stop_that_claims_the_run_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """The first hook on a run no session owns claims it in the verdict call's guard: still at most 4 reads."""
    edit_state(worked, owner_session_id=None)
    openai_env.push(reply_json(continue_to("T2")))
    answer, counts = counted_stop(bridge, worked, monkeypatch, stop_hook_active=True)
    assert answer["decision"] == "block"
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    assert state_of(bridge, worked)["owner_session_id"] == SESSION


def test_a_stop_that_claims_the_run_and_fails_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """Claiming the run, then Codex failing: the claim, the failure and the block in at most 4 reads."""
    edit_state(worked, owner_session_id=None)
    openai_env.push(http_error(400, "bad request"))
    answer, counts = counted_stop(bridge, worked, monkeypatch)
    assert "failure 1 of 3" in answer["reason"]
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    assert state_of(bridge, worked)["owner_session_id"] == SESSION


def test_a_stop_that_claims_the_run_while_the_call_slot_is_busy_claims_it_with_the_block(
    worked, openai_env, bridge, monkeypatch
):
    """No call was made (another one held Codex): the block that holds Claude claims the run, in at most 4 reads."""
    import filelock

    edit_state(worked, owner_session_id=None)
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "0.3")
    with filelock.FileLock(str(run_dir(str(worked)) / "call.lock")):
        answer, counts = counted_stop(bridge, worked, monkeypatch)
    assert "another call of this run" in answer["reason"]
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    assert state_of(bridge, worked)["owner_session_id"] == SESSION


def test_a_stop_that_gives_the_budget_warning_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """The once-per-run budget warning is recorded with the block that carries it: still at most 4 reads."""
    edit_state(worked, owner_session_id=SESSION, budget_used_usd=4.5)
    openai_env.push(reply_json(continue_to("T2")))
    answer, counts = counted_stop(bridge, worked, monkeypatch, stop_hook_active=True)
    assert answer["decision"] == "block" and "has spent $4.50 of its $5.00 budget" in answer["systemMessage"]
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    assert "budget-warning" in state_of(bridge, worked)["notices"]


def test_a_stop_that_claims_the_run_and_warns_reads_state_at_most_four_times(worked, openai_env, bridge, monkeypatch):
    """Both at once (a run planned elsewhere, spent past its warn level): at most 4 reads, one Workspace."""
    edit_state(worked, owner_session_id=None, budget_used_usd=4.5)
    openai_env.push(reply_json(continue_to("T2")))
    answer, counts = counted_stop(bridge, worked, monkeypatch, stop_hook_active=True)
    assert "has spent $4.50" in answer["systemMessage"]
    assert counts["reads"] <= MAX_STATE_READS and counts["workspaces"] == 1
    state = state_of(bridge, worked)
    assert state["owner_session_id"] == SESSION and "budget-warning" in state["notices"]


def test_a_paused_block_leaves_the_budget_warning_for_later(worked, openai_env, bridge, monkeypatch):
    """A block that pauses the run at Claude Code's cap says the pause, not the warning; the warning stays unsaid."""
    monkeypatch.setenv("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "1")
    edit_state(worked, budget_used_usd=4.5)
    openai_env.push(reply_json(continue_to("T2")))
    answer = stop(bridge, worked, stop_hook_active=True)
    assert "paused" in answer["systemMessage"] and "has spent" not in answer["systemMessage"]
    assert "budget-warning" not in state_of(bridge, worked)["notices"]


def test_a_run_another_session_claims_meanwhile_is_not_judged(worked, openai_env, bridge, monkeypatch):
    """Two sessions stopping on a run nobody owned: the one whose claim comes second asks Codex nothing, told once."""
    from autopilot.loop.workspace import Workspace

    edit_state(worked, owner_session_id=None)
    take = Workspace.snapshot_while_loading

    def claimed_meanwhile(self, base):
        edit_state(worked, owner_session_id=OTHER_SESSION)
        return take(self, base)

    monkeypatch.setattr(Workspace, "snapshot_while_loading", claimed_meanwhile)
    calls = len(openai_env.requests)
    answer = stop(bridge, worked)
    assert len(openai_env.requests) == calls and "belongs to another Claude Code session" in answer["systemMessage"]
    state = state_of(bridge, worked)
    assert (state["owner_session_id"], state["iteration"]) == (OTHER_SESSION, 0)


def test_a_foreign_sessions_stop_reads_state_twice(worked, bridge, monkeypatch):
    """Another session's Stop reads the run once to see it is not its own and once to say so (once)."""
    edit_state(worked, owner_session_id=OTHER_SESSION)
    answer, counts = counted_stop(bridge, worked, monkeypatch)
    assert "belongs to another Claude Code session" in answer["systemMessage"]
    assert (counts["reads"], counts["workspaces"]) == (2, 1)


def test_the_read_counter_sees_every_reader_of_state_json(worked, bridge, monkeypatch):
    """The counter counts opens of state.json for reading by anyone (a raw read as well as the Store's), not
    writes: so a reader added outside the Store cannot slip past the Stop's limit."""
    from autopilot.loop.state import Store

    counts = count_state_reads(monkeypatch)
    store = Store(worked)
    store.path.read_bytes()
    with store.transaction() as s:
        s["iteration"] = 1
    assert counts["reads"] == 2
