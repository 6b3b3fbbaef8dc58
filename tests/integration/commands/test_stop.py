"""`codex-bridge stop`: the run returns to idle, keeping what it spent, and status says why."""

from __future__ import annotations

import json

from tests.support.loop import state_of


def test_stop_keeps_usage_and_status_says_why(planned, bridge):
    """stop returns the run to idle, keeps token_usage, and status shows the reason."""
    usage = state_of(bridge, planned)["token_usage"]
    code, out, _ = bridge("-C", str(planned), "stop", "--reason", "manual reset")
    assert code == 0 and json.loads(out)["token_usage"] == usage
    code, out, _ = bridge("-C", str(planned), "status")
    assert "Status:     idle (manual reset)" in out
