"""The shapes of what the CLI's own commands print (doctor, setup, search's options), for the type checker.

Modules import these names under ``if TYPE_CHECKING:``. An answer a command shares with the dashboard
is the operation's shape, in the operation's package; these are the commands' own. Keys are
camelCase (the CLI's JSON), except where a command prints another program's settings as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from typing import NotRequired

    from autopilot.codex.shapes import Installed, Uninstalled
    from autopilot.knowledge.durable.shapes import SandboxOn
    from autopilot.plugin import Check, Launcher, StatusLine


class Doctor(TypedDict):
    """``codex-bridge doctor --json``."""

    ok: bool
    version: str
    checks: list[Check]


class SearchDefaults(TypedDict):
    """``handoff search``'s options that have defaults."""

    json: bool
    limit: int
    worktree: str
    since: Any
    agent: str | None
    task: str | None
    archived: bool


class SearchOptions(SearchDefaults):
    """``handoff search``'s options, read without argparse on the fast path."""

    project_dir: str | None


class SearchArgs(SearchOptions):
    """``handoff search``'s command line, read without argparse: its options and the query."""

    query: str


class ReviewArgs(TypedDict):
    """``review``'s command line, read without argparse: the Codex backend, model and effort (None: the run's)."""

    backend: str | None
    model: str | None
    effort: str | None


# -- setup -----------------------------------------------------------------------------------


class SetUp(TypedDict):
    """``codex-bridge setup``."""

    action: str
    python: str
    codex: Installed
    launcher: Launcher | None
    statusline: NotRequired[StatusLine | None]
    sandbox: NotRequired[SandboxOn | None]  # what --sandbox wrote (knowledge/durable/sandbox.py)
    next: NotRequired[list[str]]


class TornDown(TypedDict):
    """``codex-bridge setup --uninstall``."""

    action: str
    codex: Uninstalled
    launchersRemoved: list[str]
    statusline: StatusLine | None
    sandbox: NotRequired[dict[str, object] | None]  # the sandbox settings put back
