"""`codex-bridge install codex`: hooks.json and the skills together, idempotent both ways, and the hook's trust."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from autopilot import paths
from autopilot.codex import install as codex_install
from tests.support.codex_home import hooks_json
from tests.support.second_env import run_in, second_env

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


# --- The Codex side as one setup leaves it: one backup of each user file, and the same files whoever installs them.

USER_CONFIG = 'model = "gpt-6.2-sol"\n\n[profiles.work]\nmodel = "gpt-6.1-sol"\n'
USER_HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine", "timeout": 5}]}]}}


def backups_by_file(codex: Path) -> dict[str, int]:
    """How many backups of each file setup left in $CODEX_HOME."""
    found: dict[str, int] = {}
    for path in codex.glob("*.codex-autopilot-*.bak"):
        name = path.name.split(".codex-autopilot-", 1)[0]
        found[name] = found.get(name, 0) + 1
    return found


def installed(codex: Path) -> dict[str, str]:
    """Every file the Codex side holds, by path, but the environment's record and the markers listing its digest."""
    return {
        str(p.relative_to(codex)): p.read_text()
        for p in sorted((codex / "skills").rglob("*"))
        if p.is_file() and p.name not in ("installed.json", ".codex-autopilot.json") and "__pycache__" not in p.parts
    }


def test_one_setup_with_trust_leaves_one_backup_of_each_user_file(bridge, isolated_homes):
    """`setup --trust` over a user's own config.toml and hooks.json trusts eight hooks but backs each file up once;
    the backup holds the file as the user had it. Uninstalling leaves one more of each."""
    codex = isolated_homes / "codex"
    (codex / "config.toml").write_text(USER_CONFIG)
    (codex / "hooks.json").write_text(json.dumps(USER_HOOKS))
    code, out, err = bridge("setup", "--trust")
    assert code == 0, err
    trusted = json.loads(out)["codex"]["memory"]["events"]
    assert len(trusted) == 7 and (codex / "config.toml").read_text().count("trusted_hash") == 8
    assert backups_by_file(codex) == {"config.toml": 1, "hooks.json": 1}
    saved = next(codex.glob("config.toml.codex-autopilot-*.bak"))
    assert saved.read_text() == USER_CONFIG
    assert bridge("setup", "--trust")[0] == 0  # nothing to change: nothing backed up
    assert backups_by_file(codex) == {"config.toml": 1, "hooks.json": 1}
    assert bridge("setup", "--uninstall")[0] == 0
    assert backups_by_file(codex) == {"config.toml": 2, "hooks.json": 2}
    assert (codex / "config.toml").read_text() == USER_CONFIG


def test_the_installed_files_do_not_depend_on_which_environment_installed_them(bridge, isolated_homes, tmp_path):
    """Setup from the plugin's venv and from a shell install of the same version write the same files; only
    installed.json says which environment runs them."""
    codex = isolated_homes / "codex"
    plugin_python = second_env(tmp_path / "plugin-venv")
    proc = run_in(plugin_python, "setup", "--trust")
    assert proc.returncode == 0, proc.stderr
    from_plugin = installed(codex)
    record = json.loads((codex / "skills" / "handoff" / codex_install.RECORD).read_text())
    assert record["python"] == str(plugin_python)
    assert bridge("setup", "--trust")[0] == 0  # the shell's install (this process)
    assert installed(codex) == from_plugin and len(from_plugin) == 14
    assert json.loads((codex / "skills" / "handoff" / codex_install.RECORD).read_text())["python"] == sys.executable


def test_the_launchers_run_the_python_installed_json_names(bridge, isolated_homes, tmp_path):
    """Each launcher runs its script with the recorded Python, and with python3 when that one is gone."""
    assert bridge("setup")[0] == 0
    scripts = isolated_homes / "codex" / "skills" / "from-claude" / "scripts"
    other = second_env(tmp_path / "other venv")  # a space in the path, as in "Application Support"
    (scripts / "installed.json").write_text(codex_install.record(str(other), None))
    (scripts / "from_claude.py").write_text("import sys\nprint(sys.executable)\n")
    ran = subprocess.run([str(scripts / "from-claude")], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() == str(other)
    (scripts / "installed.json").write_text(codex_install.record(str(tmp_path / "gone" / "python"), None))
    ran = subprocess.run([str(scripts / "from-claude")], capture_output=True, text=True, check=True)
    assert ran.stdout.strip() != str(other) and "python3" in Path(ran.stdout.strip()).name
