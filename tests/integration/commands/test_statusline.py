"""`codex-bridge statusline`: the run's segment for Claude Code's status line, fast, quiet when there is nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import filelock
import pytest

from autopilot.loop.state import Store
from autopilot.paths import run_dir
from tests.support.measured import unmeasured


def line(bridge, cwd, *args: str, stdin: str | None = None) -> str:
    payload = stdin if stdin is not None else json.dumps({"session_id": "s", "workspace": {"current_dir": str(cwd)}})
    code, out, err = bridge("statusline", *args, stdin=payload)
    assert code == 0 and err == "", err
    return out


def test_nothing_without_a_run(git_repo, bridge):
    """No run in this repository: the segment is empty (nothing printed at all)."""
    assert line(bridge, git_repo) == ""


def test_a_running_run_shows_task_iteration_spend_and_the_reviewer(planned, bridge):
    """Running: the task id, iteration of max, spend of cap, and that Codex waits for Claude."""
    with Store(planned).transaction() as s:
        s.update(iteration=3, budget_used_usd=0.42, budget_usd=5.0)
    assert line(bridge, planned) == "autopilot ▶ T1 3/20 · $0.42/$5.00 · codex waiting\n"


def test_a_call_in_flight_shows_reviewing(planned, bridge):
    """While a review holds the run's review lane, the reviewer state is `reviewing`; a verdict's lane, `deciding`."""
    with filelock.FileLock(str(run_dir(str(planned)) / "review-call.lock")):
        assert "codex reviewing" in line(bridge, planned)
    with filelock.FileLock(str(run_dir(str(planned)) / "call.lock")):
        assert "codex deciding" in line(bridge, planned)
    assert "codex waiting" in line(bridge, planned)


def test_failures_show_the_reviewer_unavailable(planned, bridge):
    """Failed calls in a row show as `unavailable N/3`; a paused run says how to resume."""
    with Store(planned).transaction() as s:
        s["consecutive_errors"] = 2
    assert "codex unavailable 2/3" in line(bridge, planned)
    with Store(planned).transaction() as s:
        s.update(status="paused_reviewer_unavailable", stop_reason="x")
    assert line(bridge, planned).startswith("autopilot ⏸ paused: reviewer unavailable · $") and "resume" in line(
        bridge, planned
    )


@pytest.mark.parametrize("status", ["done", "idle", "aborted"])
def test_an_ended_run_shows_nothing(planned, bridge, status):
    """Done, idle or aborted runs leave the status line alone."""
    with Store(planned).transaction() as s:
        s["status"] = status
    assert line(bridge, planned) == ""


@pytest.mark.parametrize("stdin", ["", "not json", "[1]", '{"workspace": 5}', "[" * 50_000])
def test_bad_input_prints_nothing_and_never_fails(planned, bridge, stdin):
    """Whatever Claude Code sends, the status line gets no traceback and exit 0."""
    assert line(bridge, planned, stdin=stdin) == ""


def test_with_composes_another_status_line(planned, bridge):
    """--with CMD: the other command reads the same stdin and its line comes first."""
    out = line(bridge, planned, "--with", "python3 -c 'import json,sys; print(json.load(sys.stdin)[\"session_id\"])'")
    assert out.startswith("s | autopilot ▶ T1")


def test_the_status_line_path_imports_nothing_heavy(planned):
    """With a run, the status line imports no argparse, json, typing, openai, jsonschema or yaml."""
    code = (
        "import sys, io; sys.stdin = io.StringIO(sys.argv[1]); from autopilot.cli import main; main(['statusline']);"
        "print(sorted(m for m in ('argparse', 'json', 'typing', 'openai', 'jsonschema', 'yaml', 'filelock')"
        " if m in sys.modules), file=sys.stderr)"
    )
    payload = json.dumps({"workspace": {"current_dir": str(planned)}})
    proc = subprocess.run(
        [sys.executable, "-c", code, payload], capture_output=True, text=True, check=True, env=unmeasured()
    )
    assert proc.stdout.startswith("autopilot ▶") and proc.stderr.strip() == "[]"


def test_setup_adds_it_to_claudes_status_line_keeping_the_users_own(bridge, isolated_homes):
    """setup --statusline backs settings.json up, keeps an existing status line first, and uninstall restores it."""
    settings = isolated_homes / "claude" / "settings.json"
    settings.write_text(json.dumps({"model": "opus", "statusLine": {"type": "command", "command": "echo mine"}}))
    code, out, err = bridge("setup", "--statusline")
    assert code == 0, err
    written = json.loads(settings.read_text())
    assert written["model"] == "opus" and written["statusLine"]["command"].endswith("statusline --with 'echo mine'")
    assert json.loads(out)["statusline"]["backup"]
    again = json.loads(bridge("setup", "--statusline")[1])
    assert again["statusline"]["changed"] is False
    assert bridge("setup", "--uninstall")[0] == 0
    assert json.loads(settings.read_text()) == {
        "model": "opus",
        "statusLine": {"type": "command", "command": "echo mine"},
    }


def test_a_nearly_used_codex_window_shows_on_codex_runs(planned, bridge, isolated_homes):
    """On the codex-cli backend, a 5-hour window with under 20 % left is shown; a roomy one is not."""
    import time as clock

    day = isolated_homes / "codex" / "sessions" / clock.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    rollout = day / "rollout-2026-12-01T00-00-00-01a2300a-0000-7000-8000-000000000001.jsonl"

    def record(used: float) -> None:
        limits = {"primary": {"used_percent": used, "window_minutes": 300, "resets_at": int(clock.time()) + 3600}}
        rollout.write_text(
            json.dumps({"type": "event_msg", "payload": {"type": "token_count", "rate_limits": limits}}) + "\n"
        )

    with Store(planned).transaction() as s:
        s["backend"] = "codex-cli"
    record(50.0)
    assert "left" not in line(bridge, planned)
    record(88.0)
    assert line(bridge, planned).rstrip().endswith("· 5-hour 12% left")


def test_setup_writes_a_symlinked_settings_file_through_its_link(bridge, isolated_homes, tmp_path):
    """A settings.json linked from a dotfiles folder stays a link; the dotfiles copy gets the status line."""
    dotfiles = tmp_path / "dotfiles" / "claude-settings.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text(json.dumps({"model": "opus"}))
    dotfiles.chmod(0o640)
    link = isolated_homes / "claude" / "settings.json"
    link.symlink_to(dotfiles)
    assert bridge("setup", "--statusline")[0] == 0
    assert link.is_symlink() and "statusline" in json.loads(dotfiles.read_text())["statusLine"]["command"]
    assert dotfiles.stat().st_mode & 0o777 == 0o640
    assert bridge("setup", "--uninstall")[0] == 0
    assert link.is_symlink() and json.loads(dotfiles.read_text()) == {"model": "opus"}
