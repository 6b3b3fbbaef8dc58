"""What reviews tell Claude and the person, through the hooks: findings at the next tool use or before any verdict,
at least once (a hook killed before its answer is out leaves them for the next), each once; the plan and one line per
review for the person; ``/codex-status`` with no model turn."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autopilot.loop.state import Store
from autopilot.scripted.responses_server import http_error, reply_json
from tests.support.hooks import SESSION, context_of, count_state_reads, payload, run_hook
from tests.support.loop import APPROVE, PLAN, continue_to, done, state_of

FINDING = {"severity": "major", "file": "feature.py", "line": 1, "message": "define feature()"}
REQUEST_CHANGES = {"decision": "request_changes", "summary": "x is not a function", "issues": [FINDING]}


def review(bridge, repo, server, answer) -> None:
    """One review recorded by `codex-bridge review` (the worker records its reviews the same way)."""
    (Path(repo) / "feature.py").write_text("x = 1\n")
    server.push(reply_json(answer))
    code, _, err = bridge("-C", str(repo), "review")
    assert code == 0, err


def tool(bridge, repo, name="Read", **fields):
    """Another tool's hook (hooks.json's `*` group, `hook ToolUse` for a PostToolUse event): its answer."""
    fields = {"tool_name": name, "tool_input": {"file_path": "x"}, "hook_event_name": "PostToolUse", **fields}
    return run_hook(bridge, "ToolUse", repo, **fields)


def stop(bridge, repo, **fields):
    return run_hook(bridge, "Stop", repo, last_assistant_message="T1 is finished.", **fields)


def reason(answer) -> str:
    """What a Stop answer keeps Claude working with (a block's reason, or the context that continues the turn)."""
    return (answer or {}).get("reason") or context_of(answer)


def test_findings_reach_claude_at_the_next_tool_use_once(planned, openai_env, bridge):
    """Any tool's hook hands the findings to Claude and one line to the person; the next hook has nothing more."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    given = tool(bridge, planned)
    text = context_of(given)
    assert "Codex reviewed your changes against task T1 and asks for changes" in text
    assert '- [major] feature.py:1: "define feature()"' in text and "check it against the code" in text
    assert given["systemMessage"] == (
        "codex-autopilot: Codex asks for changes on T1: 1 finding (feature.py:1: define feature())"
    )
    assert tool(bridge, planned) is None and state_of(bridge, planned)["reviews_pending"] == []


def test_an_approval_is_a_line_for_the_person_and_nothing_for_claude(planned, openai_env, bridge):
    """Only findings go into Claude's context: an approval without any is one line the person reads."""
    review(bridge, planned, openai_env, APPROVE)
    assert tool(bridge, planned) == {"systemMessage": "codex-autopilot: Codex approves T1"}


def test_a_finding_about_work_that_changed_since_says_so(planned, openai_env, bridge):
    """A review of an earlier state of the work is handed over as such, to Claude and the person."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    (Path(planned) / "feature.py").write_text("def feature():\n    return 1\n")
    given = tool(bridge, planned)
    assert "the work has changed since it was reviewed at" in context_of(given)
    assert "(of an earlier state of the work)" in given["systemMessage"]


def test_a_finding_about_a_task_codex_moved_on_from_says_so(planned, openai_env, bridge):
    """A review of T1 handed over after the run moved on to T2 names both."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    with Store(planned).transaction() as s:
        s["current_task"] = s["plan"]["tasks"][1]
    assert "Codex has since moved the run on to T2" in context_of(tool(bridge, planned))


def test_the_edit_hook_hands_over_too_and_reads_state_at_most_three_times(planned, openai_env, bridge, monkeypatch):
    """An edit's own hook hands over what finished meanwhile: the run read once (claimed), the handover recorded
    once its answer is out; one Workspace."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    counts = count_state_reads(monkeypatch)
    given = run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"})
    assert "define feature()" in context_of(given)
    assert counts["reads"] <= 3 and counts["workspaces"] == 1
    state = state_of(bridge, planned)
    assert state["owner_session_id"] == SESSION and state["reviews_pending"] == []


def test_a_200_finding_review_reaches_claude_under_the_cap(planned, openai_env, bridge):
    """Findings beyond the cap are counted and pointed to (the review file), the most severe first."""
    issues = [
        {"severity": ["minor", "major"][i % 2], "file": f"m{i}.py", "line": i, "message": "y" * 300} for i in range(200)
    ]
    review(bridge, planned, openai_env, {"decision": "request_changes", "summary": "z" * 5000, "issues": issues})
    text = context_of(tool(bridge, planned))
    path = state_of(bridge, planned)["last_review"]["review_path"]
    assert len(text) < 10_000 and f"(all in {path})" in text
    assert "[major]" in text and "[minor]" not in text  # 100 majors do not all fit; no minor comes before them


def test_reviews_that_do_not_fit_one_answer_wait_for_the_next(planned, openai_env, bridge):
    """Two long reviews: the first fills the answer; the second stays pending for the next hook (none is cut away)."""
    long = [{"severity": "major", "file": f"m{i}.py", "line": i, "message": "w" * 500} for i in range(30)]
    for n in range(2):
        (Path(planned) / f"f{n}.py").write_text(f"n = {n}\n")
        openai_env.push(reply_json({"decision": "request_changes", "summary": f"review {n}", "issues": long}))
        assert bridge("-C", str(planned), "review")[0] == 0
    first, second = context_of(tool(bridge, planned)), context_of(tool(bridge, planned))
    assert '"review 0"' in first and '"review 1"' not in first and '"review 1"' in second
    assert tool(bridge, planned) is None


def killed_hook(repo: Path, event: str, fields: dict, *, at: str) -> subprocess.CompletedProcess[str]:
    """Run one hook as its own process and SIGKILL it ``at`` "answered" (its answer written, not yet recorded as
    given) or "handover" (before its answer is built)."""
    point = {"answered": "hooks.answered", "handover": "delivery.handover"}[at]
    code = (
        "import os, signal, sys\n"
        "import autopilot.hooks as hooks, autopilot.hooks.delivery as delivery, autopilot.hooks.review as review\n"
        "def die(*a, **k):\n    sys.stdout.flush(); os.kill(os.getpid(), signal.SIGKILL)\n"
        f"{point} = die\n"
        "if 'delivery.handover' == " + repr(point) + ":\n    review.handover = die\n"
        f"sys.exit(hooks.main({event!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(payload("PostToolUse", repo, **fields)), text=True,
        capture_output=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize("at", ["handover", "answered"])
def test_a_hook_killed_before_its_handover_is_recorded_loses_no_finding(planned, openai_env, bridge, at):
    """SIGKILL before the answer is built, or after it is written but before it is recorded as given: state.json
    stays valid and the findings are still pending, so the next hook hands them over (at least once)."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    fields = {"tool_name": "Read", "tool_input": {"file_path": "x"}}
    proc = killed_hook(planned, "ToolUse", fields, at=at)
    assert proc.returncode == -9
    assert ("define feature()" in proc.stdout) == (at == "answered")  # what Claude Code may or may not have read
    assert len(Store(planned).load()["reviews_pending"]) == 1
    assert "define feature()" in context_of(tool(bridge, planned))
    assert Store(planned).load()["reviews_pending"] == []


def test_stop_hands_over_findings_before_asking_for_a_verdict(planned, openai_env, bridge):
    """Claude stops with a review's request for changes not yet handed over: it gets the findings and no verdict is
    asked (the next Stop asks, the review in its evidence)."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    calls = len(openai_env.requests)
    answer = stop(bridge, planned)
    assert "Before Codex judges this task" in reason(answer) and "define feature()" in reason(answer)
    assert "Codex asks for changes on T1" in answer["systemMessage"]
    assert len(openai_env.requests) == calls and state_of(bridge, planned)["iteration"] == 0
    openai_env.push(reply_json(continue_to("T2")))
    stop(bridge, planned, stop_hook_active=True)
    assert "your last review of this task" in openai_env.requests[-1]["input"]  # the review, as evidence
    assert "define feature()" in openai_env.requests[-1]["input"]


def test_an_approval_pending_at_stop_is_told_and_the_verdict_is_asked(planned, openai_env, bridge):
    """A pending approval holds nothing: the verdict is asked and the person reads both."""
    review(bridge, planned, openai_env, APPROVE)
    openai_env.push(reply_json(done("feature.py exists")))
    answer = stop(bridge, planned)
    assert (
        answer["systemMessage"].startswith("codex-autopilot: done") and "Codex approves T1" in answer["systemMessage"]
    )


def review_during_verdict(bridge, repo, server, verdict) -> dict:
    """A Stop while a review is in flight (`codex-bridge review`, in a process of its own as the worker's would be):
    the verdict is asked beside it, and the review's request for changes is recorded while Codex decides."""
    (Path(repo) / "feature.py").write_text("x = 1\n")
    reviewing, deciding = threading.Event(), threading.Event()

    def answer(body):
        if "criteria" not in json.dumps(body.get("text") or {}):
            reviewing.set()
            deciding.wait(60)  # the review lands once Codex is deciding the verdict
            return reply_json(REQUEST_CHANGES)
        deciding.set()
        deadline = time.monotonic() + 60  # Codex decides until the review beside it is recorded
        while not Store(repo).load(repair=False)["reviews_pending"] and time.monotonic() < deadline:
            time.sleep(0.05)
        return reply_json(verdict)

    server.responder = answer
    argv = [sys.executable, "-m", "autopilot", "-C", str(repo), "review"]
    cli = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert reviewing.wait(60), "no review was asked"
    answer_of_stop = stop(bridge, repo)
    _, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, err
    return answer_of_stop


def test_a_done_verdict_waits_for_findings_that_landed_while_codex_decided(planned, openai_env, bridge):
    """Codex says done while a review that asks for changes lands: the run is not ended before Claude has the
    findings; the verdict is charged but not applied, and the next Stop asks again."""
    answer = review_during_verdict(bridge, planned, openai_env, done("feature.py exists"))
    assert "define feature()" in reason(answer) and "Before Codex judges this task" in reason(answer)
    s = state_of(bridge, planned)
    assert (s["status"], s["iteration"], s["reviews_pending"]) == ("running", 0, [])
    assert s["token_usage"]["verdict"]["calls"] == 1


def test_findings_that_landed_during_a_continue_verdict_ride_with_it(planned, openai_env, bridge):
    """A verdict that keeps Claude working carries the findings that landed while Codex decided."""
    answer = review_during_verdict(bridge, planned, openai_env, continue_to("T2"))
    text = reason(answer)
    assert "Codex's verdict" in text and "Task T2" in text and "define feature()" in text
    assert state_of(bridge, planned)["iteration"] == 1


def test_the_plan_is_shown_once_after_a_plan_from_a_claude_session(openai_env, git_repo, bridge):
    """After /autopilot or /codex-plan (a plan made for a Claude Code session) the first hook shows the person the
    tasks with their criteria, once; a plan made in a terminal was printed there."""
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--session-id", SESSION)[0] == 0
    shown = tool(bridge, git_repo)["systemMessage"]
    assert shown.startswith("codex-autopilot: Codex planned 2 tasks (docs/autopilot/plans/")
    assert "  T1 Add feature: feature.py exists\n  T2 Test it: test passes" in shown
    assert tool(bridge, git_repo) is None and context_of(tool(bridge, git_repo)) == ""


def test_a_terminal_plan_is_not_shown_again(planned, bridge):
    """A plan made outside Claude Code (no session) was printed to whoever made it: no hook repeats it."""
    assert tool(bridge, planned) is None


def test_a_failed_review_is_told_to_the_person_once(planned, openai_env, bridge):
    """The worker's failure is one line for the person (how far from the pause), once."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    openai_env.push(http_error(400, "bad request"))
    bridge("-C", str(planned), "review")
    line = tool(bridge, planned)["systemMessage"]
    assert "Codex could not review the latest change (http_400" in line and "failure 1 of 3" in line
    assert tool(bridge, planned) is None


def test_a_new_session_is_given_what_no_session_was(planned, openai_env, bridge):
    """Findings no hook handed over (a session that ended) reach the next session at its start."""
    review(bridge, planned, openai_env, REQUEST_CHANGES)
    answer = run_hook(bridge, "SessionStart", planned, source="startup")
    assert "codex-autopilot run active" in context_of(answer) and "define feature()" in context_of(answer)
    assert state_of(bridge, planned)["reviews_pending"] == []


def test_codex_status_is_shown_with_no_model_turn(planned, openai_env, bridge):
    """`/codex-status` typed: the UserPromptSubmit hook blocks the prompt (no model turn) with the status as its
    reason, which Claude Code shows the person."""
    for typed in ("/codex-status", " /codex-autopilot:codex-status "):
        answer = run_hook(bridge, "UserPromptSubmit", planned, prompt=typed)
        assert answer["decision"] == "block" and "Goal:       Add a feature with a test" in answer["reason"]
        assert "Task:       T1: Add feature" in answer["reason"]


def test_codex_status_without_a_run_says_so(git_repo, bridge):
    """Without a run the same prompt says there is none and how to start one."""
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="/codex-status")
    assert answer["decision"] == "block" and "No autopilot run in this workspace." in answer["reason"]


def test_review_mode_stop_reviews_once_when_claude_stops(planned, openai_env, bridge, monkeypatch):
    """AUTOPILOT_REVIEW_MODE=stop: edits ask nothing; Claude's stop asks one review first, whose request for changes
    holds Claude with no verdict; once approved, the next stop asks the verdict."""
    monkeypatch.setenv("AUTOPILOT_REVIEW_MODE", "stop")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    run_hook(bridge, "PostToolUse", planned, tool_name="Write", tool_input={"file_path": "feature.py"})
    openai_env.push(reply_json(REQUEST_CHANGES))
    assert "define feature()" in reason(stop(bridge, planned))
    (Path(planned) / "feature.py").write_text("def feature():\n    return 1\n")
    openai_env.push(reply_json(APPROVE), reply_json(continue_to("T2")))
    assert "Task T2" in reason(stop(bridge, planned, stop_hook_active=True))
    phases = [p for p in ("plan", "review", "review", "verdict")]
    asked = ["review" if "issues" in json.dumps(r["text"]) else "verdict" for r in openai_env.requests[1:]]
    assert ["plan", *asked] == phases


def test_a_bad_review_mode_is_said_and_nothing_breaks(planned, bridge, monkeypatch):
    """A review mode that is none of edit, stop, off fails open with a message naming the choices."""
    monkeypatch.setenv("AUTOPILOT_REVIEW_MODE", "sometimes")
    (Path(planned) / "feature.py").write_text("x = 1\n")
    answer = run_hook(bridge, "PostToolUse", planned, tool_name="Write", tool_input={"file_path": "feature.py"})
    assert "AUTOPILOT_REVIEW_MODE must be one of edit, stop, off" in answer["systemMessage"]
    assert "decision" not in answer and os.environ["AUTOPILOT_REVIEW_MODE"] == "sometimes"


def test_a_stop_that_hands_reviews_over_reads_state_at_most_five_times(planned, openai_env, bridge, monkeypatch):
    """A continuing Stop with a review to hand over: engage, budget, record, block, and the handover recorded once the
    answer is out (the one read more than a Stop with nothing pending); one Workspace."""
    review(bridge, planned, openai_env, APPROVE)
    with Store(planned).transaction() as s:
        s["owner_session_id"] = SESSION
    openai_env.push(reply_json(continue_to("T2")))
    counts = count_state_reads(monkeypatch)
    answer = stop(bridge, planned)
    assert "Codex approves T1" in answer["systemMessage"] and "Task T2" in reason(answer)
    assert counts["reads"] <= 5 and counts["workspaces"] == 1
    assert state_of(bridge, planned)["reviews_pending"] == []
