"""Helpers for driving `codex-bridge hook <Event>` in-process, as Claude Code would call it."""

from __future__ import annotations

import json
import os
from typing import Any

SESSION = "11111111-aaaa-4bbb-8ccc-000000000001"
OTHER_SESSION = "22222222-aaaa-4bbb-8ccc-000000000002"


def payload(event: str, cwd: Any, **fields: Any) -> dict[str, Any]:
    """The stdin JSON Claude Code sends for ``event`` (common fields plus ``fields``)."""
    base = {
        "session_id": SESSION,
        "transcript_path": f"/tmp/claude/{SESSION}.jsonl",
        "cwd": str(cwd),
        "hook_event_name": event,
        "permission_mode": "default",
    }
    return {**base, **fields}


def run_hook(bridge, event: str, cwd: Any, **fields: Any) -> dict[str, Any] | None:
    """Run one hook in-process; returns its JSON answer (None when it printed nothing; ``{"plain": text}`` for a
    line of plain text); it must exit 0."""
    code, out, err = bridge("hook", event, stdin=json.dumps(payload(event, cwd, **fields)))
    assert code == 0, err
    if not out.strip():
        return None
    return json.loads(out) if out.lstrip().startswith("{") else {"plain": out.strip()}


def context_of(answer: dict[str, Any] | None) -> str:
    """The additionalContext of a hook answer ('' when there is none)."""
    return ((answer or {}).get("hookSpecificOutput") or {}).get("additionalContext", "")


# The counts the audit hook below adds to (None: nobody is counting). sys.addaudithook cannot be undone, so one hook
# is added for the whole test process, the first time a test counts.
_COUNTS: dict[str, int] | None = None


def _count_opens(event: str, args: tuple[Any, ...]) -> None:
    counts = _COUNTS
    if counts is None or event != "open":
        return
    path, _mode, flags = args
    named = isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).endswith(f"{os.sep}state.json")
    if named and flags is not None and flags & os.O_ACCMODE == os.O_RDONLY:
        counts["reads"] += 1


def count_state_reads(monkeypatch: Any) -> dict[str, int]:
    """From here on, every read of a run's state.json and every ``Workspace`` built in this process, counted:
    ``{"reads": n, "workspaces": n}``. A read is any open of a ``state.json`` for reading (an audit hook sees every
    one), whoever opens it: the Store, the active memory, anything added later; a review worker is another
    process, and its reads are its own."""
    import sys

    from autopilot.loop.workspace import Workspace

    counts = {"reads": 0, "workspaces": 0}
    if not getattr(_count_opens, "added", False):
        sys.addaudithook(_count_opens)
        _count_opens.added = True  # type: ignore[attr-defined]
    monkeypatch.setattr(sys.modules[__name__], "_COUNTS", counts)
    build = Workspace.__init__

    def counting_build(self: Workspace, *args: Any, **kwargs: Any) -> None:
        counts["workspaces"] += 1
        build(self, *args, **kwargs)

    monkeypatch.setattr(Workspace, "__init__", counting_build)
    return counts


def reviewed(bridge, repo: Any, after: str | None = None, timeout: float = 60.0) -> dict[str, Any]:
    """The run once the review worker has recorded a review newer than ``after`` (a ``last_review`` timestamp;
    None: any review), or failed one (``last_error`` of the review phase newer than it)."""
    import time

    from tests.support.loop import state_of

    deadline = time.monotonic() + timeout
    while True:
        state = state_of(bridge, repo)
        review, error = state.get("last_review") or {}, state.get("last_error") or {}
        if review.get("timestamp", "") > (after or "") or (
            error.get("phase") == "review" and error.get("timestamp", "") > (after or "")
        ):
            return state
        assert time.monotonic() < deadline, f"no review was recorded within {timeout}s"
        time.sleep(0.05)


def stop_review_workers(home: str | os.PathLike[str]) -> list[int]:
    """SIGKILL every review worker still running under the autopilot home ``home`` (a test's teardown: a worker
    idles for minutes); the pids it killed."""
    import signal
    from pathlib import Path

    killed = []
    for pid_file in Path(home).glob("runs/*/review-worker.pid"):
        try:
            pid = int(pid_file.read_text().split()[0])
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            continue
        killed.append(pid)
    return killed
