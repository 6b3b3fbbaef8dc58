"""`handoff from-codex intake` as a command: the answer printed, --full, and the bounds it refuses as Claude's does."""

from __future__ import annotations

import pytest

from autopilot.commands.handoff import intake as handoff_intake
from autopilot.errors import BridgeError
from tests.support.claude_rows import fixture as claude_fixture
from tests.unit.handoff.transcripts.test_codex_intake import cli, entries, fixture


def test_cli_prints_the_intake_as_json():
    """`from-codex intake` prints the same answer with the requested page size."""
    code, answer = cli("from-codex", "intake", str(fixture("exec_plain")), "--limit", "2")
    assert (code, [e["kind"] for e in entries(answer)]) == (0, ["assistant", "user"])
    assert answer["nextBeforeLine"] == entries(answer)[-1]["line"]


def test_cli_full_disables_cutting():
    """--full reports maxChars as null."""
    assert cli("from-codex", "intake", str(fixture("exec_plain")), "--full")[1]["maxChars"] is None


def test_cli_refuses_a_missing_rollout(tmp_path):
    """A missing path is a BridgeError that says what to pass instead."""
    with pytest.raises(BridgeError, match="does not exist; pass a rollout path"):
        cli("from-codex", "intake", str(tmp_path / "nope.jsonl"))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"limit": 0}, "--limit 0 is out of range; use 1 to 500"),
        ({"limit": 501}, "--limit 501 is out of range"),
        ({"before_line": 0}, "--before-line 0 is not a raw line number"),
        ({"max_chars": 79}, "--max-chars 79 is too small"),
    ],
)
def test_both_intake_commands_refuse_the_same_bad_bounds(kwargs, message):
    """The rollout and the Claude transcript intake commands check page bounds alike, with the same messages."""
    for agent, path in (("codex", fixture("exec_plain")), ("claude", claude_fixture("tools"))):
        with pytest.raises(BridgeError, match=message):
            handoff_intake.intake(str(path), agent=agent, **kwargs)


def test_cli_refuses_a_bad_limit():
    """A page size out of range is refused with the allowed range."""
    with pytest.raises(BridgeError, match="use 1 to 500"):
        cli("from-codex", "intake", str(fixture("exec_plain")), "--limit", "0")
