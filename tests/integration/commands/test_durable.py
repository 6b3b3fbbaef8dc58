"""`codex-bridge durable` without a terminal: proposals from the cli channel or a packet's constraint; its old name."""

from __future__ import annotations

import json


def test_cli_propose_records_a_candidate_from_the_cli_channel(bridge):
    """`durable propose` without a terminal records a candidate proposed through the cli channel; list shows it."""
    code, out, err = bridge(
        "durable", "propose", "--text", "Keep commits small.", "--why", "review is easier", "--global"
    )
    rule = json.loads(out)
    assert code == 0, err
    assert (rule["status"], rule["proposed"]["channel"], rule["why"]) == ("candidate", "cli", "review is easier")
    listing = json.loads(bridge("durable", "list", "--status", "candidate")[1])
    assert [r["id"] for r in listing["rules"]] == [rule["id"]] and listing["counts"]["candidate"] == 1


def test_cli_propose_from_a_packets_constraint(bridge, git_repo):
    """`durable propose --from-packet ID` takes the packet's constraint, with the packet and its evidence refs."""
    from tests.support.claude_rows import Transcript
    from tests.support.handoff_env import claude_session, work_session

    claude_session(work_session(Transcript()), git_repo)
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", Transcript().session, "--to", "codex", cwd=git_repo
    )
    pid = json.loads(out)["packet"]
    code, out, err = bridge("durable", "propose", "--from-packet", pid, cwd=git_repo)
    rule = json.loads(out)
    assert code == 0, err
    assert (rule["text"], rule["source"]["packet"], rule["proposed"]["channel"]) == (
        "Never change the public API of parse().",
        pid,
        "packet",
    )


def test_the_commands_earlier_name_still_runs_it(bridge):
    """`codex-bridge memory list` (the name before `durable`) answers as `durable list` does."""
    assert bridge("memory", "list") == bridge("durable", "list")
