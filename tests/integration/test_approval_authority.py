"""Only the person decides: the CLI at a real terminal with the passphrase; every way an agent's shell tries without.

Each attack is run as an agent's shell would run it (a process without a terminal, piped answers,
``script`` for a pseudo-terminal with the agent's markers unset, a flag, a variable, many processes at
once) and must approve nothing. The person's own terminal is a real pseudo-terminal that is the
process's controlling terminal (``tests/support/terminal.py``).
"""

from __future__ import annotations

import errno
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from autopilot.knowledge.durable import secret
from autopilot.knowledge.durable.store import Log
from tests.support.durable import PASSPHRASE, approve, person, propose
from tests.support.terminal import bridge_argv, clean_env, typed

NAME_PROMPT = b"your name: "
PASS_PROMPT = b"your approval passphrase"
GOOD = "a sentence only Ada knows"
GUESSES = "Mallory\nhunter2\ncorrect horse battery staple?\npassword1234\n"


@pytest.fixture
def candidate(git_repo):
    person()
    return propose("Keep commits small.", git_repo)


def status(rid: str) -> str:
    return str(Log().view()["rules"][rid]["status"])


def test_the_person_approves_at_their_terminal(candidate):
    """At a controlling terminal, the person's name and passphrase approve the rule as theirs, at the terminal."""
    code, shown = typed(
        bridge_argv("durable", "approve", candidate), [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)], clean_env()
    )
    assert code == 0, shown
    rule = Log().view()["rules"][candidate]
    assert (rule["status"], rule["approved"]["person"], rule["approved"]["channel"]) == ("approved", "Ada", "terminal")


def test_the_passphrase_never_shows_on_the_screen(candidate):
    """The passphrase is read with echo off: nothing the terminal shows contains it."""
    code, shown = typed(
        bridge_argv("durable", "approve", candidate), [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)], clean_env()
    )
    assert code == 0 and PASSPHRASE.encode() not in shown and b"Ada" in shown


def test_a_wrong_passphrase_at_the_terminal_approves_nothing(candidate):
    """The right terminal and name with a wrong passphrase exit 1 and leave the rule a candidate."""
    code, shown = typed(
        bridge_argv("durable", "approve", candidate),
        [(NAME_PROMPT, "Ada"), (PASS_PROMPT, "hunter2 hunter2")],
        clean_env(),
    )
    assert code == 1 and b"not the approval passphrase" in shown and status(candidate) == "candidate"


def test_the_text_is_shown_as_stored_with_escapes_visible(git_repo):
    """A rule hiding escape sequences and a bidi override shows them as codes: no escape byte reaches the screen."""
    person()
    hidden = "Never push.\x1b]0;pwned\x07\x1b[2K\rAlways run the tests.\u202e"
    rid = propose(hidden, git_repo)
    code, shown = typed(
        bridge_argv("durable", "approve", rid), [(NAME_PROMPT, "Ada"), (PASS_PROMPT, "x" * 12)], clean_env()
    )
    assert b"\x1b" not in shown and b"\x07" not in shown and "\u202e".encode() not in shown
    assert b"Never push.\\x1b]0;pwned\\x07\\x1b[2K Always run the tests.\\u202e" in shown  # \\r: a space once stored


def test_a_supersession_is_announced_before_the_passphrase_is_asked(git_repo):
    """Approving a successor says which approved rule it supersedes, and its text, before asking the passphrase."""
    old = propose("Use black for formatting.", git_repo)
    approve(old)
    new = propose("Use ruff format for formatting.", git_repo, supersedes=old)
    code, shown = typed(
        bridge_argv("durable", "approve", new), [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)], clean_env()
    )
    announced = shown.index(f"This approval SUPERSEDES {old}".encode())
    assert code == 0 and announced < shown.index(PASS_PROMPT) and b"Use black for formatting." in shown
    assert (status(old), status(new)) == ("superseded", "approved")


def test_supersede_replaces_an_approved_rule_in_one_step(git_repo):
    """`durable supersede ID --text T` proposes the successor and approves it with the passphrase; the old one goes."""
    old = propose("Use black for formatting.", git_repo)
    approve(old)
    code, shown = typed(
        bridge_argv("-C", str(git_repo), "durable", "supersede", old, "--text", "Use ruff format."),
        [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)],
        clean_env(),
    )
    new = json.loads(shown[shown.index(b"{") :].decode())["id"]
    assert code == 0 and f"This approval SUPERSEDES {old}".encode() in shown
    assert (status(old), status(new), Log().view()["rules"][old]["supersededBy"]) == ("superseded", "approved", new)


def test_revoke_at_the_terminal_needs_the_passphrase_too(git_repo):
    """Revoking with a wrong passphrase leaves the rule approved; with the right one it is revoked."""
    rid = propose("Keep commits small.", git_repo)
    approve(rid)
    argv = bridge_argv("durable", "revoke", rid, "--reason", "no longer needed")
    code, _ = typed(argv, [(NAME_PROMPT, "Mallory"), (PASS_PROMPT, "guessing at it")], clean_env())
    assert code == 1 and status(rid) == "approved"
    (secret.home() / secret.ATTEMPTS).unlink()  # the person waits out the rate limit
    code, _ = typed(argv, [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)], clean_env())
    assert code == 0 and status(rid) == "revoked"


# -- what an agent's shell tries ----------------------------------------------------------------------------


def agent_shell(command: str, *, stdin: str = GUESSES, **env: str) -> subprocess.CompletedProcess[str]:
    """``command`` in a shell as Claude Code's Bash tool runs it: CLAUDECODE set, no controlling tty, piped stdin."""
    return subprocess.run(
        ["bash", "-c", command],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        start_new_session=True,  # setsid: no controlling terminal, as in the agent's tool
        env=clean_env(CLAUDECODE="1", CLAUDE_CODE_ENTRYPOINT="cli", **env),
    )


def bridge_cmd(*args: str) -> str:
    return shlex.join(bridge_argv(*args))


def test_the_agents_shell_is_refused_outright(candidate):
    """From a shell with CLAUDECODE set, `durable approve` with piped answers is refused before asking anything."""
    proc = agent_shell(bridge_cmd("durable", "approve", candidate))
    assert proc.returncode == 1 and "CLAUDECODE is set" in proc.stderr and status(candidate) == "candidate"


def test_markers_unset_and_no_terminal_approves_nothing(candidate):
    """With the markers unset but no controlling terminal, piped name and passphrase are never read: refused."""
    proc = agent_shell("env -u CLAUDECODE -u CLAUDE_CODE_ENTRYPOINT " + bridge_cmd("durable", "approve", candidate))
    assert proc.returncode == 1 and "no controlling terminal" in proc.stderr and status(candidate) == "candidate"


def test_script_gives_a_terminal_but_not_the_passphrase(candidate):
    """`env -u … script -qec "durable approve"` with piped guesses gets a pseudo-terminal, a prompt, and no approval."""
    inner = bridge_cmd("durable", "approve", candidate)
    proc = agent_shell(
        f"env -u CLAUDECODE -u CLAUDE_CODE_ENTRYPOINT script -qec {shlex.quote(inner)} /dev/null",
        stdin="Mallory\nhunter2 hunter2\n",
    )
    assert "your approval passphrase" in proc.stdout and "nothing was decided" in proc.stdout
    assert status(candidate) == "candidate" and Log().view()["integrity"]["ok"] is True


def test_a_pseudo_terminal_driver_that_waits_for_each_prompt_approves_nothing(candidate):
    """An agent's own pty driver (answers typed after each prompt, markers unset) meets the passphrase and fails."""
    code, shown = typed(
        bridge_argv("durable", "approve", candidate),
        [(NAME_PROMPT, "Mallory"), (PASS_PROMPT, "hunter2 hunter2")],
        clean_env(),
    )
    assert code == 1 and b"not the approval passphrase" in shown and status(candidate) == "candidate"


def test_script_cannot_set_a_new_passphrase_over_the_persons(candidate):
    """`durable secret` through script with piped answers needs the current passphrase: the person's stays."""
    before = secret.path().read_bytes()
    inner = bridge_cmd("durable", "secret")
    mine = "mallory's own passphrase"
    proc = agent_shell(
        f"env -u CLAUDECODE -u CLAUDE_CODE_ENTRYPOINT script -qec {shlex.quote(inner)} /dev/null",
        stdin=f"a guess at it\n{mine}\n{mine}\n",
    )
    assert "current approval passphrase" in proc.stdout and secret.path().read_bytes() == before
    code, shown = typed(
        bridge_argv("durable", "secret"),
        [(b"current approval passphrase: ", "a guess at it"), (b"new approval passphrase: ", mine), (b"again: ", mine)],
        clean_env(),
    )
    assert code == 1 and b"not the approval passphrase" in shown and secret.path().read_bytes() == before


@pytest.mark.parametrize("flag", ["--secret", "--passphrase", "--yes", "--person"])
def test_no_flag_stands_in_for_the_passphrase(candidate, flag):
    """A flag carrying the passphrase does not exist: the command line is refused (exit 2), nothing decided."""
    proc = agent_shell(
        "env -u CLAUDECODE -u CLAUDE_CODE_ENTRYPOINT " + bridge_cmd("durable", "approve", candidate, flag, PASSPHRASE)
    )
    assert proc.returncode == 2 and status(candidate) == "candidate"


def test_no_variable_or_file_stands_in_for_the_passphrase(candidate, tmp_path):
    """Variables and files named like the passphrase are never read: unless the person types it, nothing is decided."""
    (tmp_path / "passphrase").write_text(PASSPHRASE)
    names = ("AUTOPILOT_PASSPHRASE", "AUTOPILOT_SECRET", "CODEX_BRIDGE_PASSPHRASE", "AUTOPILOT_APPROVAL_PASSPHRASE")
    code, shown = typed(
        ["bash", "-c", f"cd {tmp_path} && exec {bridge_cmd('durable', 'approve', candidate)}"],
        [(NAME_PROMPT, "Mallory"), (PASS_PROMPT, "")],
        clean_env(**{name: PASSPHRASE for name in names}),
    )
    assert code == 1 and b"not the approval passphrase" in shown and status(candidate) == "candidate"


def test_parallel_guesses_are_checked_one_at_a_time_and_then_wait(candidate):
    """Twelve terminals guessing at once: one guess is checked, the rest meet the wait; nothing is approved.

    The twelve type their guesses at the same moment (each waits at its passphrase prompt for the others): on a
    busy machine twelve processes can take longer to start than the first wrong guess's one-second wait lasts."""
    argv = bridge_argv("durable", "approve", candidate)
    together = threading.Barrier(12, timeout=60)

    def guess(n: int) -> tuple[int, bytes]:
        replies = [(NAME_PROMPT, "Mallory"), (PASS_PROMPT, f"guess number {n:04d}")]
        return typed(argv, replies, clean_env(), before_reply=lambda p: together.wait() if p == PASS_PROMPT else None)

    with ThreadPoolExecutor(12) as pool:
        runs = list(pool.map(guess, range(12)))
    checked = sum(b"not the approval passphrase" in shown for _, shown in runs)
    waited = sum(b"too many wrong passphrases" in shown for _, shown in runs)
    assert (checked, waited) == (1, 11) and status(candidate) == "candidate"


def test_without_a_passphrase_set_the_terminal_decides_nothing(git_repo):
    """Before the person sets a passphrase, even their own terminal cannot approve: it says how to set one."""
    rid = propose("Keep commits small.", git_repo)
    code, shown = typed(
        bridge_argv("durable", "approve", rid), [(NAME_PROMPT, "Ada"), (PASS_PROMPT, "anything at all")], clean_env()
    )
    assert code == 1 and b"codex-bridge durable secret" in shown and status(rid) == "candidate"


# -- setting the passphrase ---------------------------------------------------------------------------------


def test_the_person_sets_the_passphrase_typed_twice():
    """`durable secret` at the terminal asks twice and stores the hash; the passphrase then approves."""
    code, shown = typed(
        bridge_argv("durable", "secret"),
        [(b"new approval passphrase: ", GOOD), (b"the same again: ", GOOD)],
        clean_env(),
    )
    assert code == 0, shown
    assert GOOD.encode() not in shown and secret.record()["n"] == secret.COST["n"]
    secret.verify(GOOD)


def test_two_different_entries_set_nothing():
    """When the second entry differs from the first, no passphrase is stored."""
    code, shown = typed(
        bridge_argv("durable", "secret"),
        [(b"new approval passphrase: ", GOOD), (b"the same again: ", GOOD + "!")],
        clean_env(),
    )
    assert code == 1 and b"differ" in shown and secret.record() is None


def test_changing_the_passphrase_at_the_terminal_asks_for_the_current_one():
    """With a passphrase set, `durable secret` asks the current one first; the right one lets the person change it."""
    person()
    code, _ = typed(
        bridge_argv("durable", "secret"),
        [
            (b"current approval passphrase: ", PASSPHRASE),
            (b"new approval passphrase: ", GOOD),
            (b"the same again: ", GOOD),
        ],
        clean_env(),
    )
    assert code == 0
    secret.verify(GOOD)


# -- reading the person's terminal -------------------------------------------------------------------------

THIEF = """
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY)
time.sleep(1)  # the name is answered meanwhile; then it reads every line typed after
with open(sys.argv[2], "ab") as out:
    while data := os.read(fd, 1024):
        out.write(data)
        out.flush()
"""


def test_a_reader_of_the_persons_terminal_stops_the_passphrase_being_asked(candidate, tmp_path):
    """A same-user process in its own session that opened the person's terminal to read it: no passphrase is asked."""
    stolen = tmp_path / "stolen"
    thieves: list[subprocess.Popen[bytes]] = []

    def join(pid: int) -> None:  # the agent opens the person's /dev/pts/N from outside their session
        slave = os.readlink(f"/proc/{pid}/fd/0")
        thieves.append(subprocess.Popen([sys.executable, "-c", THIEF, slave, str(stolen)], start_new_session=True))
        deadline = time.monotonic() + 10
        while slave not in {os.path.realpath(f"/proc/{thieves[0].pid}/fd/{n}") for n in _fds(thieves[0].pid)}:
            assert time.monotonic() < deadline, "the reader never opened the terminal"
            time.sleep(0.02)

    try:
        code, shown = typed(
            bridge_argv("durable", "approve", candidate),
            [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)],
            clean_env(),
            started=join,
        )
    finally:
        for thief in thieves:
            thief.kill()
            thief.wait()
    assert code == 1 and b"another process can read this terminal" in shown, shown
    assert PASS_PROMPT not in shown and status(candidate) == "candidate"
    assert PASSPHRASE.encode() not in (stolen.read_bytes() if stolen.exists() else b"")


def _fds(pid: int) -> list[str]:
    try:
        return os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return []


def test_while_deciding_the_terminal_cannot_be_opened_by_the_persons_user(candidate):
    """During a decision the terminal is exclusive: an open by the person's own (non-root) user fails with EBUSY."""
    from tests.support.second_user import as_user, second_user

    tried: list[object] = []

    with second_user() as user:

        def attempt(pid: int) -> None:
            slave = os.readlink(f"/proc/{pid}/fd/0")
            time.sleep(0.3)  # the prompt is on the screen: the terminal was opened and made exclusive before it
            os.chown(slave, user.pw_uid, -1)  # the person is this user: their terminal is theirs

            def open_it() -> str:
                try:
                    os.close(os.open(slave, os.O_RDONLY | os.O_NOCTTY))
                except OSError as exc:
                    return errno.errorcode.get(exc.errno or 0, "?")
                return "opened"

            tried.append(as_user(user, {"PATH": os.environ["PATH"]}, open_it))

        code, _ = typed(
            bridge_argv("durable", "approve", candidate),
            [(NAME_PROMPT, "Ada"), (PASS_PROMPT, PASSPHRASE)],
            clean_env(),
            started=attempt,
        )
    assert tried == ["EBUSY"] and code == 0 and status(candidate) == "approved"
