"""The from-codex skill's script, typed right after $handoff: it waits (bounded) for Codex's rollout to settle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.support.codex_home import pointer
from tests.support.repo import REPO

SCRIPT = REPO / "skills" / "from-codex" / "scripts" / "from-codex"
ROLLOUT_LINES = (REPO / "tests" / "fixtures" / "codex" / "exec_plain.jsonl").read_text().splitlines(keepends=True)


# A launcher of the real bridge in this Python (the script runs it with an argument list).
REAL_BRIDGE = f"""#!{sys.executable}
import sys
from autopilot.cli import main
sys.exit(main(sys.argv[1:]))
"""


def late_rollout(path: Path, lines: list[str], *, first_after: float, rest_after: float) -> threading.Thread:
    """Write ``lines`` to ``path`` in two parts, as Codex flushes them: most at ``first_after`` s, the last later."""

    def write() -> None:
        time.sleep(first_after)
        path.write_text("".join(lines[:-1]))
        time.sleep(rest_after - first_after)
        with path.open("a") as fh:
            fh.write(lines[-1])

    writer = threading.Thread(target=write)
    writer.start()
    return writer


@pytest.fixture
def handed_over(isolated_homes, git_repo, tmp_path):
    """A $handoff pointer for git_repo naming a rollout not on disk yet, and a launcher of the real bridge."""
    rollout = tmp_path / "sessions" / "rollout-2026-11-30T10-00-00-abc.jsonl"
    rollout.parent.mkdir()
    pointer(rollout, git_repo, "s")
    launcher = tmp_path / "bin" / "bridge"
    launcher.parent.mkdir()
    launcher.write_text(REAL_BRIDGE)
    launcher.chmod(0o755)
    return rollout, launcher


def from_codex(cwd: Path, launcher: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run the from-codex script as the skill does; its completed process."""
    return subprocess.run(
        [str(SCRIPT), "--args-on-stdin"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        env={**os.environ, "CODEX_AUTOPILOT_BRIDGE": str(launcher)},
    )


def test_from_codex_waits_for_a_rollout_written_half_a_second_late(handed_over, git_repo):
    """Typed right after $handoff, the intake waits for the rollout to exist and stop growing: its last line is read."""
    rollout, launcher = handed_over
    lines = ROLLOUT_LINES
    writer = late_rollout(rollout, lines, first_after=0.5, rest_after=0.8)
    try:
        proc = from_codex(git_repo, launcher, stdin="--full\n")
    finally:
        writer.join()
    assert proc.returncode == 0, proc.stderr
    intake = json.loads(proc.stdout)
    assert (intake["counts"]["lines"], intake["turn"]["state"]) == (len(lines), "complete")  # not "running"
    assert "still growing" not in proc.stderr


@pytest.mark.slow  # waits out the 5 s bound by design
def test_from_codex_says_when_the_rollout_never_stops_growing(handed_over, git_repo):
    """A rollout still growing when the wait ends is read as it is, and the user is told its end may be missing."""
    path, launcher = handed_over
    stop = threading.Event()

    def grow() -> None:
        path.write_text("".join(ROLLOUT_LINES))
        while not stop.wait(0.1):
            with path.open("a") as fh:
                fh.write("\n")

    writer = threading.Thread(target=grow)
    writer.start()
    try:
        started = time.monotonic()
        proc = from_codex(git_repo, launcher)
        took = time.monotonic() - started
    finally:
        stop.set()
        writer.join()
    assert proc.returncode == 0, proc.stderr
    assert "was still growing after 5 s" in proc.stderr and "newest turn may be missing" in proc.stderr
    assert took < 15


@pytest.mark.slow  # waits out the 5 s bound by design
def test_from_codex_fails_clearly_when_the_rollout_never_appears(handed_over, git_repo):
    """A pointer whose rollout never appears within the wait is an error that says what to do, not a traceback."""
    proc = from_codex(git_repo, handed_over[1])
    assert proc.returncode == 1
    assert "does not exist (waited 5 s)" in proc.stderr and "type $handoff in Codex again" in proc.stderr
    assert "Traceback" not in proc.stderr
