"""`/clear` typed in the real Claude Code TUI: the new session starts from the cleared one's memory and keeps its own
(issue 37). Search finds the edit made before `/clear` once, in the session that made it, and the new session's
coverage begins at its own start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from tests.support.agents import agent_bin
from tests.support.claude_driver import ClaudeDriver
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO

pytestmark = pytest.mark.e2e
OBJECTIVE = "Add a feature module named feature.py"
HEADER = "codex-autopilot active memory"


def logged(repo: Path, session: str) -> list[dict]:
    """A Claude session's observation log in ``repo``."""
    path = Path(observe.session_dir(os.path.realpath(repo), "claude", session)) / observe.LOG
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def bridge(*args: str, cwd: Path) -> dict:
    """This checkout's codex-bridge as the person runs it; its JSON answer."""
    proc = subprocess.run([sys.executable, "-m", "autopilot", *args], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_clear_in_the_tui_starts_a_session_of_its_own_that_goes_on_from_the_cleared_one(tmp_path, git_repo):
    """After `/clear`: a new session id, the memory injected into its first request, its log holding only its own
    events, the edit found once by search, and no "hooks began mid-session" in its coverage."""
    agent_bin("claude")
    with MessagesServer() as srv:
        c = ClaudeDriver(tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable})
        srv.push(
            tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "FEATURE = 1\n"}),
            text("feature.py is written."),
            text("Starting from the memory."),
        )
        with c.tui() as tui:
            tui.send(f"{OBJECTIVE}. Never change README.md.", expect=2)
            first = tui.session_id or c.sessions()[-1]
            tui.send("/clear", expect=0, min_seconds=4)
            tui.send("what next after the clear?")
        after = next(json.dumps(b) for b in srv.main_requests() if "what next after the clear?" in json.dumps(b))
    second = next(s for s in reversed(c.sessions()) if s != first)  # /clear gave the conversation a new id
    assert HEADER in after and OBJECTIVE in after and "feature.py" in after
    assert "which /clear replaced" in after  # the objective is labelled as the cleared session's request

    old, new = logged(git_repo, first), logged(git_repo, second)
    assert ("end", "clear") in [(o["kind"], o.get("reason")) for o in old]
    assert [o.get("source") for o in new if o["kind"] == "session"] == ["clear"]
    assert [o["from"] for o in new if o["kind"] == "cleared"] == [first]
    assert "edit" in [o["kind"] for o in old] and "edit" not in [o["kind"] for o in new]
    assert not any(o.get("carriedFrom") for o in new)

    found = bridge("handoff", "search", "feature.py", "--json", cwd=git_repo)
    edits = [r for r in found["results"] if r["role"] in ("memory.edit", "edit")]
    assert [r["session"] for r in edits] == [first]
    view = bridge("handoff", "active", "--agent", "claude", "--session", second, "--json", cwd=git_repo)
    assert "hooks_late" not in [g["kind"] for g in view["coverage"]["reasons"]]
    assert view["objective"]["carriedFrom"] == first
