"""The codex-cli backend with the real `codex` binary (npm @openai/codex) against the scripted Responses server."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from autopilot.codex import ratelimits
from autopilot.codex.sessions import newest_root_session
from autopilot.errors import EXIT_INFRA
from autopilot.loop.backends.codex_cli import TOTALS_FILE
from autopilot.scripted.responses_server import (
    delay,
    http_error,
    rate_limit_headers,
    reply_json,
    with_headers,
)
from tests.support.agents import agent_bin, needs
from tests.support.loop import APPROVE, PLAN, continue_to, state_of

pytestmark = pytest.mark.e2e


def usage(inp: int, cached: int, out: int) -> dict:
    return {"input_tokens": inp, "cached_tokens": cached, "output_tokens": out}


@pytest.mark.smoke
def test_plan_review_verdict_share_one_codex_thread(codex_server, git_repo, bridge):
    """Plan starts a Codex thread; review and verdict resume it; the thread id is the conversation id."""
    codex_server.push(reply_json(PLAN, usage(100, 0, 10)))
    code, out, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")
    assert code == 0, err
    thread = state_of(bridge, git_repo)["conversation_id"]
    assert thread and json.loads(out)["backend"] == "codex-cli"
    schema = codex_server.requests[0]["text"]["format"]
    assert schema["type"] == "json_schema" and schema["strict"] is True and "tasks" in schema["schema"]["properties"]
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(reply_json(APPROVE, usage(300, 100, 20)))
    code, out, err = bridge("-C", str(git_repo), "review")
    assert code == 0, err
    history = json.dumps(codex_server.requests[-1]["input"])
    assert "Add a feature" in history and "x = 1" in history  # the plan turn is in the resumed thread
    codex_server.push(reply_json(continue_to("T2"), usage(500, 300, 30)))
    code, out, err = bridge("-C", str(git_repo), "verdict")
    assert code == 0, err
    s = state_of(bridge, git_repo)
    assert (s["conversation_id"], s["current_task"]["id"], s["iteration"]) == (thread, "T2", 1)
    rollout = next((Path(os.environ["CODEX_HOME"]) / "sessions").rglob(f"rollout-*{thread}.jsonl"))
    contexts = [json.loads(line)["payload"] for line in rollout.read_text().splitlines() if '"turn_context"' in line]
    assert [c["sandbox_policy"]["type"] for c in contexts] == ["read-only"] * 3  # resumed turns stay read-only


@needs(
    "codex",
    (0, 145, 0),
    "codex 0.129 sends a custom provider (the scripted server) no reasoning field, whatever the effort",
)
def test_effort_reaches_codexs_requests_on_every_call_resumes_included(codex_server, git_repo, bridge):
    """plan --effort xhigh reaches the model as reasoning.effort; the resumed review asks xhigh again (Codex
    forgets it across resumes), and review --effort low asks low for that call."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--effort", "xhigh")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    (git_repo / "feature.py").write_text("x = 2\n")
    codex_server.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review", "--effort", "low")[0] == 0
    assert [r["reasoning"]["effort"] for r in codex_server.requests] == ["xhigh", "xhigh", "low"]
    assert state_of(bridge, git_repo)["conversation_id"] in json.dumps(codex_server.requests[-1])  # one thread, resumed


def test_each_call_is_charged_only_what_it_added(codex_server, git_repo, bridge):
    """Codex reports the thread's running total; the bridge charges each call the growth, not the total."""
    codex_server.push(reply_json(PLAN, usage(100, 0, 10)))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(reply_json(APPROVE, usage(300, 100, 20)), reply_json(APPROVE, usage(400, 250, 25)))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    s = state_of(bridge, git_repo)
    # The totals file is lost: the baseline is recovered from the rollout instead.
    (Path(s["run_dir"]) / TOTALS_FILE).unlink()
    (git_repo / "feature.py").write_text("x = 2\n")
    assert bridge("-C", str(git_repo), "review")[0] == 0
    s = state_of(bridge, git_repo)
    assert s["token_usage"]["plan"] == {"input": 100, "cached": 0, "output": 10, "calls": 1}
    assert s["token_usage"]["review"] == {"input": 700, "cached": 350, "output": 45, "calls": 2}


@pytest.mark.parametrize(
    ("step", "kind"), [(http_error(500), "server"), (http_error(401), "auth"), (http_error(429), "rate_limit")]
)
def test_codex_failing_is_an_infra_error(codex_server, git_repo, bridge, step, kind):
    """codex exiting non-zero is recorded as the reviewer being unavailable, with the kind of failure."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(step)
    code, _, err = bridge("-C", str(git_repo), "review")
    s = state_of(bridge, git_repo)
    assert code == EXIT_INFRA and "codex" in err
    assert (s["last_error"]["kind"], s["consecutive_errors"], s["status"], s["last_review"]) == (
        kind,
        1,
        "running",
        None,
    )


def test_codex_timeout_kills_it_and_is_recorded(codex_server, git_repo, bridge, monkeypatch):
    """A Codex slower than AUTOPILOT_TIMEOUT is killed (with its children) and recorded as a timeout."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "3")
    codex_server.push(delay(reply_json(APPROVE), 30))
    started = time.monotonic()
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == EXIT_INFRA and "did not answer within 3s" in err
    assert time.monotonic() - started < 15
    assert state_of(bridge, git_repo)["last_error"]["kind"] == "timeout"
    assert codex_processes_using(os.environ["CODEX_HOME"]) == []


def codex_processes_using(codex_home: str) -> list[int]:
    """Pids of live codex processes started with this CODEX_HOME (other tests' processes don't count)."""
    mine = f"CODEX_HOME={codex_home}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"codex" in (entry / "cmdline").read_bytes() and mine in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_missing_codex_binary_is_an_infra_error(codex_server, git_repo, bridge, monkeypatch):
    """A configured codex that does not exist is recorded as binary_missing with how to install it."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", "/nonexistent/codex")
    (git_repo / "feature.py").write_text("x = 1\n")
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == EXIT_INFRA and "npm install -g @openai/codex" in err
    assert state_of(bridge, git_repo)["last_error"]["kind"] == "binary_missing"


def test_thread_id_is_recoverable_from_the_rollout(codex_server, git_repo):
    """The newest exec rollout for a workspace names the thread, for when thread.started is missing."""
    codex_server.push(reply_json(APPROVE))
    started = time.time()
    proc = subprocess.run(
        [
            str(agent_bin("codex")),
            "exec",
            "--json",
            "--sandbox",
            "read-only",
            "--skip-git-repo-check",
            "-C",
            str(git_repo),
            "--",
            "hello",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    thread = json.loads(proc.stdout.splitlines()[0])["thread_id"]
    found = newest_root_session(os.path.realpath(git_repo), started)
    assert found is not None and found.thread_id == thread


@pytest.mark.smoke  # each Codex version words a pruned thread its own way
def test_a_vanished_thread_is_replaced_by_a_new_one(codex_server, git_repo, bridge):
    """When Codex no longer has the run's thread (sessions pruned), the call continues in a new thread."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    old = state_of(bridge, git_repo)["conversation_id"]
    for rollout in (Path(os.environ["CODEX_HOME"]) / "sessions").rglob("rollout-*.jsonl"):
        rollout.unlink()
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(reply_json(APPROVE))
    code, _, err = bridge("-C", str(git_repo), "review")
    s = state_of(bridge, git_repo)
    assert code == 0 and "starting a new one" in err, err
    assert s["conversation_id"] not in (None, old) and s["last_review"]["decision"] == "approve"


def test_a_call_waiting_too_long_for_the_thread_is_busy(codex_server, git_repo, bridge, monkeypatch):
    """While another call of the run holds the Codex thread, a second one gives up as busy, not a crash."""
    import filelock

    from autopilot.loop.backends import codex_cli

    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("x = 1\n")
    monkeypatch.setattr(codex_cli, "LOCK_WAIT_S", 0.3)
    with filelock.FileLock(str(Path(state_of(bridge, git_repo)["run_dir"]) / "codex-thread.lock")):
        code, _, err = bridge("-C", str(git_repo), "review")
    assert code == EXIT_INFRA and "talking to Codex" in err
    assert state_of(bridge, git_repo)["last_error"]["kind"] == "busy"


def test_calls_are_priced_by_the_model_codex_ran(codex_server, git_repo, bridge):
    """With no model configured for the bridge, each call is priced by the model Codex used, not the default."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    s = state_of(bridge, git_repo)
    events = [json.loads(line) for line in (Path(s["run_dir"]) / "events.jsonl").read_text().splitlines()]
    assert s["model"] is None and s["unknown_models"] == []
    assert events[-1]["model"] == "gpt-6.2-sol"


# Codex's rate-limit windows: the real codex records the headers the scripted server sends; the bridge
# reads them back, shows them in status, and a run pauses before a window runs out.


def test_windows_the_server_sends_are_read_back_from_codexs_rollout(codex_server, git_repo, bridge):
    """The x-codex-primary/secondary headers land in the rollout's token_count; latest() reads them from there."""
    now = int(time.time())
    headers = rate_limit_headers(42.5, 17, primary_reset=now + 3600, secondary_reset=now + 86400 * 3)
    codex_server.push(with_headers(reply_json(PLAN), headers))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    thread = state_of(bridge, git_repo)["conversation_id"]
    found = ratelimits.latest()
    assert found is not None and Path(found["rollout"]).name.endswith(f"{thread}.jsonl")
    assert (found["limit_id"], found["primary"], found["secondary"]) == (
        "codex",
        {
            "used_percent": 42.5,
            "left_percent": 57.5,
            "window_minutes": 300,
            "resets_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 3600)),
            "resets_at_unix": now + 3600,
            "reset": False,
        },
        {
            "used_percent": 17.0,
            "left_percent": 83.0,
            "window_minutes": 10080,
            "resets_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 86400 * 3)),
            "resets_at_unix": now + 86400 * 3,
            "reset": False,
        },
    )


def test_status_shows_what_is_left_of_each_window(codex_server, git_repo, bridge):
    """codex-bridge status (and status --json) show the percentage left and the reset time Codex recorded."""
    now = int(time.time())
    codex_server.push(
        with_headers(reply_json(PLAN), rate_limit_headers(80, 30, primary_reset=now + 7200, secondary_reset=now + 9e4))
    )
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    code, out, _ = bridge("-C", str(git_repo), "status")
    reset = time.strftime("%Y-%m-%d %H:%M", time.gmtime(now + 7200))
    assert code == 0 and f"5-hour window: 20% left, resets {reset} UTC" in out and "weekly window: 70% left" in out
    code, out, _ = bridge("-C", str(git_repo), "status", "--json")
    limits = json.loads(out)["rate_limits"]
    assert (limits["primary"]["left_percent"], limits["secondary"]["left_percent"]) == (20.0, 70.0)


def test_a_run_pauses_before_a_window_runs_out_and_resumes_after_it_resets(codex_server, git_repo, bridge):
    """With --min-rate-limit-left 10, a 5-hour window at 95% pauses the run before the review is asked for,
    saying when the window resets; once it has, resume continues and the review reaches Codex."""
    reset = int(time.time()) + 6
    codex_server.push(
        with_headers(reply_json(PLAN), rate_limit_headers(95, 20, primary_reset=reset, secondary_reset=reset + 9e4))
    )
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--min-rate-limit-left", "10")
    assert code == 0, err
    (git_repo / "feature.py").write_text("x = 1\n")
    code, _, err = bridge("-C", str(git_repo), "review")
    s = state_of(bridge, git_repo)
    assert code == EXIT_INFRA and "paused before its review call" in err and "/autopilot resume" in err
    assert (s["status"], len(codex_server.requests), s["min_rate_limit_left"]) == ("paused_rate_limit", 1, 10.0)
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(reset))
    assert s["stop_reason"].startswith(
        f"Codex's 5-hour window has 5% left, under the 10% this run keeps free; it resets at {when} UTC"
    )
    time.sleep(max(0.0, reset - time.time()) + 0.5)
    assert bridge("-C", str(git_repo), "resume")[0] == 0
    codex_server.push(reply_json(APPROVE))
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == 0, err
    assert (state_of(bridge, git_repo)["status"], len(codex_server.requests)) == ("running", 2)


def test_past_the_history_bound_codex_starts_a_new_thread_seeded_from_the_run(
    codex_server, git_repo, bridge, monkeypatch
):
    """With the run's history at its bound, the next call runs `codex exec` (a new thread, not a resume) whose
    prompt opens with the run's state, and the thread it opened becomes the run's conversation."""
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    first = state_of(bridge, git_repo)
    (git_repo / "feature.py").write_text("x = 1\n")
    codex_server.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    resumed = state_of(bridge, git_repo)
    monkeypatch.setenv("AUTOPILOT_MAX_HISTORY_TOKENS", str(resumed["conversation_tokens"]))
    codex_server.push(reply_json(continue_to("T2")))
    assert bridge("-C", str(git_repo), "verdict")[0] == 0
    s = state_of(bridge, git_repo)
    sent = json.dumps(codex_server.requests[-1]["input"])
    assert resumed["conversation_id"] == first["conversation_id"] != s["conversation_id"]
    assert "<run-state" in sent and "x = 1" in sent and "Goal: Add a feature" in sent
    assert "You are reviewing" not in sent and "You are the planner" not in sent  # no earlier turn is carried
    assert s["conversation_restarts"] == 1
    # the new thread's history is its one exchange: Codex's own ~14,600 tokens of instructions are not history
    assert resumed["conversation_tokens"] > 0 and 0 < s["conversation_tokens"] < 8_000
