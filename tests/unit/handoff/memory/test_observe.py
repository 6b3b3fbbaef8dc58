"""The hook-side recorder: what each event records, where, in whole lines, and when an injection may be due."""

from __future__ import annotations

import json
import os
import threading

import pytest

from autopilot import fastjson
from autopilot.handoff.memory import observe

SESSION = "aaaaaaaa-1111-4222-8333-444444444444"


def data(cwd, **fields):
    return {"session_id": SESSION, "transcript_path": "/t.jsonl", "cwd": str(cwd), **fields}


def log(repo, agent="claude"):
    path = os.path.join(observe.session_dir(str(repo), agent, SESSION), observe.LOG)
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def strip(obs):
    return {k: v for k, v in obs.items() if k not in ("at", "v")}


def test_a_prompt_is_a_request_with_its_id(git_repo):
    """UserPromptSubmit records the prompt and its prompt_id."""
    (obs,) = observe.observations("UserPromptSubmit", data(git_repo, prompt="Fix it", prompt_id="p1"), "claude")
    assert strip(obs) == {
        "agent": "claude",
        "event": "UserPromptSubmit",
        "via": "hook",
        "kind": "request",
        "prompt": "Fix it",
        "id": "p1",
    }


def test_a_subagents_prompt_is_not_a_request(git_repo):
    """A prompt a subagent received is its parent's instruction, not the user's request."""
    assert observe.observations("UserPromptSubmit", data(git_repo, prompt="x", agent_id="a1"), "claude") == []


def test_claude_failed_bash_keeps_its_exit_code_and_output(git_repo):
    """PostToolUseFailure of a validating Bash call records the exit code Claude Code put in the error."""
    event = data(git_repo, tool_name="Bash", tool_input={"command": "pytest -q"}, error="Exit code 3\n1 failed")
    (obs,) = observe.observations("PostToolUseFailure", {**event, "tool_use_id": "t1"}, "claude")
    assert (obs["kind"], obs["command"], obs["exit"], obs["output"], obs["id"]) == (
        "run",
        "pytest -q",
        3,
        "Exit code 3\n1 failed",
        "t1",
    )


def test_claude_successful_bash_exited_zero(git_repo):
    """PostToolUse of a Bash call means exit 0; stdout and stderr are kept as the output tail."""
    response = {"stdout": "2 passed", "stderr": "warn", "interrupted": False}
    event = data(git_repo, tool_name="Bash", tool_input={"command": "pytest"}, tool_response=response)
    (obs,) = observe.observations("PostToolUse", event, "claude")
    assert (obs["exit"], obs["output"]) == (0, "2 passed\nwarn")


def test_commands_that_do_not_validate_are_not_recorded(git_repo):
    """An ordinary command (ls, git status) leaves no observation."""
    event = data(git_repo, tool_name="Bash", tool_input={"command": "ls -la"}, tool_response={"stdout": "x"})
    assert observe.observations("PostToolUse", event, "claude") == []


def test_codex_patch_records_each_file(git_repo):
    """A Codex apply_patch call records one edit per file, each with its own id."""
    patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.py\n@@\n-y\n+z\n*** End Patch\n"
    event = data(git_repo, tool_name="apply_patch", tool_input={"command": patch}, tool_use_id="c1")
    found = observe.observations("PostToolUse", {**event, "tool_response": "Exit code: 0\nSuccess."}, "codex")
    assert [(o["path"], o["result"], o["id"]) for o in found] == [
        ("a.txt", "ok", "c1:a.txt"),
        ("b.py", "ok", "c1:b.py"),
    ]


def test_codex_events_carry_the_model(git_repo):
    """Codex names the model on its events: the recorder keeps it (model changes come from it)."""
    (obs,) = observe.observations("Stop", data(git_repo, model="gpt-6.2-sol"), "codex")
    assert (obs["kind"], obs["model"]) == ("turn", "gpt-6.2-sol")


def test_compaction_keeps_trigger_and_instructions(git_repo):
    """PreCompact records its trigger and the custom instructions of `/compact <instructions>`."""
    event = data(git_repo, trigger="manual", custom_instructions="focus on the parser")
    (obs,) = observe.observations("PreCompact", event, "claude")
    assert (obs["phase"], obs["trigger"], obs["instructions"]) == ("pre", "manual", "focus on the parser")


def test_record_appends_to_the_sessions_log_in_its_worktree(git_repo):
    """Observations land in handoff/active/<worktree>/<agent>-<session>/observations.jsonl."""
    folder, due = observe.record("SessionStart", data(git_repo, source="startup"), "claude")
    assert folder.endswith(f"claude-{SESSION}") and not due
    assert [o["kind"] for o in log(git_repo)] == ["session"]
    with open(os.path.join(os.path.dirname(folder), observe.WORKTREE_FILE)) as fh:
        assert fh.read() == os.path.realpath(git_repo)


def test_two_worktrees_never_share_a_session_store(git_repo, tmp_path):
    """The same session id in two worktrees gets two stores (there is no shared latest)."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    a, _ = observe.record("Stop", data(git_repo), "claude")
    b, _ = observe.record("Stop", data(other), "claude")
    assert a != b and os.path.basename(a) == os.path.basename(b)


def test_outside_git_nothing_is_recorded(tmp_path):
    """A session outside any git work tree is not recorded."""
    assert observe.record("Stop", data(tmp_path), "claude") is None


@pytest.mark.parametrize("session", ["", "../etc", "a/b", "x" * 81, None])
def test_a_session_id_that_cannot_name_a_directory_is_refused(git_repo, session):
    """A missing or path-like session id records nothing."""
    assert observe.record("Stop", {**data(git_repo), "session_id": session}, "claude") is None


def test_memory_can_be_switched_off(git_repo, monkeypatch):
    """AUTOPILOT_MEMORY=off records nothing."""
    monkeypatch.setenv("AUTOPILOT_MEMORY", "off")
    assert observe.record("Stop", data(git_repo), "claude") is None


def test_concurrent_hooks_write_whole_lines(git_repo):
    """Hooks appending at once never interleave: every line parses."""
    observe.record("Stop", data(git_repo), "claude")
    prompt = "p" * 3000

    def hit() -> None:
        for _ in range(20):
            observe.record("UserPromptSubmit", data(git_repo, prompt=prompt), "claude")

    threads = [threading.Thread(target=hit) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log(git_repo)) == 1 + 8 * 20


def test_a_prompt_is_due_only_after_a_fact_changed(git_repo):
    """A prompt checks for an injection only when an edit, run, compaction or checkpoint came since the mark."""
    folder, _ = observe.record("UserPromptSubmit", data(git_repo, prompt="first"), "claude")
    assert not observe.due("UserPromptSubmit", {}, folder)
    observe.record("PostToolUse", data(git_repo, tool_name="Write", tool_input={"file_path": "/a.py"}), "claude")
    assert observe.due("UserPromptSubmit", {}, folder)
    with open(os.path.join(folder, observe.MARK), "w") as fh:
        fh.write(f"{os.path.getsize(os.path.join(folder, observe.LOG))} 0\n")
    assert not observe.due("UserPromptSubmit", {}, folder)


@pytest.mark.parametrize(("source", "due"), [("startup", False), ("compact", True), ("clear", True)])
def test_session_start_is_due_after_a_reset(git_repo, source, due):
    """SessionStart checks for an injection after a compaction or /clear, never at startup."""
    folder, answer = observe.record("SessionStart", data(git_repo, source=source), "claude")
    assert answer is due


def test_encoder_matches_json():
    """The hot path's encoder writes what json.dumps writes with compact separators."""
    value = {"a": 'é\n"', "b": [1, 2.5, None, True], "c": {}}
    assert fastjson.dumps(value) == json.dumps(value, separators=(",", ":"))
