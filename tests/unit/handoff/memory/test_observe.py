"""The agent's stated next steps in every phrasing people use (issue 37), the newest statement winning."""

from __future__ import annotations

import pytest

from autopilot.handoff.memory.observe import observations, stated_next
from autopilot.handoff.memory.reduce import reduce
from tests.unit.test_memory_reduce import obs


@pytest.mark.parametrize(
    ("message", "steps"),
    [
        ("I fixed the parser. Next, I will update the docs.", ["Next, I will update the docs."]),
        ("The build is green; the next step is to tag the release.", ["tag the release."]),
        ("Lexer done. My plan:\n1. update the docs\n2. tag the release", ["update the docs", "tag the release"]),
        ("I will now:\n1. update the docs\n2) tag the release", ["update the docs", "tag the release"]),
        ("Fixed.\n\nTODO: update the changelog", ["update the changelog"]),
        ("Fixed it.\n\nTODO:\n- update docs\n- tag", ["update docs", "tag"]),
        ("The tests pass. Then I'll refactor the cache.", ["Then I'll refactor the cache."]),
        ("My next step is to wire the CLI flag.", ["wire the CLI flag."]),
        ("Both tests pass. Next: add a test for a colon.", ["add a test for a colon."]),
    ],
)
def test_each_phrasing_of_a_next_step_is_read(message, steps):
    """Mid-paragraph "Next, I…", "…; the next step is…", a numbered plan, "TODO:" and the others are all caught."""
    found = stated_next(message)
    assert (found.splitlines() if found else []) == steps


@pytest.mark.parametrize(
    "message",
    [
        "Changes made:\n1. fixed the lexer\n2. fixed the parser",  # a list of what was done is no plan
        "I will plan the next release later.",
        "Next is the fun part",
        "The next test failed too, so I stopped.",
    ],
)
def test_what_is_not_a_stated_next_step_is_not_read_as_one(message):
    """A summary list, a sentence about the next release, or "Next" as a word state no next step."""
    assert stated_next(message) is None


def test_a_newer_statement_in_the_same_message_replaces_an_older_one():
    """The message changed its mind: the last statement is the plan."""
    message = "Next step: rewrite the lexer. Then B.\n\nActually, scratch that. Next, I will patch the tokenizer."
    assert stated_next(message) == "Next, I will patch the tokenizer."


def test_a_newer_turns_statement_replaces_the_older_turns():
    """Two turns stated next steps: the newer turn's are the next action."""
    turns = [
        obs("turn", f"0{n}:00", next=observations("Stop", {"last_assistant_message": said}, "claude")[0]["next"])
        for n, said in ((1, "Next: update the docs."), (2, "Docs done; the next step is to tag the release."))
    ]
    state = reduce(turns, [])
    assert state["nextAction"]["text"] == "tag the release." and state["nextAction"]["source"] == "stated"
