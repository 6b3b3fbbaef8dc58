"""`codex-bridge doctor`: each check against real files and binaries; exit 1 only when something needs action."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from autopilot import __version__
from tests.support.agents import agent_bin


def doctor(bridge, *args: str) -> tuple[int, dict]:
    code, out, err = bridge("doctor", "--json", *args)
    assert code in (0, 1), err
    return code, json.loads(out)


def by_name(report: dict) -> dict[str, dict]:
    return {c["name"]: c for c in report["checks"]}


def fake_binary(folder: Path, name: str, version: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{name} {version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def healthy(bridge, monkeypatch, tmp_path, git_repo):
    """A machine where everything is set up: supported claude and codex, a plugin venv, the Codex side trusted."""
    monkeypatch.setenv("AUTOPILOT_CLAUDE_BIN", str(agent_bin("claude")))
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(agent_bin("codex")))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    data = tmp_path / "plugin-data"
    (data / "venv").mkdir(parents=True)
    (data / "venv" / "codex-autopilot.stamp").write_text(f"{__version__}\npyproject.toml\n")
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(data))
    assert bridge("setup", "--trust")[0] == 0
    return git_repo


@pytest.mark.e2e
def test_all_is_well_exits_0(healthy, bridge):
    """With everything set up, each check is ok (plugin validate run by the real claude) and doctor exits 0."""
    code, report = doctor(bridge)
    checks = by_name(report)
    assert code == 0 and report["ok"] is True, [c for c in report["checks"] if c["status"] != "ok"]
    assert checks["claude"]["version"] == "2.1.332" and checks["codex"]["version"] == "0.171.0"
    assert checks["plugin validate"]["status"] == "ok" and "hook trusted" in checks["codex side"]["detail"]
    assert checks["backend"]["detail"].startswith("codex-cli (because codex is installed)")


@pytest.mark.parametrize("client, version, floor", [("claude", "2.1.100", "2.1.143"), ("codex", "0.116.0", "0.129.0")])
def test_an_unsupported_client_version_needs_action(bridge, monkeypatch, tmp_path, client, version, floor):
    """A client older than the floor is a failure naming the floor and how to update."""
    binary = fake_binary(tmp_path, client, version)
    monkeypatch.setenv(f"AUTOPILOT_{client.upper()}_BIN", str(binary))
    code, report = doctor(bridge)
    found = by_name(report)[client]
    assert code == 1 and found["status"] == "fail" and floor in found["detail"] and "@latest" in found["fix"]


def test_a_stale_codex_side_says_to_run_setup_again(healthy, bridge, isolated_homes):
    """A Codex-side file that no longer matches what this version installs is reported with the setup command."""
    script = isolated_homes / "codex" / "skills" / "from-claude" / "scripts" / "from_claude.py"
    script.write_text(script.read_text() + "\n# an older release\n")
    code, report = doctor(bridge)
    found = by_name(report)["codex side"]
    assert code == 1 and "from-claude/scripts/from_claude.py" in found["detail"]
    assert "/codex-autopilot:setup" in found["fix"]


def test_a_broken_config_and_an_unwritable_home_are_named(bridge, isolated_homes, monkeypatch, tmp_path):
    """A config file that cannot be read and an AUTOPILOT_HOME that is not a directory fail with their fixes."""
    (isolated_homes / "autopilot" / "config.yaml").write_text("backend: [not, a, name\n")
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("x")
    code, report = doctor(bridge)
    assert code == 1 and by_name(report)["config"]["status"] == "fail"
    monkeypatch.setenv("AUTOPILOT_HOME", str(blocked / "home"))
    code, report = doctor(bridge)
    assert code == 1 and by_name(report)["AUTOPILOT_HOME"]["status"] == "fail"


def test_doctor_makes_no_model_request_and_reports_a_paused_run(planned, openai_env, bridge):
    """A paused run is shown with its last error and the resume command; no request reaches the model."""
    from autopilot.loop.state import Store

    with Store(planned).transaction() as s:
        s.update(status="paused_reviewer_unavailable", stop_reason="Codex was unavailable 3 times")
        s["last_error"] = {
            "phase": "verdict",
            "kind": "timeout",
            "message": "no answer",
            "timestamp": "2026-12-01T00:00:00Z",
        }
    before = len(openai_env.requests)
    code, out, err = bridge("-C", str(planned), "doctor")
    assert "paused_reviewer_unavailable" in out and "timeout: no answer" in out and "/autopilot resume" in out
    assert len(openai_env.requests) == before
