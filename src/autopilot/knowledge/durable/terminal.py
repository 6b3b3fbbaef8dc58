"""The controlling terminal, where a person reads what they decide and types their name and passphrase.

Decisions read from ``/dev/tty``, never from stdin, arguments or the environment: piped input is never
an answer. A process without a controlling terminal (Claude Code's Bash tool, a hook, a pipeline under
``setsid``) cannot decide at all. A pseudo-terminal (``script``) is a terminal, so it proves nothing
about who types; the passphrase does (:mod:`.secret`). The passphrase is read with echo off and never
printed; everything shown is passed through :func:`autopilot.output.one_line` first, so an escape
sequence in a rule cannot make the screen show another rule than the one decided.

A terminal's input goes to whichever process reads it first, and any process of the same user may open
the person's ``/dev/pts/N`` and read (tried: a reader in its own session took the passphrase as it was
typed; a background job of the person's own shell made itself the foreground and did the same). So while a
decision is open the terminal is put in exclusive mode (``TIOCEXCL``: no further open of ``/dev/pts/N``
succeeds, except root's), and before the passphrase is asked every process is looked for (``/proc``) that
could read it: any other process of the terminal's session, and any process outside it holding the terminal
open (:func:`readers`). If there is one, nothing is asked and nothing is decided. Without
``/proc`` (macOS) only the exclusive mode holds. A process that can trace the person's (ptrace) or read
the keyboard (an X11 client) is not stopped by this; see docs/durable.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import termios

from autopilot.errors import BridgeError
from autopilot.output import one_line

MAX_LINE = 4096


def readers(fd: int) -> list[tuple[int, str]]:
    """The processes (pid, command line) that could read what is typed on the terminal ``fd``, other than this one and
    the ones it runs under (the person's shell; the terminal emulator, ``sshd`` or ``script`` that made the terminal):

    - every other process of this session, holding the terminal or not: a background job can make itself the
      foreground (``tcsetpgrp`` with SIGTTOU ignored, or ``setpgid`` into the foreground group) and read, and it can
      open ``/dev/tty`` even while the terminal is exclusive (that open does not pass the exclusive check);
    - every process outside it that holds the terminal open (it opened ``/dev/pts/N`` before the exclusive mode).

    Empty when there is no ``/proc`` to look in."""
    try:
        device = _controlling(fd)
        session = os.getsid(0)
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []
    found = []
    above = _ancestors()
    for pid in pids:
        if pid in above:
            continue
        try:
            held = os.getsid(pid) == session or any(
                _is_device(f"/proc/{pid}/fd/{n}", device) for n in os.listdir(f"/proc/{pid}/fd")
            )
        except OSError:  # gone, or another user's (who cannot read this terminal: it is the person's, mode 620)
            continue
        if held:
            found.append((pid, _command(pid)))
    return found


def _ancestors() -> set[int]:
    """This process and every process it runs under, up to init."""
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                pid = int(fh.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def _controlling(fd: int) -> int:
    """The device number of the terminal behind ``fd`` (``/dev/tty`` is a stand-in: its own number is 5,0, so the
    controlling terminal's is read from ``/proc/self/stat``)."""
    number = os.fstat(fd).st_rdev
    if number != os.makedev(5, 0):
        return number
    with open("/proc/self/stat", "rb") as fh:
        fields = fh.read().rsplit(b")", 1)[1].split()
    tty_nr = int(fields[4])  # the 7th field of stat(5): after the state, ppid, pgrp and session
    return os.makedev((tty_nr >> 8) & 0xFFF, (tty_nr & 0xFF) | ((tty_nr >> 12) & 0xFFF00))


def _is_device(path: str, device: int) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == device


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return one_line(fh.read(300).replace(b"\0", b" ").decode("utf-8", "replace").strip(), 120)
    except OSError:
        return "?"


class Terminal:
    """``/dev/tty`` opened for reading and writing (a BridgeError when there is none), kept exclusive while open."""

    def __init__(self) -> None:
        try:
            self.fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError as exc:
            raise BridgeError(
                f"deciding needs you at a terminal: this process has no controlling terminal ({exc.strerror})",
                hint="run it yourself in your own terminal, or use the dashboard: codex-bridge dashboard",
            ) from None
        self.exclusive = False
        try:
            fcntl.ioctl(self.fd, termios.TIOCEXCL)
            self.exclusive = True
        except OSError:
            pass  # not a terminal that has the mode: the check of readers still runs

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.exclusive:
            with contextlib.suppress(OSError):
                fcntl.ioctl(self.fd, termios.TIOCNXCL)
        os.close(self.fd)

    def private(self) -> None:
        """Refuse (a BridgeError) when a process outside this terminal's session holds it open and could read."""
        others = readers(self.fd)
        if others:
            named = "; ".join(f"pid {pid}: {cmd}" for pid, cmd in others[:3])
            raise BridgeError(
                f"another process can read this terminal ({named}): no passphrase was asked and nothing was decided",
                hint="run the command alone (no pipe, no background job in this terminal: `jobs` lists them); if you "
                "did not start that process, something else did: stop it, or use a fresh terminal, and try again",
            )

    def show(self, text: str) -> None:
        """Write ``text`` (already made visible by the caller where it holds stored text) and a newline."""
        os.write(self.fd, (text + "\n").encode("utf-8", "replace"))

    def ask(self, prompt: str, *, secret: bool = False) -> str:
        """One line typed at the terminal (echo off when ``secret``, before the prompt shows), without its newline."""
        if secret:
            self.private()
        old = termios.tcgetattr(self.fd) if secret else None
        if old is not None:
            new = termios.tcgetattr(self.fd)
            new[3] &= ~termios.ECHO
            termios.tcsetattr(self.fd, termios.TCSAFLUSH, new)  # what was typed ahead is dropped, never taken
        os.write(self.fd, one_line(prompt).encode("utf-8"))
        try:
            line = self._line()
        finally:
            if old is not None:
                termios.tcsetattr(self.fd, termios.TCSAFLUSH, old)
                os.write(self.fd, b"\n")
        return line

    def _line(self) -> str:
        data = b""
        while not data.endswith(b"\n"):
            chunk = os.read(self.fd, 1)
            if not chunk:
                raise BridgeError("no answer (the terminal closed); nothing was decided")
            data += chunk
            if len(data) > MAX_LINE:
                raise BridgeError("that answer is too long; nothing was decided")
        return data[:-1].decode("utf-8", "replace").rstrip("\r")
