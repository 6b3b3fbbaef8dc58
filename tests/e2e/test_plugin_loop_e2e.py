"""The plugin inside the real claude, with the real codex reviewing, both against scripted servers."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from autopilot.hooks.context import CONTEXT_CONTINUES_FROM
from autopilot.scripted.responses_server import delay, http_error, reply_json
from tests.support.agents import agent_version
from tests.support.loop import APPROVE, PLAN, continue_to, done, state_of
from tests.support.messages_server import text, tool_use
from tests.support.plugin_harness import run_claude

pytestmark = pytest.mark.e2e

REQUEST_CHANGES = {
    "decision": "request_changes",
    "summary": "feature.py has no docstring",
    "issues": [{"severity": "minor", "file": "feature.py", "line": 1, "message": "add a docstring"}],
}


def write(repo: Path, name: str, content: str) -> dict:
    return tool_use("Write", {"file_path": str(repo / name), "content": content})


def kind(stop_output: dict) -> str | None:
    """What a Stop hook answer did: "continue" (a block, or additionalContext on Claude Code >= 2.1.163) or None."""
    if stop_output.get("decision") == "block" or (stop_output.get("hookSpecificOutput") or {}).get("additionalContext"):
        return "continue"
    return None


def reviews_done(bridge, repo, calls: dict[int, int]):
    """``before`` for run_claude: the n-th request of Claude is answered once the run has ``calls[n]`` reviews
    recorded (the worker reviews in the background; a Claude slower than Codex sees them land)."""

    def wait(n: int) -> None:
        deadline = time.monotonic() + 120
        while n in calls and time.monotonic() < deadline:
            if state_of(bridge, repo)["token_usage"]["review"]["calls"] >= calls[n]:
                return
            time.sleep(0.2)

    return wait


@pytest.mark.smoke
def test_full_loop_plan_review_continue_done(claude, codex, git_repo, tmp_path, bridge):
    """/autopilot plans; the edit is reviewed in the background and its findings reach Claude at its next tool;
    Stop continues Claude onto T2 with its criteria; then done."""
    codex.push("plan", reply_json(PLAN))
    codex.push("review", reply_json(REQUEST_CHANGES), reply_json(APPROVE))
    codex.push("verdict", reply_json(continue_to("T2")), reply_json(done("test passes")))
    steps = [
        write(git_repo, "feature.py", "x = 1\n"),
        tool_use("Read", {"file_path": str(git_repo / "feature.py")}),
        text("T1 is done: feature.py exists."),
        write(git_repo, "test_feature.py", "def test(): pass\n"),
        text("T2 is done: the test passes."),
    ]
    before = reviews_done(bridge, git_repo, {1: 1, 4: 2})  # Claude works on while each review lands
    command = "/codex-autopilot:autopilot Add a feature with a test"
    run = run_claude(claude, git_repo, command, steps, tmp_path / "h", before=before)
    assert run.proc.returncode == 0, run.proc.stderr
    texts = run.main_texts()
    assert len(texts) == 5 and run.server.unscripted == 0
    assert "current_task" in texts[0] and "feature.py exists" in texts[0]  # the plan reached Claude
    assert "Codex reviewed your changes against task T1 and asks for changes" not in texts[1]  # never waited for
    assert "Codex reviewed your changes against task T1 and asks for changes" in texts[2]
    assert "add a docstring" in texts[2]
    assert "Task T2: Test it" in texts[3] and "1. test passes" in texts[3]  # the Stop's continuation
    assert codex.asked == ["plan", "review", "verdict", "review", "verdict"]
    assert "T1 is done: feature.py exists." in codex.prompts("verdict")[0]
    stops = run.hook_outputs("Stop")
    assert [kind(s) for s in stops] == ["continue", None]
    assert stops[1]["systemMessage"].startswith("codex-autopilot: done")
    assert stops[1]["terminalSequence"].startswith("\x1b]9;codex-autopilot: done")  # the notification
    s = state_of(bridge, git_repo)
    assert (s["status"], s["iteration"], s["current_task"]["id"], s["owner_session_id"]) == (
        "done",
        2,
        "T2",
        run.session_id,
    )
    assert (s["last_review"]["task_id"], s["last_review"]["decision"]) == ("T2", "approve")
    assert (git_repo / s["plan_path"]).read_text().startswith("# Autopilot plan: Add a feature with a test")
    events = [json.loads(x) for x in (Path(s["run_dir"]) / "events.jsonl").read_text().splitlines()]
    assert [(e["phase"], e["outcome"], e["backend"]) for e in events] == [
        (phase, "ok", "codex-cli") for phase in ("plan", "review", "verdict", "review", "verdict")
    ]


@pytest.fixture
def planned_with_codex(codex, git_repo, bridge):
    """A run planned through the real codex before Claude starts (unowned: the first session claims it)."""

    def plan(*flags: str) -> Path:
        codex.push("plan", reply_json(PLAN))
        code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test", *flags)
        assert code == 0, err
        return git_repo

    return plan


def test_budget_spent_mid_run_lets_claude_stop(claude, codex, planned_with_codex, tmp_path, bridge):
    """A review that spends the budget ends the loop: the next Stop asks no verdict and Claude stops."""
    # Codex bills ~15,000 tokens a call for its own instructions and tools ($0.03 at gpt-6.2-sol's
    # price): the first review and the verdict fit in $0.20; the second review's 200,000 tokens do not.
    repo = planned_with_codex("--budget", "0.20")
    codex.push("review", reply_json(APPROVE), reply_json(APPROVE, {"input_tokens": 200_000}))
    codex.push("verdict", reply_json(continue_to("T2")))
    steps = [
        write(repo, "feature.py", "x = 1\n"),
        text("T1 done."),
        write(repo, "test_feature.py", "def test(): pass\n"),
        text("T2 done."),
    ]
    before = reviews_done(bridge, repo, {1: 1, 3: 2})  # each review lands before Claude stops
    run = run_claude(claude, repo, "Work on the autopilot task.", steps, tmp_path / "h", before=before)
    assert run.proc.returncode == 0 and len(run.main_texts()) == 4 and run.server.unscripted == 0
    assert codex.asked == ["plan", "review", "verdict", "review"]
    stops = run.hook_outputs("Stop")
    assert [kind(s) for s in stops] == ["continue", None]
    assert "stopped: budget spent" in stops[1]["systemMessage"] and "budget set" in stops[1]["systemMessage"]
    s = state_of(bridge, repo)
    assert s["status"] == "stopped_budget" and s["budget_used_usd"] >= s["budget_usd"]


def test_codex_failing_never_holds_claude_more_than_twice(claude, codex, planned_with_codex, tmp_path, bridge):
    """Codex exiting non-zero, then timing out, then failing again: two blocks at most, then a paused run."""
    repo = planned_with_codex()
    (repo / "feature.py").write_text("x = 1\n")
    codex.push(
        "verdict",
        http_error(500, "upstream broke"),
        delay(reply_json(continue_to("T2")), 8),
        http_error(500, "upstream broke"),
    )
    steps = [text("T1 is done."), text("Still done."), text("Done, really.")]
    run = run_claude(claude, repo, "Finish the task.", steps, tmp_path / "h", AUTOPILOT_TIMEOUT="3")
    assert run.proc.returncode == 0 and len(run.main_texts()) == 3 and run.server.unscripted == 0
    stops = run.hook_outputs("Stop")
    assert [kind(s) for s in stops] == ["continue", "continue", None]
    assert "paused" in stops[2]["systemMessage"] and "/autopilot resume" in stops[2]["systemMessage"]
    assert stops[2]["terminalSequence"].startswith("\x1b]9;codex-autopilot: the autopilot run paused")
    s = state_of(bridge, repo)
    assert (s["status"], s["consecutive_errors"], s["iteration"]) == ("paused_reviewer_unavailable", 3, 0)
    code, out, _ = bridge("-C", str(repo), "status")
    assert "paused_reviewer_unavailable (Codex was unavailable 3 times in a row" in out


NINE = {
    "summary": "nine steps",
    "tasks": [
        {"id": f"T{n}", "title": f"Step {n}", "description": f"write step{n}.py", "acceptance": [f"step{n}.py exists"]}
        for n in range(1, 10)
    ],
}


def test_nine_tasks_with_a_tool_each_reach_done_without_a_pause(claude, codex, git_repo, tmp_path, bridge):
    """Claude runs a tool in every continuation: Claude Code's block count restarts each time, and so does the run's,
    so nine tasks (eight continuations, past the default cap of 8) end done, never paused."""
    codex.push("plan", reply_json(NINE))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Nine steps")[0] == 0
    codex.push("review", *(reply_json(APPROVE) for _ in range(9)))
    codex.push(
        "verdict", *(reply_json(continue_to(f"T{n}")) for n in range(2, 10)), reply_json(done("step9.py exists"))
    )
    steps = []
    for n in range(1, 10):
        steps += [write(git_repo, f"step{n}.py", f"n = {n}\n"), text(f"T{n} is done.")]
    run = run_claude(claude, git_repo, "Work on the autopilot task.", steps, tmp_path / "h", timeout=600)
    assert run.proc.returncode == 0 and run.server.unscripted == 0, run.proc.stderr[-2000:]
    stops = run.hook_outputs("Stop")
    assert [kind(s) for s in stops] == ["continue"] * 8 + [None]
    if agent_version("claude") >= CONTEXT_CONTINUES_FROM:  # continued without the TUI's "problem" label
        assert all("hookSpecificOutput" in s for s in stops[:8])
    else:  # older Claude Code only continues a turn for a block
        assert all(s.get("decision") == "block" for s in stops[:8])
    s = state_of(bridge, git_repo)
    assert (s["status"], s["iteration"], s["current_task"]["id"]) == ("done", 9, "T9")


@pytest.mark.smoke
def test_stops_without_tools_pause_before_claude_codes_cap(claude, codex, planned_with_codex, tmp_path, bridge):
    """Claude keeps ending its turn without running a tool: the run blocks 7 times, then pauses itself before
    Claude Code's default cap of 8 would end the turn."""
    repo = planned_with_codex("--no-progress-threshold", "50", "--max-iterations", "50")
    (repo / "feature.py").write_text("x = 1\n")
    codex.push("verdict", *(reply_json(continue_to("T1")) for _ in range(8)))
    run = run_claude(claude, repo, "Finish the task.", [text("Done.") for _ in range(8)], tmp_path / "h")
    assert run.proc.returncode == 0 and run.server.unscripted == 0, run.proc.stderr[-2000:]
    stops = run.hook_outputs("Stop")
    assert [kind(s) for s in stops] == ["continue"] * 7 + [None]
    assert "paused after 7" in stops[7]["systemMessage"]
    assert "blocked the turn from ending" not in run.proc.stdout  # Claude Code's own cap never fired
    assert state_of(bridge, repo)["status"] == "paused_block_cap"
