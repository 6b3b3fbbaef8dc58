"""The controlling terminal, where a person reads what they decide and types their name and passphrase.

Decisions read from ``/dev/tty``, never from stdin, arguments or the environment: piped input is never
an answer. A process without a controlling terminal (Claude Code's Bash tool, a hook, a pipeline under
``setsid``) cannot decide at all. A pseudo-terminal (``script``) is a terminal, so it proves nothing
about who types; the passphrase does (:mod:`.secret`). The passphrase is read with echo off and never
printed; everything shown is passed through :func:`autopilot.output.one_line` first, so an escape
sequence in a rule cannot make the screen show another rule than the one decided.
"""

from __future__ import annotations

import os
import termios

from autopilot.errors import BridgeError
from autopilot.output import one_line

MAX_LINE = 4096


class Terminal:
    """``/dev/tty`` opened for reading and writing (a BridgeError when there is none)."""

    def __init__(self) -> None:
        try:
            self.fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError as exc:
            raise BridgeError(
                f"deciding needs you at a terminal: this process has no controlling terminal ({exc.strerror})",
                hint="run it yourself in your own terminal, or use the dashboard: codex-bridge dashboard",
            ) from None

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def show(self, text: str) -> None:
        """Write ``text`` (already made visible by the caller where it holds stored text) and a newline."""
        os.write(self.fd, (text + "\n").encode("utf-8", "replace"))

    def ask(self, prompt: str, *, secret: bool = False) -> str:
        """One line typed at the terminal (echo off when ``secret``, before the prompt shows), without its newline."""
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
