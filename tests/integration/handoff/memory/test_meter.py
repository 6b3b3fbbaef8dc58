"""What the memory put into each session's context, as `codex-bridge report` adds it up beside the Codex spend."""

from __future__ import annotations

import os
from pathlib import Path

from autopilot.handoff.memory import observe
from tests.integration.loop.test_report import injected_bytes, injected_session, report
from tests.support.durable import approved
from tests.support.hooks import OTHER_SESSION, SESSION


def test_report_shows_the_bytes_memory_injected_into_each_session(git_repo, bridge):
    """Per session, the bytes the report adds up are the bytes the hooks put in the agent's context."""
    rid = approved("Keep the CSV output byte for byte.", git_repo)
    given = injected_session(bridge, git_repo)
    assert rid in given and "Add a --json flag to export." in given
    (row,) = report(bridge)["memory"]["sessions"]
    assert (row["agent"], row["session"], row["worktree"]) == ("claude", SESSION, os.path.realpath(git_repo))
    assert row["bytes"] == injected_bytes(given) and row["rules"]["injections"] == 2 == row["facts"]["injections"] + 1
    assert row["tokens"] == -(-injected_bytes(given) // 4)


def test_report_totals_memory_over_sessions_beside_the_codex_spend(git_repo, bridge):
    """Two sessions' injections add up to the total; the Codex spend is still there, apart."""
    approved("Keep the CSV output byte for byte.", git_repo)
    texts = [injected_session(bridge, git_repo), injected_session(bridge, git_repo, OTHER_SESSION)]
    result = report(bridge)
    assert result["memory"]["total"]["bytes"] == sum(injected_bytes(t) for t in texts)
    assert result["memory"]["total"]["sessions"] == 2 and result["total"]["calls"] == 0


def test_report_since_leaves_out_earlier_injections(git_repo, bridge):
    """--since after every injection: no session, a zero total, and the table says nothing was recorded."""
    approved("Keep the CSV output byte for byte.", git_repo)
    injected_session(bridge, git_repo)
    memory = report(bridge, "--since", "2999-01-01")["memory"]
    assert (memory["sessions"], memory["total"]["bytes"]) == ([], 0)
    assert bridge("report", "--since", "2999-01-01")[1].endswith("Memory injected: nothing recorded in that time\n")


def test_report_counts_an_unreadable_injection_record(git_repo, bridge):
    """A line of injections.jsonl that is not JSON is counted and skipped; the others still add up."""
    approved("Keep the CSV output byte for byte.", git_repo)
    given = injected_session(bridge, git_repo)
    folder = Path(observe.session_dir(os.path.realpath(git_repo), "claude", SESSION))
    with open(folder / observe.INJECTIONS, "ab") as fh:
        fh.write(b'{"kind": "injection", "bytes": \n')
    memory = report(bridge)["memory"]
    assert (memory["total"]["malformed"], memory["total"]["bytes"]) == (1, injected_bytes(given))
