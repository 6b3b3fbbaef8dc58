"""SessionStart and UserPromptSubmit: context while a run is active, ownership, and the budget guard."""

from __future__ import annotations

import json

from autopilot.paths import run_dir
from tests.support.hooks import OTHER_SESSION, SESSION, context_of, count_state_reads, run_hook
from tests.support.loop import state_of


def edit_state(repo, **changes) -> None:
    path = run_dir(str(repo)) / "state.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_session_start_gives_the_current_task(planned, bridge):
    """A running run's goal, current task and its acceptance criteria reach Claude at session start."""
    text = context_of(run_hook(bridge, "SessionStart", planned, source="startup"))
    assert "Add a feature with a test" in text and "Task T1: Add feature" in text and "1. feature.py exists" in text


def test_first_session_claims_an_unowned_run(planned, bridge):
    """An unowned run belongs to the first session whose hook reaches it."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    assert state_of(bridge, planned)["owner_session_id"] == SESSION


def test_other_session_is_told_once_and_left_alone(planned, bridge):
    """A second session gets one notice, then silence; the owner and the run do not change."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    first = run_hook(bridge, "SessionStart", planned, source="startup", session_id=OTHER_SESSION)
    again = run_hook(bridge, "UserPromptSubmit", planned, prompt="hi", session_id=OTHER_SESSION)
    assert "belongs to another Claude Code session" in first["systemMessage"] and again is None
    state = state_of(bridge, planned)
    assert state["owner_session_id"] == SESSION and state["notices"] == [f"foreign-session:{OTHER_SESSION}"]


def test_session_start_on_a_paused_run_says_how_to_resume(planned, bridge):
    """A paused run is not context for Claude; the user is told how to resume or stop it."""
    edit_state(planned, status="paused_reviewer_unavailable", stop_reason="Codex was unavailable 3 times")
    answer = run_hook(bridge, "SessionStart", planned, source="resume")
    assert "/autopilot resume" in answer["systemMessage"] and "/codex-stop" in answer["systemMessage"]
    assert context_of(answer) == ""


def test_finished_run_is_silent(planned, bridge):
    """Once a run is done the hooks have nothing to say."""
    edit_state(planned, status="done")
    assert run_hook(bridge, "SessionStart", planned, source="startup") is None
    assert run_hook(bridge, "UserPromptSubmit", planned, prompt="next") is None


def test_prompt_gets_one_line_naming_the_task(planned, bridge):
    """Each prompt gets a single line of context: the current task and the iteration."""
    text = context_of(run_hook(bridge, "UserPromptSubmit", planned, prompt="go on"))
    assert text == "codex-autopilot: current task T1: Add feature (iteration 0 of 20); end your turn when it is done."


def test_prompt_over_budget_stops_the_run(planned, bridge):
    """budget-guard: a running run over its cap becomes stopped_budget and the user is told."""
    edit_state(planned, budget_used_usd=5.0, budget_usd=5.0)
    answer = run_hook(bridge, "UserPromptSubmit", planned, prompt="go on")
    state = state_of(bridge, planned)
    assert state["status"] == "stopped_budget" and state["stop_reason"].startswith("budget spent")
    assert "budget set" in answer["systemMessage"] and context_of(answer) == ""
    assert answer["terminalSequence"].startswith("\x1b]9;codex-autopilot: the autopilot run stopped")  # it rings


def test_prompt_resets_the_block_count(planned, bridge):
    """A new user prompt starts Claude Code's count of consecutive Stop blocks again, so ours too."""
    edit_state(planned, consecutive_blocks=5)
    run_hook(bridge, "UserPromptSubmit", planned, prompt="go on")
    assert state_of(bridge, planned)["consecutive_blocks"] == 0


def test_prompt_does_not_write_state_when_nothing_changes(planned, bridge):
    """An ordinary prompt on an owned run leaves state.json untouched."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    path = run_dir(str(planned)) / "state.json"
    before = path.read_bytes()
    run_hook(bridge, "UserPromptSubmit", planned, prompt="go on")
    assert path.read_bytes() == before


def test_slash_command_prompt_gets_no_task_line(planned, bridge):
    """A slash command brings its own context, so the prompt gets no (possibly outdated) task line."""
    assert run_hook(bridge, "UserPromptSubmit", planned, prompt="/codex-autopilot:autopilot a new goal") is None


def test_clear_hands_the_run_to_the_cleared_session(planned, bridge):
    """/clear gives the session a new id: the owner's SessionEnd(clear) releases the run, the new id claims it."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    run_hook(bridge, "SessionEnd", planned, reason="clear")
    assert state_of(bridge, planned)["owner_session_id"] is None
    answer = run_hook(bridge, "SessionStart", planned, source="clear", session_id=OTHER_SESSION)
    assert "Task T1" in context_of(answer) and state_of(bridge, planned)["owner_session_id"] == OTHER_SESSION


def test_other_session_ending_releases_nothing(planned, bridge):
    """Only the owner's /clear releases the run; other reasons and other sessions change nothing."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    run_hook(bridge, "SessionEnd", planned, reason="clear", session_id=OTHER_SESSION)
    run_hook(bridge, "SessionEnd", planned, reason="prompt_input_exit")
    assert state_of(bridge, planned)["owner_session_id"] == SESSION


def test_after_an_update_session_start_says_the_codex_side_needs_setup_again(planned, bridge, monkeypatch, tmp_path):
    """The shim rebuilt the venv for a new version while the Codex side was set up by an older one: one notice,
    with or without a run, beside the run's own context; nothing when the versions agree (no variable)."""
    import subprocess

    bare = tmp_path / "no-run"
    subprocess.run(["git", "init", "-q", str(bare)], check=True)
    assert "systemMessage" not in (run_hook(bridge, "SessionStart", bare, source="startup") or {})
    monkeypatch.setenv("AUTOPILOT_CODEX_SIDE_FROM", "0.0.9")
    for repo in (bare, planned):
        answer = run_hook(bridge, "SessionStart", repo, source="startup") or {}
        assert "set up by 0.0.9" in answer["systemMessage"] and "/codex-autopilot:setup" in answer["systemMessage"]
    assert "Task T1" in context_of(answer)  # the run's context is still there


def test_a_prompt_that_claims_resets_and_warns_reads_state_twice(planned, bridge, monkeypatch):
    """The first prompt on an unowned run past its warn level after Stop blocks: one read to see the run, one
    transaction for the claim, the block count and the warning together; one Workspace."""
    edit_state(planned, owner_session_id=None, consecutive_blocks=3, budget_used_usd=4.2, iteration=3)
    counts = count_state_reads(monkeypatch)
    answer = run_hook(bridge, "UserPromptSubmit", planned, prompt="go on")
    assert (counts["reads"], counts["workspaces"]) == (2, 1)
    assert "has spent $4.20 of its $5.00 budget" in answer["systemMessage"] and "current task T1" in context_of(answer)
    state = state_of(bridge, planned)
    assert (state["owner_session_id"], state["consecutive_blocks"]) == (SESSION, 0)
    assert state["notices"] == ["budget-warning"]


def test_a_slash_command_prompt_leaves_the_budget_warning_for_later(planned, bridge):
    """A slash command's prompt gets no context, so the warning it would carry stays unsaid until the next prompt."""
    edit_state(planned, budget_used_usd=4.2)
    assert run_hook(bridge, "UserPromptSubmit", planned, prompt="/codex-review") is None
    assert "has spent $4.20" in run_hook(bridge, "UserPromptSubmit", planned, prompt="go on")["systemMessage"]


def test_a_foreign_sessions_prompt_reads_state_twice(planned, bridge, monkeypatch):
    """Another session's prompt reads the run once to see it is not its own and once to say so (once)."""
    edit_state(planned, owner_session_id=OTHER_SESSION)
    counts = count_state_reads(monkeypatch)
    assert "belongs to another Claude Code session" in run_hook(bridge, "UserPromptSubmit", planned)["systemMessage"]
    assert (counts["reads"], counts["workspaces"]) == (2, 1)
