"""The handover round trip twice with the real clients: Claude -> Codex -> Claude -> Codex (issue 37).

Claude Code (headless, this plugin's hooks) and Codex (`codex exec`, the hooks `install codex --trust` adds) run
offline against the scripted model servers. Each session's checkpoint is written by the agent's own tool call
(the checkpoint file its hook picks up) and holds constraints; Codex imports two packets; the person exports and
imports with the CLI. Each hop must carry the newest objective, next action and constraints, each claim labelled
with the agent and session it came from, and each reference pointing where that claim really came from.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from autopilot.handoff.packets import store
from autopilot.scripted.responses_server import reply_text
from tests.support.agents import agent_bin, codex_exec
from tests.support.claude_driver import ClaudeDriver
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO

pytestmark = pytest.mark.e2e
REQUEST = "Make the parser accept empty input. Never change the public API of parse()."
CLAUDE_CHECKPOINT = {
    "objective": "OBJ-2: make parse() accept empty input and None",
    "next_action": "NEXT-2: add the None case to tests/test_parser.py",
    "constraints": ["CONSTRAINT-2: keep the CSV output byte for byte unchanged"],
}
SECOND_CHECKPOINT = {
    "objective": "OBJ-3: release parse() with None support",
    "next_action": "NEXT-3: tag v1.2 and update the changelog",
    "constraints": ["CONSTRAINT-3: never push to main without a review"],
}


def bridge(*args: str, cwd: Path, **env: str) -> dict:
    """This checkout's codex-bridge as the person runs it; its JSON answer (it must succeed)."""
    proc = subprocess.run(
        [sys.executable, "-m", "autopilot", *args], cwd=cwd, capture_output=True, text=True, timeout=180,
        env={**os.environ, **env},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def packet(pid: str) -> dict:
    return json.loads(store.resolve(pid).read_bytes())


def evidence(p: dict, ref: str) -> dict:
    """The evidence item a reference of packet ``p`` names."""
    return next(e for e in p["evidence"] if e["ref"] == ref)


def texts(claims: list[dict]) -> list[str]:
    return [c["text"] for c in claims]


def writes_checkpoint(repo: Path, body: dict) -> dict:
    """The agent's own Write of the checkpoint file (its PostToolUse hook records and removes it)."""
    return tool_use("Write", {"file_path": str(repo / observe.CHECKPOINT_FILE), "content": json.dumps(body)})


@pytest.fixture
def codex_srv(codex_server):
    """The real codex's scripted server, with the memory hooks installed and trusted."""
    bridge("install", "codex", "--trust", cwd=Path.cwd())
    return codex_server


def test_claude_codex_claude_codex_carries_the_newest_claims_with_their_labels(tmp_path, git_repo, codex_srv):
    """Two round trips with the real clients: two imports into Codex, a checkpoint with constraints on each side."""
    agent_bin("claude")
    with MessagesServer() as srv:
        claude = ClaudeDriver(
            tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable}
        )
        on_claude = {"CLAUDE_CONFIG_DIR": str(claude.home / ".claude")}
        srv.push(
            tool_use("Write", {"file_path": str(git_repo / "parser.py"), "content": "def parse(s):\n    return s\n"}),
            text("parser.py is written. Next, I will make it accept empty input."),
        )
        claude.run(REQUEST)
        first_claude = claude.session_id
        assert first_claude is not None
        first = bridge("handoff", "export", "--from", "claude", "--session", first_claude, "--to", "codex",
                       cwd=git_repo, **on_claude)["packet"]  # fmt: skip
        srv.push(writes_checkpoint(git_repo, CLAUDE_CHECKPOINT), text("Checkpointed."))
        claude.run("Checkpoint where the work stands.")
        second = bridge("handoff", "export", "--from", "claude", "--session", first_claude, "--to", "codex",
                        cwd=git_repo, **on_claude)["packet"]  # fmt: skip
        p1 = packet(second)
        assert (p1["objective"]["text"], p1["objective"]["basis"]) == (CLAUDE_CHECKPOINT["objective"], "claim")
        assert CLAUDE_CHECKPOINT["constraints"][0] in texts(p1["constraints"])
        assert "Never change the public API of parse()." in texts(p1["constraints"])

        # Codex: its own session, then the person imports both packets into it, the newer last
        codex_srv.push(reply_text("Looking at the parser."))
        events = codex_exec(git_repo, "Pick up the parser work from Claude.")
        thread = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
        for pid in (first, second):
            bridge("handoff", "import", pid, "--to", "codex", "--session", thread, cwd=git_repo)
        codex_srv.push(reply_text("On it."))
        codex_exec(git_repo, "resume", thread, "continue")
        sent = json.dumps(codex_srv.requests[-1])
        assert CLAUDE_CHECKPOINT["next_action"] in sent and CLAUDE_CHECKPOINT["constraints"][0] in sent
        third = bridge("handoff", "export", "--from", "codex", "--session", thread, "--to", "claude", cwd=git_repo)[
            "packet"
        ]
        p2 = packet(third)
        assert (p2["objective"]["text"], p2["objective"]["inheritedFrom"]) == (CLAUDE_CHECKPOINT["objective"], second)
        assert (p2["objective"]["agent"], p2["objective"]["session"]) == ("claude", first_claude)
        assert p2["nextAction"]["text"] == CLAUDE_CHECKPOINT["next_action"]
        assert CLAUDE_CHECKPOINT["constraints"][0] in texts(p2["constraints"])
        own = p2["objective"]["sessionObjective"]  # Codex's first message: labelled Codex's, in Codex's rollout
        assert (own["agent"], own["session"], own["text"]) == ("codex", thread, "Pick up the parser work from Claude.")
        assert own["refs"] and all("packetId" not in evidence(p2, r) for r in own["refs"])
        original = p2["objective"]["originalRequest"]  # Claude's first request, pointing into Claude's transcript
        assert original["text"] == REQUEST and original["agent"] == "claude"
        for ref in original["refs"]:
            assert ref.startswith("P1.") and evidence(p2, ref)["transcript"] == str(claude.transcript(first_claude))

        # Claude again: a new session the person imports the Codex packet into, which then checkpoints
        claude.session_id = None
        srv.push(text("Reading the handed-over work."))
        claude.run("Carry on with the parser work from the Codex session.")
        second_claude = claude.session_id
        assert second_claude is not None and second_claude != first_claude
        bridge("handoff", "import", third, "--to", "claude", "--session", second_claude, cwd=git_repo, **on_claude)
        srv.push(writes_checkpoint(git_repo, SECOND_CHECKPOINT), text("Checkpointed the release plan."))
        claude.run("Checkpoint the plan.")
        fourth = bridge("handoff", "export", "--from", "claude", "--session", second_claude, "--to", "codex",
                        cwd=git_repo, **on_claude)["packet"]  # fmt: skip
    p3 = packet(fourth)
    assert (p3["objective"]["text"], p3["objective"]["basis"]) == (SECOND_CHECKPOINT["objective"], "claim")
    assert (p3["objective"]["agent"], p3["objective"]["session"]) == ("claude", second_claude)
    assert p3["nextAction"]["text"] == SECOND_CHECKPOINT["next_action"] and p3["nextAction"]["agent"] == "claude"
    assert SECOND_CHECKPOINT["constraints"][0] in texts(p3["constraints"])
    assert CLAUDE_CHECKPOINT["constraints"][0] in texts(p3["constraints"])  # still carried, from two hops back
    before = p3["objective"]["originalRequest"]  # what the session held before its checkpoint: the import's objective
    assert (before["text"], before["inheritedFrom"], before["agent"]) == (
        CLAUDE_CHECKPOINT["objective"],
        third,
        "claude",
    )
    assert all(r.startswith("P1.") and evidence(p3, r)["packetId"] == third for r in before["refs"])

    # Codex again: a new session gets the newest objective, next action and constraints, and its model sees them
    codex_srv.push(reply_text("Starting."))
    events = codex_exec(git_repo, "Take over the release.")
    last = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    bridge("handoff", "import", fourth, "--to", "codex", "--session", last, cwd=git_repo)
    view = bridge("handoff", "active", "--agent", "codex", "--session", last, "--json", cwd=git_repo)
    assert (view["objective"]["text"], view["nextAction"]["text"]) == (
        SECOND_CHECKPOINT["objective"],
        SECOND_CHECKPOINT["next_action"],
    )
    assert SECOND_CHECKPOINT["constraints"][0] in texts(view["constraints"])
    codex_srv.push(reply_text("Tagging."))
    codex_exec(git_repo, "resume", last, "continue")
    sent = json.dumps(codex_srv.requests[-1])
    assert SECOND_CHECKPOINT["next_action"] in sent and SECOND_CHECKPOINT["constraints"][0] in sent
