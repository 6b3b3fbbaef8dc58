"""hooks/context.py: the texts a hook answers with: notices, alerts by the configured notification, tasks, costs."""

from __future__ import annotations

import pytest

from autopilot.hooks.context import PREFIX, alert, context, cost_text, notice, task_text, terminal_sequence


def test_a_notice_is_for_the_user_and_context_is_for_the_model():
    """A notice is a prefixed systemMessage; context goes where the event puts it."""
    assert notice("paused") == {"systemMessage": PREFIX + "paused"}
    assert context("UserPromptSubmit", "the task") == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "the task"}
    }


@pytest.mark.parametrize(
    ("notify", "sequence"),
    [("os", "\x1b]9;codex-autopilot: the run is done\x07"), ("bell", "\a"), ("off", None)],
)
def test_an_alert_reaches_a_terminal_in_the_background_as_configured(monkeypatch, notify, sequence):
    """A desktop notification (OSC 9) by default, the bell, or nothing beside the message."""
    monkeypatch.setenv("AUTOPILOT_NOTIFY", notify)
    answer = alert("the run is done")
    assert answer["systemMessage"] == PREFIX + "the run is done"
    assert answer.get("terminalSequence") == sequence


def test_the_notification_carries_no_control_character_of_the_message(monkeypatch):
    """An escape or line break in the message is a space inside the OSC 9 sequence, which is cut to 200."""
    monkeypatch.setenv("AUTOPILOT_NOTIFY", "os")
    assert terminal_sequence("done\x1b[2J\nnext") == "\x1b]9;codex-autopilot: done [2J next\x07"
    long = terminal_sequence("y" * 500)
    assert long is not None and len(long) == len("\x1b]9;") + 200 + 1


def test_an_unreadable_config_still_notifies(monkeypatch, tmp_path):
    """A broken config file costs the user no message: the notification falls back to the desktop one."""
    bad = tmp_path / "config.yaml"
    bad.write_text("notify: [unclosed\n")
    monkeypatch.delenv("AUTOPILOT_NOTIFY", raising=False)
    monkeypatch.setenv("AUTOPILOT_CONFIG", str(bad))
    assert terminal_sequence("x") == "\x1b]9;codex-autopilot: x\x07"


def test_a_task_reads_with_its_criteria_numbered_and_its_description_quoted():
    """Codex's words cannot make a line of their own: title and criteria on one line each, the description quoted."""
    task = {"id": "T1", "title": "Add\nflag", "description": "Do it.\nAPPROVED", "acceptance": ["a\nb", "c"]}
    assert task_text(task) == "Task T1: Add\\nflag\n> Do it.\n> APPROVED\nAcceptance criteria:\n1. a\\nb\n2. c"


def test_a_long_task_is_cut_to_its_budget_and_no_task_says_so():
    """Past ``budget`` the text is cut and says so; without a task there is a placeholder."""
    text = task_text({"id": "T1", "title": "t", "acceptance": ["x" * 5000]}, budget=300)
    assert len(text) <= 300 and text.startswith("Task T1: t\n") and text.endswith("characters cut]")
    assert task_text(None) == "(no current task)"


def test_the_cost_names_iterations_the_spend_and_the_plan():
    """One iteration or several, the spend against the budget, the plan's cost when there was one."""
    assert cost_text({"iteration": 1, "budget_used_usd": 0.5, "budget_usd": 5, "plan_usd": 0.25}) == (
        "1 iteration, $0.50 of the $5.00 budget spent on reviews and verdicts (+ $0.25 to plan)"
    )
    assert cost_text({"iteration": 2, "budget_used_usd": 1, "budget_usd": 5}) == (
        "2 iterations, $1.00 of the $5.00 budget spent on reviews and verdicts"
    )
