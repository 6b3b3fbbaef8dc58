"""The $handoff trigger: a human asks to hand this Claude session to Codex; nothing else touches the pointer."""

from __future__ import annotations

import json

import pytest
from freezegun import freeze_time

from tests.support.hooks import SESSION, run_hook


@pytest.fixture
def pointer(isolated_homes):
    return isolated_homes / "autopilot" / "handoff" / "claude-latest.json"


def test_handoff_writes_the_pointer(git_repo, bridge, pointer):
    """$handoff records transcript_path, cwd, session_id and created_at, and nothing else."""
    with freeze_time("2026-11-30 12:00:00"):
        run_hook(bridge, "UserPromptSubmit", git_repo, prompt="$handoff")
    assert json.loads(pointer.read_text()) == {
        "transcript_path": f"/tmp/claude/{SESSION}.jsonl",
        "cwd": str(git_repo),
        "session_id": SESSION,
        "created_at": "2026-11-30T12:00:00.000000Z",
    }


def test_handoff_blocks_the_prompt_and_names_the_codex_line(git_repo, bridge):
    """The prompt is blocked (no model request) and the reason tells the user what to type in Codex."""
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="$handoff")
    assert answer["decision"] == "block" and "$from-claude" in answer["reason"]


def test_handoff_is_trimmed(git_repo, bridge, pointer):
    """Whitespace around $handoff still triggers it."""
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="  $handoff \n")
    assert pointer.exists()


def test_slash_handoff_triggers_too(git_repo, bridge, pointer):
    """/codex-autopilot:handoff (the skill's command) is caught by the hook the same way."""
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="/codex-autopilot:handoff")
    assert answer["decision"] == "block" and pointer.exists()


def test_handoff_works_outside_git(tmp_path, bridge, pointer):
    """The trigger needs neither a run nor a git repository."""
    run_hook(bridge, "UserPromptSubmit", tmp_path, prompt="$handoff")
    assert json.loads(pointer.read_text())["cwd"] == str(tmp_path)


def test_subagent_prompt_never_touches_the_pointer(git_repo, bridge, pointer):
    """A prompt from a subagent (input with agent_id) is never a handoff."""
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="$handoff", agent_id="a1", agent_type="x")
    assert answer is None and not pointer.exists()


@pytest.mark.parametrize("prompt", ["please $handoff", "$handoff now", "$HANDOFF", "hand off to codex"])
def test_ordinary_prompts_leave_the_pointer_alone(git_repo, bridge, pointer, prompt):
    """Only the exact trigger writes the pointer; an existing pointer is left byte for byte."""
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="$handoff")
    before = pointer.read_bytes()
    assert run_hook(bridge, "UserPromptSubmit", git_repo, prompt=prompt, session_id="other") is None
    assert pointer.read_bytes() == before


def test_handoff_without_transcript_is_refused(git_repo, bridge, pointer):
    """Input with no transcript_path blocks with an explanation and writes nothing."""
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="$handoff", transcript_path=None)
    assert answer["decision"] == "block" and "no handoff was recorded" in answer["reason"]
    assert not pointer.exists()
