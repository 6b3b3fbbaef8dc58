"""Codex's rate-limit windows in status, and the floor a run keeps free (without the real codex: the
windows come from a rollout as codex 0.171 writes them; tests/e2e/test_codex_cli_backend.py has the real one)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from autopilot.errors import EXIT_INFRA
from autopilot.loop.state import Store
from autopilot.scripted.responses_server import reply_json
from tests.support.codex_home import limits_rollout, used
from tests.support.hooks import run_hook
from tests.support.loop import PLAN, state_of


@pytest.fixture
def short_window(isolated_homes):
    """Codex last recorded its 5-hour window 96% used, resetting in two hours."""
    now = time.time()
    limits_rollout(isolated_homes / "codex", now, "user-session", used(96, resets_at=int(now) + 7200))
    return int(now) + 7200


@pytest.fixture
def codex_cli_run(planned, monkeypatch):
    """The planned run, now on the codex-cli backend with a 10% floor (no codex is run: the floor stops it first)."""
    monkeypatch.delenv("AUTOPILOT_BACKEND")
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", "/nonexistent/codex")
    with Store(planned).transaction() as s:
        s.update(backend="codex-cli", conversation_id=None, min_rate_limit_left=10.0)
    (Path(planned) / "feature.py").write_text("x = 1\n")
    return planned


def test_a_plan_is_not_asked_for_when_a_window_is_short(short_window, git_repo, bridge, monkeypatch):
    """plan --min-rate-limit-left 10 on codex-cli, with 4% left: exit 3, no call, no run, nothing logged."""
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", "/nonexistent/codex")
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "g", "--min-rate-limit-left", "10")
    assert code == EXIT_INFRA and "no plan was asked for: Codex's 5-hour window has 4% left" in err
    s = state_of(bridge, git_repo)
    assert s["status"] == "idle" and not (Path(s["run_dir"]) / "events.jsonl").exists()


def test_the_openai_backend_spends_no_codex_window(short_window, openai_env, git_repo, bridge):
    """An openai-backend plan goes ahead whatever Codex's windows say, and says the floor does not apply."""
    openai_env.push(reply_json(PLAN))
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "g", "--min-rate-limit-left", "10")
    assert code == 0 and "holds back codex-cli calls only" in err
    assert state_of(bridge, git_repo)["min_rate_limit_left"] == 10.0


def test_the_floor_can_come_from_the_config(openai_env, git_repo, bridge, isolated_homes):
    """min_rate_limit_left in the config is the run's floor when plan is not given one."""
    (isolated_homes / "autopilot" / "config.yaml").write_text("min_rate_limit_left: 15\n")
    openai_env.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "g")[0] == 0
    assert state_of(bridge, git_repo)["min_rate_limit_left"] == 15.0


@pytest.mark.parametrize("value", ["-1", "101", "nan"])
def test_a_floor_that_is_not_a_percentage_is_refused(openai_env, git_repo, bridge, value):
    """--min-rate-limit-left outside 0-100 is bad input: exit 1 and no call."""
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "g", f"--min-rate-limit-left={value}")
    assert code == 1 and "--min-rate-limit-left must be a percentage from 0 to 100" in err
    assert openai_env.requests == []


def test_the_stop_hook_says_the_run_paused_and_how_to_resume(short_window, codex_cli_run, bridge):
    """At a stop, a short window pauses the run instead of asking for a verdict; Claude is let go with the reason."""
    answer = run_hook(bridge, "Stop", codex_cli_run, last_assistant_message="T1 done")
    s = state_of(bridge, codex_cli_run)
    assert "decision" not in answer and "paused before its verdict call" in answer["systemMessage"]
    assert "/autopilot resume" in answer["systemMessage"]
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(short_window))
    assert s["status"] == "paused_rate_limit" and s["stop_reason"].startswith(
        f"Codex's 5-hour window has 4% left, under the 10% this run keeps free; it resets at {when} UTC (in 1 h 5"
    )


def test_a_new_session_is_told_the_run_is_paused_for_the_rate_limit(short_window, codex_cli_run, bridge):
    """After the pause, SessionStart tells the user why the run waits and that /autopilot resume continues it."""
    assert bridge("-C", str(codex_cli_run), "review")[0] == EXIT_INFRA
    message = run_hook(bridge, "SessionStart", codex_cli_run, source="startup")["systemMessage"]
    assert "paused (paused_rate_limit: Codex's 5-hour window has 4% left" in message and "/autopilot resume" in message


def test_status_without_a_run_still_shows_codexs_windows(short_window, git_repo, bridge):
    """status in a workspace without a run shows the windows; status --json has them with run null."""
    code, out, _ = bridge("-C", str(git_repo), "status")
    assert code == 0 and "No autopilot run" in out and "Codex:      5-hour window: 4% left, resets" in out
    doc = json.loads(bridge("-C", str(git_repo), "status", "--json")[1])
    assert doc["summary"]["exists"] is False and doc["rate_limits"]["primary"]["left_percent"] == 4.0


def test_status_says_when_no_window_was_recorded(git_repo, bridge):
    """With no Codex session recording windows, status says so and --json has rate_limits null."""
    _, out, _ = bridge("-C", str(git_repo), "status")
    assert "no rate-limit windows recorded" in out
    assert json.loads(bridge("-C", str(git_repo), "status", "--json")[1])["rate_limits"] is None
