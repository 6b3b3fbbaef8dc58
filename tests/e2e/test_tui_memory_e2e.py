"""`/compact` and `/clear` typed in the real Claude Code TUI, with this plugin: the session's memory survives both.

Headless runs cannot type `/clear`, and an interactive `/compact` rebuilds the session differently from
print mode; so the real claude runs in tmux (tests/support/claude_driver.py) against the scripted
Messages server, and the bridge its hooks call is this checkout's.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from autopilot.memory import observe
from tests.support.agents import agent_bin
from tests.support.claude_driver import ClaudeDriver, summarizer
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO

pytestmark = pytest.mark.e2e
OBJECTIVE = "Add a feature module named feature.py"
HEADER = "codex-autopilot active memory"


def request_for(server: MessagesServer, prompt: str) -> str:
    """The (JSON of the) first main request that holds ``prompt`` (hook context may follow the prompt)."""
    for body in server.main_requests():
        if prompt in json.dumps(body):
            return json.dumps(body)
    raise AssertionError(f"no request carried {prompt!r}")


def memory_in(request: str) -> str:
    """The active memory's injected text in a request (from its header on), or '' when there is none."""
    at = request.find(HEADER)
    return request[at : at + 6000] if at >= 0 else ""


def logged(repo: Path, session: str) -> list[dict]:
    path = Path(observe.session_dir(os.path.realpath(repo), "claude", session)) / observe.LOG
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_compact_and_clear_typed_in_the_tui_keep_the_sessions_memory(tmp_path, git_repo):
    """After `/compact` the next request carries the edit and the objective the summary dropped; after `/clear` too."""
    agent_bin("claude")
    with MessagesServer(responder=summarizer()) as srv:
        c = ClaudeDriver(tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable})
        srv.push(
            tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "FEATURE = 1\n"}),
            text("feature.py is written."),
            text("Next I add its test."),
            text("Starting from the memory."),
        )
        with c.tui() as tui:
            tui.send(f"{OBJECTIVE}. Never change README.md.", expect=2)
            first = tui.session_id or c.sessions()[-1]
            tui.send("/compact")
            tui.send("what next after the compaction?")
            tui.send("/clear", expect=0, min_seconds=4)
            tui.send("what next after the clear?")
        after_compact = request_for(srv, "what next after the compaction?")
        after_clear = request_for(srv, "what next after the clear?")
    injected = memory_in(after_compact)
    assert OBJECTIVE in injected and "feature.py" in injected  # what the summary dropped
    # the compaction really happened before that request: the first turn's Write call was summarised away
    # (the scripted server names its tool calls toolu_01Scripted…; the turn's second request carried it)
    assert "toolu_01Scripted" in json.dumps(srv.main_requests()[1]) and "toolu_01Scripted" not in after_compact
    carried = memory_in(after_clear)
    assert OBJECTIVE in carried and "feature.py" in carried
    assert "toolu_01Scripted" not in after_clear  # /clear started a new conversation; only the memory came along
    sources = [o.get("source") for o in logged(git_repo, first) if o["kind"] == "session"]
    assert "compact" in sources
    cleared = [s for s in c.sessions() if s != first]
    assert cleared and any(o.get("source") == "clear" for o in logged(git_repo, cleared[-1]) if o["kind"] == "session")
