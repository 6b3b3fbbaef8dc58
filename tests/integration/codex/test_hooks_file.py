"""Codex's hooks.json as `install codex` changes it: our hook merged in and out exactly; backups, refusals, links."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from autopilot.codex import hooks_file
from autopilot.errors import BridgeError
from tests.integration.codex.test_install import UNRELATED, backups, home, hook_command, install, memory_group
from tests.support.codex_home import hooks_json, load_json


def test_install_creates_hooks_json_in_the_format_codex_reads(bridge):
    """With no hooks.json, install writes one with a top-level "hooks" key and the command handler."""
    install(bridge)
    ours = {"hooks": [{"type": "command", "command": hook_command(), "timeout": 10}]}
    assert load_json(home() / "hooks.json") == {
        "hooks": {
            "UserPromptSubmit": [ours, memory_group("UserPromptSubmit")],
            **{e: [memory_group(e)] for e in hooks_file.MEMORY_EVENTS if e != "UserPromptSubmit"},
        }
    }


def test_install_appends_after_unrelated_hooks(bridge):
    """Unrelated hooks, the description and their order stay exactly as they were; ours comes last."""
    hooks_json(UNRELATED)
    summary = install(bridge)
    doc = load_json(home() / "hooks.json")
    assert doc["description"] == "my hooks"
    assert doc["hooks"]["Stop"] == [*UNRELATED["hooks"]["Stop"], memory_group("Stop")]
    assert doc["hooks"]["UserPromptSubmit"] == [
        *UNRELATED["hooks"]["UserPromptSubmit"],
        {"hooks": [{"type": "command", "command": hook_command(), "timeout": 10}]},
        memory_group("UserPromptSubmit"),
    ]
    assert summary["hook"]["position"] == [1, 0]
    assert summary["memory"]["events"]["UserPromptSubmit"]["position"] == [2, 0]
    assert summary["memory"]["events"]["Stop"]["key"].endswith("hooks.json:stop:1:0")


def test_install_backs_up_hooks_json_before_changing_it(bridge):
    """The previous hooks.json is copied aside, byte for byte, and the summary names the copy."""
    original = hooks_json(UNRELATED).read_bytes()
    summary = install(bridge)
    assert [str(p) for p in backups()] == [summary["hook"]["backup"]]
    assert backups()[0].read_bytes() == original


def test_uninstall_restores_hooks_json_exactly(bridge):
    """Install then uninstall leaves hooks.json holding exactly what it held before."""
    hooks_json(UNRELATED)
    install(bridge)
    install(bridge, "--uninstall")
    assert load_json(home() / "hooks.json") == UNRELATED


def test_uninstall_removes_a_hooks_json_it_created(bridge):
    """A hooks.json that install created (and nobody added to) is gone after uninstall."""
    install(bridge)
    install(bridge, "--uninstall")
    assert not (home() / "hooks.json").exists()


def test_uninstall_keeps_hooks_added_after_install(bridge):
    """Hooks the user added to a file install created survive uninstall; only ours goes."""
    install(bridge)
    doc = load_json(home() / "hooks.json")
    doc["hooks"]["Stop"] = UNRELATED["hooks"]["Stop"]
    hooks_json(doc)
    install(bridge, "--uninstall")
    assert load_json(home() / "hooks.json") == {"hooks": {"Stop": UNRELATED["hooks"]["Stop"]}}


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        "[1, 2]",
        '{"UserPromptSubmit": []}',
        '{"hooks": []}',
        '{"hooks": {"UserPromptSubmit": {"hooks": []}}}',
    ],
)
def test_unusable_hooks_json_is_refused_and_left_untouched(bridge, text):
    """A hooks.json Codex could not use is refused with its path; nothing is written anywhere."""
    path = home() / "hooks.json"
    path.write_text(text)
    code, out, err = bridge("install", "codex")
    assert (code, out) == (1, "")
    assert str(path) in err and "nothing was changed" in err
    assert path.read_text() == text and not backups() and not (home() / "skills").exists()


def test_corrupt_hooks_json_is_refused_on_uninstall_too(bridge):
    """Uninstall refuses a corrupt hooks.json before removing anything, skills included."""
    install(bridge)
    (home() / "hooks.json").write_text("{oops")
    code, _, err = bridge("install", "codex", "--uninstall")
    assert code == 1 and "hooks.json is not valid JSON" in err
    assert (home() / "skills" / "handoff" / "SKILL.md").exists()


def test_merge_moves_an_older_command_in_place():
    """An earlier install's command is rewritten where it stands, so its position (Codex's trust key) holds."""
    doc = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "old-hook", "timeout": 3}]},
                {"hooks": [{"type": "command", "command": "theirs"}]},
            ]
        }
    }
    new, where = hooks_file.merge(doc, "new-hook", {"old-hook"})
    assert where == (0, 0)
    assert new["hooks"]["UserPromptSubmit"][0]["hooks"] == [hooks_file.handler("new-hook")]
    assert new["hooks"]["UserPromptSubmit"][1] == doc["hooks"]["UserPromptSubmit"][1]


def test_merge_drops_duplicates_of_our_hook():
    """A second copy of our handler is removed; the first keeps its place."""
    ours = hooks_file.handler("ours")
    doc = {"hooks": {"UserPromptSubmit": [{"hooks": [ours]}, {"hooks": [{"command": "theirs"}, dict(ours)]}]}}
    new, where = hooks_file.merge(doc, "ours")
    assert where == (0, 0)
    assert new == {"hooks": {"UserPromptSubmit": [{"hooks": [ours]}, {"hooks": [{"command": "theirs"}]}]}}


def test_unmerge_keeps_an_event_list_that_held_nothing_of_ours():
    """An empty UserPromptSubmit list the user wrote is left as it is."""
    doc = {"hooks": {"UserPromptSubmit": []}}
    assert hooks_file.unmerge(doc, {"ours"}) == doc


def test_load_refuses_unknown_top_level_keys(tmp_path):
    """A Claude-style file (events at the top level) is refused: Codex ignores the whole file."""
    path = tmp_path / "hooks.json"
    path.write_text(json.dumps({"UserPromptSubmit": []}))
    with pytest.raises(BridgeError, match="top-level keys Codex does not read"):
        hooks_file.load(path)


def test_rewritten_hooks_json_keeps_its_permissions(bridge):
    """The merged hooks.json keeps the mode the user's file had (the atomic write does not leave it 0600)."""
    os.chmod(hooks_json(UNRELATED), 0o640)
    install(bridge)
    assert stat.S_IMODE(os.stat(home() / "hooks.json").st_mode) == 0o640


def dotfile_link(tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    """``$CODEX_HOME/<name>`` as a relative symlink to a file in a dotfiles folder holding ``text``; (link, target)."""
    target = tmp_path / "dotfiles" / "codex" / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    link = home() / name
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(os.path.relpath(target, link.parent))
    return link, target


def test_install_writes_through_a_symlinked_hooks_json(bridge, tmp_path):
    """A symlinked hooks.json stays a link: its target gets the hook, and the backup holds the target's old text."""
    before = json.dumps(UNRELATED, indent=2) + "\n"
    link, target = dotfile_link(tmp_path, "hooks.json", before)
    summary = install(bridge)
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert load_json(target)["hooks"]["UserPromptSubmit"][-2] == {
        "hooks": [{"type": "command", "command": hook_command(), "timeout": 10}]
    }
    assert Path(summary["hook"]["backup"]).read_text() == before and not Path(summary["hook"]["backup"]).is_symlink()


def test_uninstall_keeps_a_symlinked_hooks_json(bridge, tmp_path):
    """Uninstall never unlinks a symlinked hooks.json install created: the target is emptied of the hook instead."""
    install(bridge)
    created = (home() / "hooks.json").read_text()
    (home() / "hooks.json").unlink()
    link, target = dotfile_link(tmp_path, "hooks.json", created)
    code, _, err = bridge("install", "codex", "--uninstall")
    assert code == 0, err
    assert link.is_symlink() and load_json(target) == {"hooks": {}}
