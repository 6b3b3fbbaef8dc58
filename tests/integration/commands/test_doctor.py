"""`codex-bridge doctor` right after the README's setup, run from either environment of the same version."""

from __future__ import annotations

import json

from tests.support.fake_codex import fake_codex
from tests.support.second_env import run_in, second_env


def checks(text: str) -> dict[str, dict]:
    return {c["name"]: c for c in json.loads(text)["checks"]}


def test_doctor_after_setup_from_the_plugins_venv_finds_no_fail_from_the_shell(
    bridge, isolated_homes, tmp_path, monkeypatch
):
    """Setup run by the plugin's venv, doctor by a shell install of the same version (and the other way round), codex
    installed: the Codex side is ok both ways, and nothing fails."""
    fake_codex(tmp_path / "bin", "offline")  # answers --version as codex 0.171 does
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    plugin_python = second_env(tmp_path / "plugin-venv")
    proc = run_in(plugin_python, "setup", "--trust")
    assert proc.returncode == 0, proc.stderr
    code, out, _ = bridge("doctor", "--json")
    found = checks(out)
    assert found["codex side"]["status"] == "ok", found["codex side"]
    assert [c for c in found.values() if c["status"] == "fail"] == []
    assert bridge("setup", "--trust")[0] == 0
    proc = run_in(plugin_python, "doctor", "--json")
    assert checks(proc.stdout)["codex side"]["status"] == "ok", proc.stdout
    assert [c for c in checks(proc.stdout).values() if c["status"] == "fail"] == []


def test_a_codex_side_whose_environment_is_gone_says_to_set_it_up_again(bridge, isolated_homes, tmp_path):
    """When the Python the Codex side runs was removed, doctor fails the check and names setup as the fix."""
    plugin_python = second_env(tmp_path / "plugin-venv")
    assert run_in(plugin_python, "setup", "--trust").returncode == 0
    plugin_python.unlink()
    code, out, _ = bridge("doctor", "--json")
    found = checks(out)["codex side"]
    assert code == 1 and found["status"] == "fail"
    assert f"the Python it runs is gone ({plugin_python})" in found["detail"] and "setup" in found["fix"]


def test_no_plugin_venv_is_fine_when_the_plugin_runs_the_codex_bridge_on_path(bridge, tmp_path, monkeypatch):
    """With codex-bridge on PATH the plugin never builds a venv: doctor says so instead of warning for ever."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    code, out, _ = bridge("doctor", "--json")
    assert checks(out)["plugin venv"]["status"] == "warn"
    python = second_env(tmp_path / "venv")
    monkeypatch.setenv("PATH", f"{python.parent}:/usr/bin:/bin")
    code, out, _ = bridge("doctor", "--json")
    venv = checks(out)["plugin venv"]
    assert venv["status"] == "ok" and str(python.parent / "codex-bridge") in venv["detail"]
