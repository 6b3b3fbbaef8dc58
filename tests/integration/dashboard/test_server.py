"""The dashboard process ended by a signal while a request reads Codex's sessions: no codex of ours is left."""

from __future__ import annotations

import signal
import threading
import time

import pytest

from tests.support.dashboard import Dashboard
from tests.support.fake_codex import alive, fake_codex, reap


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_dashboard_ended_mid_request_stops_the_codex_app_server_it_started(git_repo, tmp_path, signum):
    """SIGTERM or SIGHUP while a request waits on a `codex app-server` that never answers: the dashboard exits and
    takes that app server with it."""
    bin_dir = tmp_path / "bin"
    fake_codex(bin_dir, "silent")
    try:
        with Dashboard(git_repo, env={"AUTOPILOT_CODEX_BIN": str(bin_dir / "codex")}) as board:
            threading.Thread(
                target=lambda: board.request("GET", "/api/sources/codex?source=app-server"), daemon=True
            ).start()
            deadline = time.monotonic() + 30
            while not alive(bin_dir) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert alive(bin_dir), "the app server never started"
            assert board.proc is not None
            board.proc.send_signal(signum)
            board.proc.wait(timeout=30)
        assert alive(bin_dir) == []
    finally:
        reap(bin_dir)
