"""Drive the real claude with this plugin, and the real codex as its reviewer, both against scripted servers.

``ScriptedCodex`` is the Codex brain: the real ``codex`` binary (the codex-cli backend) asks the
scripted Responses server, which answers each request from a queue for its phase (plan, review
or verdict, told apart by the output schema Codex forwards). ``run_claude`` runs ``claude -p``
headless with ``--plugin-dir`` against a scripted Messages server, in a throwaway HOME.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autopilot.scripted.responses_server import ResponsesServer, reply_json
from tests.support.messages_server import MessagesServer
from tests.support.repo import REPO

PHASES = {"tasks": "plan", "issues": "review", "criteria": "verdict"}


def phase_of(body: dict[str, Any]) -> str:
    """Which bridge phase a Codex request serves, from the JSON schema it must answer with."""
    schema = (((body.get("text") or {}).get("format") or {}).get("schema") or {}).get("properties") or {}
    return next((phase for key, phase in PHASES.items() if key in schema), "other")


class ScriptedCodex:
    """Answers for the real codex, queued per phase; records which phases were asked."""

    def __init__(self) -> None:
        self.queues: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self.asked: list[str] = []
        self.server = ResponsesServer(responder=self._answer)

    def push(self, phase: str, *steps: dict[str, Any]) -> None:
        """Queue answers for the next requests of ``phase``."""
        self.queues[phase].extend(steps)

    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        phase = phase_of(body)
        self.asked.append(phase)
        if self.queues[phase]:
            return self.queues[phase].popleft()
        return reply_json({"error": f"the test scripted no {phase} answer"})

    def prompts(self, phase: str) -> list[str]:
        """The text of every request of ``phase`` (the whole resumed thread), in order."""
        return [json.dumps(body.get("input")) for body in self.server.requests if phase_of(body) == phase]


@dataclass
class ClaudeRun:
    """What one headless claude run did."""

    proc: subprocess.CompletedProcess[str]
    server: MessagesServer
    session_id: str
    events: list[dict[str, Any]] = field(default_factory=list)

    def main_texts(self) -> list[str]:
        """Each main Messages request flattened to text (tool results and hook context included)."""
        return [json.dumps(body.get("messages")) for body in self.server.main_requests()]

    def hook_outputs(self, event: str) -> list[dict[str, Any]]:
        """The JSON each run of the plugin's ``event`` hook printed (from stream-json hook_response)."""
        outs = []
        for e in self.events:
            if e.get("type") == "system" and e.get("subtype") == "hook_response" and e.get("hook_event") == event:
                stdout = (e.get("stdout") or "").strip()
                outs.append(json.loads(stdout) if stdout.startswith("{") else {})
        return outs

    @property
    def result(self) -> dict[str, Any]:
        """The final stream-json result message."""
        return next(e for e in reversed(self.events) if e.get("type") == "result")


def claude_env(home: Path, server: MessagesServer, **extra: str) -> dict[str, str]:
    """The environment for a headless claude: offline, a throwaway HOME, the bridge's interpreter explicit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
    env.update(server.env(home=str(home)))
    env["AUTOPILOT_PYTHON"] = sys.executable  # the shim execs this instead of building a venv per test
    env.update(extra)
    return env


def run_claude(
    claude: Path,
    cwd: Path,
    prompt: str,
    steps: list[dict[str, Any]],
    home: Path,
    *,
    plugin_dir: Path | None = REPO,
    session_id: str | None = None,
    resume: str | None = None,
    timeout: float = 240,
    before: Callable[[int], None] | None = None,
    **env: str,
) -> ClaudeRun:
    """Run ``claude -p prompt`` in ``cwd`` with the plugin loaded, answering from ``steps`` (``resume``: go on in
    that session; ``before(n)``: called before the n-th main request, from 0, is answered, e.g. to wait for a review
    the background worker is making)."""
    session_id = resume or session_id or str(uuid.uuid4())
    home.mkdir(parents=True, exist_ok=True)
    answered = iter(range(10**6))

    def first(body: dict[str, Any]) -> None:
        if before is not None:
            before(next(answered))
        return None  # the queued step answers

    with MessagesServer(steps, responder=first) as server:
        argv = [
            str(claude),
            "-p",
            prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-hook-events",
            "--allowedTools",
            "Write,Edit,Read,Bash",
            *(["--resume", session_id] if resume else ["--session-id", session_id]),
        ]
        if plugin_dir is not None:
            argv += ["--plugin-dir", str(plugin_dir)]
        proc = subprocess.run(
            argv,
            cwd=cwd,
            env=claude_env(home, server, **env),
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    events = []
    for line in proc.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return ClaudeRun(proc, server, session_id, events)


def plugin_copy(dest: Path) -> Path:
    """The plugin as a user gets it (tracked and new files, no tests, venvs or caches), copied to ``dest``."""
    listed = (
        subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "-co", "--exclude-standard", "-z"], capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in filter(None, listed):
        if rel.startswith("tests/") or not (REPO / rel).is_file():
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / rel).read_bytes())
        target.chmod((REPO / rel).stat().st_mode & 0o777)
    return dest
