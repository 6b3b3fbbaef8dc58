"""A stand-in for a `codex` that cannot answer, shaped like the real one (the edge: codex is not ours).

It answers ``--version`` and ``login status`` as codex 0.171 does when nobody logged in, and runs ``exec`` in one of
these ways, each seen on the real binary (../shared/reference/codex.md):

- ``offline``: what codex 0.171 prints when it cannot reach its provider (no network, no server at base_url), then
  waits for ever;
- ``started``: it starts a thread and a turn, then waits for ever (a model that never answers);
- ``silent``: it prints nothing, reads nothing and waits for ever (a hung binary).

``app-server`` hangs in every mode: it answers nothing.

Every run appends its arguments to ``runs.log`` beside it and writes its pid to ``pids/``, so a test can tell whether
it ran at all and whether anything it started is still alive.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

MODES = ("offline", "started", "silent")

SCRIPT = """\
import json, os, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "runs.log"), "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
os.makedirs(os.path.join(HERE, "pids"), exist_ok=True)
open(os.path.join(HERE, "pids", str(os.getpid())), "w").close()
args = sys.argv[1:]
if args[:1] == ["--version"]:
    print("codex-cli 0.171.0")
    sys.exit(0)
if args[:2] == ["login", "status"]:
    print("Not logged in", file=sys.stderr)
    sys.exit(1)
if args[:1] == ["app-server"]:
    time.sleep(600)  # answers nothing, reads nothing
if args[:1] != ["exec"]:
    sys.exit(2)
mode = {mode!r}
def say(event):
    sys.stdout.write(json.dumps(event) + "\\n")
    sys.stdout.flush()
if mode != "silent":
    say({{"type": "thread.started", "thread_id": "01a250d3-3f4b-7541-bdbd-2e8c24f5af19"}})
    say({{"type": "turn.started"}})
if mode == "offline":
    time.sleep(0.3)
    words = "Reconnecting... waiting for network (Connection failed: error sending request)"
    say({{"type": "error", "message": words}})
time.sleep(600)
"""


def fake_codex(folder: Path, mode: str) -> Path:
    """An executable ``codex`` in ``folder`` behaving as ``mode`` says (one of MODES)."""
    assert mode in MODES
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "codex"
    path.write_text(f"#!{sys.executable}\n" + SCRIPT.format(mode=mode))
    path.chmod(0o755)
    return path


def runs(folder: Path) -> list[str]:
    """The argument lists the fake in ``folder`` was run with, one JSON list a line."""
    log = folder / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def alive(folder: Path) -> list[int]:
    """The fake's processes in ``folder`` that still run (neither gone nor a zombie)."""
    found = []
    for entry in (folder / "pids").glob("*") if (folder / "pids").is_dir() else []:
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat") as fh:
                state = fh.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(pid)
    return found


def reap(folder: Path) -> None:
    """Kill what a failed test left of the fake (a passing test leaves nothing)."""
    import contextlib
    import signal

    for pid in alive(folder):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
