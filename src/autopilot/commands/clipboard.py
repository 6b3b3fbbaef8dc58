"""The system clipboard, through whichever command-line tool this machine has."""

from __future__ import annotations

import shutil
import subprocess

# In order of preference: Wayland, X11 (two tools), macOS.
TOOLS: tuple[tuple[str, list[str]], ...] = (
    ("wl-copy", []),
    ("xclip", ["-selection", "clipboard"]),
    ("xsel", ["--clipboard", "--input"]),
    ("pbcopy", []),
)
TIMEOUT = 5.0


def copy(text: str) -> tuple[str | None, list[str]]:
    """Put ``text`` on the clipboard; the tool that did it (None if none could) and the failures on the way."""
    failures = []
    for name, args in TOOLS:
        exe = shutil.which(name)
        if not exe:
            continue
        try:
            proc = subprocess.run(
                [exe, *args],
                input=text.encode("utf-8"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=TIMEOUT,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            failures.append(f"{name}: {exc}")
            continue
        if proc.returncode == 0:
            return name, failures
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        failures.append(f"{name}: exit {proc.returncode}" + (f" ({detail[-1]})" if detail else ""))
    return None, failures
