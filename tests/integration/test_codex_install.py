"""`codex-bridge install codex`: the hooks.json merge, the skills it owns, and --uninstall taking out exactly that."""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest

import autopilot
from autopilot import paths
from autopilot.codex import hooks_file
from autopilot.errors import BridgeError
from tests.support.codex_home import hooks_json, load_json

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


def test_install_twice_changes_nothing(bridge):
    """A second install reports no change, writes no backup and leaves every file byte-identical."""
    hooks_json(UNRELATED)
    install(bridge)
    before = snapshot(home())
    summary = install(bridge)
    assert summary["changed"] is False and summary["hook"]["backup"] is None
    assert snapshot(home()) == before


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


def test_uninstall_twice_changes_nothing(bridge):
    """A second uninstall finds nothing of ours and reports no change."""
    hooks_json(UNRELATED)
    install(bridge)
    install(bridge, "--uninstall")
    assert install(bridge, "--uninstall")["changed"] is False


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


# --- skills --------------------------------------------------------------------------------------------------


def test_install_writes_the_skills_with_their_files(bridge):
    """Each skill gets SKILL.md, agents/openai.yaml, its scripts and an ownership marker."""
    install(bridge)
    assert sorted(snapshot(home() / "skills")) == [
        "checkpoint/.codex-autopilot.json",
        "checkpoint/SKILL.md",
        "checkpoint/agents/openai.yaml",
        "from-claude/.codex-autopilot.json",
        "from-claude/SKILL.md",
        "from-claude/agents/openai.yaml",
        "from-claude/scripts/from-claude",
        "from-claude/scripts/from_claude.py",
        "from-claude/scripts/installed.json",
        "handoff-import/.codex-autopilot.json",
        "handoff-import/SKILL.md",
        "handoff-import/agents/openai.yaml",
        "handoff/.codex-autopilot.json",
        "handoff/SKILL.md",
        "handoff/agents/openai.yaml",
        "handoff/scripts/handoff-hook",
        "handoff/scripts/handoff_hook.py",
        "handoff/scripts/installed.json",
        "handoff/scripts/memory-hook",
        "handoff/scripts/memory_hook.py",
    ]


def test_handoff_skill_is_not_implicit():
    """The handoff skill's agents/openai.yaml turns implicit invocation off (Codex's policy key)."""
    import yaml

    from autopilot.codex.install import ASSETS

    policy = yaml.safe_load((ASSETS / "handoff" / "agents" / "openai.yaml").read_text())["policy"]
    assert policy == {"allow_implicit_invocation": False}


def test_skill_names_match_their_directories():
    """Each SKILL.md's front matter names the directory it is installed as."""
    import yaml

    from autopilot.codex.install import ASSETS, SKILLS

    for name in SKILLS:
        front = (ASSETS / name / "SKILL.md").read_text().split("---")[1]
        assert yaml.safe_load(front)["name"] == name


def test_scripts_are_executable(bridge):
    """The launchers and scripts install writes are executable; the rest are not."""
    install(bridge)
    modes = {
        rel: os.stat(home() / "skills" / rel).st_mode & 0o777
        for rel in ("handoff/scripts/handoff-hook", "from-claude/scripts/from-claude", "handoff/SKILL.md")
    }
    assert modes == {
        "handoff/scripts/handoff-hook": 0o755,
        "from-claude/scripts/from-claude": 0o755,
        "handoff/SKILL.md": 0o644,
    }


def test_launcher_records_the_installing_python(bridge):
    """The hook's launcher runs the Python that ran the installer, falling back to python3."""
    install(bridge)
    text = (home() / "skills" / "handoff" / "scripts" / "handoff-hook").read_text()
    recorded = json.loads((home() / "skills" / "handoff" / "scripts" / "installed.json").read_text())
    assert recorded["python"] == sys.executable and "py=python3\n" in text  # the wrapper reads it (else python3)


def test_from_claude_records_the_installing_bridge(bridge):
    """installed.json names the Python (and codex-bridge beside it) and the package of the installation that ran it."""
    install(bridge)
    recorded = load_json(home() / "skills" / "from-claude" / "scripts" / "installed.json")
    beside = Path(sys.executable).parent / "codex-bridge"
    package = str(Path(autopilot.__file__).resolve().parent.parent)
    assert recorded == {
        "python": sys.executable,
        "bridge": str(beside) if beside.exists() else None,
        "package": package,
    }


def test_from_claude_skill_names_its_launcher_by_absolute_path(bridge):
    """The installed SKILL.md tells Codex the exact command to run, with no placeholder left."""
    install(bridge)
    text = (home() / "skills" / "from-claude" / "SKILL.md").read_text()
    launcher = home() / "skills" / "from-claude" / "scripts" / "from-claude"
    assert shlex.quote(str(launcher)) in text and "{{" not in text


def test_a_users_own_skill_of_the_same_name_is_refused(bridge):
    """An existing skills/handoff without our marker is never overwritten; nothing else changes either."""
    mine = home() / "skills" / "handoff"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: handoff\ndescription: mine\n---\n")
    code, out, err = bridge("install", "codex")
    assert code == 1 and "not codex-autopilot's" in err and str(mine) in err
    assert (mine / "SKILL.md").read_text().endswith("mine\n---\n")
    assert not (home() / "skills" / "from-claude").exists() and not (home() / "hooks.json").exists()


def test_a_symlinked_skill_directory_is_refused(bridge, tmp_path):
    """A skills/from-claude that is a link (to anything) is not ours and is refused."""
    (tmp_path / "elsewhere").mkdir()
    (home() / "skills").mkdir()
    (home() / "skills" / "from-claude").symlink_to(tmp_path / "elsewhere")
    code, _, err = bridge("install", "codex")
    assert code == 1 and "from-claude exists and is not a codex-autopilot skill directory" in err


def test_a_file_edited_since_install_is_refused(bridge):
    """Reinstalling over a file the user changed refuses and keeps the user's text."""
    install(bridge)
    edited = home() / "skills" / "handoff" / "SKILL.md"
    edited.write_text("my notes\n")
    code, _, err = bridge("install", "codex")
    assert code == 1 and "was changed since codex-autopilot installed it" in err
    assert edited.read_text() == "my notes\n"


def test_reinstall_restores_a_deleted_file(bridge):
    """A file of ours that went missing is written again on the next install."""
    install(bridge)
    (home() / "skills" / "from-claude" / "scripts" / "from_claude.py").unlink()
    summary = install(bridge)
    assert summary["skills"]["from-claude"]["changed"] == ["scripts/from_claude.py"]


def test_reinstall_removes_a_file_an_older_version_owned(bridge):
    """A file the marker lists but this version no longer ships is removed when unchanged."""
    install(bridge)
    folder = home() / "skills" / "handoff"
    marker = load_json(folder / ".codex-autopilot.json")
    (folder / "old.txt").write_text("old\n")
    from autopilot.codex.skills import _digest

    marker["files"]["old.txt"] = _digest(b"old\n")
    (folder / ".codex-autopilot.json").write_text(json.dumps(marker))
    install(bridge)
    assert not (folder / "old.txt").exists()


def test_uninstall_removes_only_what_install_wrote(bridge):
    """Uninstall deletes our files and the directories they leave empty; a user's extra file stays."""
    install(bridge)
    extra = home() / "skills" / "from-claude" / "notes.md"
    extra.write_text("keep me\n")
    install(bridge, "--uninstall")
    assert not (home() / "skills" / "handoff").exists()
    assert snapshot(home() / "skills") == {"from-claude/notes.md": b"keep me\n"}


def test_uninstall_keeps_a_file_edited_since_install(bridge):
    """A file of ours that the user edited stays, and uninstall says so."""
    install(bridge)
    edited = home() / "skills" / "from-claude" / "SKILL.md"
    edited.write_text("edited\n")
    code, out, err = bridge("install", "codex", "--uninstall")
    assert code == 0 and json.loads(out)["skills"]["from-claude"]["kept"] == ["SKILL.md"]
    assert edited.read_text() == "edited\n" and "changed since codex-autopilot installed them" in err


def test_uninstall_leaves_a_users_skill_alone(bridge):
    """Uninstall never touches a skill directory of that name without our marker."""
    mine = home() / "skills" / "handoff"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("mine\n")
    code, _, err = bridge("install", "codex", "--uninstall")
    assert code == 0 and (mine / "SKILL.md").read_text() == "mine\n" and "not codex-autopilot's" in err


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
