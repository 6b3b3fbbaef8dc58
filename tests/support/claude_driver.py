"""Drive the real claude in one throwaway home: headless ``-p`` runs (resumed) and the interactive TUI in tmux.

Both talk to one :class:`~tests.support.messages_server.MessagesServer`. Compaction requests (Claude
Code's "Your task is to create a detailed summary" prompt) are answered by :func:`summarizer` with a
numbered ``<summary>`` so a script's steps are never spent on them. Typical use::

    with MessagesServer(responder=summarizer()) as srv:
        c = ClaudeDriver(tmp, srv)
        c.run("turn one")                 # -p; later runs resume the same session
        c.run("/compact")
        with c.tui() as tui:              # the TUI in tmux, resuming the session
            tui.send("/compact focus on the parser")
        c.transcript()                    # <home>/.claude/projects/<key>/<session>.jsonl
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.agents import agent_bin
from tests.support.messages_server import MessagesServer, text

SUMMARY_PROMPT = "Your task is to create a detailed summary"
KEY = "sk-scripted-not-a-key"


def last_user_text(body: dict[str, Any]) -> str:
    """The text of a request's last user message."""
    messages = body.get("messages") or []
    if not messages:
        return ""
    content = messages[-1].get("content")
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def is_summary_request(body: dict[str, Any]) -> bool:
    """Whether a request is Claude Code asking for a compaction summary."""
    return SUMMARY_PROMPT in last_user_text(body)


def summarizer(tag: str = "SUMMARY", then: Callable[[dict[str, Any]], Any] | None = None) -> Callable[..., Any]:
    """A responder that answers compaction requests with ``<summary>TAG-<n>: …</summary>`` (n from 1)."""
    counter = itertools.count(1)

    def respond(body: dict[str, Any]) -> dict[str, Any] | None:
        if is_summary_request(body):
            n = next(counter)
            return text(
                f"<analysis>scripted analysis {n}</analysis>\n<summary>{tag}-{n}: the user asked for scripted "
                f"work; summary number {n}.</summary>",
                usage={"input_tokens": 100, "output_tokens": 50},
            )
        return then(body) if then else None

    return respond


def git_init(work: Path) -> None:
    """A git work tree with one commit."""
    work.mkdir(parents=True, exist_ok=True)
    ident = ["-c", "user.name=dev", "-c", "user.email=dev@example.com"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    (work / "README.md").write_text("# demo\n")
    subprocess.run(["git", "-C", str(work), "add", "."], check=True)
    subprocess.run(["git", "-C", str(work), *ident, "commit", "-qm", "init"], check=True)


class ClaudeDriver:
    """One HOME, one work tree and one scripted server in which the real claude runs."""

    def __init__(
        self,
        root: Path,
        server: MessagesServer,
        *,
        work: Path | None = None,
        plugin_dir: Path | None = None,
        settings: dict[str, Any] | None = None,
        env: dict[str, str] | None = None,
        tools: str = "Write,Edit,Bash,Read",
    ) -> None:
        self.root, self.server = root, server
        self.home = root / "home"
        self.work = work or self.home / "work"
        if not (self.work / ".git").exists():
            git_init(self.work)
        self.claude = agent_bin("claude")
        self.plugin_dir, self.settings, self.tools = plugin_dir, settings, tools
        self.extra_env = dict(env or {})
        self.session_id: str | None = None
        self._onboarded()

    def _onboarded(self) -> None:
        """Skip the TUI's first-run dialogs: onboarding, the API key question, the folder trust prompt."""
        config = {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [KEY[-20:], KEY], "rejected": []},
            "projects": {str(self.work): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
            "theme": "dark",
        }
        for where in (self.home / ".claude.json", self.home / ".claude" / ".claude.json"):
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_text(json.dumps(config))

    def env(self, **extra: str) -> dict[str, str]:
        """The environment claude runs in: offline, this home, the scripted server."""
        base = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
        return {**base, **self.server.env(home=str(self.home)), **self.extra_env, **extra}

    def _flags(self) -> list[str]:
        flags = ["--allowedTools", self.tools]
        if self.plugin_dir is not None:
            flags += ["--plugin-dir", str(self.plugin_dir)]
        if self.settings is not None:
            flags += ["--settings", json.dumps(self.settings)]
        return flags

    def run(self, prompt: str, *extra: str, timeout: float = 300, **env: str) -> dict[str, Any]:
        """``claude -p prompt`` (resuming this session after the first run); its JSON result."""
        argv = [str(self.claude), "-p", prompt, "--output-format", "json", *self._flags(), *extra]
        if self.session_id:
            argv += ["--resume", self.session_id]
        proc = subprocess.run(
            argv,
            cwd=self.work,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"claude -p failed ({proc.returncode}): {proc.stderr[-2000:]} {proc.stdout[-2000:]}")
        result: dict[str, Any] = json.loads(proc.stdout)
        self.session_id = result["session_id"]
        return result

    def transcript(self, session_id: str | None = None) -> Path:
        """The main transcript of the session."""
        (found,) = (self.home / ".claude" / "projects").glob(f"*/{session_id or self.session_id}.jsonl")
        return found

    def sessions(self) -> list[str]:
        """Every main transcript's session id, oldest first."""
        found = sorted((self.home / ".claude" / "projects").glob("*/*.jsonl"), key=lambda p: p.stat().st_mtime)
        return [p.stem for p in found]

    @contextmanager
    def tui(self, *extra: str, **env: str) -> Iterator[Tui]:
        """The interactive claude in a tmux session (resuming this session when there is one)."""
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is needed to drive the interactive claude")
        argv = [str(self.claude), *self._flags(), *extra]
        if self.session_id:
            argv += ["--resume", self.session_id]
        tui = Tui(self, argv, self.env(**env))
        try:
            tui.start()
            yield tui
        finally:
            tui.close()
        if tui.session_id:
            self.session_id = tui.session_id


class Tui:
    """The interactive claude in tmux: send a line, wait until the server has been quiet."""

    def __init__(self, driver: ClaudeDriver, argv: list[str], env: dict[str, str]) -> None:
        self.driver, self.argv, self.env = driver, argv, env
        self.name = f"claude-{os.getpid()}-{int(time.time() * 1000) % 10**8}"
        self.session_id: str | None = driver.session_id

    def start(self) -> None:
        script = self.driver.root / f"{self.name}.sh"
        exports = "".join(f"export {k}={json.dumps(v)}\n" for k, v in self.env.items() if "\n" not in v)
        command = " ".join(json.dumps(a) for a in self.argv)
        script.write_text(f"#!/bin/sh\n{exports}cd {json.dumps(str(self.driver.work))}\nexec {command}\n")
        script.chmod(0o755)
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "200", "-y", "50", str(script)], check=True)
        self.wait_quiet(min_seconds=6)

    def screen(self) -> str:
        """What the terminal shows now."""
        proc = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return proc.stdout

    def keys(self, *keys: str) -> None:
        """Press keys (tmux key names, e.g. Enter, Escape)."""
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def send(self, line: str, *, expect: int = 1, min_seconds: float = 2.0, timeout: float = 120) -> None:
        """Type a line and Enter (separately, so it is not a paste), then wait for ``expect`` requests and quiet."""
        before = len(self.driver.server.log)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", line], check=True)
        time.sleep(0.5)
        self.keys("Enter")
        deadline = time.time() + timeout
        while len(self.driver.server.log) < before + expect and time.time() < deadline:
            time.sleep(0.2)
        self.wait_quiet(min_seconds=min_seconds)

    def wait_quiet(self, *, min_seconds: float = 2.0, quiet: float = 2.5, timeout: float = 120) -> None:
        """Wait at least ``min_seconds``, then until the server saw nothing new for ``quiet`` seconds."""
        time.sleep(min_seconds)
        deadline = time.time() + timeout
        seen, since = len(self.driver.server.log), time.time()
        while time.time() < deadline:
            time.sleep(0.3)
            now = len(self.driver.server.log)
            if now != seen:
                seen, since = now, time.time()
            elif time.time() - since >= quiet:
                return

    def close(self) -> None:
        """End the tmux session (the TUI gets SIGHUP, as when its terminal closes)."""
        if self.session_id is None:
            ids = self.driver.sessions()
            self.session_id = ids[-1] if ids else None
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)
        time.sleep(1.0)
