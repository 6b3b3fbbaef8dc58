"""`codex-bridge install codex`: hooks.json and the skills together, idempotent both ways, and the hook's trust."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from autopilot import paths
from tests.support.codex_home import hooks_json

UNRELATED = {
    "description": "my hooks",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "~/bin/log-prompt", "statusMessage": "log"}]}],
    },
}


def home() -> Path:
    """The test's CODEX_HOME."""
    return paths.codex_home()


def hook_command() -> str:
    """The command install puts in hooks.json."""
    return shlex.quote(str(home() / "skills" / "handoff" / "scripts" / "handoff-hook"))


def memory_command() -> str:
    """The command install puts in hooks.json for the active memory's events."""
    return shlex.quote(str(home() / "skills" / "handoff" / "scripts" / "memory-hook"))


def memory_group(event: str) -> dict:
    """The group install adds to ``event`` for the active memory."""
    return {"hooks": [{"type": "command", "command": memory_command(), "timeout": 3 if event == "SessionEnd" else 10}]}


def install(bridge, *flags: str) -> dict:
    """Run `install codex` in-process and return its JSON summary (asserting success)."""
    code, out, err = bridge("install", "codex", *flags)
    assert code == 0, err
    return json.loads(out)


def backups() -> list[Path]:
    """hooks.json backups in CODEX_HOME."""
    return sorted(home().glob("hooks.json.codex-autopilot-*.bak"))


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` with its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# --- hooks.json ----------------------------------------------------------------------------------------------


def test_install_twice_changes_nothing(bridge):
    """A second install reports no change, writes no backup and leaves every file byte-identical."""
    hooks_json(UNRELATED)
    install(bridge)
    before = snapshot(home())
    summary = install(bridge)
    assert summary["changed"] is False and summary["hook"]["backup"] is None
    assert snapshot(home()) == before


def test_uninstall_twice_changes_nothing(bridge):
    """A second uninstall finds nothing of ours and reports no change."""
    hooks_json(UNRELATED)
    install(bridge)
    install(bridge, "--uninstall")
    assert install(bridge, "--uninstall")["changed"] is False


# --- skills --------------------------------------------------------------------------------------------------


# --- what the user is told ----------------------------------------------------------------------------------


def test_install_says_the_hook_must_be_trusted(bridge):
    """Without --trust, stderr says Codex runs the hook only once it is trusted, via /hooks."""
    code, _, err = bridge("install", "codex")
    assert code == 0 and "/hooks" in err and "trust" in err and "$handoff" in err


def test_install_summary_reports_the_trust_state(bridge):
    """The JSON summary names the trust key, the hash and the status (untrusted until trusted)."""
    summary = install(bridge)
    assert summary["trust"]["status"] == "untrusted"
    assert summary["trust"]["key"] == f"{os.path.realpath(home())}/hooks.json:user_prompt_submit:0:0"
    assert summary["trust"]["hash"].startswith("sha256:")


def test_only_codex_is_a_target(bridge):
    """Any other agent name is a usage error."""
    assert bridge("install", "claude")[0] == 2
