"""What only the interactive TUIs show: the Stop continuation's label, and `$handoff` typed by a person in each agent.

The real claude and codex run in tmux against the scripted model servers (tests/support/tui.py).
"""

from __future__ import annotations

import json
import os
import time

import pytest

from autopilot import paths
from autopilot.hooks.context import CONTEXT_CONTINUES_FROM
from autopilot.scripted.responses_server import ResponsesServer, reply_json, reply_text
from tests.support import tui
from tests.support.agents import agent_bin, agent_version
from tests.support.loop import APPROVE, PLAN, continue_to, done, state_of
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import claude_env

pytestmark = pytest.mark.e2e


def test_the_stop_continuation_is_not_shown_as_a_problem(codex, git_repo, tmp_path, bridge):
    """When Codex says continue, the TUI shows the hook speaking ("Stop hook says"), not "reported a problem"."""
    codex.push("plan", reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test")[0] == 0
    codex.push("review", reply_json(APPROVE), reply_json(APPROVE))
    codex.push("verdict", reply_json(continue_to("T2")), reply_json(done("test passes")))
    steps = [
        tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "x = 1\n"}),
        text("T1 is done."),
        tool_use("Write", {"file_path": str(git_repo / "test_feature.py"), "content": "def test(): pass\n"}),
        text("T2 is done."),
    ]
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    with MessagesServer(steps) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        command = [str(agent_bin("claude")), "--allowedTools", "Write,Edit,Read,Bash", *tui.plugin_args()]
        with tui.session(command, git_repo, env, tmp_path) as screen:
            screen.wait_for(tui.claude_ready, 90, "the prompt box")
            screen.send("Work on the autopilot task.")
            shown = screen.wait_for(lambda s: "T2 is done." in s, 240, "the second task's answer")
            shown = screen.wait_for(lambda s: "done: Codex judged the goal met" in s, 120, "the done message")
    assert "Task T2" in shown
    if agent_version("claude") >= CONTEXT_CONTINUES_FROM:  # 2.1.332 says "Stop hook says", 2.1.260 "Stop hook feedback"
        assert ("Stop hook says" in shown or "Stop hook feedback" in shown) and "reported a problem" not in shown
    else:  # before 2.1.163 the only way to continue a turn is a block, which this TUI labels a problem
        assert "Stop hook" in shown
    assert state_of(bridge, git_repo)["status"] == "done"


def test_handoff_typed_in_claudes_tui_records_the_session_without_a_model_request(git_repo, tmp_path):
    """`$handoff` typed in the Claude TUI writes the pointer, says what to do in Codex, and asks the model nothing."""
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    with MessagesServer([text("unused")]) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        with tui.session([str(agent_bin("claude")), *tui.plugin_args()], git_repo, env, tmp_path) as screen:
            screen.wait_for(tui.claude_ready, 90, "the prompt box")
            screen.send("$handoff")
            shown = screen.wait_for(lambda s: "$from-claude" in s, 60, "the handoff message")
        pointer = json.loads((paths.handoff_dir() / "claude-latest.json").read_text())
        assert server.main_requests() == []
    assert os.path.realpath(pointer["cwd"]) == os.path.realpath(git_repo) and pointer["transcript_path"].endswith(
        ".jsonl"
    )
    assert "error" not in shown.lower()


def test_handoff_typed_in_codexs_tui_records_the_session_without_a_model_request(git_repo, tmp_path, bridge):
    """After `install codex --trust`, `$handoff` typed in the Codex TUI writes the pointer; the model is not asked."""
    with ResponsesServer(steps=[reply_text("unused")]) as server:
        env = tui.installed_codex(bridge, git_repo, tmp_path, server.url)
        # --no-daemon: the TUI would otherwise leave a shared app-server running after the test
        with tui.session([str(agent_bin("codex")), *tui.codex_tui_flags()], git_repo, env, tmp_path) as screen:
            # the prompt's placeholder is a changing tip in older versions: the banner and the prompt mark say ready
            screen.wait_for(lambda s: "OpenAI Codex (v" in s and "\n› " in s, 90, "Codex's prompt")
            time.sleep(1)
            screen.send("$handoff")
            time.sleep(1.5)
            if "Blocked by hook" not in screen.text():  # `$` opened the skill picker: its Enter took the skill
                screen.press("Enter")
            shown = screen.wait_for(lambda s: "from-codex" in s, 60, "the handoff message")
        assert server.requests == []
    pointer = json.loads((paths.handoff_dir() / "codex-latest.json").read_text())
    assert "rollout-" in pointer["transcript_path"], shown


def test_the_status_line_shows_the_run_in_claudes_tui(codex, git_repo, tmp_path, bridge, monkeypatch):
    """After `setup --statusline`, Claude Code renders the run's segment: task id, iteration and spend."""
    from autopilot.loop.state import Store

    codex.push("plan", reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test", "--budget", "3")[0] == 0
    with Store(git_repo).transaction() as s:
        s.update(budget_used_usd=0.42, iteration=2)
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    code, out, err = bridge("setup", "--statusline")
    assert code == 0, err
    with MessagesServer([text("unused")]) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        with tui.session([str(agent_bin("claude")), *tui.plugin_args()], git_repo, env, tmp_path) as screen:
            shown = screen.wait_for(lambda s: "autopilot ▶" in s, 90, "the status-line segment")
    assert "autopilot ▶ T1 2/20 · $0.42/$3.00 · codex waiting" in shown
