"""The reviewer runs apart from the user's Codex setup: no environment secrets, no user hooks, no argv limits.

The real `codex` binary answers for the codex-cli backend against the scripted Responses server.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from autopilot.codex import hooks_file, trust
from autopilot.errors import EXIT_INFRA
from autopilot.scripted.responses_server import delay, drip, reply_json, tool_call
from tests.e2e.test_codex_cli_backend import codex_processes_using
from tests.support.agents import agent_bin, agent_version, needs
from tests.support.hooks import run_hook
from tests.support.loop import APPROVE, PLAN, continue_to, state_of

pytestmark = pytest.mark.e2e

SECRET = "s3cr3t-value-the-model-must-never-see"


@pytest.fixture
def codex_server(codex_server, monkeypatch):
    """The shared scripted codex (tests/e2e/conftest.py), with a secret in the bridge's environment."""
    monkeypatch.setenv("AUTOPILOT_TEST_SECRET", SECRET)
    return codex_server


def codex_version() -> tuple[int, ...]:
    """The version of the codex under test (the pinned one, or the matrix's)."""
    return agent_version("codex")


def planned(codex_server, repo: Path, bridge) -> None:
    codex_server.push(reply_json(PLAN))
    code, _, err = bridge("-C", str(repo), "plan", "--goal", "Add a feature")
    assert code == 0, err
    (repo / "feature.py").write_text("x = 1\n")


def tool_outputs(codex_server) -> str:
    """Every function_call_output codex sent back to the model, as one text."""
    outputs = [
        item.get("output")
        for body in codex_server.requests
        for item in body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    return json.dumps(outputs)


@pytest.mark.smoke
def test_environment_secrets_never_reach_the_model(codex_server, git_repo, bridge):
    """The model makes codex run `env`: the output it gets back has no bridge secret and no provider key."""
    planned(codex_server, git_repo, bridge)
    codex_server.push(tool_call("exec_command", {"cmd": "env"}), reply_json(APPROVE))
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == 0, err
    seen = tool_outputs(codex_server)
    assert "PATH=" in seen  # the tool did run and its output came back
    assert SECRET not in seen and "AUTOPILOT_TEST_SECRET" not in seen
    assert SECRET not in json.dumps(codex_server.requests)
    if codex_version() >= (0, 171, 0):  # 0.129-0.145 hand their tools the provider's key whatever the policy
        assert "not-a-real-key" not in seen


def test_the_control_shows_plain_codex_would_leak_it(codex_server, git_repo):
    """Without the bridge's isolation the same `env` call hands the secret to the model (the test above can fail)."""
    codex_server.push(tool_call("exec_command", {"cmd": "env"}), reply_json({"ok": True}))
    subprocess.run(
        [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", "-"],
        cwd=git_repo,
        input="run env",
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    assert SECRET in tool_outputs(codex_server)


def user_hook(codex_home: Path, marker: Path) -> None:
    """A trusted user UserPromptSubmit hook in $CODEX_HOME/hooks.json that touches ``marker``."""
    hooks = codex_home / "hooks.json"
    doc, where = hooks_file.merge(None, f"touch {shlex.quote(str(marker))}")
    hooks_file.write(hooks, doc)
    entry = doc["hooks"][hooks_file.EVENT][where[0]]["hooks"][where[1]]
    assert trust.record(codex_home / "config.toml", trust.key(hooks, where), trust.hook_hash(entry))


@pytest.mark.smoke
def test_the_users_codex_hooks_do_not_run_for_reviewer_calls(codex_server, git_repo, bridge, isolated_homes, tmp_path):
    """A trusted user hook fires for the user's own codex exec, never for the bridge's plan, review or verdict."""
    marker = tmp_path / "hook-ran"
    user_hook(isolated_homes / "codex", marker)
    planned(codex_server, git_repo, bridge)
    codex_server.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    codex_server.push(reply_json(continue_to("T2")))
    code, _, err = bridge("-C", str(git_repo), "verdict")
    assert code == 0, err
    assert len(codex_server.requests) == 3 and not marker.exists()  # plan, review and verdict ran; the hook never did
    codex_server.push(reply_json({"ok": True}))
    subprocess.run(
        [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", "-"],
        cwd=git_repo,
        input="hello",
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    assert marker.exists()  # the control: the hook is real and trusted


def test_a_diff_larger_than_an_argument_reaches_codex_whole(codex_server, git_repo, bridge, monkeypatch):
    """A 300 KB CJK diff (past Linux's 128 KiB per-argument cap) is reviewed: the prompt goes on stdin."""
    monkeypatch.setenv("AUTOPILOT_MAX_DIFF_CHARS", "400000")
    planned(codex_server, git_repo, bridge)
    text = "".join(chr(0x4E00 + (i % 2000)) for i in range(100_000)) + "END-MARKER"
    (git_repo / "notes.txt").write_text(text + "\n", encoding="utf-8")
    codex_server.push(reply_json(APPROVE))
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == 0, err
    assert "END-MARKER" in json.dumps(codex_server.requests[-1]["input"], ensure_ascii=False)
    assert state_of(bridge, git_repo)["last_review"]["decision"] == "approve"


def test_a_dripping_server_is_cut_at_the_deadline_and_codex_killed(codex_server, git_repo, bridge, monkeypatch):
    """A server that answers one byte a second: the review fails as a timeout at the deadline, no codex left."""
    planned(codex_server, git_repo, bridge)
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "4")
    codex_server.push(*[drip(reply_json(APPROVE), 1.0) for _ in range(3)])
    started = time.monotonic()
    code, _, err = bridge("-C", str(git_repo), "review")
    assert code == EXIT_INFRA and time.monotonic() - started < 15, err
    assert state_of(bridge, git_repo)["last_error"]["kind"] == "timeout"
    assert codex_processes_using(os.environ["CODEX_HOME"]) == []


@needs("codex", (0, 145, 0), "0.129's picker shows no exec thread even with --include-non-interactive: no control")
def test_reviewer_threads_stay_out_of_the_users_resume_picker(codex_server, git_repo, bridge, isolated_homes, tmp_path):
    """`codex resume` in the repository lists none of the bridge's threads; `--include-non-interactive` shows them."""
    from tests.support import tui

    planned(codex_server, git_repo, bridge)
    thread = state_of(bridge, git_repo)["conversation_id"]
    with open(isolated_homes / "codex" / "config.toml", "a") as fh:  # the folder-trust dialog, answered in advance
        fh.write(f'\n[projects."{git_repo}"]\ntrust_level = "trusted"\n')
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CODEX_HOME": str(isolated_homes / "codex"),
        "FAKE_OPENAI_KEY": "not-a-real-key",
        "TERM": "xterm-256color",
    }
    screens = {}
    for label, extra in (("picker", []), ("control", ["--include-non-interactive"])):
        command = [str(agent_bin("codex")), "resume", *tui.codex_tui_flags(), *extra]
        with tui.session(command, git_repo, env, tmp_path) as screen:
            screen.wait_for(lambda s: "Resume a previous session" in s, 60, f"the {label}")
            time.sleep(3)  # the list fills in after the frame
            screens[label] = screen.text()
    # the planner's prompt opens the bridge's thread; the control shows the list does fill in
    assert "autopilot loop" in screens["control"], screens["control"]
    assert "autopilot loop" not in screens["picker"] and "No sessions yet" in screens["picker"], screens["picker"]
    assert thread  # the plan ran in a real Codex thread


HUNG = {
    "accepts and never answers": lambda: delay(reply_json(continue_to("T2")), 120),
    "one byte a second": lambda: drip(reply_json(continue_to("T2")), 1.0),
}


@pytest.mark.parametrize("hang", sorted(HUNG))
def test_a_hung_codex_holds_the_stop_hook_no_longer_than_its_deadline(
    codex_server, git_repo, bridge, monkeypatch, hang
):
    """The real codex against a server that never finishes: each Stop returns by the deadline, the failure is
    recorded, codex is killed, and the third in a row pauses the run instead of holding Claude again."""
    planned(codex_server, git_repo, bridge)
    monkeypatch.setenv("AUTOPILOT_TIMEOUT", "4")
    codex_server.push(*[HUNG[hang]() for _ in range(12)])
    answers, took = [], []
    for n in range(3):
        started = time.monotonic()
        answers.append(run_hook(bridge, "Stop", git_repo, stop_hook_active=n > 0, last_assistant_message="T1 done."))
        took.append(time.monotonic() - started)
        assert codex_processes_using(os.environ["CODEX_HOME"]) == []
    assert max(took) < 15, took  # 4 s of deadline plus codex's start and the record, never 4 x 300 s of retries
    s = state_of(bridge, git_repo)
    assert s["last_error"]["kind"] == "timeout" and s["iteration"] == 0
    assert [("decision" in a) for a in answers] == [True, True, False]  # held twice, then the pause lets it stop
    assert s["status"] == "paused_reviewer_unavailable" and "paused" in answers[-1]["systemMessage"]
