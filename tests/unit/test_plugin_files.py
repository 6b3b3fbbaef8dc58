"""The plugin's files agree with each other and with Claude Code's conventions."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from autopilot import __version__
from autopilot.hooks import HANDLERS, MEMORY_EVENTS

REPO = Path(__file__).resolve().parents[2]


def frontmatter(path: Path) -> dict[str, str]:
    text = path.read_text()
    assert text.startswith("---\n"), path
    head = text.split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.splitlines() if ": " in line and not line.startswith(" "))


def test_every_hook_goes_through_the_one_entry_point():
    """Each event's command is the quoted shim with `hook <Event>`, and the dispatch table knows every event."""
    config = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    for event, groups in config.items():
        (group,) = groups
        (handler,) = group["hooks"]
        assert handler["command"] == f'"${{CLAUDE_PLUGIN_ROOT}}/scripts/bridge" hook {event}'
    assert set(config) == set(HANDLERS) | MEMORY_EVENTS


def test_post_tool_use_matches_the_editing_tools():
    """PostToolUse fires for the file-editing tools and Bash only."""
    (group,) = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]["PostToolUse"]
    assert group["matcher"] == "Write|Edit|MultiEdit|NotebookEdit|Bash"


def test_hook_timeouts_fit_the_work():
    """Stop outlasts a verdict with its corrective retry; PostToolUse outlasts the review wait; SessionEnd is short."""
    from autopilot.config import DEFAULT_TIMEOUT_S
    from autopilot.hooks.review import DEFAULT_WAIT_S

    config = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    timeout = {event: groups[0]["hooks"][0]["timeout"] for event, groups in config.items()}
    # a verdict may take two calls (one corrective retry), plus the git snapshot and the imports
    assert timeout["Stop"] >= 2 * DEFAULT_TIMEOUT_S + 60
    assert timeout["PostToolUse"] > DEFAULT_WAIT_S and timeout["SessionEnd"] <= 2


def test_versions_agree():
    """plugin.json, marketplace.json, pyproject.toml and the package carry one version."""
    plugin = json.loads((REPO / ".claude-plugin" / "plugin.json").read_text())
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    project = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    (entry,) = market["plugins"]
    assert plugin["version"] == entry["version"] == project.group(1) == __version__
    assert plugin["name"] == entry["name"] == "codex-autopilot" and entry["source"] == "./"


def test_no_package_json_at_the_root():
    """A package.json at the plugin root would make Claude Code npm-install it; the test agents live in tests/."""
    assert not (REPO / "package.json").exists() and (REPO / "tests" / "agents" / "package.json").exists()


@pytest.mark.parametrize("path", ["scripts/bridge", "scripts/slash", "skills/from-codex/scripts/from-codex"])
def test_scripts_are_executable(path):
    """Everything a hook, command or skill runs directly has its executable bit."""
    assert os.access(REPO / path, os.X_OK)


def test_handoff_skill_is_for_people_only():
    """The canonical handoff skill cannot be invoked by the model."""
    assert frontmatter(REPO / "skills" / "handoff" / "SKILL.md")["disable-model-invocation"] == "true"


@pytest.mark.parametrize("path", sorted(p.name for p in (REPO / "commands").glob("*.md")))
def test_commands_preapprove_only_plugin_scripts(path):
    """A command's allowed-tools name only the plugin's own scripts, never Bash in general."""
    tools = frontmatter(REPO / "commands" / path)["allowed-tools"]
    assert re.fullmatch(r"Bash\(\$\{CLAUDE_PLUGIN_ROOT\}/scripts/(slash:\*|bridge (review|status))\)", tools)


@pytest.mark.parametrize("path", sorted(p.name for p in (REPO / "agents").glob("*.md")))
def test_agents_are_named_after_their_file(path):
    """Each subagent's name is its file name (kebab-case), with a description."""
    meta = frontmatter(REPO / "agents" / path)
    assert meta["name"] == path.removesuffix(".md") and meta["description"]
