"""Drive the real interactive TUIs (claude, codex) in tmux: type as a person would, read the screen.

Both agents run offline against the scripted model servers in a throwaway HOME, as in the headless
tests. ``send`` types text and presses Enter as two separate key events (one call with both is taken
as a paste, and the Enter becomes a newline). tmux must be installed (.ci/run installs it).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.plugin_harness import REPO


def tmux(*args: str) -> str:
    """Run one tmux command; its stdout."""
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


class Screen:
    """One tmux session running a TUI."""

    def __init__(self, name: str) -> None:
        self.name = name

    def text(self) -> str:
        """What the terminal shows now (with the scrollback)."""
        return tmux("capture-pane", "-p", "-S", "-200", "-t", self.name)

    def send(self, text: str, *, enter: bool = True) -> None:
        """Type ``text`` literally, then Enter as its own key press."""
        tmux("send-keys", "-t", self.name, "-l", text)
        if enter:
            time.sleep(0.8)
            tmux("send-keys", "-t", self.name, "Enter")

    def press(self, key: str) -> None:
        """One key press by name (tmux's names: Enter, Escape, Up...)."""
        tmux("send-keys", "-t", self.name, key)

    def wait_for(self, check: Callable[[str], bool], timeout: float = 60, what: str = "") -> str:
        """Poll the screen until ``check(screen)`` holds; the screen (AssertionError with it on timeout)."""
        deadline = time.monotonic() + timeout
        screen = self.text()
        while not check(screen):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what or check}:\n{screen.rstrip()[-3000:]}")
            time.sleep(0.5)
            screen = self.text()
        return screen


@contextmanager
def session(command: list[str], cwd: Path, env: dict[str, str], tmp: Path) -> Iterator[Screen]:
    """``command`` in ``cwd`` with exactly ``env``, in a 160x45 tmux session, killed at the end."""
    assert shutil.which("tmux"), "tmux drives the TUIs: install it (apt-get install tmux; .ci/run does)"
    script = tmp / f"tui-{os.getpid()}-{time.monotonic_ns()}.sh"
    exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items() if re.fullmatch(r"\w+", k))
    script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(cwd))} && exec {shlex.join(command)}\n")
    script.chmod(0o755)
    name = f"tui-{os.getpid()}-{time.monotonic_ns() % 10**9}"
    tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "45", str(script))
    try:
        yield Screen(name)
    finally:
        tmux("kill-session", "-t", name)


def claude_home(home: Path, *projects: Path) -> None:
    """A Claude Code home with onboarding done, the scripted API key approved and ``projects`` trusted."""
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    accepted = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": ["sk-test"], "rejected": []},
        "projects": {str(p): {"hasTrustDialogAccepted": True} for p in projects},
    }
    (home / ".claude" / ".claude.json").write_text(json.dumps(accepted))  # CLAUDE_CONFIG_DIR is HOME/.claude


def claude_ready(screen: str) -> bool:
    """Whether Claude Code's TUI is up (its banner is drawn; the prompt box follows within a second or two)."""
    if "Claude Code v" not in screen:
        return False
    time.sleep(3)
    return True


def codex_tui_flags() -> list[str]:
    """``--no-daemon`` where the codex under test has it (0.171: else its TUI leaves a shared app server running);
    older versions have no daemon and refuse the flag."""
    from tests.support.agents import agent_bin

    said = subprocess.run([str(agent_bin("codex")), "--help"], capture_output=True, text=True, timeout=60).stdout
    return ["--no-daemon"] if "--no-daemon" in said else []


def plugin_args() -> list[str]:
    return ["--plugin-dir", str(REPO)]


def installed_codex(bridge: Callable[..., tuple[int, str, str]], repo: Path, home: Path, url: str) -> dict[str, str]:
    """Codex's config pointed at the scripted server ``url``, ``repo`` trusted in advance (no folder-trust dialog),
    the plugin's hooks installed with ``install codex --trust``; returns the environment its TUI runs with."""
    from autopilot import paths
    from tests.support.agents import agent_bin, write_codex_config

    codex_home = paths.codex_home()
    write_codex_config(codex_home, url)
    with open(codex_home / "config.toml", "a") as fh:
        fh.write(f'\n[projects."{repo}"]\ntrust_level = "trusted"\n')
    os.environ["AUTOPILOT_CODEX_BIN"] = str(agent_bin("codex"))
    try:
        code, _, err = bridge("install", "codex", "--trust")
    finally:
        del os.environ["AUTOPILOT_CODEX_BIN"]
    assert code == 0, err
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "CODEX_HOME": str(codex_home),
        "AUTOPILOT_HOME": os.environ["AUTOPILOT_HOME"],
        "FAKE_OPENAI_KEY": "scripted",
        "TERM": "xterm-256color",
    }


@contextmanager
def claude_with_plugin(steps: list[dict], repo: Path, tmp: Path) -> Iterator[tuple[Screen, Any]]:
    """The real claude's TUI with this plugin, in ``repo``, answered from ``steps`` by a scripted Messages server,
    ready for typing (its prompt box drawn): the screen and the server."""
    from tests.support.agents import agent_bin
    from tests.support.messages_server import MessagesServer
    from tests.support.plugin_harness import claude_env

    home = tmp / "home"
    claude_home(home, repo)
    with MessagesServer(steps) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        command = [str(agent_bin("claude")), "--allowedTools", "Write,Edit,Read,Bash", *plugin_args()]
        with session(command, repo, env, tmp) as screen:
            screen.wait_for(claude_ready, 90, "the prompt box")
            yield screen, server
