"""`codex-bridge handoff intake` and `raw` as commands: the answer printed, bounds and files refused, the parser."""

from __future__ import annotations

import argparse
import json

import pytest

from autopilot.commands.handoff import intake as handoff_intake
from autopilot.errors import BridgeError
from tests.support.claude_rows import fixture


def test_intake_command_prints_the_answer(capsys):
    """The command prints the intake JSON on stdout and returns 0."""
    assert handoff_intake.intake(str(fixture("tools")), limit=1) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (len(answer["entries"]), answer["entries"][0]["line"]) == (1, 48)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"limit": 0}, "--limit 0"), ({"before_line": 0}, "--before-line 0"), ({"max_chars": 5}, "--max-chars 5")],
)
def test_intake_command_rejects_bad_bounds(kwargs, message):
    """Out-of-range paging options are refused with what to pass instead."""
    with pytest.raises(BridgeError, match=message):
        handoff_intake.intake(str(fixture("tools")), **kwargs)


def test_intake_command_refuses_a_missing_file(tmp_path):
    """A missing transcript is an error that says where transcripts live."""
    with pytest.raises(BridgeError, match="does not exist; pass a transcript path"):
        handoff_intake.intake(str(tmp_path / "nope.jsonl"))


def test_intake_command_points_codex_rollouts_elsewhere(tmp_path):
    """A Codex rollout is refused with the command that reads it."""
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}) + "\n")
    with pytest.raises(BridgeError, match="handoff from-codex intake"):
        handoff_intake.intake(str(rollout))


def test_add_parser_wires_intake_and_raw(capsys):
    """add_parser registers intake and raw inspect|read under a handoff group, each returning 0."""
    parser = argparse.ArgumentParser()
    handoff = parser.add_subparsers(dest="command").add_parser("handoff").add_subparsers(dest="handoff_command")
    handoff_intake.add_parser(handoff)
    path = str(fixture("tools"))
    for argv in (
        ["handoff", "intake", path, "--limit", "2", "--before-line", "40", "--max-chars", "90"],
        ["handoff", "raw", "inspect", path],
        ["handoff", "raw", "read", path, "--line", "3"],
    ):
        args = parser.parse_args(argv)
        assert args.func(args) == 0
        json.loads(capsys.readouterr().out)
