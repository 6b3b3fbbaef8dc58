"""commands/clipboard.py: the text goes to the first clipboard tool on PATH that takes it; failures are said."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from autopilot.commands import clipboard


@pytest.fixture
def tools(tmp_path, monkeypatch) -> Path:
    """An empty folder that is the whole PATH (tests put fake clipboard tools in it)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    return folder


def tool(folder: Path, name: str, status: int = 0, says: str = "") -> Path:
    """A fake clipboard command that saves its stdin and exits with ``status`` after printing ``says`` to stderr."""
    got = folder / f"{name}.got"
    script = f"#!/bin/sh\n/bin/cat > {shlex.quote(str(got))}\nprintf %s {shlex.quote(says)} >&2\nexit {status}\n"
    (folder / name).write_text(script)
    (folder / name).chmod(0o755)
    return got


def test_no_tool_on_path_copies_nothing_and_fails_nothing(tools):
    """Without wl-copy, xclip, xsel or pbcopy there is no tool and no failure to report."""
    assert clipboard.copy("line") == (None, [])


def test_the_text_reaches_the_tool_as_utf8(tools):
    """The tool is given the text, non-ASCII included, on its standard input."""
    got = tool(tools, "pbcopy")
    assert clipboard.copy("/codex-autopilot:from-codex café ☃") == ("pbcopy", [])
    assert got.read_text(encoding="utf-8") == "/codex-autopilot:from-codex café ☃"


def test_wayland_comes_before_x11(tools):
    """wl-copy is tried first; a working one is the only tool run."""
    wayland, x11 = tool(tools, "wl-copy"), tool(tools, "xclip")
    assert clipboard.copy("text") == ("wl-copy", []) and wayland.exists() and not x11.exists()


def test_a_failing_tool_is_passed_over_and_its_last_words_kept(tools):
    """A tool that exits non-zero is a failure naming its code and the last line it printed; the next one works."""
    tool(tools, "wl-copy", status=1, says="warning: first line\nFailed to connect to a Wayland server")
    got = tool(tools, "xsel")
    assert clipboard.copy("text") == ("xsel", ["wl-copy: exit 1 (Failed to connect to a Wayland server)"])
    assert got.read_text() == "text"


def test_when_every_tool_fails_each_failure_is_reported(tools):
    """No tool took the text: None, and one failure per tool that was tried, in order."""
    tool(tools, "xclip", status=2)
    tool(tools, "pbcopy", status=1, says="no pasteboard")
    assert clipboard.copy("text") == (None, ["xclip: exit 2", "pbcopy: exit 1 (no pasteboard)"])
