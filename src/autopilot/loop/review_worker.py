"""The review worker: one review of a workspace in a detached process, at most one in flight per run.

The PostToolUse hook starts it (:func:`start_worker`) and waits for it only so long; the worker runs
``loop.review.review()`` under ``review.lock`` (taken without blocking: a second worker exits EXIT_BUSY), so a
review that outlasts the hook still records its findings in state.json. A failure it records may pause the run
(``control.pause_if_unavailable``). It imports no hook module: the worker is an operation on the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import suppress

from autopilot.errors import BridgeError, InfraError, RunChanged
from autopilot.fsutil import Lock
from autopilot.loop import control
from autopilot.loop.state import Store
from autopilot.output import say
from autopilot.paths import autopilot_home

LOCK = "review.lock"
WORKER_LOG = "review-worker.log"
MAX_LOG_BYTES = 1_000_000  # then the log is rotated to review-worker.log.1
EXIT_BUSY = 75  # the worker found another review in flight
ENTRY = "import sys; from autopilot.loop.review_worker import worker; sys.exit(worker())"  # what the process runs


def in_flight(store: Store) -> bool:
    """Whether a review worker holds this run's review lock right now."""
    lock = Lock(store.dir / LOCK)
    if not lock.acquire(0):
        return True
    lock.release()
    return False


def start_worker(store: Store, root: str) -> subprocess.Popen[bytes]:
    """A detached review worker for ``root``; it outlives this hook if the review takes long."""
    store.dir.mkdir(parents=True, exist_ok=True)
    log_path = store.dir / WORKER_LOG
    try:
        if log_path.stat().st_size > MAX_LOG_BYTES:
            os.replace(log_path, log_path.with_name(WORKER_LOG + ".1"))
    except OSError:
        pass
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", ENTRY],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=log,
            cwd=root,
            start_new_session=True,
        )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"root": root}).encode())
    proc.stdin.close()
    return proc


def worker() -> int:
    """Run one review for the workspace named on stdin, unless another review is already in flight."""
    from autopilot.errors import Terminated, end_cleanly_on_signals
    from autopilot.loop.review import review

    end_cleanly_on_signals()  # a worker ended by SIGTERM stops its codex and lets go of the lock on the way out
    root = json.loads(sys.stdin.read())["root"]
    store = Store(root)
    lock = Lock(store.dir / LOCK)
    if not lock.acquire(0):
        return EXIT_BUSY
    try:
        review(cwd=root)
    except Terminated as exc:
        say(f"review worker: stopped by signal {exc.signum}; the review was not recorded")
        return 128 + exc.signum
    except InfraError as exc:  # already recorded in state, with consecutive_errors counted (busy: not counted)
        with suppress(RunChanged):  # re-planned or no longer running meanwhile: nothing to pause
            control.pause_if_unavailable(store, exc.run or store.load(), "review", exc)
    except BridgeError as exc:  # budget spent (the run is already stopped) or nothing to review
        say(f"review worker: {exc}")
    except Exception as exc:
        from autopilot.plugin import write_crash_log  # only a crash pays for it

        write_crash_log(str(autopilot_home()), exc)
        raise
    finally:
        lock.release()
    return 0
