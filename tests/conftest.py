"""Shared fixtures: every test gets its own homes, and none may touch the real ones."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
AGENTS = REPO / "tests" / "agents" / "node_modules" / ".bin"


def agent_bin(name: str) -> Path:
    """The pinned real ``claude`` or ``codex`` binary from tests/agents (see .ci/run)."""
    override = os.environ.get(f"AUTOPILOT_TEST_{name.upper()}_BIN")
    path = Path(override) if override else AGENTS / name
    if not path.exists():
        if os.environ.get("AUTOPILOT_REQUIRE_E2E"):
            pytest.fail(f"{path} is missing: run `npm ci --prefix tests/agents` (.ci/run does)")
        pytest.skip(f"{path} is missing: run `npm ci --prefix tests/agents`")
    return path


@pytest.fixture(autouse=True)
def isolated_homes(tmp_path_factory, monkeypatch):
    """Point every root the bridge uses at a fresh directory, so no test touches real homes."""
    root = tmp_path_factory.mktemp("homes")
    real_home = os.path.expanduser("~")
    for var, sub in (
        ("AUTOPILOT_HOME", "autopilot"),
        ("CODEX_HOME", "codex"),
        ("CLAUDE_CONFIG_DIR", "claude"),
        ("HOME", "home"),
    ):
        (root / sub).mkdir()
        monkeypatch.setenv(var, str(root / sub))
    for var in (
        "AUTOPILOT_BACKEND",
        "AUTOPILOT_MODEL",
        "AUTOPILOT_BUDGET_USD",
        "AUTOPILOT_CODEX_BIN",
        "AUTOPILOT_CONFIG",
        "AUTOPILOT_PRICES",
        "CLAUDE_CODE_SESSION_ID",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(var, raising=False)
    yield root
    assert not os.path.exists(os.path.join(real_home, ".codex-autopilot", "runs", "__test_marker__"))


@pytest.fixture
def git_repo(tmp_path):
    """A real git repository with one commit, as a workspace for a run."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "README.md").write_text("# demo\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    return repo


def run_bridge(*args: str, stdin: str = "", cwd: str | os.PathLike[str] | None = None) -> tuple[int, str, str]:
    """Run the CLI in-process and return (exit code, stdout, stderr)."""
    from autopilot.cli import main

    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    old_stdin = os.sys.stdin
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.sys.stdin = io.StringIO(stdin)
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        os.sys.stdin = old_stdin
        os.chdir(old_cwd)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def bridge():
    """The in-process CLI runner."""
    return run_bridge


def have(binary: str) -> bool:
    """Whether a program is on PATH."""
    return shutil.which(binary) is not None


def write_codex_config(codex_home: Path, base_url: str) -> None:
    """Point the real codex at a scripted Responses server (reference/real-clients.md), with no retries."""
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-6.2-sol"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
        f'base_url = "{base_url}"\nenv_key = "FAKE_OPENAI_KEY"\nwire_api = "responses"\n'
        "request_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n"
    )
