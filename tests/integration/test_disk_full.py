"""Writes the kernel refuses: the bridge runs under RLIMIT_FSIZE, so a file growing past the limit fails with EFBIG.

A real failure, part-way through a write, with no injection (but for the last test: the write probe makes
a refused review file impossible under a size limit, so that one case is injected): exit 1 naming the file
and the cause (never 70), the old state.json whole and valid, and no paid model call the run directory
could not record.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.errors import EXIT_ERROR
from autopilot.loop.state import PROBE_BYTES, Store, problem
from autopilot.scripted.responses_server import reply_json
from tests.support.hooks import payload
from tests.support.loop import APPROVE
from tests.support.measured import unmeasured

MANY_FINDINGS = {
    "decision": "request_changes",
    "summary": "not there yet",
    "issues": [
        {"severity": "minor", "file": f"m{n}.py", "line": n, "message": f"finding {n}: " + "y" * 300} for n in range(30)
    ],
}


def capped_bridge(repo: Path, *args: str, limit: int, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``codex-bridge -C repo ARGS`` as a process whose files cannot grow past ``limit`` bytes (EFBIG past it)."""

    def cap() -> None:  # runs in the child before exec: both calls are plain system calls
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed by the signal
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "autopilot", "-C", str(repo), *args],
        preexec_fn=cap,  # noqa: PLW1509 - two system calls, no locks taken in the child
        env=unmeasured(),  # the limit binds coverage's data file too: a measured process would leave a torn one
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def change(repo: Path, text: str = "x = 1\n") -> None:
    (repo / "feature.py").write_text(text)


def leftovers(store: Store) -> list[str]:
    """Temp files and probes in the run directory."""
    return sorted(p.name for p in store.dir.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".write-probe"))


def assert_intact(store: Store, before: bytes) -> None:
    """state.json is byte for byte what it was, and valid against the schema."""
    assert store.path.read_bytes() == before
    assert problem(json.loads(before)) is None
    assert leftovers(store) == [] and not list(store.dir.glob("state.json.corrupt-*"))


def test_a_full_home_refuses_a_plan_before_the_call(git_repo, openai_env, isolated_homes):
    """With no byte writable under $AUTOPILOT_HOME, `plan` exits 1 with the cause; Codex is never asked."""
    done = capped_bridge(git_repo, "plan", "--goal", "add a feature", limit=0)
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "File too large" in done.stderr and "no call was made" in done.stderr
    assert "internal error" not in done.stderr and openai_env.requests == []
    home = isolated_homes / "autopilot"
    assert [p for p in home.rglob("*") if p.is_file()] == []  # no state.json, no crash log, no temp file


def test_a_full_run_directory_refuses_a_review_with_exit_1(planned, openai_env):
    """A review that cannot write its first byte (the work-tree snapshot) is exit 1 naming the cause, not 70."""
    store = Store(planned)
    before, asked = store.path.read_bytes(), len(openai_env.requests)
    change(planned)
    done = capped_bridge(planned, "review", limit=0)
    assert done.returncode == EXIT_ERROR and "File too large" in done.stderr, done.stderr
    assert "internal error" not in done.stderr and len(openai_env.requests) == asked
    assert_intact(store, before)


@pytest.mark.parametrize("grows", ["state.json", "events.jsonl"])
def test_no_paid_call_when_a_run_file_would_outgrow_the_limit(planned, openai_env, grows):
    """The probe's 4 KiB fit, but recording the call would not: Codex is never asked, exit 1, nothing changed.

    state.json: it fits now, but the answer's 30 findings would not. events.jsonl: it has grown to just under
    the limit (StopFailure lines, no model call), so the call's line would break off.
    """
    store = Store(planned)
    events = store.dir / "events.jsonl"
    if grows == "state.json":
        answer, limit = MANY_FINDINGS, PROBE_BYTES + 512
        assert store.path.stat().st_size < limit and events.stat().st_size < limit
        assert len(json.dumps(MANY_FINDINGS)) > limit  # the answer alone is more than state.json may hold
    else:
        while events.stat().st_size < 2 * PROBE_BYTES:
            store.append_event({"phase": "claude", "outcome": "stop_failure:unknown", "detail": "z" * 200})
        answer, limit = APPROVE, events.stat().st_size + 100
    before, asked = store.path.read_bytes(), len(openai_env.requests)
    change(planned)
    openai_env.push(reply_json(answer))
    done = capped_bridge(planned, "review", limit=limit)
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "File too large" in done.stderr and "no call was made, so nothing was spent" in done.stderr
    assert len(openai_env.requests) == asked  # the scripted server's log: Codex was never asked
    assert_intact(store, before)


@pytest.mark.parametrize("command", [["budget", "set", "9"], ["stop"]])
def test_a_state_write_that_fails_part_way_keeps_the_old_file(planned, command):
    """A state.json write cut off by the limit is exit 1 with the cause; the old file stays whole and valid."""
    store = Store(planned)
    before = store.path.read_bytes()
    done = capped_bridge(planned, *command, limit=len(before) // 2)  # the new file breaks off half-way
    assert done.returncode == EXIT_ERROR, done.stderr
    assert "state.json (File too large); the old state.json is unchanged" in done.stderr
    assert "internal error" not in done.stderr and done.stdout == ""
    assert_intact(store, before)
    assert not (store.dir.parent.parent / "crash.log").exists()


def test_a_torn_event_line_never_swallows_the_next(planned, openai_env, bridge):
    """An events.jsonl append cut off by the limit leaves one unreadable line; the next call's line is whole."""
    store = Store(planned)
    events = store.dir / "events.jsonl"
    size = events.stat().st_size
    hook_input = json.dumps(payload("StopFailure", planned, error="server_error", error_details="boom " * 20))
    done = capped_bridge(planned, "hook", "StopFailure", limit=size + 40, stdin=hook_input)
    assert done.returncode == 0 and "events.jsonl (File too large)" in json.loads(done.stdout)["systemMessage"]
    assert events.stat().st_size == size + 40  # torn: 40 bytes of the line made it
    change(planned)
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(planned), "review")[0] == 0
    lines = [line for line in events.read_text().split("\n") if line]
    readable = []
    for line in lines:
        try:
            readable.append(json.loads(line))
        except ValueError:
            readable.append(None)
    assert readable.count(None) == 1 and readable[-1]["phase"] == "review" and readable[-1]["outcome"] == "ok"
    code, out, _ = bridge("report", "--json")
    assert code == 0 and json.loads(out)["lines"]["malformed"] == 1


def test_the_rlimit_helper_really_limits_writes(tmp_path):
    """The mechanism itself: a child under the limit gets EFBIG part-way through a write."""
    script = (
        "import sys\n"
        "try:\n"
        "    open(sys.argv[1], 'wb').write(b'x' * 10000)\n"
        "except OSError as exc:\n"
        "    print(exc.errno)\n"
    )
    target = tmp_path / "big"

    def cap() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    out = subprocess.run(
        [sys.executable, "-c", script, str(target)],
        preexec_fn=cap,  # noqa: PLW1509
        env=unmeasured(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == "27" and target.stat().st_size == 4096 and os.strerror(27) == "File too large"


def test_a_refused_read_is_not_called_a_full_disk():
    """EACCES/EPERM may come from a read: the message says access and the hint permissions; ENOSPC says write."""
    import errno

    from autopilot.errors import unwritable

    denied = unwritable(PermissionError(errno.EACCES, "Permission denied", "/srv/x/state.json"))
    full = unwritable(OSError(errno.ENOSPC, "No space left on device", "/srv/x/state.json"))
    assert denied is not None and full is not None
    assert str(denied).startswith("cannot access /srv/x/state.json") and "disk space" not in (denied.hint or "")
    assert str(full).startswith("cannot write /srv/x/state.json") and "disk space" in (full.hint or "")


def test_a_refused_review_file_still_charges_the_call(planned, openai_env, bridge, monkeypatch):
    """The disk takes state.json but refuses the review's own file: the paid call is charged and recorded anyway,
    the review stands without its file, and the user is told (before, the whole transaction was lost)."""
    import errno

    from autopilot.loop import state as state_mod
    from tests.support.loop import state_of

    real = state_mod.atomic_write

    def refusing(path, data, **kw):
        if Path(path).name.startswith("review-"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data, **kw)

    monkeypatch.setattr(state_mod, "atomic_write", refusing)
    (Path(planned) / "feature.py").write_text("x = 1\n")
    before = state_of(bridge, planned)["budget_used_usd"]
    openai_env.push(reply_json(APPROVE))
    code, out, err = bridge("-C", str(planned), "review")
    after = state_of(bridge, planned)
    assert code == 0 and "charged and recorded in state.json, but its file was not written" in err
    assert after["budget_used_usd"] > before and after["last_review"]["decision"] == "approve"
    assert after["last_review"]["review_path"] is None and json.loads(out)["review_path"] is None
