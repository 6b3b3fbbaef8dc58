"""Handover packets imported from inside the agents: `/handoff-import` in Claude Code, `$handoff-import` in Codex.

A packet is exported from a recorded session of this project; the real claude and the real codex then
list it and import it into the session the user is in (Claude's session id, Codex's $CODEX_THREAD_ID).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess

import pytest

from autopilot import paths
from autopilot.handoff.packets.store import imported_into
from autopilot.scripted.responses_server import ResponsesServer, reply_text, tool_call
from tests.support.agents import agent_bin, write_codex_config
from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, git, run_json, work_session
from tests.support.messages_server import text
from tests.support.plugin_harness import run_claude

pytestmark = pytest.mark.e2e


def export_for(destination: str, git_repo, bridge) -> str:
    """A packet for ``destination`` of a recorded Claude session of this repository; its id."""
    (git_repo / "parser.py").write_text("def parse(s):\n    return s\n")
    git(git_repo, "add", "parser.py")
    git(git_repo, "commit", "-qm", "parser")
    session = claude_session(work_session(Transcript()), git_repo).stem
    code, answer, err = run_json(
        bridge, "handoff", "export", "--from", "claude", "--session", session, "--to", destination, cwd=git_repo
    )
    assert code == 0, err
    return str(answer["packet"])


@pytest.fixture
def exported(git_repo, bridge):
    return export_for("claude", git_repo, bridge)


def test_claude_lists_then_imports_into_the_session_the_user_is_in(exported, git_repo, tmp_path):
    """`/handoff-import` lists the packet; `/handoff-import <id>` imports it into this very session."""
    listed = run_claude(agent_bin("claude"), git_repo, "/handoff-import", [text("One packet.")], tmp_path / "h")
    assert listed.proc.returncode == 0, listed.proc.stderr[-2000:]
    assert exported in listed.main_texts()[0]
    run = run_claude(agent_bin("claude"), git_repo, f"/handoff-import {exported}", [text("Picked up.")], tmp_path / "h")
    assert run.proc.returncode == 0, run.proc.stderr[-2000:]
    first = run.main_texts()[0]
    assert "staleClaims" in first and "evidence" in first.lower()
    assert imported_into("claude", run.session_id) == [exported]


def test_codex_imports_into_its_own_thread(git_repo, bridge, monkeypatch):
    """`$handoff-import <id>` in Codex runs the skill's command, which imports into $CODEX_THREAD_ID."""
    exported = export_for("codex", git_repo, bridge)
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(agent_bin("codex")))
    with ResponsesServer() as srv:
        write_codex_config(paths.codex_home(), srv.url)
        assert bridge("install", "codex")[0] == 0
        launcher = paths.codex_home() / "skills" / "from-claude" / "scripts" / "from-claude"
        command = f"{shlex.quote(str(launcher))} --import {exported}"
        srv.push(tool_call("exec_command", {"cmd": command}, call_id="imp"), reply_text("Imported."))
        proc = subprocess.run(
            [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", "--", f"$handoff-import {exported}"],
            cwd=git_repo,
            env={**os.environ, "FAKE_OPENAI_KEY": "scripted"},
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        thread = next(json.loads(x)["thread_id"] for x in proc.stdout.splitlines() if '"thread.started"' in x)
        sent = json.dumps(srv.requests[0]["input"])
        output = next(
            item["output"]
            for body in srv.requests
            for item in body.get("input") or []
            if isinstance(item, dict) and item.get("type") == "function_call_output" and item.get("call_id") == "imp"
        )
    assert "<name>handoff-import</name>" in sent  # the skill reached the model
    # Codex shows the model the head and tail of a long output; the import names this thread as the receiver.
    # Its sandbox may keep the receipt from being written (said in receiptNote); the import itself stands.
    assert "Process exited with code 0" in output and exported in output and thread in output
