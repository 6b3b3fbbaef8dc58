"""The headers project of tests/fixtures/search/: its files at each step; its real sessions installed, exported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.handoff_env import claude_session, codex_rollout, git, run_json, thread_of
from tests.support.repo import FIXTURES as _FIXTURES

FIXTURES = _FIXTURES / "search"
MANIFEST = json.loads((FIXTURES / "project.json").read_text())
SESSIONS: dict[str, str] = MANIFEST["sessions"]


def write(repo: Path, files: dict[str, str]) -> None:
    """Write ``files`` (path -> text) into ``repo``."""
    for rel, body in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(body)


def headers_repo(repo: Path) -> Path:
    """``repo`` with the project as it was before the sessions, committed, and Claude's fix applied (dirty)."""
    files = MANIFEST["files"]
    write(repo, {**files["before"], "pytest.ini": files["pytest.ini"]})
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "headers")
    write(repo, files["afterClaudeFix"])
    return repo


def install(name: str, where: Path) -> Path:
    """Install one fixture session (``claude-fix``, ``claude-readme``, ``codex-regress``) as recorded in ``where``."""
    path = FIXTURES / f"{name}.jsonl"
    if name.startswith("claude"):
        return claude_session(path, where, SESSIONS[name])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert thread_of(lines) == SESSIONS[name]
    return codex_rollout(lines, where)


def export(bridge: Any, name: str, where: Path, to: str | None = None) -> str:
    """Install and export one fixture session from ``where``; return the packet id."""
    install(name, where)
    agent = "claude" if name.startswith("claude") else "codex"
    to = to or ("codex" if agent == "claude" else "claude")
    code, answer, err = run_json(
        bridge, "handoff", "export", "--from", agent, "--session", SESSIONS[name], "--to", to, cwd=where
    )
    assert code == 0, err
    return str(answer["packet"])


def packet(pid: str) -> dict[str, Any]:
    """A stored packet's JSON."""
    from autopilot.handoff.packets import store

    return dict(json.loads(store.resolve(pid).read_bytes()))
