"""``python -m autopilot`` runs the bridge, and what it printed reaches a pipe though it exits without teardown."""

from __future__ import annotations

import json
import subprocess
import sys

from autopilot import __version__


def bridge_module(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    """``python -m autopilot ARGS`` as a process, its output piped."""
    return subprocess.run([sys.executable, "-m", "autopilot", *args], capture_output=True, text=True, cwd=cwd)


def test_the_version_is_printed_and_the_exit_is_clean():
    """--version prints the package's version on a pipe (flushed before os._exit) and exits 0."""
    done = bridge_module("--version")
    assert (done.returncode, done.stdout) == (0, f"codex-autopilot {__version__}\n")


def test_a_commands_json_reaches_the_pipe_whole(git_repo):
    """A command's JSON answer is complete on stdout: nothing of it is lost to the exit that skips teardown."""
    done = bridge_module("state", cwd=git_repo)
    assert done.returncode == 0 and json.loads(done.stdout)["status"] == "idle"


def test_a_malformed_command_line_is_a_usage_error():
    """An unknown command exits 2 with argparse's usage on stderr, as the console script does."""
    done = bridge_module("no-such-command")
    assert done.returncode == 2 and done.stdout == "" and "usage:" in done.stderr
