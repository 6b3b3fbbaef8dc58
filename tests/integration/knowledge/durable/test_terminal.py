"""The terminal a passphrase is typed at: no other process of its session may be able to read it.

A background job left in the person's terminal (by an agent, or by a command the agent talked them into) is in the
terminal's session: it can make itself the foreground when the prompt appears and read the passphrase, and it can open
``/dev/tty`` even while the terminal is exclusive. So the passphrase is never asked while one exists.
"""

from __future__ import annotations

import shlex
import sys

import pytest

from autopilot.knowledge.durable.store import Log
from tests.support.durable import PASSPHRASE, person, propose
from tests.support.terminal import bridge_argv, clean_env, typed

NAME_PROMPT = b"your name: "
PASS_PROMPT = b"your approval passphrase"

# A background job of the person's shell: SIGTTIN/SIGTTOU ignored, it makes itself the foreground once the prompt is
# up, then reads everything typed.
JOB = """
import os, signal, sys, time
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
signal.signal(signal.SIGTTIN, signal.SIG_IGN)
fd = os.open("/dev/tty", os.O_RDWR)
time.sleep(1.5)
try:
    os.tcsetpgrp(fd, os.getpgrp())
except OSError:
    pass
with open(sys.argv[1], "ab") as out:
    while data := os.read(fd, 1024):
        out.write(data)
        out.flush()
"""


@pytest.fixture
def candidate(git_repo):
    person()
    return propose("Keep commits small.", git_repo)


@pytest.mark.parametrize("how", ["background job", "job without /dev/tty open", "pipeline"])
def test_no_passphrase_is_asked_while_another_process_of_the_session_can_read(candidate, tmp_path, how):
    """A background job of the same shell (holding /dev/tty, or not yet), or a pipeline's other end: refused before
    the passphrase prompt, the process named; nothing is read, nothing decided."""
    stolen = tmp_path / "stolen"
    job = shlex.join([sys.executable, "-c", JOB, str(stolen)])
    approve = shlex.join(bridge_argv("durable", "approve", candidate))
    line = {
        "background job": f"{job} & sleep 0.5; exec {approve}",
        "job without /dev/tty open": f"sleep 30 & exec {approve}",
        "pipeline": f"{approve} | cat",
    }[how]
    code, shown = typed(["bash", "-c", line], [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)], clean_env())
    assert b"another process can read this terminal" in shown, shown
    assert PASS_PROMPT not in shown and Log().view()["rules"][candidate]["status"] == "candidate"
    assert PASSPHRASE.encode() not in (stolen.read_bytes() if stolen.exists() else b"")


def test_alone_in_its_terminal_the_decision_is_asked(candidate):
    """The same command with nothing else in the session asks and decides (the check refuses only real readers)."""
    code, shown = typed(
        ["bash", "-c", shlex.join(bridge_argv("durable", "approve", candidate))],
        [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)],
        clean_env(),
    )
    assert code == 0 and Log().view()["rules"][candidate]["status"] == "approved", shown
