"""Codex's rate-limit windows: the real codex records the headers a scripted server sends, the bridge reads
them back, shows them in status, and a run pauses before a window runs out."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from autopilot.codex import ratelimits
from autopilot.errors import EXIT_INFRA
from autopilot.scripted.responses_server import ResponsesServer, rate_limit_headers, reply_json, with_headers
from tests.support.agents import agent_bin, write_codex_config
from tests.support.loop import APPROVE, PLAN, state_of

pytestmark = pytest.mark.e2e


@pytest.fixture
def codex(isolated_homes, monkeypatch):
    """The real codex as the backend, talking to a scripted server."""
    binary = agent_bin("codex")
    with ResponsesServer() as srv:
        write_codex_config(isolated_homes / "codex", srv.url)
        monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(binary))
        monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
        monkeypatch.setenv("FAKE_OPENAI_KEY", "not-a-real-key")
        yield srv


def test_windows_the_server_sends_are_read_back_from_codexs_rollout(codex, git_repo, bridge):
    """The x-codex-primary/secondary headers land in the rollout's token_count; latest() reads them from there."""
    now = int(time.time())
    headers = rate_limit_headers(42.5, 17, primary_reset=now + 3600, secondary_reset=now + 86400 * 3)
    codex.push(with_headers(reply_json(PLAN), headers))
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


def test_status_shows_what_is_left_of_each_window(codex, git_repo, bridge):
    """codex-bridge status (and status --json) show the percentage left and the reset time Codex recorded."""
    now = int(time.time())
    codex.push(
        with_headers(reply_json(PLAN), rate_limit_headers(80, 30, primary_reset=now + 7200, secondary_reset=now + 9e4))
    )
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    code, out, _ = bridge("-C", str(git_repo), "status")
    reset = time.strftime("%Y-%m-%d %H:%M", time.gmtime(now + 7200))
    assert code == 0 and f"5-hour window: 20% left, resets {reset} UTC" in out and "weekly window: 70% left" in out
    code, out, _ = bridge("-C", str(git_repo), "status", "--json")
    limits = json.loads(out)["rate_limits"]
    assert (limits["primary"]["left_percent"], limits["secondary"]["left_percent"]) == (20.0, 70.0)


def test_a_run_pauses_before_a_window_runs_out_and_resumes_after_it_resets(codex, git_repo, bridge):
    """With --min-rate-limit-left 10, a 5-hour window at 95% pauses the run before the review is asked for,
    saying when the window resets; once it has, resume continues and the review reaches Codex."""
    reset = int(time.time()) + 6
    codex.push(
        with_headers(reply_json(PLAN), rate_limit_headers(95, 20, primary_reset=reset, secondary_reset=reset + 9e4))
    )
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature", "--min-rate-limit-left", "10")
    assert code == 0, err
    (git_repo / "feature.py").write_text("x = 1\n")
    code, _, err = bridge("-C", str(git_repo), "review")
    s = state_of(bridge, git_repo)
    assert code == EXIT_INFRA and "paused before its review call" in err and "/autopilot resume" in err
    assert (s["status"], len(codex.requests), s["min_rate_limit_left"]) == ("paused_rate_limit", 1, 10.0)
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(reset))
    assert s["stop_reason"].startswith(
        f"Codex's 5-hour window has 5% left, under the 10% this run keeps free; it resets at {when} UTC"
    )
    time.sleep(max(0.0, reset - time.time()) + 0.5)
    assert bridge("-C", str(git_repo), "resume")[0] == 0
    codex.push(reply_json(APPROVE))
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == 0, err
    assert (state_of(bridge, git_repo)["status"], len(codex.requests)) == ("running", 2)
