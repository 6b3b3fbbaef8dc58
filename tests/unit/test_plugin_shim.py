"""scripts/bridge picks the interpreter (never a pyenv shim); scripts/bootstrap.py builds or explains."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VERSION = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())["version"]


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def fake_python(path: Path) -> Path:
    """A stand-in interpreter that prints how it was called."""
    return executable(path, '#!/bin/bash\nprintf "%s\\n" "$0" "$@"\n')


@pytest.fixture
def plugin(tmp_path):
    """A copy of the plugin's scripts and manifest, as Claude Code's plugin cache holds it (no .venv)."""
    root = tmp_path / "plugin"
    shutil.copytree(REPO / "scripts", root / "scripts")
    shutil.copytree(REPO / ".claude-plugin", root / ".claude-plugin")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


@pytest.fixture
def env(tmp_path):
    """A plain environment: system tools on PATH, no codex-bridge, a fresh CLAUDE_PLUGIN_DATA."""
    data = tmp_path / "data"
    data.mkdir()
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "AUTOPILOT_HOME")}
    return {**keep, "PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_DATA": str(data)}


def shim(plugin, env, *args, stdin="{}"):
    return subprocess.run([str(plugin / "scripts" / "bridge"), *args], input=stdin, capture_output=True,
                          text=True, env=env, timeout=120)


def test_autopilot_python_wins(plugin, env, tmp_path):
    """AUTOPILOT_PYTHON is exec'd directly with -I -m autopilot and the arguments."""
    py = fake_python(tmp_path / "mine" / "python")
    out = shim(plugin, {**env, "AUTOPILOT_PYTHON": str(py)}, "hook", "Stop").stdout.split("\n")
    assert out[:6] == [str(py), "-I", "-m", "autopilot", "hook", "Stop"]


def test_venv_with_matching_stamp_is_used(plugin, env):
    """The venv in CLAUDE_PLUGIN_DATA is used when its stamp names this plugin version."""
    venv = Path(env["CLAUDE_PLUGIN_DATA"]) / "venv"
    fake_python(venv / "bin" / "python")
    (venv / "codex-autopilot.stamp").write_text(VERSION + "\n")
    assert shim(plugin, env, "status").stdout.split("\n")[0] == str(venv / "bin" / "python")


def test_venv_from_another_version_is_not_used(plugin, env):
    """A venv stamped for another version is ignored (SessionStart rebuilds it)."""
    venv = Path(env["CLAUDE_PLUGIN_DATA"]) / "venv"
    fake_python(venv / "bin" / "python")
    (venv / "codex-autopilot.stamp").write_text("0.0.1\n")
    proc = shim(plugin, env, "hook", "Stop")
    assert proc.returncode == 0 and "not built yet" in json.loads(proc.stdout)["systemMessage"]


def test_developer_venv_is_used(plugin, env):
    """A checkout's own .venv counts as a developer install."""
    py = fake_python(plugin / ".venv" / "bin" / "python")
    assert os.path.realpath(shim(plugin, env, "status").stdout.split("\n")[0]) == str(py)


def test_codex_bridge_interpreter_is_used(plugin, env, tmp_path):
    """The interpreter in the shebang of codex-bridge on PATH is used directly."""
    py = fake_python(tmp_path / "pipx" / "venv" / "bin" / "python")
    executable(tmp_path / "bin" / "codex-bridge", f"#!{py}\nimport autopilot\n")
    out = shim(plugin, {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}, "status").stdout
    assert out.split("\n")[0] == str(py)


def test_shim_scripts_are_never_followed(plugin, env, tmp_path):
    """A codex-bridge that is a shell shim (pyenv's kind) is not used as an interpreter."""
    executable(tmp_path / "bin" / "codex-bridge", "#!/usr/bin/env bash\nexec pyenv exec codex-bridge \"$@\"\n")
    proc = shim(plugin, {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}, "hook", "Stop")
    assert "not built yet" in json.loads(proc.stdout)["systemMessage"]


def test_no_interpreter_hook_says_exactly_what_to_run(plugin, env):
    """Without an environment a hook exits 0 with the commands that build it."""
    proc = shim(plugin, env, "hook", "PostToolUse")
    message = json.loads(proc.stdout)["systemMessage"]
    data = env["CLAUDE_PLUGIN_DATA"]
    assert proc.returncode == 0 and message.startswith("codex-autopilot is not active")
    assert f"-m venv {data}/venv && {data}/venv/bin/python -m pip install {plugin} &&" in message
    assert f"> {data}/venv/codex-autopilot.stamp" in message and "AUTOPILOT_PYTHON" in message


def test_no_interpreter_command_fails_with_the_reason(plugin, env):
    """A command (not a hook) without an environment exits 1 and explains on stderr."""
    proc = shim(plugin, env, "status")
    assert proc.returncode == 1 and proc.stdout == "" and "pip install" in proc.stderr


@pytest.mark.slow
def test_offline_build_fails_open_with_the_commands(plugin, env):
    """SessionStart with no package index: the build fails, the hook exits 0 and says what to run."""
    proc = shim(plugin, {**env, "PIP_NO_INDEX": "1"}, "hook", "SessionStart")
    message = json.loads(proc.stdout)["systemMessage"]
    data = Path(env["CLAUDE_PLUGIN_DATA"])
    assert proc.returncode == 0 and "pip install" in message and "bootstrap.log" in message
    assert not (data / "venv").exists() and "building" in (data / "bootstrap.log").read_text()
