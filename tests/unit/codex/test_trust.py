"""Codex hook trust: the key and hash codex 0.171 trusts a hook by, and the config.toml edits that record it."""

from __future__ import annotations

import json
import os

import pytest

from autopilot import paths
from autopilot.codex import trust
from autopilot.errors import BridgeError

tomllib = trust.toml_reader("tests")
KEY = "/home/u/.codex/hooks.json:user_prompt_submit:0:0"
HASH = "sha256:" + "ab" * 32


def config(text: str | None = None):
    """The test's $CODEX_HOME/config.toml, written with ``text`` when given."""
    path = paths.codex_home() / "config.toml"
    if text is not None:
        path.write_text(text)
    return path


def test_hash_matches_what_codex_reported():
    """The hash of a handler equals the currentHash the real codex 0.171 listed for it (hooks/list)."""
    entry = {"type": "command", "command": "python3 /tmp/cxexp/hook.py", "timeout": 10, "statusMessage": "checking"}
    assert trust.hook_hash(entry) == "sha256:ce01b0ae74550e0cd1a6ba5f2285602bf4e6fc67f3a2e4f28f7e22afa0c68130"


def test_hash_defaults_the_timeout_to_600():
    """A handler without a timeout hashes like one with Codex's default of 600 seconds."""
    assert trust.hook_hash({"command": "x"}) == trust.hook_hash({"command": "x", "timeout": 600})


def test_hash_changes_with_the_command():
    """Any change to the command makes a different hash (Codex then shows the hook as modified)."""
    assert trust.hook_hash({"command": "a", "timeout": 10}) != trust.hook_hash({"command": "b", "timeout": 10})


def test_key_uses_the_resolved_hooks_file(tmp_path):
    """The key names hooks.json through symlinks resolved, as Codex canonicalises CODEX_HOME."""
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    key = trust.key(tmp_path / "link" / "hooks.json", (2, 1))
    assert key == f"{os.path.realpath(tmp_path / 'real')}/hooks.json:user_prompt_submit:2:1"


def test_record_appends_a_table_and_keeps_the_rest():
    """Recording adds one [hooks.state."<key>"] table after the user's text, which stays byte for byte."""
    before = 'model = "gpt-6.2-sol"\n\n[projects."/repo"]\ntrust_level = "trusted"\n'
    assert trust.record(config(before), KEY, HASH) is True
    assert config().read_text() == before + f'\n[hooks.state."{KEY}"]\ntrusted_hash = "{HASH}"\n'


def test_record_creates_config_toml_when_missing():
    """With no config.toml, recording creates one holding only the trust table."""
    trust.record(config(), KEY, HASH)
    assert tomllib.loads(config().read_text()) == {"hooks": {"state": {KEY: {"trusted_hash": HASH}}}}


def test_record_twice_changes_nothing():
    """A second record of the same trust leaves the file as it is and says so."""
    trust.record(config('model = "m"\n'), KEY, HASH)
    text = config().read_text()
    assert trust.record(config(), KEY, HASH) is False
    assert config().read_text() == text


def test_record_replaces_an_older_hash_in_place():
    """A table that already trusts another hash gets the new one on the same line; its other keys stay."""
    before = f'[hooks.state."{KEY}"]\nenabled = true\ntrusted_hash = "sha256:old"\n\n[other]\nx = 1\n'
    trust.record(config(before), KEY, HASH)
    assert config().read_text() == before.replace("sha256:old", HASH)


def test_record_backs_up_config_toml():
    """config.toml is copied aside before it changes."""
    trust.record(config('model = "m"\n'), KEY, HASH)
    saved = list(paths.codex_home().glob("config.toml.codex-autopilot-*.bak"))
    assert [p.read_text() for p in saved] == ['model = "m"\n']


def test_record_refuses_an_unparsable_config():
    """A config.toml that is not TOML is refused and left untouched."""
    with pytest.raises(BridgeError, match="is not valid TOML"):
        trust.record(config("model = \n"), KEY, HASH)
    assert config().read_text() == "model = \n"


def test_record_refuses_a_form_it_cannot_edit_safely():
    """An inline hooks.state table cannot be extended by a header: refused, file untouched, /hooks suggested."""
    before = '[hooks]\nstate = { "other" = { trusted_hash = "x" } }\n'
    with pytest.raises(BridgeError, match="/hooks"):
        trust.record(config(before), KEY, HASH)
    assert config().read_text() == before


def test_forget_removes_exactly_what_record_added():
    """Record then forget gives back the original text."""
    before = 'model = "m"\n\n[projects."/repo"]\ntrust_level = "trusted"\n'
    trust.record(config(before), KEY, HASH)
    assert trust.forget(config(), KEY, HASH) == "removed"
    assert config().read_text() == before


def test_forget_keeps_a_table_with_other_keys():
    """When the table also holds the user's keys, only our trusted_hash line goes."""
    trust.record(config(f'[hooks.state."{KEY}"]\nenabled = true\n'), KEY, HASH)
    trust.forget(config(), KEY, HASH)
    assert config().read_text() == f'[hooks.state."{KEY}"]\nenabled = true\n'


def test_forget_keeps_a_trust_that_changed_since():
    """A trusted_hash other than the one recorded (re-trusted in /hooks since) is the user's and stays."""
    before = f'[hooks.state."{KEY}"]\ntrusted_hash = "sha256:theirs"\n'
    assert trust.forget(config(before), KEY, HASH) == "kept"
    assert config().read_text() == before


def test_trusted_hash_reads_the_recorded_value():
    """trusted_hash returns what config.toml records for the key, None for another key."""
    trust.record(config(), KEY, HASH)
    assert (trust.trusted_hash(config(), KEY), trust.trusted_hash(config(), "other")) == (HASH, None)


def test_install_trust_records_the_hash_of_the_installed_hook(bridge):
    """`install codex --trust` records, for the hook's key, the hash of the handler it put in hooks.json."""
    code, out, err = bridge("install", "codex", "--trust")
    summary = json.loads(out)
    handler = json.loads((paths.codex_home() / "hooks.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    recorded = tomllib.loads(config().read_text())["hooks"]["state"][summary["trust"]["key"]]["trusted_hash"]
    assert code == 0 and recorded == trust.hook_hash(handler) == summary["trust"]["hash"]
    assert summary["trust"]["status"] == "trusted" and "recorded the trust" in err


def test_install_trust_without_codex_says_it_could_not_confirm(bridge, monkeypatch):
    """With no codex binary to ask, --trust still records and says the hash was not confirmed by Codex."""
    monkeypatch.setenv("PATH", "/nonexistent")
    code, _, err = bridge("install", "codex", "--trust")
    assert code == 0 and "no codex binary was found to confirm it" in err


def test_install_without_trust_reports_an_existing_trust(bridge):
    """A later install without --trust sees the recorded trust and reports the hook as trusted."""
    bridge("install", "codex", "--trust")
    code, out, err = bridge("install", "codex")
    assert code == 0 and json.loads(out)["trust"]["status"] == "trusted" and "already trusted" in err


def test_uninstall_removes_the_recorded_trust(bridge):
    """--uninstall takes the trust table out of config.toml again, leaving the user's settings."""
    config('model = "m"\n')
    bridge("install", "codex", "--trust")
    code, out, _ = bridge("install", "codex", "--uninstall")
    removed = list(json.loads(out)["trust"].values())  # the $handoff hook's trust and the 7 memory hooks'
    assert code == 0 and removed == ["removed"] * 8
    assert config().read_text() == 'model = "m"\n'


def test_trust_and_uninstall_do_not_mix(bridge):
    """--trust with --uninstall is refused before anything happens."""
    code, _, err = bridge("install", "codex", "--uninstall", "--trust")
    assert code == 1 and "do not go together" in err


def test_record_writes_through_a_symlinked_config_toml(tmp_path):
    """A symlinked config.toml stays a link: the trust goes into its target, backed up first."""
    target = tmp_path / "dotfiles" / "config.toml"
    target.parent.mkdir()
    target.write_text('model = "m"\n')
    link = config()
    link.symlink_to(target)
    trust.record(link, KEY, HASH)
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert tomllib.loads(target.read_text())["hooks"]["state"][KEY]["trusted_hash"] == HASH
    saved = list(paths.codex_home().glob("config.toml.codex-autopilot-*.bak"))
    assert [p.read_text() for p in saved] == ['model = "m"\n']


def test_forget_writes_through_a_symlinked_config_toml(tmp_path):
    """Taking the trust out of a symlinked config.toml edits the target and keeps the link."""
    target = tmp_path / "dotfiles" / "config.toml"
    target.parent.mkdir()
    target.write_text('model = "m"\n')
    link = config()
    link.symlink_to(target)
    trust.record(link, KEY, HASH)
    assert trust.forget(link, KEY, HASH) == "removed"
    assert link.is_symlink() and target.read_text() == 'model = "m"\n'
