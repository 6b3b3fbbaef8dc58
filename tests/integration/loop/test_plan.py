"""`codex-bridge plan` through the real openai SDK and the scripted server: the plan file, the run, its owner."""

from __future__ import annotations

import json
import os

from freezegun import freeze_time

from autopilot.scripted.responses_server import reply_json
from tests.support.loop import PLAN, state_of

# The HTTP stack must keep real time under freezegun, or its timeouts and the server thread misbehave.
REAL_TIME = ["httpx", "httpcore", "openai", "anyio", "socketserver", "http.server", "threading", "h11", "httpx2"]


def test_plan_writes_the_plan_file_and_resets_the_run(openai_env, git_repo, bridge, monkeypatch):
    """plan writes docs/autopilot/plans/<date>-<slug>.md and starts a running run on the first task."""
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "sess-1")
    openai_env.push(reply_json(PLAN))
    with freeze_time("2026-05-04 09:30:00", ignore=REAL_TIME):
        code, out, err = bridge(
            "-C",
            str(git_repo),
            "plan",
            "--goal",
            "Add a Feature!",
            "--budget",
            "2.5",
            "--max-iterations",
            "6",
            "--no-progress-threshold",
            "2",
        )
    assert code == 0, err
    result = json.loads(out)
    assert result["plan_path"] == "docs/autopilot/plans/2026-05-04-add-a-feature.md"
    text = (git_repo / result["plan_path"]).read_text()
    assert "## T1: Add feature" in text and "- [ ] feature.py exists" in text
    umask = os.umask(0)
    os.umask(umask)
    assert (git_repo / result["plan_path"]).stat().st_mode & 0o777 == 0o666 & ~umask  # a file of the user's, not 0600
    assert not list((git_repo / result["plan_path"]).parent.glob(".*.tmp"))
    s = state_of(bridge, git_repo)
    assert (
        s["status"],
        s["current_task"]["id"],
        s["iteration"],
        s["budget_usd"],
        s["max_iterations"],
        s["no_progress_threshold"],
        s["owner_session_id"],
        s["backend"],
    ) == ("running", "T1", 0, 2.5, 6, 2, "sess-1", "openai")
    assert s["conversation_id"] == "resp_1" and s["token_usage"]["plan"]["calls"] == 1
    assert s["created_at"].startswith("2026-05-04T09:30:00")


def test_a_credential_in_the_goal_is_redacted_everywhere_the_goal_goes(openai_env, git_repo, bridge):
    """A token pasted into the goal reaches neither Codex, the plan file (name or text), state.json nor the output."""
    token = "ghp_" + "Zx9" * 12
    openai_env.push(reply_json(PLAN))
    code, out, err = bridge("-C", str(git_repo), "plan", "--goal", f"use {token} to publish the release")
    assert code == 0, err
    plan_path = json.loads(out)["plan_path"]
    places = [json.dumps(openai_env.requests), out, err, plan_path, (git_repo / plan_path).read_text()]
    places.append(json.dumps(state_of(bridge, git_repo)))
    assert [token in place for place in places] == [False] * 6
    assert "# Autopilot plan: use [REDACTED:github_token] to publish the release" in places[-2]


def test_plan_without_session_is_unowned(planned, bridge):
    """A run planned with no --session-id and no CLAUDE_CODE_SESSION_ID has no owner yet."""
    assert state_of(bridge, planned)["owner_session_id"] is None
