"""The active memory with the real claude (this plugin's hooks) and the real codex (its installed hooks).

Both run offline against the scripted model servers; the bridge the hooks call is this checkout's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from autopilot.scripted.responses_server import reply_text, tool_call
from tests.support.agents import agent_bin, codex_exec
from tests.support.claude_driver import ClaudeDriver
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO

pytestmark = pytest.mark.e2e
MARKER = "NEXT-ACTION-MARKER-42"
CHECKPOINT = {
    "objective": "Add a --json flag to the export command",
    "constraints": ["keep the CSV output byte for byte"],
    "next_action": f"{MARKER}: write the test for --json",
    "unresolved": ["export has no tests"],
    "completed": ["read export.py"],
}


def bridge_cli(*args: str, cwd: Path, stdin: str = "", **env: str) -> dict:
    """This checkout's codex-bridge as a process (what a user or an agent runs); its JSON answer."""
    proc = subprocess.run(
        [sys.executable, "-m", "autopilot", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout) if proc.stdout.strip() else {}


def failing_tests(repo: Path) -> str:
    """A test runner in the repository that reports one failure (exit 1); the command that runs it."""
    runner = repo / "tests" / "run"
    runner.parent.mkdir(exist_ok=True)
    runner.write_text("#!/bin/sh\necho '1 failed, 2 passed in 0.01s'\nexit 1\n")
    runner.chmod(0o755)
    return "./tests/run"


def store(repo: Path, agent: str, session: str) -> Path:
    return Path(observe.session_dir(os.path.realpath(repo), agent, session))


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def claude(tmp_path, git_repo):
    """The real claude with this plugin, in a throwaway home, answered by a scripted server."""
    agent_bin("claude")
    with MessagesServer() as srv:
        yield ClaudeDriver(
            tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable}
        )


def test_a_checkpoints_next_action_reaches_the_resumed_session_once(claude, git_repo):
    """After a checkpoint the resumed session's first request carries its next action once; later, nothing new."""
    claude.server.push(text("I will look at the export code."))
    claude.run("Add a --json flag to the export command")
    session = claude.session_id
    bridge_cli(
        "handoff", "checkpoint", "--agent", "claude", "--session", session, "--file", "-",
        cwd=git_repo, stdin=json.dumps(CHECKPOINT),
    )  # fmt: skip
    before = len(claude.server.main_requests())
    claude.server.push(text("Writing the test now."))
    claude.run("continue")
    first = claude.server.main_requests()[before]
    assert json.dumps(first).count(MARKER) == 1
    (injected,) = lines(store(git_repo, "claude", session) / observe.INJECTIONS)
    assert injected["event"] == "SessionStart" and "next_action" in injected["fields"]
    before = len(claude.server.main_requests())
    claude.server.push(text("Nothing new."))
    claude.run("anything else?")
    assert json.dumps(claude.server.main_requests()[before]).count(MARKER) == 1  # the old injection, replayed
    assert len(lines(store(git_repo, "claude", session) / observe.INJECTIONS)) == 1


def test_hooks_absent_for_part_of_a_session_are_recovered_without_a_model_request(tmp_path, git_repo, monkeypatch):
    """Two turns without the plugin, one with it: coverage names the gap, recover restores it, no model is asked."""
    agent_bin("claude")
    with MessagesServer() as srv:
        bare = ClaudeDriver(tmp_path / "c", srv, work=git_repo)
        srv.push(
            tool_use("Write", {"file_path": str(git_repo / "export.py"), "content": "print(1)\n"}),
            tool_use("Bash", {"command": failing_tests(git_repo)}),
            text("The test fails."),
        )
        bare.run("Add a --json flag to export.py")
        srv.push(text("Still failing."))
        bare.run("and?")
        hooked = ClaudeDriver(
            tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable}
        )
        hooked.session_id = bare.session_id
        srv.push(text("Looking again."))
        hooked.run("look again")
        session = bare.session_id
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(bare.home / ".claude"))  # where that claude kept the transcript
        view = bridge_cli("handoff", "active", "--agent", "claude", "--session", session, "--json", cwd=git_repo)
        assert (
            "hooks_late" in [r["kind"] for r in view["coverage"]["reasons"]]
            and view["recentEvidence"]["editsTotal"] == 0
        )
        asked = len(srv.log)
        summary = bridge_cli("handoff", "recover", "--from", "claude", "--session", session, cwd=git_repo)
        assert len(srv.log) == asked and summary["modelRequests"] == 0
    assert summary["added"]["edit"] == 1 and summary["added"]["run"] == 1
    view = bridge_cli("handoff", "active", "--agent", "claude", "--session", session, "--json", cwd=git_repo)
    assert view["objective"]["text"] == "Add a --json flag to export.py"
    assert [r["kind"] for r in view["coverage"]["reasons"]][:2] == ["hooks_late", "recovered"]
    assert [(v["outcome"], v["exit"]) for v in view["recentEvidence"]["validation"]] == [("fail", 1)]


# --- codex ---------------------------------------------------------------------------------------------


@pytest.fixture
def codex_srv(codex_server):
    """The scripted server the real codex in the test's CODEX_HOME talks to, with the memory hooks installed."""
    bridge_cli("install", "codex", "--trust", cwd=Path.cwd())
    return codex_server


def test_codex_sessions_are_recorded_and_a_checkpoint_is_injected_once(codex_srv, git_repo):
    """Codex's hooks record the session; a checkpoint's next action reaches the next turn once, then never again."""
    codex_srv.push(tool_call("exec_command", {"cmd": failing_tests(git_repo)}, "call_1"), reply_text("Tests fail."))
    events = codex_exec(git_repo, "Add a --json flag to export")
    thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    log = lines(store(git_repo, "codex", thread) / observe.LOG)
    assert [o["kind"] for o in log][:2] == ["session", "request"] and "run" in [o["kind"] for o in log]
    bridge_cli(
        "handoff", "checkpoint", "--agent", "codex", "--session", thread, "--file", "-",
        cwd=git_repo, stdin=json.dumps(CHECKPOINT),
    )  # fmt: skip
    before = len(codex_srv.requests)
    codex_srv.push(reply_text("On it."))
    codex_exec(git_repo, "resume", thread, "continue")
    assert json.dumps(codex_srv.requests[before]).count(MARKER) == 1
    before = len(codex_srv.requests)
    codex_srv.push(reply_text("Nothing new."))
    codex_exec(git_repo, "resume", thread, "anything else?")
    assert json.dumps(codex_srv.requests[before]).count(MARKER) <= 1  # at most the replayed earlier injection
    (injected,) = lines(store(git_repo, "codex", thread) / observe.INJECTIONS)
    assert injected["event"] == "SessionStart" and "next_action" in injected["fields"]  # `exec resume`: source resume
    starts = [o["source"] for o in lines(store(git_repo, "codex", thread) / observe.LOG) if o["kind"] == "session"]
    assert starts == ["startup", "resume", "resume"]
    view = bridge_cli("handoff", "active", "--agent", "codex", "--session", thread, "--json", cwd=git_repo)
    assert "exit_codes_unknown" in [r["kind"] for r in view["coverage"]["reasons"]]
