"""Codex's app server as a source: what an older server leaves out is named as a gap."""

from __future__ import annotations


def test_an_app_server_that_drops_command_runs_says_so():
    """Codex before 0.171 returns an exec thread's messages without its command runs: a gap names it."""
    from types import SimpleNamespace

    from autopilot.handoff.sources import appserver

    older, pinned, unknown = (SimpleNamespace(version=v) for v in ((0, 145, 0), (0, 171, 0), None))
    (gap,) = appserver.history_gaps(older)  # type: ignore[arg-type]
    assert gap["kind"] == appserver.COMMANDS_MISSING
    assert "0.145.0" in gap["detail"] and "--source local" in gap["detail"]
    assert appserver.history_gaps(pinned) == appserver.history_gaps(unknown) == []  # type: ignore[arg-type]
