"""scripts/bridge picks the interpreter (never a pyenv shim); scripts/bootstrap.py builds or explains."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from tests.support.repo import REPO

VERSION = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())["version"]
HOUR_AGO = time.time() - 3600
MINUTE_AGO = time.time() - 60


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
    """A copy of the plugin's scripts, manifest and sources, as Claude Code's plugin cache holds it (no .venv).

    Every copied path is dated an hour ago, so what a test changes is newer than a venv made before it.
    """
    root = tmp_path / "plugin"
    shutil.copytree(REPO / "scripts", root / "scripts")
    shutil.copytree(REPO / ".claude-plugin", root / ".claude-plugin")
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(
        REPO / "src" / "autopilot", root / "src" / "autopilot", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    for path in [root, *root.rglob("*")]:
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    return root


def bootstrap(plugin: Path):
    """The plugin copy's scripts/bootstrap.py as a module."""
    spec = importlib.util.spec_from_file_location("bootstrap_under_test", plugin / "scripts" / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def built_venv(plugin: Path, env, version: str = VERSION) -> Path:
    """A venv (a stand-in python) created a minute ago, stamped by bootstrap.py as built for ``version``."""
    venv = Path(env["CLAUDE_PLUGIN_DATA"]) / "venv"
    fake_python(venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    os.utime(venv / "pyvenv.cfg", (MINUTE_AGO, MINUTE_AGO))
    bootstrap(plugin).write_stamp(str(plugin), str(venv), version)
    return venv


def interpreter(plugin, env) -> str:
    """The program the shim exec'd for `status` (the first line a stand-in python prints), or its stderr."""
    proc = shim(plugin, env, "status")
    return proc.stdout.split("\n")[0] if proc.returncode == 0 else proc.stderr


@pytest.fixture
def env(tmp_path):
    """A plain environment: system tools on PATH, no codex-bridge, a fresh CLAUDE_PLUGIN_DATA."""
    data = tmp_path / "data"
    data.mkdir()
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "AUTOPILOT_HOME")}
    return {**keep, "PATH": "/usr/bin:/bin", "CLAUDE_PLUGIN_DATA": str(data)}


def shim(plugin, env, *args, stdin="{}"):
    return subprocess.run(
        [str(plugin / "scripts" / "bridge"), *args], input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


def test_autopilot_python_wins(plugin, env, tmp_path):
    """AUTOPILOT_PYTHON is exec'd directly, isolated, running the bridge's entry with the arguments."""
    py = fake_python(tmp_path / "mine" / "python")
    out = shim(plugin, {**env, "AUTOPILOT_PYTHON": str(py)}, "hook", "Stop").stdout.split("\n")
    assert out[:6] == [str(py), "-I", "-c", "from autopilot.cli import entry; entry()", "hook", "Stop"]


def test_venv_built_from_these_files_is_used(plugin, env):
    """The venv in CLAUDE_PLUGIN_DATA is used when its stamp names this version and no source changed since."""
    venv = built_venv(plugin, env)
    assert interpreter(plugin, env) == str(venv / "bin" / "python")
    assert bootstrap(plugin).fresh(str(plugin), str(venv), VERSION)


LEAN = "import sys; sys.path.append(sys.argv.pop(1)); from autopilot.cli import entry; entry()"


def test_built_venv_runs_without_site(plugin, env):
    """The venv bootstrap.py built runs with -S (no site module), its one site-packages given on the command line."""
    venv = built_venv(plugin, env)
    lib = venv / "lib" / "python3.11" / "site-packages"
    (lib / "autopilot").mkdir(parents=True)
    out = shim(plugin, env, "hook", "Stop").stdout.split("\n")
    assert out[:7] == [str(venv / "bin" / "python"), "-I", "-S", "-c", LEAN, str(lib), "hook"]


@pytest.mark.parametrize("layout", ["no package there", "two site-packages"])
def test_venv_with_an_unexpected_layout_runs_with_site(plugin, env, layout):
    """Without exactly one site-packages holding the package, the venv runs as usual, its site module finding it."""
    venv = built_venv(plugin, env)
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    if layout == "two site-packages":
        for version in ("3.11", "3.12"):
            (venv / "lib" / f"python{version}" / "site-packages" / "autopilot").mkdir(parents=True, exist_ok=True)
    out = shim(plugin, env, "hook", "Stop").stdout.split("\n")
    assert out[:4] == [str(venv / "bin" / "python"), "-I", "-c", "from autopilot.cli import entry; entry()"]


def test_built_venv_without_site_really_runs(plugin, env):
    """A real interpreter in the venv layout, the package and its dependencies in site-packages and no .pth read:
    the lean launch line answers a hook and a command."""
    venv = Path(env["CLAUDE_PLUGIN_DATA"]) / "venv"
    (venv / "bin").mkdir(parents=True)
    os.symlink(os.path.realpath(sys.executable), venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text(f"home = {Path(os.path.realpath(sys.executable)).parent}\n")
    lib = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    lib.mkdir(parents=True)
    ours = Path(sysconfig.get_paths()["purelib"])
    for entry in ours.iterdir():  # the developer venv's packages, without its .pth files (an editable install's)
        if entry.suffix != ".pth" and not entry.name.startswith("autopilot"):
            os.symlink(entry, lib / entry.name)
    os.symlink(REPO / "src" / "autopilot", lib / "autopilot")
    os.utime(venv / "pyvenv.cfg", (MINUTE_AGO, MINUTE_AGO))
    bootstrap(plugin).write_stamp(str(plugin), str(venv), VERSION)
    home = {**env, "AUTOPILOT_HOME": str(Path(env["CLAUDE_PLUGIN_DATA"]) / "home")}
    hook = shim(plugin, home, "hook", "Stop", stdin=json.dumps({"session_id": "s", "cwd": str(plugin)}))
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    version = subprocess.run(  # traced: the exec'd command line is the lean one
        ["bash", "-x", str(plugin / "scripts" / "bridge"), "--version"], capture_output=True, text=True, env=home
    )
    assert version.returncode == 0 and version.stdout.strip() == f"codex-autopilot {VERSION}", version.stderr
    assert f"exec {venv}/bin/python -I -S -c " in version.stderr


def test_venv_from_another_version_is_not_used(plugin, env):
    """A venv stamped for another version is ignored; a hook says it is out of date (SessionStart rebuilds it)."""
    venv = built_venv(plugin, env, version="0.0.1")
    proc = shim(plugin, env, "hook", "Stop")
    assert proc.returncode == 0 and "out of date" in json.loads(proc.stdout)["systemMessage"]
    assert not bootstrap(plugin).fresh(str(plugin), str(venv), VERSION)


@pytest.mark.parametrize("change", ["edit a module", "edit pyproject.toml", "add a module", "remove a module"])
def test_venv_is_out_of_date_when_the_plugin_changes_without_a_new_version(plugin, env, change):
    """An update that keeps the version number (edited, added or removed sources) makes the venv out of date."""
    venv = built_venv(plugin, env)
    package = plugin / "src" / "autopilot"
    if change == "edit a module":
        (package / "git.py").write_text((package / "git.py").read_text() + "\n# changed\n")
    elif change == "edit pyproject.toml":
        (plugin / "pyproject.toml").write_text((plugin / "pyproject.toml").read_text() + "\n")
    elif change == "add a module":
        (package / "hooks" / "extra.py").write_text("")
    else:
        (package / "loop" / "budget.py").unlink()
        os.utime(package / "loop", (HOUR_AGO, HOUR_AGO))  # only the missing file can tell
    assert interpreter(plugin, env) != str(venv / "bin" / "python")
    assert not bootstrap(plugin).fresh(str(plugin), str(venv), VERSION)


def test_stamp_from_an_older_plugin_is_out_of_date(plugin, env):
    """A stamp that names only the version (what earlier releases wrote) does not vouch for the sources."""
    venv = built_venv(plugin, env)
    (venv / "codex-autopilot.stamp").write_text(VERSION + "\n")
    assert interpreter(plugin, env) != str(venv / "bin" / "python")


def test_stamp_command_marks_a_venv_built_by_hand(plugin, env):
    """`bootstrap.py --stamp VENV`, the last of the by-hand commands, makes the shim use that venv."""
    venv = Path(env["CLAUDE_PLUGIN_DATA"]) / "venv"
    fake_python(venv / "bin" / "python")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    proc = subprocess.run(["python3", str(plugin / "scripts" / "bootstrap.py"), "--stamp", str(venv)], env=env)
    assert proc.returncode == 0 and interpreter(plugin, env) == str(venv / "bin" / "python")


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
    executable(tmp_path / "bin" / "codex-bridge", '#!/usr/bin/env bash\nexec pyenv exec codex-bridge "$@"\n')
    proc = shim(plugin, {**env, "PATH": f"{tmp_path / 'bin'}:{env['PATH']}"}, "hook", "Stop")
    assert "not built yet" in json.loads(proc.stdout)["systemMessage"]


def test_no_interpreter_hook_says_exactly_what_to_run(plugin, env):
    """Without an environment a hook exits 0 with the commands that build it."""
    proc = shim(plugin, env, "hook", "PostToolUse")
    message = json.loads(proc.stdout)["systemMessage"]
    data = env["CLAUDE_PLUGIN_DATA"]
    assert proc.returncode == 0 and message.startswith("codex-autopilot is not active")
    assert f"-m venv {data}/venv && {data}/venv/bin/python -m pip install {plugin} &&" in message
    assert f"{plugin}/scripts/bootstrap.py --stamp {data}/venv." in message and "AUTOPILOT_PYTHON" in message


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


@pytest.mark.parametrize("args, code", [(("hook", "Stop"), 0), (("status",), 1)])
def test_windows_gets_a_plain_message_not_a_bash_error(plugin, env, args, code):
    """Under Windows' bash (OS=Windows_NT) hooks answer with a systemMessage and commands say to use WSL."""
    proc = shim(plugin, {**env, "OS": "Windows_NT"}, *args)
    said = proc.stdout + proc.stderr
    assert proc.returncode == code and "Linux and macOS" in said and "WSL" in said
    if args[0] == "hook":
        assert json.loads(proc.stdout)["systemMessage"].startswith("codex-autopilot runs on Linux and macOS")


@pytest.mark.parametrize("ostype", ["msys", "cygwin"])
def test_a_windows_bash_is_known_by_its_ostype_without_uname(plugin, env, ostype):
    """Git Bash, MSYS2 and Cygwin (bash's OSTYPE, read instead of running uname on every hook) get the WSL message."""
    proc = shim(plugin, {**env, "OSTYPE": ostype}, "hook", "Stop")
    assert proc.returncode == 0 and json.loads(proc.stdout)["systemMessage"].startswith("codex-autopilot runs on Linux")


def test_bootstrap_knows_which_version_set_up_the_codex_side(tmp_path):
    """After a rebuild the shim compares the Codex side's marker with the plugin: none, unrecorded, or a version."""
    mod = bootstrap(REPO)
    env = {"CODEX_HOME": str(tmp_path)}
    assert mod.codex_side_version(env) is None  # never set up
    marker = tmp_path / "skills" / "handoff" / ".codex-autopilot.json"
    marker.parent.mkdir(parents=True)
    marker.write_text(json.dumps({"owner": "someone-else", "version": "9.9.9"}))
    assert mod.codex_side_version(env) is None  # not ours
    marker.write_text(json.dumps({"owner": "codex-autopilot", "files": {}}))
    assert mod.codex_side_version(env) == ""  # set up before the marker recorded its version
    marker.write_text(json.dumps({"owner": "codex-autopilot", "files": {}, "version": "0.0.9"}))
    assert mod.codex_side_version(env) == "0.0.9"
