"""The skills `install codex` owns: written with their files and a marker, never over a user's, taken out exactly."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import autopilot
from tests.integration.codex.test_install import home, install, snapshot
from tests.support.codex_home import load_json


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
    assert f"py={shlex.quote(sys.executable)}\n" in text and '[ -x "$py" ] || py=python3' in text


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
