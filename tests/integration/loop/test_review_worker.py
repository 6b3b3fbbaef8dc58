"""The review worker as a process: started by an edit's hook, one per run, reviews in the background, coalesces the
edits made meanwhile, exits when its run or its Claude Code session ends, and loses no finding to a SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopilot.loop.review import LEFT
from autopilot.loop.review_worker import ENTRY, EXIT_BUSY, PID_FILE, running, start_worker
from autopilot.loop.state import REVIEW_LANE, Store
from autopilot.scripted.responses_server import delay, reply_json
from tests.support.fake_codex import alive, fake_codex, reap
from tests.support.hooks import context_of, reviewed, run_hook
from tests.support.loop import APPROVE, state_of

FINDING = {"severity": "major", "file": "feature.py", "line": 1, "message": "define feature()"}
REQUEST_CHANGES = {"decision": "request_changes", "summary": "x is not a function", "issues": [FINDING]}


def edit(bridge, repo, name="feature.py", content="x = 1\n", **fields):
    """Claude's Write of ``name``, and its PostToolUse hook's answer."""
    (Path(repo) / name).write_text(content)
    return run_hook(bridge, "PostToolUse", repo, tool_name="Write", tool_input={"file_path": name}, **fields)


def tool(bridge, repo, name="Read"):
    """Another tool's hook (hooks.json's `*` group, `hook ToolUse` for a PostToolUse event): its answer."""
    fields = {"tool_name": name, "tool_input": {"file_path": "feature.py"}, "hook_event_name": "PostToolUse"}
    return run_hook(bridge, "ToolUse", repo, **fields)


def review_prompts(server) -> list[str]:
    return [json.dumps(r.get("input")) for r in server.requests if "issues" in json.dumps(r.get("text") or {})]


def worker_pid(repo) -> int | None:
    try:
        return int((Store(repo).dir / PID_FILE).read_text().split()[0])
    except (OSError, ValueError):
        return None


def wait_until(check, timeout: float = 20.0, what: str = "the condition") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout}s"
        time.sleep(0.05)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone too (nobody waits for a detached worker)
        return fh.read().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.fixture
def claude_process():
    """A stand-in for the Claude Code process the hooks run for (CLAUDE_PID): a child that sleeps until killed."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    proc.kill()
    proc.wait()


def test_an_edit_returns_at_once_and_its_review_lands_in_the_background(planned, openai_env, bridge):
    """A review slower than Claude never holds the edit's hook: the review is recorded later, pending for Claude."""
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 3.0))
    started = time.monotonic()
    assert edit(bridge, planned) is None
    assert time.monotonic() - started < 2.0
    state = reviewed(bridge, planned)
    assert [r["issues"] for r in state["reviews_pending"]] == [[FINDING]]
    assert state["last_review"]["decision"] == "request_changes"


def test_edits_during_a_review_are_reviewed_together_once_claude_is_still_working(planned, openai_env, bridge):
    """Three edits while a review is in flight make one more review, of the newest tree, started at Claude's next
    tool use after the first review landed; never one review per edit."""
    openai_env.push(delay(reply_json(APPROVE), 2.0), reply_json(APPROVE))
    edit(bridge, planned)
    wait_until(lambda: len(review_prompts(openai_env)) == 1, what="the first review's request")
    for n in range(2, 5):
        edit(bridge, planned, name=f"step{n}.py", content=f"n = {n}\n")
    first = reviewed(bridge, planned)
    time.sleep(1.0)  # the worker waits: Claude may be about to stop, and the verdict sees the same diff
    assert len(review_prompts(openai_env)) == 1
    tool(bridge, planned)  # Claude is still working
    reviewed(bridge, planned, first["last_review"]["timestamp"])
    prompts = review_prompts(openai_env)
    assert len(prompts) == 2 and all(f"step{n}.py" in prompts[1] for n in range(2, 5))


def test_an_edit_after_a_review_landed_is_reviewed_at_once(planned, openai_env, bridge):
    """Work noted after the last review finished is new work: the next review starts without waiting for a tool."""
    openai_env.push(reply_json(APPROVE), reply_json(APPROVE))
    edit(bridge, planned)
    first = reviewed(bridge, planned)
    edit(bridge, planned, name="more.py", content="y = 2\n")
    reviewed(bridge, planned, first["last_review"]["timestamp"])
    assert "more.py" in review_prompts(openai_env)[1]


def test_a_tree_already_reviewed_is_not_reviewed_again(planned, openai_env, bridge):
    """A Bash call that changes nothing after a review asks Codex nothing, worker or no worker."""
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    reviewed(bridge, planned)
    run_hook(bridge, "PostToolUse", planned, tool_name="Bash", tool_input={"command": "ls"})
    time.sleep(1.0)
    assert len(review_prompts(openai_env)) == 1


def test_one_worker_serves_a_run_and_a_second_exits_busy(planned, openai_env, bridge):
    """Two workers started for one run: the second finds the lock taken and exits EXIT_BUSY at once."""
    store = Store(planned)
    start_worker(store, str(planned), claude_pid=None, tool_mark=str(store.dir / "last-tool-use"))
    wait_until(lambda: running(store), what="the first worker")
    second = subprocess.run(
        [sys.executable, "-I", "-c", ENTRY],
        input=json.dumps({"root": str(planned), "claude_pid": None, "tool_mark": None}),
        text=True,
        capture_output=True,
        timeout=60,
    )
    assert second.returncode == EXIT_BUSY and running(store)


def test_the_worker_exits_when_the_run_ends(planned, openai_env, bridge):
    """An idle worker whose run is stopped (or done, paused, re-planned) exits within a second or so."""
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    reviewed(bridge, planned)
    pid = worker_pid(planned)
    assert pid is not None and not gone(pid)
    assert bridge("-C", str(planned), "stop")[0] == 0
    wait_until(lambda: gone(pid), timeout=5, what="the worker's exit")
    assert not running(Store(planned)) and worker_pid(planned) is None


def test_the_worker_exits_with_the_claude_process_it_serves(planned, openai_env, bridge, monkeypatch, claude_process):
    """The session ends (Claude Code's process is gone, SessionEnd hook or not): no worker of its run is left."""
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    reviewed(bridge, planned)
    pid = worker_pid(planned)
    assert pid is not None and not gone(pid)
    claude_process.kill()
    claude_process.wait()
    wait_until(lambda: gone(pid), timeout=5, what="the worker's exit")


def events_of(repo) -> list[dict]:
    return [json.loads(line) for line in (Store(repo).dir / "events.jsonl").read_text().splitlines()]


def test_a_review_in_flight_when_the_session_ends_is_left_running_and_the_next_session_collects_it(
    planned, openai_env, bridge, monkeypatch, claude_process
):
    """The session ends while Codex reviews (8 s): the worker leaves the review running at the provider and is gone at
    once, with nothing charged yet. The next session's start fetches it by id: its finding is pending for Claude,
    charged once, as billed, and logged once."""
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 8.0))
    edit(bridge, planned)
    wait_until(lambda: len(review_prompts(openai_env)) == 1, what="the review's request")
    assert openai_env.requests[-1]["background"] is True
    pid = worker_pid(planned)
    claude_process.kill()
    claude_process.wait()
    asked = time.monotonic()
    wait_until(lambda: gone(pid), timeout=6, what="the worker's exit")
    assert time.monotonic() - asked < 6  # well before the review's 8 s
    left = Store(planned).dir / "review-left.json"
    assert json.loads(left.read_text())["response_id"].startswith("resp_")
    assert state_of(bridge, planned)["token_usage"]["review"]["calls"] == 0
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"]) as next_claude:
        try:
            monkeypatch.setenv("CLAUDE_PID", str(next_claude.pid))
            run_hook(bridge, "SessionStart", planned, source="startup")
            state = reviewed(bridge, planned, timeout=30)
            assert [r["issues"] for r in state["reviews_pending"]] == [[FINDING]]
            assert state["token_usage"]["review"]["calls"] == 1 == len(openai_env.bills) - 1  # plan + review
            reviews = [e for e in events_of(planned) if e["phase"] == "review"]
            assert len(reviews) == 1 and reviews[0]["outcome"] == "ok" and reviews[0]["latency_ms"] >= 7000
            assert not left.exists()
            given = tool(bridge, planned)
            assert "define feature()" in context_of(given)
        finally:
            next_claude.kill()


def test_session_end_with_a_review_in_flight_returns_with_the_worker_gone(
    planned, openai_env, bridge, monkeypatch, claude_process
):
    """The SessionEnd hook of the session a worker serves, a review in flight: by the time the hook returns (Claude
    Code exits right after it) the worker is gone, the review left at the provider."""
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    openai_env.push(delay(reply_json(APPROVE), 8.0))
    edit(bridge, planned)
    wait_until(lambda: (Store(planned).dir / "review-left.json").exists(), what="the review's id kept")
    pid = worker_pid(planned)
    started = time.monotonic()
    run_hook(bridge, "SessionEnd", planned, reason="logout")
    assert time.monotonic() - started < 3.0 and gone(pid)


def test_a_review_in_flight_when_the_run_ends_is_left_and_charged_to_that_run(planned, openai_env, bridge):
    """The run is stopped while Codex reviews: the worker goes at once; the next session's start charges the stopped
    run exactly what the provider billed, and hands nothing to a run that is over."""
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 4.0))
    edit(bridge, planned)
    wait_until(lambda: len(review_prompts(openai_env)) == 1, what="the review's request")
    pid = worker_pid(planned)
    assert bridge("-C", str(planned), "stop")[0] == 0
    wait_until(lambda: gone(pid), timeout=3, what="the worker's exit")
    run_hook(bridge, "SessionStart", planned, source="startup")
    wait_until(lambda: state_of(bridge, planned)["token_usage"]["review"]["calls"] == 1, what="the charge")
    state = state_of(bridge, planned)
    assert state["status"] == "idle" and len(openai_env.bills) == 2  # `stop` ends the run: idle
    wait_until(lambda: not running(Store(planned)), timeout=5, what="the collecting worker's exit")
    assert not (Store(planned).dir / "review-left.json").exists()


def test_sigkill_of_the_worker_mid_review_loses_no_finding(planned, openai_env, bridge):
    """The worker killed while Codex answers: state.json stays valid; the next edit's worker fetches the killed
    review by the id it left (charged once), then reviews the newest tree; its finding reaches Claude."""
    openai_env.push(delay(reply_json(APPROVE), 3.0), reply_json(REQUEST_CHANGES))
    edit(bridge, planned)
    store = Store(planned)
    # the provider has taken the review and the worker has kept its id (a kill before that loses the id: the one
    # window left, between the provider's answer and one small write)
    wait_until(lambda: (store.dir / "review-left.json").exists(), what="the review's id kept")
    pid = worker_pid(planned)
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: gone(pid), what="the worker's death")
    wait_until(lambda: not running(store), what="the lock's release")
    assert store.load()["last_review"] is None  # loads (validated): nothing half-written
    edit(bridge, planned, name="feature.py", content="x = 2\n")
    state = reviewed(bridge, planned)
    assert state["last_review"]["decision"] == "approve"  # the killed review, fetched first
    state = reviewed(bridge, planned, after=state["last_review"]["timestamp"])
    given = tool(bridge, planned)
    assert "define feature()" in context_of(given) and "Codex asks for changes on T1" in given["systemMessage"]
    assert "x = 2" in review_prompts(openai_env)[-1]
    assert state["token_usage"]["review"]["calls"] == 2 == len(openai_env.bills) - 1  # nothing billed is lost


def test_no_review_starts_while_codex_is_deciding_a_verdict(planned, openai_env, bridge):
    """While a verdict holds its lane the worker waits (the verdict judges the same work); then it reviews."""
    import filelock

    openai_env.push(reply_json(APPROVE))
    with filelock.FileLock(str(Store(planned).dir / "call.lock")):
        edit(bridge, planned)
        time.sleep(1.5)
        assert review_prompts(openai_env) == []
    reviewed(bridge, planned)
    assert len(review_prompts(openai_env)) == 1


def test_review_mode_off_starts_no_worker(planned, openai_env, bridge, monkeypatch):
    """AUTOPILOT_REVIEW_MODE=off: edits start no worker and ask Codex nothing."""
    monkeypatch.setenv("AUTOPILOT_REVIEW_MODE", "off")
    edit(bridge, planned)
    time.sleep(1.0)
    assert not running(Store(planned)) and review_prompts(openai_env) == []


def test_session_end_stops_its_idle_worker_before_claude_exits(
    planned, openai_env, bridge, monkeypatch, claude_process
):
    """The SessionEnd hook of the process a worker serves stops it before the hook returns; a /clear (the same
    process goes on) and another process's SessionEnd leave it be."""
    from autopilot import hooks
    from autopilot.loop import review_worker

    assert hooks.WORKER_PID == review_worker.PID_FILE  # the hot path names the files without importing the worker
    assert hooks.REVIEW_LANE == REVIEW_LANE
    assert hooks.REVIEW_LEFT == LEFT
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    openai_env.push(reply_json(APPROVE))
    edit(bridge, planned)
    reviewed(bridge, planned)
    pid = worker_pid(planned)
    run_hook(bridge, "SessionEnd", planned, reason="clear")
    monkeypatch.setenv("CLAUDE_PID", "1")
    run_hook(bridge, "SessionEnd", planned, reason="prompt_input_exit")
    time.sleep(0.5)
    assert not gone(pid)
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    run_hook(bridge, "SessionEnd", planned, reason="prompt_input_exit")
    assert gone(pid) and not running(Store(planned))


def test_three_failed_reviews_pause_the_run_and_the_next_hook_says_so_once(planned, openai_env, bridge):
    """The worker's third failure in a row pauses the run; no hook waited for it, so the next edit's hook tells the
    person (how to resume), once, and asks Codex nothing more."""
    from autopilot.scripted.responses_server import http_error

    openai_env.push(*(http_error(400, "bad request") for _ in range(3)))
    after = None
    for n in range(3):
        edit(bridge, planned, content=f"x = {n}\n")
        after = reviewed(bridge, planned, after)["last_error"]["timestamp"]
    wait_until(lambda: state_of(bridge, planned)["status"] == "paused_reviewer_unavailable", what="the pause")
    said = edit(bridge, planned, content="x = 9\n")
    assert "the autopilot run paused" in said["systemMessage"] and "/autopilot resume" in said["systemMessage"]
    assert edit(bridge, planned, content="x = 10\n") is None and len(review_prompts(openai_env)) == 3


def test_a_second_sigterm_ends_a_review_in_flight_and_leaves_no_codex(planned, bridge, tmp_path, monkeypatch):
    """A codex that never answers: the first SIGTERM waits for the review (billed either way), the second ends it at
    once; its codex (in a session of its own) is stopped and the run's review lock let go, nothing recorded."""
    bin_dir = tmp_path / "bin"
    fake_codex(bin_dir, "started")
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(bin_dir / "codex"))
    store = Store(planned)
    try:
        edit(bridge, planned)
        wait_until(lambda: alive(bin_dir) != [], what="the review's codex")
        pid = worker_pid(planned)
        assert pid is not None
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.5)
        assert not gone(pid) and alive(bin_dir)  # the review in flight goes on
        os.kill(pid, signal.SIGTERM)
        wait_until(lambda: gone(pid), what="the worker's exit")
        wait_until(lambda: alive(bin_dir) == [], what="its codex's end")
        assert not running(store) and store.load()["last_review"] is None
        assert "stopped by signal 15 twice" in (store.dir / "review-worker.log").read_text()
    finally:
        reap(bin_dir)


def test_with_background_reviews_off_a_review_in_flight_is_finished_first(
    planned, openai_env, bridge, monkeypatch, claude_process
):
    """AUTOPILOT_REVIEW_BACKGROUND=off (a Zero Data Retention project): no review is asked in background mode, and one
    in flight when the session ends is finished and recorded before the worker exits."""
    monkeypatch.setenv("AUTOPILOT_REVIEW_BACKGROUND", "off")
    monkeypatch.setenv("CLAUDE_PID", str(claude_process.pid))
    openai_env.push(delay(reply_json(REQUEST_CHANGES), 2.0))
    edit(bridge, planned)
    wait_until(lambda: len(review_prompts(openai_env)) == 1, what="the review's request")
    assert "background" not in openai_env.requests[-1]
    pid = worker_pid(planned)
    claude_process.kill()
    claude_process.wait()
    wait_until(lambda: gone(pid), timeout=15, what="the worker's exit")
    state = state_of(bridge, planned)
    assert [r["issues"] for r in state["reviews_pending"]] == [[FINDING]]
    assert state["token_usage"]["review"]["calls"] == 1 == len(openai_env.bills) - 1
    assert not (Store(planned).dir / "review-left.json").exists()


def test_a_left_review_that_never_finishes_does_not_hold_later_reviews_back(planned, openai_env, bridge):
    """A note whose review the provider is still at after a whole call's time (AUTOPILOT_TIMEOUT): the next worker
    asks after it, then reviews the newest tree anyway; the old note is set aside, said, never overwritten."""
    import urllib.request

    openai_env.push(delay(reply_json(APPROVE), 600.0))  # the provider that never finishes this one
    ask = urllib.request.Request(
        f"{openai_env.url}/responses",
        data=json.dumps({"model": "m", "input": "x", "background": True}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(ask, timeout=10) as answer:
        old = json.loads(answer.read())["id"]
    openai_env.push(reply_json(REQUEST_CHANGES))
    store = Store(planned)
    note = {"response_id": old, "run_id": state_of(bridge, planned)["run_id"], "task_id": "T1", "fingerprint": "f"}
    note.update(base_sha=None, head_sha=None, diff={}, prompt_tokens=10, started=0)
    left = store.dir / "review-left.json"
    left.write_text(json.dumps(note))
    os.utime(left, (time.time() - 3600, time.time() - 3600))  # asked an hour ago
    edit(bridge, planned)
    state = reviewed(bridge, planned)
    assert state["last_review"]["decision"] == "request_changes"  # the newest tree, reviewed anyway
    (aside,) = store.dir.glob("review-left.json.unfetched-*")
    assert json.loads(aside.read_text())["response_id"] == old
