"""The shapes of what the CLI's own commands print (doctor, install, setup, search's options), for the type checker.

Modules import these names under ``if TYPE_CHECKING:``. An answer a command shares with the dashboard
is the operation's shape, in the operation's package; these are the commands' own. Keys are
camelCase (the CLI's JSON), except where a command prints another program's settings as they are.
"""

from __future__ import annotations

from typing import Any, TypedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NotRequired


class CheckExtra(TypedDict, total=False):
    """What a doctor check may add: the version found, or the path it looked at."""

    version: str
    path: str


class Check(CheckExtra):
    """One of ``codex-bridge doctor``'s checks, with its fix when it needs one."""

    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None


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


# -- install and setup -----------------------------------------------------------------------


class TrustRecorded(TypedDict):
    """A hook's trust as recorded in Codex's config.toml (and the codex binary that confirmed it, if any)."""

    recorded: bool
    hash: str
    checkedWith: str | None


class HookTrust(TypedDict):
    """The $handoff hook's trust after an install."""

    config: str
    key: str
    hash: str
    recorded: bool
    checkedWith: str | None
    status: NotRequired[str]  # trusted | modified | untrusted


class MemoryHookTrust(TypedDict):
    """One of the active memory's hooks: where it sits in hooks.json and its trust."""

    position: list[int]
    key: str
    hash: str
    status: NotRequired[str | None]


class HookPlaced(TypedDict):
    """Where install put the $handoff hook."""

    file: str
    event: str
    command: str
    position: list[int]
    changed: bool
    backup: str | None


class MemoryHooks(TypedDict):
    """The active memory's recorder and its hooks, by event."""

    command: str
    events: dict[str, MemoryHookTrust]


class SkillInstalled(TypedDict):
    """A skill directory and the files install wrote there."""

    path: str
    changed: list[str]


class Installed(TypedDict):
    """``codex-bridge install codex``."""

    agent: str
    action: str
    codexHome: str
    changed: bool
    hook: HookPlaced
    trust: HookTrust
    memory: MemoryHooks
    skills: dict[str, SkillInstalled]
    python: str
    bridge: str | None


class HookRemoved(TypedDict):
    """What uninstall did to hooks.json."""

    file: str
    changed: bool
    backup: str | None


class SkillRemoved(TypedDict):
    """A skill directory, the files uninstall removed and those it left (edited since)."""

    path: str
    removed: list[str]
    kept: list[str]


class Uninstalled(TypedDict):
    """``codex-bridge install codex --uninstall``."""

    agent: str
    action: str
    codexHome: str
    changed: bool
    hook: HookRemoved
    trust: dict[str, str]  # trust key -> what happened to it
    skills: dict[str, SkillRemoved]


class Launcher(TypedDict):
    """The ``codex-bridge`` launcher setup wrote, and whether PATH finds it."""

    path: str
    python: str
    changed: bool
    onPath: bool
    shadowedBy: str | None


class StatusLine(TypedDict):
    """What setup did to Claude Code's status line (settings.json)."""

    settings: str
    changed: bool
    command: NotRequired[Any]
    backup: NotRequired[str | None]
    why: NotRequired[str]
    restored: NotRequired[Any]  # the status line put back, as settings.json had it


class SetUp(TypedDict):
    """``codex-bridge setup``."""

    action: str
    python: str
    codex: Installed
    launcher: Launcher | None
    statusline: NotRequired[StatusLine | None]
    next: NotRequired[list[str]]


class TornDown(TypedDict):
    """``codex-bridge setup --uninstall``."""

    action: str
    codex: Uninstalled
    launchersRemoved: list[str]
    statusline: StatusLine | None
