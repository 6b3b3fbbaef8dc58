"""Failure classes: an unavailable reviewer is recorded and exits 3; bad input exits 1 and changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopilot.errors import EXIT_BUDGET, EXIT_ERROR, EXIT_INFRA, EXIT_USAGE
from autopilot.scripted.responses_server import delay, http_error, reply_json
from tests.support.loop import APPROVE, billed, state_of


def change(repo) -> None:
    (Path(repo) / "feature.py").write_text("x = 1\n")


def run_files(bridge, repo) -> dict:
    run_dir = Path(state_of(bridge, repo)["run_dir"])
    return {p.name: p.read_bytes() for p in run_dir.iterdir() if p.name != "state.json.lock"}


def test_rate_limit_is_retried_then_succeeds(planned, openai_env, bridge):
    """429 then 500 are retried by tenacity; the third answer is used and charged once."""
    change(planned)
    openai_env.push(http_error(429), http_error(500), reply_json(APPROVE))
    code, out, err = bridge("-C", str(planned), "review")
    assert code == 0, err
    assert len(openai_env.requests) == 4  # plan + three review attempts
    assert state_of(bridge, planned)["token_usage"]["review"]["calls"] == 1


def test_rate_limit_after_retries_is_an_infra_error(planned, openai_env, bridge, monkeypatch):
    """A 429 that persists through every retry is recorded as rate_limit, exit 3, nothing charged."""
    monkeypatch.setenv("AUTOPILOT_RETRY_ATTEMPTS", "3")
    change(planned)
    openai_env.push(http_error(429), http_error(429), http_error(429))
    code, _, err = bridge("-C", str(planned), "review")
    s = state_of(bridge, planned)
    assert code == EXIT_INFRA and "rate limit" in err
    assert (s["last_error"]["kind"], s["consecutive_errors"], s["budget_used_usd"]) == ("rate_limit", 1, 0.0)
    assert s["token_usage"]["review"]["calls"] == 1 and s["last_review"] is None


def test_auth_error_is_never_retried(planned, openai_env, bridge):
    """401 is a configuration problem: one request, kind auth, a hint about OPENAI_API_KEY."""
    change(planned)
    openai_env.push(http_error(401, "bad key"))
    code, _, err = bridge("-C", str(planned), "review")
    assert code == EXIT_INFRA and "OPENAI_API_KEY" in err
    assert len(openai_env.requests) == 2
    assert state_of(bridge, planned)["last_error"]["kind"] == "auth"


def test_validation_error_is_not_retried(planned, openai_env, bridge):
    """A 400 is not transient: one request, recorded as an infra error."""
    change(planned)
    openai_env.push(http_error(400, "bad schema"))
    assert bridge("-C", str(planned), "review")[0] == EXIT_INFRA
    assert len(openai_env.requests) == 2


def test_timeout_is_an_infra_error(planned, openai_env, bridge, monkeypatch):
    """A reviewer slower than AUTOPILOT_TIMEOUT is recorded as a timeout."""
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "0.5")
    monkeypatch.setenv("AUTOPILOT_RETRY_ATTEMPTS", "1")
    change(planned)
    openai_env.push(delay(reply_json(APPROVE), 3))
    code, _, err = bridge("-C", str(planned), "review")
    assert code == EXIT_INFRA
    assert state_of(bridge, planned)["last_error"]["kind"] == "timeout"


def test_dropped_connection_is_a_network_error(planned, openai_env, bridge, monkeypatch):
    """A connection closed without an answer is a network error after retries."""
    monkeypatch.setenv("AUTOPILOT_RETRY_ATTEMPTS", "2")
    change(planned)
    openai_env.push({"drop": True}, {"drop": True})
    assert bridge("-C", str(planned), "verdict")[0] == EXIT_INFRA
    s = state_of(bridge, planned)
    assert (s["last_error"]["kind"], s["iteration"], s["status"]) == ("network", 0, "running")


def test_schema_invalid_twice_is_charged_once_and_recorded(planned, openai_env, bridge):
    """Two invalid answers: both calls are charged exactly once, the run does not advance, exit 3."""
    change(planned)
    openai_env.push(reply_json({"decision": "maybe"}), reply_json({"decision": "maybe"}))
    code, _, err = bridge("-C", str(planned), "verdict")
    s = state_of(bridge, planned)
    assert code == EXIT_INFRA and "invalid twice" in err
    assert (s["iteration"], s["status"], s["last_error"]["kind"]) == (0, "running", "schema")
    assert s["token_usage"]["verdict"] == billed(openai_env.bills[-2:])
    events = [json.loads(line) for line in (Path(s["run_dir"]) / "events.jsonl").read_text().splitlines()]
    assert [e["outcome"] for e in events if e["phase"] == "verdict"] == ["invalid_output", "invalid_output"]
    assert s["budget_used_usd"] == round(sum(e["usd"] for e in events if e["phase"] == "verdict"), 10)


def test_success_clears_the_consecutive_error_count(planned, openai_env, bridge):
    """A good answer after failures resets consecutive_errors."""
    change(planned)
    openai_env.push(http_error(401), http_error(401), reply_json(APPROVE))
    bridge("-C", str(planned), "review")
    bridge("-C", str(planned), "review")
    assert state_of(bridge, planned)["consecutive_errors"] == 2
    assert bridge("-C", str(planned), "review")[0] == 0
    assert state_of(bridge, planned)["consecutive_errors"] == 0


def test_missing_api_key_is_an_auth_error(planned, openai_env, bridge, monkeypatch):
    """With the openai backend and no OPENAI_API_KEY, no request is made and the user is told what to set."""
    monkeypatch.delenv("OPENAI_API_KEY")
    change(planned)
    code, _, err = bridge("-C", str(planned), "review")
    assert code == EXIT_INFRA and "OPENAI_API_KEY" in err
    assert len(openai_env.requests) == 1


def test_spent_budget_makes_no_call_and_stops_the_run(planned, openai_env, bridge):
    """Over the cap: no request is sent, the run becomes stopped_budget, exit 4."""
    assert bridge("-C", str(planned), "budget", "set", "0.0001")[0] == 0
    change(planned)
    openai_env.push(reply_json(APPROVE))
    code, _, err = bridge("-C", str(planned), "review")
    assert code == 0  # the first review is still within budget
    code, _, err = bridge("-C", str(planned), "verdict")
    assert code == EXIT_BUDGET and "budget" in err
    assert len(openai_env.requests) == 2
    assert state_of(bridge, planned)["status"] == "stopped_budget"


def test_budget_check_flips_an_over_budget_run(planned, bridge):
    """budget check is the budget guard: over the cap it stops the run and exits 4."""
    code, out, _ = bridge("-C", str(planned), "budget", "check")
    assert code == 0 and json.loads(out)["over_budget"] is False
    from autopilot.loop.state import Store

    with Store(planned).transaction() as s:
        s["budget_used_usd"] = 5.0
    code, out, _ = bridge("-C", str(planned), "budget", "check")
    assert code == EXIT_BUDGET and json.loads(out) == {
        "status": "stopped_budget",
        "budget_used_usd": 5.0,
        "budget_usd": 5.0,
        "over_budget": True,
        "stopped_now": True,
    }


def test_resume_after_raising_the_budget(planned, bridge):
    """A budget-stopped run resumes once the cap is raised, and not before."""
    from autopilot.loop.state import Store

    with Store(planned).transaction() as s:
        s.update(budget_used_usd=5.0, status="stopped_budget")
    code, _, err = bridge("-C", str(planned), "resume")
    assert code == EXIT_ERROR and "budget set" in err
    bridge("-C", str(planned), "budget", "set", "10")
    assert bridge("-C", str(planned), "resume")[0] == 0
    assert state_of(bridge, planned)["status"] == "running"


def test_outside_a_git_repo_is_a_clear_error(openai_env, tmp_path, bridge, isolated_homes):
    """Planning outside a repository says so, makes no call and creates no run."""
    code, _, err = bridge("-C", str(tmp_path), "plan", "--goal", "x")
    assert code == EXIT_ERROR and "not inside a git repository" in err and "git init" in err
    assert openai_env.requests == [] and not (isolated_homes / "autopilot" / "runs").exists()


@pytest.mark.parametrize("command", ["review", "verdict"])
def test_no_run_is_a_clear_error(openai_env, git_repo, bridge, command):
    """review or verdict with no run tells the user to plan first."""
    code, _, err = bridge("-C", str(git_repo), command)
    assert code == EXIT_ERROR and "codex-bridge plan" in err


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--budget", "-1"], EXIT_ERROR, "--budget must be greater than zero"),
        (["--max-iterations", "0"], EXIT_ERROR, "--max-iterations must be greater than zero"),
        (["--budget", "lots"], EXIT_USAGE, "invalid float value"),
        (["--backend", "gemini"], EXIT_USAGE, "invalid choice"),
    ],
)
def test_bad_flag_values_change_nothing(planned, openai_env, bridge, args, code, message):
    """A bad flag is refused with a one-line reason before any call; the existing run is untouched."""
    before = run_files(bridge, planned)
    calls = len(openai_env.requests)
    result = bridge("-C", str(planned), "plan", "--goal", "again", *args)
    assert result[0] == code and message in result[2]
    assert len(openai_env.requests) == calls and run_files(bridge, planned) == before


def test_empty_goal_is_refused(openai_env, git_repo, bridge):
    """A blank goal is refused before any call."""
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "   ")
    assert code == EXIT_ERROR and "goal is empty" in err and openai_env.requests == []


def test_unreadable_config_is_refused_and_changes_nothing(planned, openai_env, bridge, isolated_homes):
    """A broken config file stops the command with its path; the run is unchanged."""
    (isolated_homes / "autopilot" / "config.yaml").write_text("backend: [oops\n")
    change(planned)
    before = run_files(bridge, planned)
    code, _, err = bridge("-C", str(planned), "review")
    assert code == EXIT_ERROR and "config.yaml" in err
    assert run_files(bridge, planned) == before


def test_verdict_on_a_finished_run_is_refused(planned, bridge):
    """verdict on a stopped run says there is nothing to decide and points at status/resume."""
    bridge("-C", str(planned), "stop")
    code, _, err = bridge("-C", str(planned), "verdict")
    assert code == EXIT_ERROR and "not running" in err


def test_internal_bug_writes_a_crash_log(planned, bridge, monkeypatch, isolated_homes):
    """An unexpected exception exits 70 and leaves a traceback with the version in crash.log."""
    from autopilot import __version__
    from autopilot.loop import summary

    monkeypatch.setattr(summary, "describe", lambda *_: 1 / 0)
    code, _, err = bridge("-C", str(planned), "status")
    log = (isolated_homes / "autopilot" / "crash.log").read_text()
    assert code == 70 and "crash.log" in err and "ZeroDivisionError" in log and f"codex-autopilot {__version__}" in log


def fake_binary(folder: Path, name: str, body: str) -> Path:
    """An executable shell script standing in for a client binary (the edge: claude and codex are not ours)."""
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def crash(bridge, planned, monkeypatch, isolated_homes) -> str:
    """The crash log a bug in `status` writes."""
    from autopilot.loop import summary

    monkeypatch.setattr(summary, "describe", lambda *_: 1 / 0)
    assert bridge("-C", str(planned), "status")[0] == 70
    return (isolated_homes / "autopilot" / "crash.log").read_text()


def test_crash_log_names_the_versions_that_explain_it(planned, bridge, monkeypatch, isolated_homes, tmp_path):
    """The crash log says Python's version, the platform, and git's, claude's and codex's (or that one is missing)."""
    import platform
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))  # git only: no codex on this PATH
    claude = fake_binary(tmp_path, "claude", 'echo "2.1.150 (Claude Code)"')
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("AUTOPILOT_CLAUDE_BIN", str(claude))
    monkeypatch.delenv("AUTOPILOT_CODEX_BIN", raising=False)
    log = crash(bridge, planned, monkeypatch, isolated_homes)
    lines = dict(line.split(": ", 1) for line in log.splitlines()[2:7])
    git = subprocess.run(["git", "--version"], capture_output=True, text=True, check=True).stdout.split()[2]
    assert lines == {
        "python": f"{platform.python_version()} ({platform.python_implementation()}, {sys.executable})",
        "platform": platform.platform(),
        "git": f"{git} ({bin_dir / 'git'})",
        "claude": f"2.1.150 ({claude})",
        "codex": "not found",
    }


def test_a_hung_binary_cannot_hang_the_crash_log(planned, bridge, monkeypatch, isolated_homes, tmp_path):
    """A codex whose --version never answers (its child holding the output) is cut off after the probe's timeout."""
    from autopilot import plugin

    monkeypatch.setattr(plugin, "PROBE_TIMEOUT_S", 0.5)
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(fake_binary(tmp_path, "codex", "sleep 30")))
    started = time.monotonic()
    log = crash(bridge, planned, monkeypatch, isolated_homes)
    assert time.monotonic() - started < 10
    assert "timed out after 0.5 seconds" in next(line for line in log.splitlines() if line.startswith("codex: "))


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_non_finite_budget_is_refused(planned, openai_env, bridge, value):
    """A budget of nan or inf would disable the cap or break jq: it is refused and nothing changes."""
    before = run_files(bridge, planned)
    code, _, err = bridge("-C", str(planned), "plan", "--goal", "again", f"--budget={value}")
    assert code == EXIT_ERROR and "finite" in err and run_files(bridge, planned) == before


def test_crash_log_is_redacted(planned, bridge, monkeypatch, isolated_homes):
    """A credential in the command line of a crashing command is redacted in crash.log."""
    from autopilot.loop import summary

    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    monkeypatch.setattr(summary, "describe", lambda *_: 1 / 0)
    monkeypatch.setattr("sys.argv", ["codex-bridge", "status", key])
    bridge("-C", str(planned), "status")
    log = (isolated_homes / "autopilot" / "crash.log").read_text()
    assert key not in log and "[REDACTED:github_token]" in log


def test_resume_clears_the_failed_verdict_count(planned, bridge):
    """After a reviewer-unavailable pause, resume starts the failure count again (Claude is held again first)."""
    from autopilot.loop.state import Store

    with Store(planned).transaction() as s:
        s.update(status="paused_reviewer_unavailable", verdict_errors=3, consecutive_errors=3)
    assert bridge("-C", str(planned), "resume")[0] == 0
    s = state_of(bridge, planned)
    assert (s["status"], s["verdict_errors"], s["consecutive_errors"]) == ("running", 0, 0)


@pytest.mark.parametrize("command", [["state"], ["status"]])
def test_read_only_commands_report_a_corrupt_state_and_move_nothing(planned, bridge, command):
    """`state` and `status` promise to change nothing: a corrupt state.json is reported (exit 5), not moved."""
    from autopilot.loop.state import Store

    store = Store(planned)
    store.path.write_text('{"schema_version": 3, "status": ')
    code, out, err = bridge("-C", str(planned), *command)
    assert code == 5 and "left as it is" in err and out == ""
    assert store.path.read_text() == '{"schema_version": 3, "status": ' and not list(store.dir.glob("*.corrupt-*"))


def test_schema_invalid_state_exits_5_not_70(planned, bridge):
    """A state.json with a wrongly typed field stops a review with exit 5 and the field's name, not a crash."""
    from autopilot.loop.state import Store

    store = Store(planned)
    state = json.loads(store.path.read_text())
    state["iteration"] = "many"
    store.path.write_text(json.dumps(state))
    code, _, err = bridge("-C", str(planned), "review")
    assert code == 5 and "iteration" in err and "internal error" not in err


def test_a_busy_call_slot_is_told_but_never_counted_toward_a_pause(planned, openai_env, bridge, monkeypatch):
    """While another call of the run holds Codex, reviews give up as busy (exit 3) and the failure count stays."""
    import filelock

    from autopilot.loop.state import Store

    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "0.3")
    change(planned)
    store = Store(planned)
    with store.transaction() as s:
        s["consecutive_errors"] = 2  # two real failures before: a busy slot neither adds a third nor clears them
    calls = len(openai_env.requests)
    with filelock.FileLock(str(store.dir / "review-call.lock")):  # the review lane: reviews take turns
        results = [bridge("-C", str(planned), "review") for _ in range(4)]
    assert [code for code, _, _ in results] == [EXIT_INFRA] * 4
    assert all("still talking to Codex" in err and "does not count" in err for _, _, err in results)
    s = state_of(bridge, planned)
    assert (s["status"], s["consecutive_errors"], s["verdict_errors"], s["last_error"]["kind"]) == (
        "running",
        2,
        0,
        "busy",
    )
    assert len(openai_env.requests) == calls and s["token_usage"]["review"]["calls"] == 0
