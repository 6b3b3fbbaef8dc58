"""claude_projects_dir and codex_sessions_dir: sessions kept elsewhere are found, and doctor shows what is in use."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from autopilot import config
from autopilot.codex import ratelimits
from tests.support.handoff_env import claude_session, codex_rollout, run_json

TOOLS = "tools"


def write_config(text: str) -> Path:
    path = config.config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def moved(src: Path, dest_root: Path, under: Path) -> Path:
    """``src`` moved from below ``under`` to the same place below ``dest_root``; its new path."""
    dest = dest_root / src.relative_to(under)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(src, dest)
    return dest


def test_defaults_follow_the_clients_own_homes():
    """Unset, the folders are $CLAUDE_CONFIG_DIR/projects and $CODEX_HOME/sessions, and say so."""
    claude = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    codex = Path(os.environ["CODEX_HOME"]) / "sessions"
    assert config.reader_dir("claude_projects_dir") == (claude, "$CLAUDE_CONFIG_DIR/projects")
    assert config.reader_dir("codex_sessions_dir") == (codex, "$CODEX_HOME/sessions")


def test_environment_beats_the_config_file(tmp_path, monkeypatch):
    """AUTOPILOT_CODEX_SESSIONS_DIR wins over codex_sessions_dir in the config file."""
    write_config(f"codex_sessions_dir: {tmp_path / 'from-config'}\n")
    assert config.reader_dir("codex_sessions_dir")[0] == tmp_path / "from-config"
    monkeypatch.setenv("AUTOPILOT_CODEX_SESSIONS_DIR", str(tmp_path / "from-env"))
    assert config.reader_dir("codex_sessions_dir") == (tmp_path / "from-env", "AUTOPILOT_CODEX_SESSIONS_DIR")


def test_a_folder_that_is_no_path_is_a_clear_config_error(bridge, git_repo):
    """A config value that is not a path (here a list) is refused by name, not followed."""
    write_config("claude_projects_dir: [a, b]\n")
    code, out, err = bridge("handoff", "list", "--from", "claude", cwd=git_repo)
    assert code == 1 and "claude_projects_dir must be a directory path" in err


def test_claude_sessions_in_a_configured_folder_are_listed_and_read(bridge, git_repo, tmp_path):
    """Transcripts kept outside $CLAUDE_CONFIG_DIR are listed and read once claude_projects_dir names their folder."""
    path = claude_session(TOOLS, git_repo)
    elsewhere = tmp_path / "claude-elsewhere"
    moved(path, elsewhere, Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects")
    code, answer, err = run_json(bridge, "handoff", "list", "--from", "claude", cwd=git_repo)
    assert code == 0 and answer["sessions"] == [], err  # not found where Claude Code would keep it
    write_config(f"claude_projects_dir: {elsewhere}\n")
    code, answer, err = run_json(bridge, "handoff", "list", "--from", "claude", cwd=git_repo)
    assert code == 0, err
    [session] = answer["sessions"]
    code, page, err = run_json(
        bridge, "handoff", "read", "--from", "claude", "--session", session["sessionId"], cwd=git_repo
    )
    assert code == 0 and page["events"], err


def test_codex_threads_in_a_configured_folder_are_listed_and_read(bridge, git_repo, tmp_path, monkeypatch):
    """Rollouts kept outside $CODEX_HOME are found through AUTOPILOT_CODEX_SESSIONS_DIR."""
    path = codex_rollout("exec_plain", git_repo)
    elsewhere = tmp_path / "codex-elsewhere"
    moved(path, elsewhere, Path(os.environ["CODEX_HOME"]) / "sessions")
    monkeypatch.setenv("AUTOPILOT_CODEX_SESSIONS_DIR", str(elsewhere))
    code, answer, err = run_json(bridge, "handoff", "list", "--from", "codex", cwd=git_repo)
    assert code == 0, err
    [thread] = answer["sessions"]
    code, page, err = run_json(
        bridge, "handoff", "read", "--from", "codex", "--session", thread["threadId"], cwd=git_repo
    )
    assert code == 0 and page["events"], err


@pytest.mark.parametrize("how", ["default", "env", "config"])
def test_the_status_lines_lean_reader_agrees_with_config(how, tmp_path, monkeypatch):
    """ratelimits reads Codex's sessions folder without importing config, and finds the same folder it does."""
    if how == "env":
        monkeypatch.setenv("AUTOPILOT_CODEX_SESSIONS_DIR", str(tmp_path / "env"))
    if how == "config":
        write_config(f"backend: openai\ncodex_sessions_dir: '{tmp_path / 'conf'}'\n")
    assert ratelimits._sessions_dir() == str(config.reader_dir("codex_sessions_dir")[0])


def test_doctor_shows_the_folders_in_use_and_fails_a_configured_one_that_is_missing(bridge, tmp_path, monkeypatch):
    """doctor names each folder and what set it; a configured folder that does not exist needs action."""
    monkeypatch.setenv("AUTOPILOT_CODEX_SESSIONS_DIR", str(tmp_path / "nowhere"))
    code, out, err = bridge("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    claude, codex = checks["claude_projects_dir"], checks["codex_sessions_dir"]
    assert claude["status"] == "ok" and "$CLAUDE_CONFIG_DIR/projects" in claude["detail"]
    assert codex["status"] == "fail" and codex["path"] == str(tmp_path / "nowhere")
    assert "AUTOPILOT_CODEX_SESSIONS_DIR" in codex["detail"] and code == 1
