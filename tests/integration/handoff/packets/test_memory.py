"""Packets carry the sending session's active memory, and imports seed the receiving session's.

The sending session is a Claude Code transcript in real row shapes (tests/support/handoff_env.work_session)
whose hooks recorded it in this worktree; checkpoints come through `handoff checkpoint` as the person writes
them (the test process runs in no agent's shell).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.packets import store
from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, edited_parser_repo, run_json, work_session
from tests.support.hooks import payload

RECEIVER = "01a2ffff-0000-7000-8000-000000000001"
NEWER = {
    "objective": "NEWER-OBJECTIVE: make parse() accept empty input and None",
    "next_action": "NEWER-NEXT: add the None case to tests/test_parser.py",
    "unresolved": ["UNRESOLVED-CLAIM: the CLI still crashes on empty files"],
    "completed": ["the empty-string case"],
}


@pytest.fixture
def sender(git_repo, bridge) -> tuple[Path, str]:
    """(repo, session) of a Claude session the hooks recorded: its first request, an edit and a failing test."""
    repo = edited_parser_repo(git_repo)
    t = work_session(Transcript())
    claude_session(t, repo)
    for event, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "Make the parser accept empty input.", "prompt_id": "p1"}),
        ("PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": f"{repo}/parser.py"}, "tool_response": {}}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": "pytest -q tests/test_parser.py"},
                         "tool_response": {"stdout": "1 passed", "stderr": "", "interrupted": False}}),
    ):  # fmt: skip
        data = {**payload(event, repo, **fields), "session_id": t.session}
        code, _, err = bridge("hook", event, stdin=json.dumps(data))
        assert code == 0, err
    return repo, t.session


def checkpoint(bridge, repo: Path, session: str, body: dict, agent: str = "claude") -> None:
    code, _, err = bridge(
        "-C", str(repo), "handoff", "checkpoint", "--agent", agent, "--session", session, "--file", "-",
        stdin=json.dumps(body),
    )  # fmt: skip
    assert code == 0, err


def export(bridge, repo: Path, session: str) -> tuple[str, dict]:
    code, out, err = run_json(bridge, "handoff", "export", "--from", "claude", "--session", session, "--to", "codex",
                              cwd=repo)  # fmt: skip
    assert code == 0, err
    return out["packet"], json.loads(store.resolve(out["packet"]).read_bytes())


def active(bridge, repo: Path, agent: str, session: str) -> dict:
    code, out, err = run_json(bridge, "handoff", "active", "--agent", agent, "--session", session, "--json", cwd=repo)
    assert code == 0, err
    return out


def test_a_newer_checkpoint_is_the_packets_objective_and_the_request_stays(bridge, sender):
    """A checkpoint newer than the first request gives the packet its objective and next action, as claims with
    their time; the first request stays in the objective as the original request, with its evidence."""
    repo, session = sender
    _, before = export(bridge, repo, session)
    assert before["objective"]["text"].startswith("Make the parser accept empty input.")
    checkpoint(bridge, repo, session, NEWER)
    _, packet = export(bridge, repo, session)
    obj = packet["objective"]
    assert (obj["text"], obj["basis"]) == (NEWER["objective"], "claim") and obj["claimedAt"]
    assert obj["originalRequest"]["text"].startswith("Make the parser accept empty input.")
    assert obj["originalRequest"]["refs"] and obj["originalRequest"]["basis"] == "evidence"
    assert (packet["nextAction"]["text"], packet["nextAction"]["basis"]) == (NEWER["next_action"], "claim")
    memory = packet["activeMemory"]
    assert [u["text"] for u in memory["unresolved"]] == NEWER["unresolved"]
    assert memory["checkpoint"]["at"] == obj["claimedAt"]


def test_the_packet_carries_recent_edits_and_last_test_outcomes_with_pointers(bridge, sender):
    """The hooks' edits and each command's last outcome come with a pointer to the memory log's line."""
    repo, session = sender
    _, packet = export(bridge, repo, session)
    memory = packet["activeMemory"]
    (edit,) = memory["recentEdits"]
    (test,) = memory["lastTests"]
    assert edit["path"].endswith("parser.py") and (test["command"], test["outcome"]) == (
        "pytest -q tests/test_parser.py",
        "pass",
    )
    for item in (edit, test):
        line = Path(item["pointer"]["file"]).read_text().splitlines()[item["pointer"]["line"] - 1]
        assert json.loads(line)["kind"] in ("edit", "run")


def test_an_import_seeds_the_receivers_memory_labelled_from_the_packet(bridge, sender):
    """The person's import gives the receiving session the packet's objective and next action, labelled with it."""
    repo, session = sender
    checkpoint(bridge, repo, session, NEWER)
    pid, _ = export(bridge, repo, session)
    code, answer, err = run_json(bridge, "handoff", "import", pid, "--to", "codex", "--session", RECEIVER,
                                 "--new-session", cwd=repo)  # fmt: skip
    assert code == 0, err
    assert answer["memory"]["seeded"] is True
    assert "The original request" in answer["context"] and "UNRESOLVED-CLAIM" in answer["context"]
    view = active(bridge, repo, "codex", RECEIVER)
    assert view["objective"]["text"] == NEWER["objective"] and view["objective"]["packet"] == pid
    assert view["nextAction"]["text"] == NEWER["next_action"] and view["checkpoint"]["writer"] == "packet-import"
    assert "UNRESOLVED-CLAIM: the CLI still crashes on empty files" in [u["text"] for u in view["unresolved"]]


def test_the_receivers_own_later_checkpoint_replaces_the_import(bridge, sender):
    """An import gives way to the receiving session's own newer checkpoint."""
    repo, session = sender
    pid, _ = export(bridge, repo, session)
    run_json(bridge, "handoff", "import", pid, "--to", "codex", "--session", RECEIVER, "--new-session", cwd=repo)
    checkpoint(bridge, repo, RECEIVER, {"objective": "RECEIVER-OWN", "next_action": "RECEIVER-NEXT"}, agent="codex")
    view = active(bridge, repo, "codex", RECEIVER)
    assert (view["objective"]["text"], view["nextAction"]["text"]) == ("RECEIVER-OWN", "RECEIVER-NEXT")


def test_an_import_from_another_sessions_shell_does_not_seed(bridge, sender):
    """Importing into session B from session A's shell leaves B's memory as it was, and says so."""
    repo, session = sender
    pid, _ = export(bridge, repo, session)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX"))}
    proc = subprocess.run(
        [sys.executable, "-m", "autopilot", "handoff", "import", pid, "--to", "codex", "--session", RECEIVER,
         "--new-session"],
        cwd=repo, capture_output=True, text=True, timeout=60,
        env={**env, "CODEX_THREAD_ID": "01a2eeee-0000-7000-8000-000000000009"},
    )  # fmt: skip
    answer = json.loads(proc.stdout)
    assert proc.returncode == 0 and answer["memory"]["seeded"] is False and "not changed" in answer["memory"]["why"]
    code, _, _ = bridge("-C", str(repo), "handoff", "active", "--agent", "codex", "--session", RECEIVER)
    assert code != 0  # no memory was made for it


def test_the_receivers_own_hook_seeds_from_the_import_it_ran(bridge, sender):
    """In the receiving session's own shell the import does not write; its PostToolUse hook seeds from the answer."""
    from autopilot.handoff.memory import observe
    from autopilot.handoff.packets.memory import after_tool

    repo, session = sender
    checkpoint(bridge, repo, session, NEWER)
    pid, _ = export(bridge, repo, session)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX"))}
    command = [sys.executable, "-m", "autopilot", "handoff", "import", pid, "--to", "codex", "--session", RECEIVER,
               "--new-session"]  # fmt: skip
    proc = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=60,
                          env={**env, "CODEX_THREAD_ID": RECEIVER})  # fmt: skip
    assert json.loads(proc.stdout)["memory"]["how"].startswith("the session's own hook")
    data = {
        "session_id": RECEIVER, "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "exec_command",
        "tool_input": {"command": " ".join(command)}, "tool_response": proc.stdout,
    }  # fmt: skip
    assert observe.record("PostToolUse", data, "codex")[1] is True  # the import makes the hook due
    (said,) = after_tool("codex", data)
    assert pid[:19] in said and active(bridge, repo, "codex", RECEIVER)["nextAction"]["text"] == NEWER["next_action"]
    assert after_tool("codex", {**data, "session_id": "01a2dddd-0000-7000-8000-000000000004"}) == []


def test_handoff_takes_a_checkpoint_and_makes_the_packet_the_pointer_names(bridge, sender):
    """`$handoff` stores the sender's automatic checkpoint, exports the packet and names it in the pointer."""
    from autopilot import paths

    repo, session = sender
    checkpoint(bridge, repo, session, NEWER)
    data = {**payload("UserPromptSubmit", repo, prompt="$handoff"), "session_id": session,
            "transcript_path": str(next(Path(os.environ["CLAUDE_CONFIG_DIR"]).rglob(f"{session}.jsonl")))}  # fmt: skip
    code, out, err = bridge("hook", "UserPromptSubmit", stdin=json.dumps(data))
    answer = json.loads(out)
    pointer = json.loads((paths.handoff_dir() / "claude-latest.json").read_text())
    assert answer["decision"] == "block" and pointer["packet"] in answer["reason"]
    assert json.loads(store.resolve(pointer["packet"]).read_bytes())["objective"]["text"] == NEWER["objective"]
    view = active(bridge, repo, "claude", session)
    assert view["automaticCheckpoint"]["source"] == "$handoff"
