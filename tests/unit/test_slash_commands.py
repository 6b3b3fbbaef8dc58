"""Every slash command a user is told to type exists as typed: a skill of this plugin, or Claude Code's own.

Claude Code gives a plugin's skills their bare name (`/autopilot`) and the namespaced one
(`/codex-autopilot:autopilot`); a plugin's commands get only the namespaced one. So every command the
plugin names must be a skill, user-invocable, and listed in `autopilot/__init__.py`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import autopilot as slash
from tests.support.repo import REPO

# Claude Code's own commands the docs and messages may tell users to type.
BUILTIN = {"clear", "compact", "hooks", "plugin", "rename", "model", "resume", "status", "statusline", "exit"}
# Typed exactly, the $handoff trigger's slash spellings are caught by the UserPromptSubmit hook (skills/handoff).
COMMAND = re.compile(
    r"(?:^|(?<=[\s`'\"(]))/([a-z][a-z0-9]*(?:-[a-z0-9]+)*(?::[a-z][a-z0-9]*(?:-[a-z0-9]+)*)?)"
    r"(?=$|[\s`'\",;)!?]|\.(?!\w)|:(?![<\w]))",
    re.M,
)


def user_facing_files() -> list[Path]:
    """Everything users read or are shown: README, changelog, docs, skills, agents, scripts, messages."""
    found = [REPO / "README.md", REPO / "CHANGELOG.md", REPO / "scripts" / "slash"]
    found += [p for p in (REPO / "docs").glob("*.md") if p.name != "BENCHMARKS.md"]
    found += [*REPO.glob("skills/*/SKILL.md"), *REPO.glob("agents/*.md")]
    package = REPO / "src" / "autopilot"
    # every message the package can print or show (the dashboard's page included), not only the adapters'
    found += [p for p in package.rglob("*") if p.is_file() and p.suffix in (".py", ".html", ".js", ".md", "")]
    return [p for p in found if "__pycache__" not in p.parts]


# Slash-led words in the package's code that are URL, schema or filesystem paths, never shown as commands.
NOT_COMMANDS = {"evidence", "models", "responses", "nonexistent", "etc", "proc", "tmp"}


def named_commands() -> dict[str, set[str]]:
    """Every slash command named in a user-facing file, with where."""
    found: dict[str, set[str]] = {}
    for path in user_facing_files():
        for match in COMMAND.finditer(path.read_text(encoding="utf-8", errors="replace")):
            found.setdefault(match.group(1), set()).add(str(path.relative_to(REPO)))
    return found


def skills() -> dict[str, dict[str, str]]:
    """The plugin's skills, by name, with their frontmatter."""
    out = {}
    for path in REPO.glob("skills/*/SKILL.md"):
        head = path.read_text().split("---\n")[1]
        front = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line and not line.startswith(" "))
        out[front.get("name", path.parent.name)] = front
    return out


def test_the_scan_finds_commands():
    """The scan is not vacuous: it finds the README's start command and a namespaced form."""
    found = named_commands()
    assert "README.md" in found["autopilot"] and "codex-autopilot:from-codex" in found


@pytest.mark.parametrize("command", sorted(named_commands()))
def test_every_named_command_exists_as_typed(command):
    """A command users are told to type is a user-invocable skill of this plugin (bare or namespaced) or a built-in."""
    plugin, _, name = command.rpartition(":")
    if not plugin and (name in BUILTIN or name in NOT_COMMANDS):
        return
    assert plugin in ("", slash.PLUGIN), f"/{command} names another plugin"
    defined = skills()
    assert name in defined, f"/{command} is named in {sorted(named_commands()[command])} but no skill defines it"
    assert defined[name].get("user-invocable") != "false", f"/{command} is not user-invocable"
    assert name in slash.SKILLS or name == "handoff", f"/{command} is missing from autopilot/__init__.py"


def test_every_listed_command_is_a_skill_with_its_folders_name():
    """autopilot/__init__.py lists skills that exist, each named after its folder (the bare command is that name)."""
    defined = skills()
    for name in slash.SKILLS:
        assert name in defined and (REPO / "skills" / name / "SKILL.md").exists()
    for constant in (slash.START, slash.RESUME, slash.PLAN, slash.REVIEW, slash.STATUS, slash.STOP, slash.FROM_CODEX):
        assert constant.split()[0].lstrip("/") in slash.SKILLS


def test_there_are_no_plugin_commands_left():
    """A command file would answer only to its namespaced name and split a same-named skill: there are none."""
    assert not (REPO / "commands").exists()


def test_rarely_typed_skills_do_not_compete_for_the_main_commands_prefix():
    """autopilot-state is for the model: hidden from the slash menu, so `/autopilot` completes to the command."""
    assert skills()["autopilot-state"]["user-invocable"] == "false"


def test_commands_that_act_are_for_people_only():
    """Starting, planning, reviewing and stopping spend money or change the run: the model never invokes them."""
    defined = skills()
    for name in ("autopilot", "codex-plan", "codex-review", "codex-stop", "codex-status"):
        assert defined[name]["disable-model-invocation"] == "true"
