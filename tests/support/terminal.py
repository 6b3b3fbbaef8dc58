"""A person at a terminal, for tests: a command run on a fresh pseudo-terminal that is its controlling terminal.

:func:`typed` forks with :func:`pty.fork` (a new session whose controlling terminal is the pty, as a login
shell's is), answers each prompt it is told about when the prompt appears, and returns the exit code and
everything the terminal showed (raw bytes, so a test can check that no escape sequence reached the screen).
"""

from __future__ import annotations

import os
import pty
import select
import signal
import sys
import time
from collections.abc import Callable

from tests.support.repo import SRC


def bridge_argv(*args: str) -> list[str]:
    """This checkout's codex-bridge as a command line."""
    return [sys.executable, "-m", "autopilot", *args]


def clean_env(**extra: str) -> dict[str, str]:
    """The test's environment without the markers of an agent's shell, with this checkout importable."""
    drop = (
        "CLAUDECODE",
        "CLAUDE_CODE_ENTRYPOINT",
        "CODEX_SANDBOX",
        "CODEX_SANDBOX_NETWORK_DISABLED",
        "CODEX_THREAD_ID",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return {**env, "PYTHONPATH": str(SRC), **extra}


def typed(
    argv: list[str],
    replies: list[tuple[bytes, str]],
    env: dict[str, str],
    *,
    timeout: float = 60.0,
    started: Callable[[int], None] | None = None,
    before_reply: Callable[[bytes], None] | None = None,
) -> tuple[int, bytes]:
    """Run ``argv`` on its own controlling terminal; when the screen shows ``prompt`` (in order), type ``reply``
    and Enter. Returns the exit code and every byte the terminal showed. ``started(pid)`` is called once, when the
    screen first shows something (an attacker joining the terminal then); ``before_reply(prompt)`` just before each
    reply is typed (terminals that answer at the same moment wait for each other there)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session leader whose controlling terminal is the pty
        try:
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    shown = b""
    pending = list(replies)
    pos = 0  # prompts are looked for after the last one answered
    deadline = time.monotonic() + timeout
    status: int | None = None
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if not ready:
                done, code = os.waitpid(pid, os.WNOHANG)
                if done == pid:  # it ended, though another process holding the pty keeps it from closing
                    status = code
                    break
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                shown += chunk
                if started is not None:
                    started(pid)
                    started = None
            while pending and shown.find(pending[0][0], pos) >= 0:
                prompt, reply = pending.pop(0)
                pos = shown.find(prompt, pos) + len(prompt)
                if before_reply is not None:
                    before_reply(prompt)
                os.write(fd, reply.encode() + b"\n")
        else:
            os.kill(pid, signal.SIGKILL)
        if status is None:
            _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), shown


def as_started_from_a_terminal() -> None:
    """``preexec_fn`` for a command a test starts as a person would: SIGHUP at its default, whatever the test run
    inherited. Under ``nohup tests/run`` every child inherits SIGHUP ignored, and the bridge rightly keeps a
    signal ignored on purpose (``errors.end_cleanly_on_signals``), so a test of what a closed terminal does must
    give its command the terminal's default back."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
