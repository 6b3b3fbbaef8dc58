"""The plugin as users meet it: installed from its marketplace, two sessions, $handoff, validate, bootstrap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.paths import run_dir
from autopilot.scripted.responses_server import ResponsesServer, reply_json
from tests.support.agents import agent_bin, agent_version
from tests.support.loop import PLAN, state_of
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO, claude_env, plugin_copy, run_claude

pytestmark = pytest.mark.e2e
OWNER = "0aaaaaaa-1111-4222-8333-444444444444"


@pytest.fixture
def planned(git_repo, bridge, monkeypatch):
    """A run planned (through the openai backend and a scripted server) before Claude starts."""

    def plan(session_id: str | None = None) -> Path:
        with ResponsesServer([reply_json(PLAN)]) as srv:
            monkeypatch.setenv("OPENAI_BASE_URL", srv.url)
            monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
            monkeypatch.setenv("AUTOPILOT_BACKEND", "openai")
            flags = ["--session-id", session_id] if session_id else []
            code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test", *flags)
        assert code == 0, err
        return git_repo

    return plan


def test_second_session_is_left_alone(claude, planned, tmp_path, bridge, monkeypatch):
    """Another Claude session in the same repo edits and stops freely: no review, no verdict, one notice."""
    repo = planned(OWNER)
    steps = [tool_use("Write", {"file_path": str(repo / "other.py"), "content": "y = 2\n"}), text("Done.")]
    with ResponsesServer() as codex:  # any Codex call would land here
        monkeypatch.setenv("OPENAI_BASE_URL", codex.url)
        run = run_claude(claude, repo, "Add other.py", steps, tmp_path / "h")
        assert codex.requests == []
    assert run.proc.returncode == 0 and len(run.main_texts()) == 2 and run.server.unscripted == 0
    said = [o.get("systemMessage", "") for e in ("SessionStart", "PostToolUse", "Stop") for o in run.hook_outputs(e)]
    assert sum("belongs to another Claude Code session" in m for m in said) == 1
    assert all(not o.get("decision") for o in run.hook_outputs("Stop"))
    s = state_of(bridge, repo)
    assert (s["owner_session_id"], s["iteration"], s["last_review"], s["status"]) == (OWNER, 0, None, "running")
    assert s["notices"] == [f"foreign-session:{run.session_id}"]


@pytest.mark.smoke
def test_handoff_writes_the_pointer_without_a_model_request(claude, git_repo, tmp_path, isolated_homes):
    """$handoff typed into the real claude records the pointer; the Messages server gets no request."""
    run = run_claude(claude, git_repo, "$handoff", [], tmp_path / "h")
    pointer = json.loads((isolated_homes / "autopilot" / "handoff" / "claude-latest.json").read_text())
    assert run.server.requests == [] and run.server.log == []
    assert (pointer["session_id"], pointer["cwd"]) == (run.session_id, str(git_repo))
    assert pointer["transcript_path"].endswith(f"/{run.session_id}.jsonl")
    assert set(pointer) == {"transcript_path", "cwd", "session_id", "created_at"}
    (answer,) = run.hook_outputs("UserPromptSubmit")
    assert answer["decision"] == "block" and "$from-claude" in answer["reason"]


def test_installed_from_its_own_marketplace_the_hooks_fire(claude, planned, tmp_path, bridge):
    """`claude plugin marketplace add` + `install` from the repo's marketplace.json loads the plugin and its hooks."""
    repo = planned()
    source = plugin_copy(tmp_path / "codex-autopilot")
    home = tmp_path / "h"
    home.mkdir()
    with MessagesServer() as idle:
        env = claude_env(home, idle)
    for argv in (
        ["plugin", "marketplace", "add", str(source)],
        ["plugin", "install", "codex-autopilot@codex-autopilot"],
    ):
        proc = subprocess.run(
            [str(claude), *argv], env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    run = run_claude(claude, repo, "What is the current task?", [text("T1.")], home, plugin_dir=None)
    init = next(e for e in run.events if e.get("type") == "system" and e.get("subtype") == "init")
    assert {p["name"] for p in init["plugins"]} >= {"codex-autopilot"} and not init.get("plugin_errors")
    assert (
        "codex-autopilot run active" in run.hook_outputs("SessionStart")[0]["hookSpecificOutput"]["additionalContext"]
    )
    assert "current task T1: Add feature" in run.main_texts()[0]
    assert state_of(bridge, repo)["owner_session_id"] == run.session_id


def problems(report) -> list:
    """Every error and warning anywhere in a `claude plugin validate --json` report."""
    if isinstance(report, dict):
        found = [*(report.get("errors") or []), *(report.get("warnings") or [])]
        return found + [p for v in report.values() for p in problems(v)]
    if isinstance(report, list):
        return [p for v in report for p in problems(v)]
    return []


@pytest.mark.parametrize("target", [".", ".claude-plugin/plugin.json"])
@pytest.mark.parametrize("profile", [[], ["--profile", "directory"]])
def test_validate_is_clean(claude, tmp_path, target, profile):
    """`claude plugin validate` (strict, and with the plugin directory's checks) finds no error and no warning.

    Older clients of the matrix do not know the manifest's `network` key (the hosts the plugin reaches, which
    2.1.332 lists; older ones ignore it when they load the plugin): 2.1.260 warns about it, and 2.1.143, which
    has no --json, --strict or --profile, calls it an error when it validates plugin.json itself.
    """
    env = {**os.environ, "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude")}

    def validate(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [str(claude), "plugin", "validate", *args]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)

    usage = validate("--help").stdout
    if "--json" not in usage:
        proc = validate(str(REPO / target))
        said = proc.stdout + proc.stderr
        if target == ".":
            assert proc.returncode == 0 and "Validation passed" in said, said
        else:
            assert said.count("❯") == 1 and 'Unrecognized key: "network"' in said, said
        return
    pinned = agent_version("claude") >= (2, 1, 332)
    profile = profile if "--profile" in usage else []
    proc = validate(str(REPO / target), "--json", *(["--strict"] if pinned else []), *profile)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0 and report["success"] is True, proc.stdout
    unknown_network = [p for p in problems(report) if "Unknown field 'network'" in json.dumps(p)]
    assert problems(report) == ([] if pinned else unknown_network), proc.stdout


@pytest.mark.slow
def test_first_session_builds_the_venv_and_hooks_use_it(claude, git_repo, tmp_path, isolated_homes):
    """With no Python environment, SessionStart builds the venv in CLAUDE_PLUGIN_DATA; later hooks run in it."""
    plugin = plugin_copy(tmp_path / "codex-autopilot")
    home = tmp_path / "h"
    path = os.pathsep.join(
        p
        for p in os.environ["PATH"].split(os.pathsep)
        if ".venv" not in p and not p.startswith(str(Path(sys.executable).parent))
    )
    # the Codex side was set up by an earlier release: the rebuild says to run setup again
    marker = isolated_homes / "codex" / "skills" / "handoff" / ".codex-autopilot.json"
    marker.parent.mkdir(parents=True)
    marker.write_text(json.dumps({"owner": "codex-autopilot", "skill": "handoff", "files": {}, "version": "0.0.9"}))
    run = run_claude(
        claude, git_repo, "$handoff", [], home, plugin_dir=plugin, timeout=900, PATH=path, AUTOPILOT_PYTHON=""
    )
    data = home / ".claude" / "plugins" / "data" / "codex-autopilot-inline"
    version = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())["version"]
    stamp = (data / "venv" / "codex-autopilot.stamp").read_text().splitlines()
    assert stamp[0] == version and "src/autopilot/hooks/stop.py" in stamp, data / "bootstrap.log"
    (started,) = run.hook_outputs("SessionStart")  # built, then answered: no run here, only the update notice
    assert list(started) == ["systemMessage"] and "set up by 0.0.9" in started["systemMessage"], started
    (answer,) = run.hook_outputs("UserPromptSubmit")
    assert answer["decision"] == "block" and (isolated_homes / "autopilot" / "handoff" / "claude-latest.json").exists()
    assert not run_dir(str(git_repo)).exists()


def test_from_codex_skill_reads_the_handed_over_rollout(claude, git_repo, tmp_path, isolated_homes):
    """/from-codex runs the intake on the pointer's rollout before the first model request, as evidence."""
    rollout = REPO / "tests" / "fixtures" / "codex" / "exec_plain.jsonl"
    pointer = isolated_homes / "autopilot" / "handoff" / "codex-latest.json"
    pointer.parent.mkdir(parents=True)
    pointer.write_text(
        json.dumps(
            {
                "transcript_path": str(rollout),
                "cwd": str(git_repo),
                "session_id": "01a22c45-f34f-7752-9ff7-c45689ad7d88",
                "created_at": "2026-11-30T11:46:00Z",
            }
        )
    )
    run = run_claude(claude, git_repo, "/codex-autopilot:from-codex", [text("Picked up.")], tmp_path / "h")
    assert run.proc.returncode == 0 and run.server.unscripted == 0
    (first,) = run.main_texts()
    assert "01a22c45-f34f-7752-9ff7-c45689ad7d88" in first and "codex-rollout" in first
    assert "evidence-only" in first and "Reconcile with the repository before you edit anything" in first


@pytest.mark.slow
def test_one_setup_for_both_agents_from_a_fresh_home(claude, git_repo, tmp_path, isolated_homes):
    """A new user: install the plugin from its marketplace, type the setup command in Claude Code, `$handoff`
    in Claude, `$from-claude` in Codex: Codex gets the intake, and nothing was installed outside the plugin's venv."""
    import shlex

    from autopilot import paths
    from autopilot.scripted.responses_server import reply_text, tool_call
    from tests.support.agents import write_codex_config

    source = plugin_copy(tmp_path / "codex-autopilot")
    home = tmp_path / "h"
    home.mkdir()
    path = os.pathsep.join(  # no codex-bridge or venv of the test run: the plugin must bring its own
        p
        for p in os.environ["PATH"].split(os.pathsep)
        if ".venv" not in p and not p.startswith(str(Path(sys.executable).parent))
    )
    extra = {"PATH": path, "AUTOPILOT_PYTHON": "", "AUTOPILOT_CODEX_BIN": str(agent_bin("codex"))}
    with MessagesServer() as idle:
        env = {**claude_env(home, idle), **extra}
    for argv in (
        ["plugin", "marketplace", "add", str(source)],
        ["plugin", "install", "codex-autopilot@codex-autopilot"],
    ):
        proc = subprocess.run(
            [str(claude), *argv], env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    with ResponsesServer() as codex_model:
        write_codex_config(paths.codex_home(), codex_model.url)
        run = run_claude(
            claude,
            git_repo,
            "/codex-autopilot:setup --trust",
            [text("Set up.")],
            home,
            plugin_dir=None,
            timeout=900,
            **extra,
        )
        assert run.proc.returncode == 0, run.proc.stderr[-2000:]
        data = home / ".claude" / "plugins" / "data" / "codex-autopilot-codex-autopilot"
        venv_python = data / "venv" / "bin" / "python"
        assert venv_python.exists(), (data / "bootstrap.log").read_text() if (data / "bootstrap.log").exists() else data
        first = run.main_texts()[0]
        assert '"status": "trusted"' in first.replace('\\"', '"'), first[:3000]
        launcher = paths.codex_home() / "skills" / "from-claude" / "scripts" / "from-claude"
        recorded = json.loads((launcher.parent / "installed.json").read_text())
        assert recorded["python"] == str(venv_python)  # Codex's side runs in the plugin's own environment
        # handed off from the session that did the setup (a session with a turn, as a real handoff is)
        handoff = run_claude(claude, git_repo, "$handoff", [], home, plugin_dir=None, resume=run.session_id, **extra)
        assert handoff.proc.returncode == 0 and handoff.server.main_requests() == []
        codex_model.push(tool_call("exec_command", {"cmd": shlex.quote(str(launcher))}, call_id="intake"))
        codex_model.push(reply_text("Picked it up."))
        proc = subprocess.run(
            [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", "--", "$from-claude"],
            cwd=git_repo,
            env={**os.environ, "PATH": path, "FAKE_OPENAI_KEY": "scripted"},
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        output = next(
            item["output"]
            for body in codex_model.requests
            for item in body.get("input") or []
            if isinstance(item, dict) and item.get("type") == "function_call_output" and item.get("call_id") == "intake"
        )
    assert '"format": "claude-code-transcript"' in output and handoff.session_id in output
