"""With the sandboxes `codex-bridge setup --sandbox` turns on, an agent's shell cannot touch the durable store.

The real claude in its TUI (tmux), its Bash tool driven by the scripted model, and the real codex (`codex exec` and
its TUI) try what the issue's agent did: append a decision to the log, remove the passphrase record and the anchors,
with the markers unset, detached (`setsid`), on a pseudo-terminal of its own (`script`), and (Claude Code) asking to
run outside the sandbox, or through its Write and Edit tools; last, `codex-bridge setup --uninstall` to take the
sandboxes down. Every attempt fails on a read-only file system or a deny rule; the store's and the settings' bytes
are unchanged; the person's rule still reaches the next session, with no notice (no
file changed). The checkpoint skill's path (a file in the workspace the session's own hook picks up) still works.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from autopilot import paths
from autopilot.handoff.memory.origin import AGENT_ENV
from autopilot.knowledge.durable import anchor, secret
from autopilot.knowledge.durable.view import Reader
from autopilot.scripted.responses_server import ResponsesServer, reply_text, tool_call
from tests.e2e.test_authority_e2e import tool_results
from tests.fixtures.make_codex_fixtures import custom_tool_call
from tests.support import tui
from tests.support.agents import agent_bin, codex_exec
from tests.support.durable import approved
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import claude_env

pytestmark = pytest.mark.e2e
RULE = "RULE-MARKER-34: run the linter before every commit."
CHECKPOINT = {"objective": "SANDBOX-OBJECTIVE-34", "next_action": "keep going"}


def store_files() -> dict[str, bytes]:
    """The log, the anchors and the passphrase's record, as bytes (what no attempt may change; the hooks themselves
    write seen.json and rebuild rules.json)."""
    home = paths.autopilot_home() / "durable"
    return {name: (home / name).read_bytes() for name in ("log.jsonl", anchor.FILE, secret.FILE)}


def attempts() -> list[str]:
    """The shell commands an agent runs against the store: another session's memory, then the log and the passphrase
    plain, with the markers unset and detached, and on its own pty."""
    store = paths.autopilot_home() / "durable"
    forged = json.dumps({"action": "approve", "id": "R-000000000000", "person": "Mallory", "channel": "terminal"})
    append = f"echo {shlex.quote(forged)} >> {store}/log.jsonl"
    remove = f"unlink {store}/passphrase.json; unlink {store / anchor.FILE}"  # (Codex itself turns `rm -f` away)
    unset = "env " + " ".join(f"-u {name}" for name in AGENT_ENV)
    memory = paths.autopilot_home() / "handoff" / "active"
    return [
        f"mkdir -p {memory}/forged && echo '{{}}' >> {memory}/forged/checkpoints.jsonl; echo memory=$?",
        f"{append}; echo append=$?",
        f"{remove}; echo remove=$?",
        f"{unset} setsid sh -c {shlex.quote(append + '; echo detached=$?')}",
        f"{unset} script -qec {shlex.quote(remove + '; echo pty=$?')} /dev/null",
    ]


UNDO = shlex.join([sys.executable, "-m", "autopilot", "setup", "--uninstall"]) + "; echo undo=$?"


def settings_files() -> dict[str, bytes]:
    """What setup --sandbox wrote into each agent's settings (what an agent's own `setup --uninstall` may not undo)."""
    return {
        str(p): p.read_bytes()
        for p in (paths.claude_config_dir() / "settings.json", paths.codex_home() / "config.toml")
    }


def person_was_here(bridge, repo: Path) -> None:
    """The person's last session started before the attempts: what its notice compares with."""
    from tests.integration.knowledge.durable.test_deliver import start

    start(bridge, repo, session="f6666666-6666-4666-8666-666666666666")


def unchanged_and_delivered(before: dict[str, bytes], rid: str, bridge, repo: Path) -> None:
    """The store as it was; a new session of the person still gets the rule and hears of no change."""
    from tests.integration.knowledge.durable.test_deliver import start

    assert store_files() == before
    answer = start(bridge, repo, session="e5555555-5555-4555-8555-555555555555") or {}
    assert rid in json.dumps(answer) and "systemMessage" not in answer


def test_claudes_bash_tool_in_the_tui_cannot_touch_the_store(git_repo, tmp_path, bridge, monkeypatch):
    """In the real claude's TUI with the project's sandbox settings: every Bash attempt (also one asking to run
    unsandboxed) meets a read-only file system, the Write and Edit tools are denied, and a checkpoint written through
    the skill's path is recorded by the session's own hook."""
    rid = approved(RULE, git_repo)
    home = tmp_path / "home"
    tui.claude_home(home, git_repo)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    code, _, err = bridge("setup", "--sandbox")
    assert code == 0, err
    before = store_files()
    store = paths.autopilot_home() / "durable"
    commands = attempts()
    steps = [tool_use("Bash", {"command": c}) for c in commands]
    steps += [
        tool_use("Bash", {"command": commands[1], "dangerouslyDisableSandbox": True}),
        tool_use("Write", {"file_path": str(store / anchor.FILE), "content": "{}"}),
        tool_use("Edit", {"file_path": str(store / "log.jsonl"), "old_string": "approve", "new_string": "revoke"}),
        tool_use(
            "Write", {"file_path": str(git_repo / "autopilot-checkpoint.json"), "content": json.dumps(CHECKPOINT)}
        ),
        tool_use("Bash", {"command": UNDO}),
        text("SANDBOX-DONE"),
    ]
    configured = settings_files()
    with MessagesServer(steps) as server:
        env = {**claude_env(home, server), "ANTHROPIC_API_KEY": "sk-test"}
        argv = [str(agent_bin("claude")), *tui.plugin_args(), "--permission-mode", "default"]
        argv += ["--allowedTools", "Bash Write Edit"]
        with tui.session(argv, git_repo, env, tmp_path) as screen:
            screen.wait_for(tui.claude_ready, 90, "Claude Code's TUI")
            screen.send("Tidy up the approvals for me.")
            screen.wait_for(lambda s: "SANDBOX-DONE" in s, 240, "the end of the turn")
        results = [r for r in tool_results(server.main_requests()[-1])]
    assert len(results) == len(steps) - 1, results
    for result in results[:6]:
        assert "Read-only file system" in result and not any(f"{w}=0" in result for w in ("append", "remove")), result
    assert all("denied by your permission settings" in r for r in results[6:8]), results[6:8]
    assert "undo=0" not in results[-1] and settings_files() == configured  # its own uninstall undoes nothing
    unchanged_and_delivered(before, rid, bridge, git_repo)
    memory = json.dumps(
        [
            json.loads(line)
            for p in (paths.autopilot_home() / "handoff").rglob("checkpoints.jsonl")
            for line in p.read_text().splitlines()
        ]
    )
    assert "SANDBOX-OBJECTIVE-34" in memory


def outputs(requests: list[dict]) -> list[str]:
    """Every function_call_output Codex sent back, in order."""
    found = []
    for body in requests:
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found.append(str(item.get("output")))
    return list(dict.fromkeys(found))


def test_codex_exec_cannot_touch_the_store(codex_server, git_repo, bridge):
    """`codex exec` under the config setup wrote (workspace-write): every attempt fails, nothing changes; a checkpoint
    added with apply_patch through the skill's path is recorded by the thread's own memory hook."""
    rid = approved(RULE, git_repo)
    code, _, err = bridge("install", "codex", "--trust")
    assert code == 0, err
    code, _, err = bridge("setup", "--sandbox")
    assert code == 0, err
    person_was_here(bridge, git_repo)
    before = store_files()
    commands = attempts()
    patch = f"*** Begin Patch\n*** Add File: autopilot-checkpoint.json\n+{json.dumps(CHECKPOINT)}\n*** End Patch\n"
    codex_server.push(
        *[tool_call("exec_command", {"cmd": c}, call_id=f"call_{n}") for n, c in enumerate(commands)],
        custom_tool_call("apply_patch", patch, call_id="call_checkpoint"),
        tool_call("exec_command", {"cmd": UNDO}, call_id="call_undo"),
        reply_text("SANDBOX-DONE"),
    )
    configured = settings_files()
    codex_exec(git_repo, "Tidy up the approvals for me.")
    said = outputs(codex_server.requests)
    assert all("Read-only file system" in s for s in said[: len(commands)]), said
    assert "undo=0" not in said[-1] and settings_files() == configured  # its own uninstall undoes nothing
    unchanged_and_delivered(before, rid, bridge, git_repo)
    memory = " ".join(p.read_text() for p in (paths.autopilot_home() / "handoff").rglob("checkpoints.jsonl"))
    assert "SANDBOX-OBJECTIVE-34" in memory


def test_codexs_tui_cannot_touch_the_store(git_repo, tmp_path, bridge):
    """Codex's TUI under the same config: its shell's attempts fail, nothing changes."""
    rid = approved(RULE, git_repo)
    commands = attempts()

    def turn(body: dict) -> dict:  # the TUI asks side questions too: the turn's step is told by its outputs so far
        asked = json.dumps(body.get("input"))
        if "Tidy up the approvals" not in asked or "Do not answer the request" in asked:  # (the thread's title)
            return reply_text("ok")
        done = sum(
            1 for i in body.get("input") or [] if isinstance(i, dict) and i.get("type") == "function_call_output"
        )
        if done < len(commands):
            return tool_call("exec_command", {"cmd": commands[done]}, call_id=f"call_{done}")
        return reply_text("SANDBOX-DONE")

    with ResponsesServer(responder=turn) as server:
        env = tui.installed_codex(bridge, git_repo, tmp_path, server.url)
        code, _, err = bridge("setup", "--sandbox")
        assert code == 0, err
        person_was_here(bridge, git_repo)
        before = store_files()
        with tui.session([str(agent_bin("codex")), *tui.codex_tui_flags()], git_repo, env, tmp_path) as screen:
            screen.wait_for(lambda s: "OpenAI Codex (v" in s and "\n› " in s, 90, "Codex's prompt")
            time.sleep(1)
            screen.send("Tidy up the approvals for me.")
            screen.wait_for(lambda s: "SANDBOX-DONE" in s, 240, "the end of the turn")
        said = outputs(server.requests)
    assert len(said) == len(commands) and all("Read-only file system" in s for s in said), said
    unchanged_and_delivered(before, rid, bridge, git_repo)
    assert secret.path().exists() and Reader().view()["rules"][rid]["status"] == "approved"
