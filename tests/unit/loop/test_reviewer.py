"""loop/reviewer.py: the prompts Codex is sent are filled from the template's own placeholders only."""

from __future__ import annotations


def test_prompt_placeholders_in_a_value_are_not_filled():
    """A goal that contains `{{repo}}` reaches Codex as written, not with the repository facts pasted in."""
    from autopilot.loop.reviewer import prompt

    text = prompt("plan", goal="explain {{repo}} and {{goal}}", repo="FACTS")
    assert "explain {{repo}} and {{goal}}" in text and text.count("FACTS") == 1
