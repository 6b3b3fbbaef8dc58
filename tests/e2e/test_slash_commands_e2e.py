"""Every slash command the README tells users to type, typed exactly so into the real claude, does its job.

Headless (`claude -p "<command>"`) with the plugin loaded, the real codex as the reviewer; and the main
command typed into the interactive TUI in tmux.
"""

from __future__ import annotations

import time

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support import tui
from tests.support.loop import APPROVE, PLAN, state_of
from tests.support.messages_server import MessagesServer, text
from tests.support.plugin_harness import REPO, claude_env, run_claude

pytestmark = pytest.mark.e2e
README = (REPO / "README.md").read_text()
GOAL = "Add a feature with a test"


def readme_says(command: str) -> str:
    """``command`` as the README spells it (the test fails if the README stops naming it)."""
    assert f"`{command}`" in README, f"the README no longer tells users to type {command}"
    return command


def ran(run, skill: str) -> str:
    """The first model request's text, asserting the skill's expansion is in it (the command really ran)."""
    first = run.main_texts()[0]
    assert f"<command-name>/{skill}</command-name>" in first or f"codex-autopilot:{skill}" in first, first[:2000]
    return first


@pytest.mark.smoke
def test_start_a_run(claude, codex, git_repo, tmp_path, bridge):
    """`/autopilot <goal>`: Codex plans, the run starts and belongs to this session, Claude gets the plan."""
    codex.push("plan", reply_json(PLAN))
    command = readme_says("/autopilot <goal>").replace("<goal>", GOAL)
    run = run_claude(claude, git_repo, command, [text("Working on T1.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    first = ran(run, "autopilot")
    assert "feature.py exists" in first  # the plan's first criterion reached Claude
    s = state_of(bridge, git_repo)
    assert (s["status"], s["goal"], s["owner_session_id"]) == ("running", GOAL, run.session_id)
    assert codex.asked == ["plan"]


@pytest.fixture
def running(codex, git_repo, bridge):
    codex.push("plan", reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", GOAL)[0] == 0
    return git_repo


def test_resume_a_paused_run(claude, codex, running, tmp_path, bridge):
    """`/autopilot resume` sets a paused run running again and shows its status."""
    from autopilot.loop.state import Store

    with Store(running).transaction() as s:
        s.update(status="paused_block_cap", stop_reason="paused for the test")
    run = run_claude(claude, running, readme_says("/autopilot resume"), [text("Resumed.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    assert "Status:     running" in ran(run, "autopilot")
    assert state_of(bridge, running)["status"] == "running" and codex.asked == ["plan"]


def test_status(claude, codex, running, tmp_path):
    """`/codex-status` shows the run (goal, task, spend) to the person from the prompt's own hook: no model turn,
    and Codex is asked nothing."""
    run = run_claude(claude, running, readme_says("/codex-status"), [text("unused")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    (shown,) = [o["reason"] for o in run.hook_outputs("UserPromptSubmit") if o.get("decision") == "block"]
    assert f"Goal:       {GOAL}" in shown and "Task:       T1" in shown
    assert run.server.main_requests() == [] and codex.asked == ["plan"]


def test_review(claude, codex, running, tmp_path, bridge):
    """`/codex-review` asks Codex to review the current diff now and records the review."""
    (running / "feature.py").write_text("x = 1\n")
    codex.push("review", reply_json(APPROVE))
    run = run_claude(claude, running, readme_says("/codex-review"), [text("Approved.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    assert '"decision": "approve"' in ran(run, "codex-review").replace('\\"', '"')
    assert state_of(bridge, running)["last_review"]["decision"] == "approve"


def test_stop(claude, codex, running, tmp_path, bridge):
    """`/codex-stop` returns the run to idle."""
    run = run_claude(claude, running, readme_says("/codex-stop"), [text("Stopped.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    ran(run, "codex-stop")
    assert state_of(bridge, running)["status"] == "idle"


def test_plan_only(claude, codex, git_repo, tmp_path, bridge):
    """`/codex-plan <goal>` plans without starting work: Claude is told not to implement yet."""
    codex.push("plan", reply_json(PLAN))
    command = readme_says("/codex-plan <goal>").replace("<goal>", GOAL)
    run = run_claude(claude, git_repo, command, [text("The plan.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    assert "Do **not** start implementing" in ran(run, "codex-plan")
    assert state_of(bridge, git_repo)["goal"] == GOAL


def test_typing_the_start_command_in_the_tui_starts_the_run(claude, codex, git_repo, tmp_path, bridge):
    """In the interactive TUI, typing `/autopilot <goal>` and Enter runs the plugin's command (not a lookalike)."""
    codex.push("plan", reply_json(PLAN))
    home = tmp_path / "tui-home"
    tui.claude_home(home, git_repo)
    with MessagesServer([text("Working on T1.")]) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        with tui.session([str(claude), *tui.plugin_args()], git_repo, env, tmp_path) as screen:
            screen.wait_for(tui.claude_ready, 90, "the prompt box")
            screen.send(readme_says("/autopilot <goal>").replace("<goal>", GOAL))
            deadline = time.monotonic() + 120
            while state_of(bridge, git_repo)["status"] != "running" and time.monotonic() < deadline:
                time.sleep(1)
            shown = screen.wait_for(lambda s: "Working on T1." in s, 60, "Claude's answer")
    s = state_of(bridge, git_repo)
    assert s["status"] == "running" and s["goal"] == GOAL, shown
    assert "Unknown command" not in shown and codex.asked == ["plan"]
