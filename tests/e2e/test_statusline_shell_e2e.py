"""The user's own status line, kept by `setup --statusline`, runs in the shell the real Claude Code uses.

Verified with the pinned claude: it runs a ``statusLine`` command as ``/bin/sh -c COMMAND`` whatever
``$SHELL`` says (here ``/bin/sh`` is dash, ``$SHELL`` bash), so ``statusline --with`` re-runs the kept
command the same way. If a Claude Code version changes its shell, the first test fails and says which.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autopilot.scripted.responses_server import ResponsesServer, reply_json
from tests.support import tui
from tests.support.agents import agent_bin
from tests.support.loop import PLAN
from tests.support.messages_server import MessagesServer, text
from tests.support.plugin_harness import claude_env

pytestmark = pytest.mark.e2e

# The user's status line: says which program runs it (its shell), then a word only bash understands.
MINE = 'echo "mine:$(readlink /proc/$$/exe):${BASH_VERSION:-no-bash}"'


def shown_line(home: Path, repo: Path, tmp: Path, wanted: str) -> str:
    """The status line the real Claude Code TUI draws (with $SHELL=/bin/bash), once it holds ``wanted``."""
    with MessagesServer([text("unused")]) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test", "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        env["SHELL"] = "/bin/bash"
        with tui.session([str(agent_bin("claude"))], repo, env, tmp) as screen:
            shown = screen.wait_for(lambda s: wanted in s, 90, wanted)
    return next(line for line in shown.splitlines() if wanted in line).strip()


def test_the_kept_status_line_runs_in_claudes_own_shell(git_repo, tmp_path, bridge, monkeypatch):
    """Before setup Claude Code shows `mine:<shell>`; after it, the composed line shows the same shell first."""
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    settings = home / ".claude" / "settings.json"
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": MINE}}))
    before = shown_line(home, git_repo, tmp_path, "mine:")
    assert before.startswith(f"mine:{os.path.realpath('/bin/sh')}:no-bash"), before  # Claude Code's shell: /bin/sh

    with ResponsesServer() as codex:
        monkeypatch.setenv("OPENAI_BASE_URL", codex.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("AUTOPILOT_BACKEND", "openai")
        codex.push(reply_json(PLAN))
        assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test")[0] == 0
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    code, _, err = bridge("setup", "--statusline")
    assert code == 0, err
    after = shown_line(home, git_repo, tmp_path, "autopilot ▶")
    assert after.startswith(before + " | autopilot ▶ T1"), (before, after)
