"""The person sees, in each agent's TUI, that the approved rules changed since their last session.

Seen with the real binaries: Claude Code prints a SessionStart hook's systemMessage under its banner as the
TUI opens ("SessionStart:startup says: ..."); Codex runs SessionStart with the first turn and prints it as a
hook line ("↳ Hook · ...") above the answer. `codex exec --json` shows neither.
"""

from __future__ import annotations

import time

import pytest

from autopilot.scripted.responses_server import ResponsesServer, reply_text
from tests.support import tui
from tests.support.agents import agent_bin
from tests.support.durable import approved
from tests.support.messages_server import MessagesServer, text
from tests.support.plugin_harness import claude_env

pytestmark = pytest.mark.e2e
NOTICE = "codex-autopilot: the approved rules changed since your last session: "


def test_claudes_tui_shows_the_approved_set_changed_at_session_start(git_repo, tmp_path):
    """Opening Claude Code after a rule was approved shows one line naming it, before anything is typed."""
    rid = approved("Keep commits small.", git_repo)
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    with MessagesServer([text("unused")]) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        with tui.session([str(agent_bin("claude")), *tui.plugin_args()], git_repo, env, tmp_path) as screen:
            shown = screen.wait_for(lambda s: rid in s, 90, "the session-start notice")
        assert server.main_requests() == []
    assert NOTICE in " ".join(shown.split()) and f'{rid} approved by "Ada Lovelace"' in shown


def test_codexs_tui_shows_the_approved_set_changed_with_the_first_turn(git_repo, tmp_path, bridge):
    """In Codex's TUI the same line appears with the first turn, as the SessionStart hook's message."""
    rid = approved("Keep commits small.", git_repo)
    with ResponsesServer(steps=[reply_text("Noted.")]) as server:
        env = tui.installed_codex(bridge, git_repo, tmp_path, server.url)
        with tui.session([str(agent_bin("codex")), *tui.codex_tui_flags()], git_repo, env, tmp_path) as screen:
            screen.wait_for(lambda s: "OpenAI Codex (v" in s and "\n› " in s, 90, "Codex's prompt")
            time.sleep(1)
            screen.send("hello")
            shown = screen.wait_for(lambda s: "Noted." in s and rid in s, 90, "the hook's line and the answer")
    assert NOTICE in " ".join(shown.split()) and "Hook" in shown
