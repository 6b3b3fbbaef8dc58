"""codex-bridge install codex: the `$handoff` hook, the active memory's hooks and the `handoff` / `from-claude` skills.

The installing is :mod:`autopilot.codex.install`'s; this command checks its arguments, runs it and prints
the JSON summary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.errors import BridgeError
from autopilot.output import emit

if TYPE_CHECKING:
    import argparse


def install(agent: str, *, uninstall: bool = False, trust: bool = False) -> int:
    """Install into (or uninstall from) ``agent``, print a JSON summary and tell the user what is next."""
    from autopilot.codex import install as codex

    if agent != "codex":
        raise BridgeError(
            f"cannot install into {agent!r}; only `codex` is supported (the Claude Code side is the "
            "codex-autopilot plugin)"
        )
    if uninstall and trust:
        raise BridgeError("--trust and --uninstall do not go together; uninstall removes the trust it recorded")
    emit(codex.uninstall() if uninstall else codex.install(trust))
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "install",
        help="install the $handoff hook, the active memory's hooks and the handoff / from-claude skills into Codex",
        description="Merge codex-autopilot's hooks into $CODEX_HOME/hooks.json (backed up first, other hooks "
        "untouched): the $handoff trigger (UserPromptSubmit) and the active memory's recorder (SessionStart, "
        "UserPromptSubmit, PostToolUse, PreCompact, PostCompact, Stop, SessionEnd); and install the handoff and "
        "from-claude skills under $CODEX_HOME/skills. Running it twice changes nothing.",
    )
    p.add_argument("agent", choices=["codex"], help="where to install (the Claude Code side is the plugin itself)")
    p.add_argument("--uninstall", action="store_true", help="remove exactly what install added")
    p.add_argument(
        "--trust",
        action="store_true",
        help="also record in config.toml that Codex may run the hooks (instead of /hooks in Codex)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Install or uninstall; print the JSON summary."""
    return install(args.agent, uninstall=args.uninstall, trust=args.trust)
