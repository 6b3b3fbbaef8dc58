"""`codex-bridge setup --sandbox`: both agents' own sandboxes on for the durable store, said, undone by uninstall;
`doctor` says per agent whether its shell can write the store, with the fix."""

from __future__ import annotations

import json
import shutil

from autopilot.knowledge.durable import sandbox

MINE = {
    "model": "opus",
    "sandbox": {"network": {"allowedDomains": ["pypi.org"]}},
    "permissions": {"deny": ["Bash(rm:*)"]},
}
CODEX_MINE = 'model = "gpt-6.2-sol"\n\n[model_providers.fake]\nname = "fake"\nwire_api = "responses"\n'


def run(bridge, *args: str) -> tuple[dict, str]:
    code, out, err = bridge(*args)
    assert code == 0, err
    return json.loads(out), err


def test_setup_turns_both_sandboxes_on_and_says_what_it_wrote(bridge, isolated_homes):
    """Claude Code: sandbox on, no unsandboxed commands, no session without a sandbox, the store denied to the sandbox
    and to the Edit and Write tools; Codex: workspace-write. Both files named on stderr."""
    answer, err = run(bridge, "setup", "--sandbox")
    settings = json.loads((isolated_homes / "claude" / "settings.json").read_text())
    home = isolated_homes / "autopilot"
    assert settings["sandbox"] | {"filesystem": None} == {
        "enabled": True,
        "allowUnsandboxedCommands": False,
        "failIfUnavailable": True,
        "filesystem": None,
    }
    assert str(home / "durable") in settings["sandbox"]["filesystem"]["denyWrite"]
    assert str(home / "handoff" / "active") in settings["sandbox"]["filesystem"]["denyWrite"]
    assert f"Edit(/{home / 'durable'}/**)" in settings["permissions"]["deny"]
    config = (isolated_homes / "codex" / "config.toml").read_text()
    assert 'sandbox_mode = "workspace-write"' in config
    assert "sandboxes on:" in err and str(isolated_homes / "claude" / "settings.json") in err
    assert answer["sandbox"]["protected"][0] == str(home / "durable")


def test_uninstall_puts_back_what_was_there(bridge, isolated_homes):
    """The person's own settings (a model, network domains, a deny rule) and Codex's config come back exactly."""
    claude = isolated_homes / "claude" / "settings.json"
    codex = isolated_homes / "codex" / "config.toml"
    claude.write_text(json.dumps(MINE, indent=2) + "\n")
    codex.write_text(CODEX_MINE)
    run(bridge, "setup", "--sandbox")
    run(bridge, "setup", "--sandbox")  # twice: still one of each, and uninstall still restores the first state
    assert json.loads(claude.read_text())["permissions"]["deny"].count("Bash(rm:*)") == 1
    answer, _ = run(bridge, "setup", "--uninstall")
    assert json.loads(claude.read_text()) == MINE and codex.read_text() == CODEX_MINE
    assert answer["sandbox"]["claude"]["changed"] is True and not sandbox.record_path().exists()


def test_a_sandbox_mode_the_person_chose_is_not_overridden(bridge, isolated_homes):
    """Codex set to danger-full-access: setup --sandbox refuses and changes neither agent's settings."""
    codex = isolated_homes / "codex" / "config.toml"
    codex.write_text('sandbox_mode = "danger-full-access"\n')
    code, _, err = bridge("setup", "--sandbox")
    assert code == 1 and "danger-full-access" in err
    assert codex.read_text() == 'sandbox_mode = "danger-full-access"\n'
    assert not (isolated_homes / "claude" / "settings.json").exists()


def test_codex_is_told_to_leave_a_store_under_tmp_alone(bridge, isolated_homes, monkeypatch, tmp_path):
    """A durable store under /tmp (or $TMPDIR): Codex's workspace-write would write it, so setup excludes them."""
    monkeypatch.setenv("TMPDIR", str(isolated_homes))
    run(bridge, "setup", "--sandbox")
    config = (isolated_homes / "codex" / "config.toml").read_text()
    assert "[sandbox_workspace_write]" in config and "exclude_tmpdir_env_var = true" in config
    assert sandbox.codex_can_write()[0] is False


def checks(bridge) -> dict[str, dict]:
    _, out, _ = bridge("doctor", "--json")
    return {c["name"]: c for c in json.loads(out)["checks"]}


def test_doctor_says_per_agent_whether_it_can_write_the_store(bridge, isolated_homes):
    """Before setup both agents can (a warning with the fix); after it neither can; after uninstall both can again.
    (bubblewrap and socat are installed, as .ci/run installs them: without them Claude Code's check says so.)"""
    assert shutil.which("bwrap") and shutil.which("socat")
    before = checks(bridge)
    assert [before[f"sandbox:{a}"]["status"] for a in ("claude", "codex")] == ["warn", "warn"]
    assert (
        "setup --sandbox" in before["sandbox:claude"]["fix"] and "sandbox is off" in before["sandbox:claude"]["detail"]
    )
    run(bridge, "setup", "--sandbox")
    after = checks(bridge)
    assert [after[f"sandbox:{a}"]["status"] for a in ("claude", "codex")] == ["ok", "ok"]
    run(bridge, "setup", "--uninstall")
    assert checks(bridge)["sandbox:claude"]["status"] == "warn"


def test_doctor_notices_a_deny_rule_taken_out(bridge, isolated_homes):
    """The sandbox on but the Edit deny rule removed by hand: Claude Code's Write tool could write the store."""
    run(bridge, "setup", "--sandbox")
    path = isolated_homes / "claude" / "settings.json"
    settings = json.loads(path.read_text())
    settings["permissions"]["deny"] = []
    path.write_text(json.dumps(settings))
    can, why = sandbox.claude_can_write()
    assert can and "Edit and Write tools may write" in why
