"""The agent's own stated next steps (Stop's last message): read without a regex, bounded, kept as its claim."""

from __future__ import annotations

import pytest

from autopilot.handoff.memory.observe import NEXT_STEPS, STEP_CHARS, observations, stated_next
from autopilot.handoff.memory.reduce import reduce
from tests.unit.handoff.memory.test_reduce import cp, obs, run


@pytest.mark.parametrize(
    ("message", "steps"),
    [
        ("Done for now.\n\nNext steps:\n1. fix test_a\n2. fix test_b", ["fix test_a", "fix test_b"]),
        (
            "Fixed it.\n\n**Next steps**\n- make `pytest -k io` pass\n- update the docs\n\nAsk me.",
            ["make `pytest -k io` pass", "update the docs"],
        ),
        ("Next: run the migrations.", ["run the migrations."]),
        ("## Remaining\n* wire the cache\n* add a test", ["wire the cache", "add a test"]),
        ("To do:\n- [ ] rename Parser\n- [ ] release", ["rename Parser", "release"]),
        ("Plan:\nFirst write the failing test.", ["First write the failing test."]),
        (
            "Done.\n\nNext, I'll rewrite the cache layer\nso it survives restarts.",
            ["Next, I'll rewrite the cache layer so it survives restarts."],
        ),
        ("All tests pass; nothing is left.", []),
        ("I will plan the next release later.", []),
        ("Next is the fun part", []),  # "Next" alone is a word, not a heading
    ],
)
def test_the_stated_next_steps_are_read_from_the_turns_last_message(message, steps):
    """A "Next steps" list, a "Next:" line, a "Remaining"/"To do"/"Plan" heading or a closing "Next, I'll…"."""
    found = stated_next(message)
    assert (found.splitlines() if found else []) == steps


def test_the_last_block_of_the_message_wins():
    """An earlier list that the message moved on from is not the plan; the last one is."""
    message = "Next steps:\n- old idea\n\nI tried that; it failed.\n\nNext steps:\n- new idea"
    assert stated_next(message) == "new idea"


def test_steps_are_bounded_in_number_and_length():
    """At most NEXT_STEPS steps of at most STEP_CHARS characters, each on one line."""
    message = "Next steps:\n" + "\n".join(f"- step {n} " + "word " * 200 for n in range(20))
    steps = stated_next(message).splitlines()
    assert len(steps) == NEXT_STEPS and all(len(s) <= STEP_CHARS for s in steps)


def test_the_stop_observation_keeps_them_as_the_agents_words():
    """A Stop whose last message states next steps records them with the turn; one that states none does not."""
    [turn] = observations("Stop", {"last_assistant_message": "Next steps:\n1. a\n2. b"}, "claude")
    assert (turn["kind"], turn["next"]) == ("turn", "a\nb")
    [plain] = observations("Stop", {"last_assistant_message": "Done."}, "claude")
    assert "next" not in plain


def test_stated_steps_newer_than_the_checkpoint_are_the_next_action_and_steps():
    """The first stated step is the next action (labelled stated); all steps are kept."""
    state = reduce([obs("turn", "05:00", next="fix the lexer\nupdate NOTES.md")], [cp("01:00", next_action="N")])
    assert state["nextAction"]["text"] == "fix the lexer" and state["nextAction"]["source"] == "stated"
    assert state["nextSteps"]["steps"] == ["fix the lexer", "update NOTES.md"]


def test_a_newer_checkpoint_supersedes_the_stated_steps():
    """Steps stated before the newest checkpoint are not the plan any more: the checkpoint is."""
    state = reduce([obs("turn", "01:00", next="old step")], [cp("05:00", next_action="the checkpoint's step")])
    assert state["nextSteps"] is None and state["nextAction"]["text"] == "the checkpoint's step"


def test_the_next_action_names_every_failing_validation():
    """Two validations that fail after the checkpoint are both in the next action, not only the newest."""
    state = reduce(
        [run("02:00", "pytest tests/test_a.py", 1, "1 failed"), run("03:00", "pytest tests/test_b.py", 1, "1 failed")],
        [cp("01:00")],
    )
    text = state["nextAction"]["text"]
    assert "`pytest tests/test_a.py` pass" in text and "`pytest tests/test_b.py` pass" in text
