"""`codex-bridge setup`: the Codex side from this environment, trust, and a shell launcher that outlives updates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from autopilot.plugin import LAUNCHER_NAME
from tests.support.agents import REPO


def setup(bridge, *args: str) -> dict:
    code, out, err = bridge("setup", *args)
    assert code == 0, err
    return json.loads(out)


def test_setup_installs_the_codex_side_from_this_environment(bridge, isolated_homes):
    """The hook and both skills land in $CODEX_HOME, their launchers running this interpreter."""
    answer = setup(bridge)
    codex = isolated_homes / "codex"
    assert answer["codex"]["hook"]["file"] == str(codex / "hooks.json") and answer["python"] == sys.executable
    wrapper = (codex / "skills" / "from-claude" / "scripts" / "from-claude").read_text()
    assert sys.executable in wrapper
    assert answer["launcher"] is None and any("--launcher" in step for step in answer["next"])


def test_setup_twice_changes_nothing(bridge, isolated_homes, tmp_path):
    """Re-running setup with the same choices leaves every file as it was."""
    setup(bridge, "--launcher", str(tmp_path / "bin"))
    again = setup(bridge, "--launcher", str(tmp_path / "bin"))
    assert again["codex"]["changed"] is False and again["launcher"]["changed"] is False


def test_the_launcher_runs_the_bridge_from_the_users_shell(bridge, tmp_path):
    """The launcher written into a folder runs codex-bridge there, in this environment."""
    answer = setup(bridge, "--launcher", str(tmp_path / "bin"))
    launcher = Path(answer["launcher"]["path"])
    assert launcher == tmp_path / "bin" / LAUNCHER_NAME and os.access(launcher, os.X_OK)
    proc = subprocess.run([str(launcher), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("codex-autopilot ")


def test_a_file_setup_did_not_write_is_never_replaced(bridge, tmp_path):
    """An existing codex-bridge of the user's own in the folder stays; setup refuses and changes nothing else."""
    mine = tmp_path / "bin" / LAUNCHER_NAME
    mine.parent.mkdir()
    mine.write_text("#!/bin/sh\necho mine\n")
    code, _, err = bridge("setup", "--launcher", str(tmp_path / "bin"))
    assert code == 1 and "not written by codex-autopilot" in err
    assert mine.read_text() == "#!/bin/sh\necho mine\n"
    assert not (Path(os.environ["CODEX_HOME"]) / "hooks.json").exists()  # refused before anything changed


def test_uninstall_removes_the_launcher_and_the_codex_side(bridge, isolated_homes, tmp_path, monkeypatch):
    """--uninstall takes out exactly what setup added: the launcher on PATH, the hook and the skills."""
    folder = tmp_path / "bin"
    setup(bridge, "--launcher", str(folder))
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    answer = setup(bridge, "--uninstall")
    assert answer["launchersRemoved"] == [str(folder / LAUNCHER_NAME)] and not (folder / LAUNCHER_NAME).exists()
    assert not (isolated_homes / "codex" / "skills" / "from-claude").exists()


def test_uninstall_finds_a_launcher_in_a_folder_that_is_not_on_path(bridge, tmp_path):
    """setup records where it wrote each launcher: one outside PATH and ~/.local/bin is still taken out."""
    folder = tmp_path / "tools" / "bin"
    assert str(folder) not in os.environ["PATH"]
    setup(bridge, "--launcher", str(folder))
    answer = setup(bridge, "--uninstall")
    assert answer["launchersRemoved"] == [str(folder / LAUNCHER_NAME)] and not (folder / LAUNCHER_NAME).exists()
    assert setup(bridge, "--uninstall")["launchersRemoved"] == []  # nothing left to find, and no error


def make_venv(path: Path) -> Path:
    """A venv at ``path`` that can import this checkout (as the plugin's venv would after a build)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    site = next(path.glob("lib/python*/site-packages"))
    (site / "dev.pth").write_text(f"{REPO / 'src'}\n{sysconfig.get_paths()['purelib']}\n")
    return path / "bin" / "python"


@pytest.mark.slow
def test_the_launcher_survives_an_update_and_says_when_the_environment_is_gone(tmp_path, isolated_homes):
    """The plugin rebuilds its venv in place on update: the launcher keeps working; with no venv it says what to do."""
    venv = tmp_path / "plugin-data" / "venv"
    python = make_venv(venv)
    env = {**os.environ, "PYTHONPATH": ""}
    folder = tmp_path / "bin"
    done = subprocess.run(
        [str(python), "-I", "-m", "autopilot", "setup", "--launcher", str(folder)], env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    launcher = str(folder / LAUNCHER_NAME)
    assert subprocess.run([launcher, "--version"], capture_output=True).returncode == 0
    import shutil

    shutil.rmtree(venv)
    gone = subprocess.run([launcher, "--version"], capture_output=True, text=True)
    assert gone.returncode == 1 and "environment is gone" in gone.stderr and "/codex-autopilot:setup" in gone.stderr
    make_venv(venv)  # the update's rebuild, at the same path
    again = subprocess.run([launcher, "--version"], capture_output=True, text=True)
    assert again.returncode == 0 and again.stdout.startswith("codex-autopilot ")
