"""The plugin's files agree with each other and with Claude Code's conventions."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from autopilot import __version__
from autopilot.hooks import HANDLERS, MEMORY_EVENTS
from tests.support.repo import REPO


def frontmatter(path: Path) -> dict[str, str]:
    text = path.read_text()
    assert text.startswith("---\n"), path
    head = text.split("---\n")[1]
    return dict(line.split(": ", 1) for line in head.splitlines() if ": " in line and not line.startswith(" "))


def test_every_hook_goes_through_the_one_entry_point():
    """Each event's command is the quoted shim with `hook <Event>`, and the dispatch table knows every event."""
    config = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    for event, groups in config.items():
        for group in groups:
            (handler,) = group["hooks"]
            name = "ToolUse" if group.get("matcher") == "*" else event
            assert handler["command"] == f'"${{CLAUDE_PLUGIN_ROOT}}/scripts/bridge" hook {name}'
    assert set(config) == set(HANDLERS) | MEMORY_EVENTS


def test_post_tool_use_reviews_edits_and_notes_every_tool():
    """The editing tools and Bash get a review; every tool (`*`) is noted, since a tool restarts the block count."""
    review, every = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]["PostToolUse"]
    assert review["matcher"] == "Write|Edit|MultiEdit|NotebookEdit|Bash"
    assert every["matcher"] == "*" and every["hooks"][0]["command"].endswith("hook ToolUse")
    assert "statusMessage" not in every["hooks"][0]  # a Read must not flash "Codex reviews the change"


def test_hook_timeouts_fit_the_work():
    """Each hook's budget in the code fits inside its timeout in hooks.json, and fits the work it does."""
    from autopilot.config import DEFAULT_TIMEOUT_S
    from autopilot.hooks import BUDGET_S, HANDLERS, MEMORY_EVENTS
    from autopilot.hooks.context import RECORD_MARGIN_S

    config = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    timeout = {event: groups[0]["hooks"][0]["timeout"] for event, groups in config.items()}
    assert set(BUDGET_S) == set(timeout) == set(HANDLERS) | MEMORY_EVENTS
    assert all(BUDGET_S[event] < timeout[event] for event in timeout)
    # a whole verdict exchange at the default call timeout, then recording it, fits the Stop hook's budget
    assert BUDGET_S["Stop"] >= DEFAULT_TIMEOUT_S + RECORD_MARGIN_S
    # PostToolUse never waits for Codex: its timeout is far under the old 90 s review wait's
    assert timeout["PostToolUse"] <= 30 and timeout["SessionEnd"] <= 2


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


@pytest.mark.parametrize("name", ["autopilot", "codex-plan", "codex-review", "codex-status", "codex-stop", "setup"])
def test_commands_preapprove_only_plugin_scripts(name):
    """A slash command's allowed-tools name only the plugin's own scripts, never Bash in general."""
    tools = frontmatter(REPO / "skills" / name / "SKILL.md")["allowed-tools"]
    assert re.fullmatch(r"Bash\(\$\{CLAUDE_PLUGIN_ROOT\}/scripts/(slash|bridge --plugin-data):\*\)", tools)


@pytest.mark.parametrize("path", sorted(p.name for p in (REPO / "agents").glob("*.md")))
def test_agents_are_named_after_their_file(path):
    """Each subagent's name is its file name (kebab-case), with a description."""
    meta = frontmatter(REPO / "agents" / path)
    assert meta["name"] == path.removesuffix(".md") and meta["description"]


# The hook events Claude Code 2.1.143 (the oldest supported) accepts in a plugin's hooks.json: an unknown
# key makes it refuse the whole file, and `claude plugin validate` does not say so (verified on 2.1.143).
EVENTS_2_1_143 = {
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Notification", "UserPromptSubmit",
    "UserPromptExpansion", "SessionStart", "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
    "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied", "Setup", "TeammateIdle", "TaskCreated",
    "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
    "InstructionsLoaded", "CwdChanged", "FileChanged",
}  # fmt: skip


def test_every_hook_event_is_known_to_the_oldest_supported_claude_code():
    """hooks.json names only events Claude Code 2.1.143 knows, so its hooks load there too."""
    config = json.loads((REPO / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(config) <= EVENTS_2_1_143
