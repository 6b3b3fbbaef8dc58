"""A review worker ended by SIGTERM while codex answers stops that codex and lets go of the run's review lock."""

from __future__ import annotations

import signal
import time

from autopilot.loop.review_worker import in_flight, start_worker
from autopilot.loop.state import Store
from tests.support.fake_codex import alive, fake_codex, reap


def test_a_worker_ended_by_sigterm_leaves_no_codex_and_no_lock(planned, tmp_path, monkeypatch):
    """SIGTERM to a detached review worker mid-call: its codex (in a session of its own) is stopped, the worker
    exits 143 and the next review may start."""
    bin_dir = tmp_path / "bin"
    fake_codex(bin_dir, "started")
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(bin_dir / "codex"))
    (planned / "a.py").write_text("x = 1\n")
    store = Store(str(planned))
    try:
        worker = start_worker(store, str(planned))
        deadline = time.monotonic() + 30
        while not alive(bin_dir) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive(bin_dir), (store.dir / "review-worker.log").read_text()
        assert in_flight(store)
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(timeout=30) == 128 + signal.SIGTERM
        assert alive(bin_dir) == []
        assert not in_flight(store)
        assert "stopped by signal 15" in (store.dir / "review-worker.log").read_text()
    finally:
        reap(bin_dir)
