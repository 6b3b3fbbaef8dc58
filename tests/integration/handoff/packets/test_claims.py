"""A packet's next action from the assistant's own words, in each phrasing people use (issue 37)."""

from __future__ import annotations

import json

import pytest

from tests.support.claude_rows import Transcript, text
from tests.support.handoff_env import claude_session


def preview(bridge, repo, t: Transcript) -> dict:
    """The packet a Claude session would export (preview: nothing written)."""
    claude_session(t, repo)
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", t.session, "--to", "codex", "--preview", cwd=repo
    )
    assert code == 0, err
    return json.loads(out)["contents"]


@pytest.mark.parametrize(
    ("said", "step"),
    [
        ("I fixed the parser. Next, I will update the docs.", "Next, I will update the docs."),
        ("The build is green; the next step is to tag the release.", "tag the release."),
        ("Lexer done. My plan:\n1. update the docs\n2. tag the release", "update the docs"),
        ("Fixed.\n\nTODO: update the changelog", "update the changelog"),
    ],
)
def test_the_next_action_is_the_stated_step_in_any_phrasing(bridge, git_repo, said, step):
    """The assistant's stated next step is the packet's next action, citing its message, labelled the agent's."""
    t = Transcript()
    t.user("Make the parser accept empty input.")
    t.assistant(text(said))
    packet = preview(bridge, git_repo, t)
    nxt = packet["nextAction"]
    assert (nxt["text"], nxt["why"], nxt["agent"]) == (step, "the assistant's own stated next step", "claude")
    assert nxt["refs"]


def test_a_newer_message_replaces_an_older_statement(bridge, git_repo):
    """Two messages state next steps: the newer one is the next action."""
    t = Transcript()
    t.user("Make the parser accept empty input.")
    t.assistant(text("Parser fixed. Next: update the docs."))
    t.assistant(text("Docs updated; the next step is to tag the release."))
    assert preview(bridge, git_repo, t)["nextAction"]["text"] == "tag the release."
