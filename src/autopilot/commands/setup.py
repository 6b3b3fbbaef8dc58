"""codex-bridge setup: set up, in one step, everything outside Claude Code that a plugin user needs.

- **The Codex side** (what ``install codex`` does): the ``$handoff`` hook and the ``handoff`` and
  ``from-claude`` skills in ``$CODEX_HOME``, wired to *this* interpreter. Run from inside Claude Code
  (``/codex-autopilot:setup``) that is the plugin's own venv in ``$CLAUDE_PLUGIN_DATA``, which keeps its
  path when the plugin updates (the plugin rebuilds it in place), so nothing is installed twice.
- **Codex's trust** for the hook, when asked (``--trust``).
- **A shell launcher**, when asked (``--launcher DIR``): a ``codex-bridge`` script in ``DIR`` that runs
  the bridge in that same venv, so ``codex-bridge status``, ``state | jq`` and ``handoff …`` work in the
  user's shell without a second install. Only a file this command wrote is ever replaced or removed.

Running it again changes nothing that is already right; ``--uninstall`` removes all of it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from autopilot import SETUP, plugin
from autopilot.errors import BridgeError
from autopilot.output import emit, say

if TYPE_CHECKING:
    from autopilot.codex.shapes import Installed
    from autopilot.commands.shapes import SetUp, TornDown
    from autopilot.plugin import Launcher


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "setup",
        help="set up the Codex side (hook, skills, trust) and a shell launcher, from the plugin's environment",
        description="Install the $handoff hook and the handoff / from-claude skills into $CODEX_HOME using this "
        "Python environment (inside Claude Code: /codex-autopilot:setup, the plugin's own venv), optionally "
        "record Codex's trust for the hook and a `codex-bridge` launcher for your shell. Safe to run again; "
        "--uninstall removes all of it.",
    )
    p.add_argument("--trust", action="store_true", help="record in Codex's config.toml that it may run the hook")
    p.add_argument(
        "--launcher",
        metavar="DIR",
        help="write a `codex-bridge` launcher into DIR (for example ~/.local/bin; it should be on your PATH)",
    )
    p.add_argument(
        "--statusline",
        action="store_true",
        help="add the run's segment to Claude Code's status line (settings.json is backed up; an existing status "
        "line is kept, with the segment after it)",
    )
    p.add_argument(
        "--sandbox",
        action="store_true",
        help="turn on Claude Code's and Codex's own sandboxes so that no agent's shell or tool can write the durable "
        "store, its anchors or the active memories (settings.json and config.toml: what was there is recorded and "
        "--uninstall puts it back)",
    )
    p.add_argument(
        "--uninstall",
        action="store_true",
        help="remove the Codex side, the launcher and the status line, and put the sandbox settings back",
    )
    p.add_argument("--from-claude", action="store_true", help=argparse.SUPPRESS)  # run by the slash command
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Set up (or undo) the Codex side and the launcher; print a JSON summary, say what is next on stderr."""
    if args.uninstall and (args.trust or args.launcher or args.statusline or args.sandbox):
        raise BridgeError("--uninstall removes everything setup added; it takes no other option")
    how = SETUP if args.from_claude else "codex-bridge setup"
    emit(
        uninstall()
        if args.uninstall
        else setup(trust=args.trust, launcher=args.launcher, statusline=args.statusline, sandbox=args.sandbox, how=how)
    )
    return 0


def setup(
    *,
    trust: bool = False,
    launcher: str | None = None,
    statusline: bool = False,
    sandbox: bool = False,
    how: str = "codex-bridge setup",
) -> SetUp:
    """Install the Codex side (and trust, a launcher, the sandboxes when asked); what was done and what is left."""
    from autopilot.codex.install import install
    from autopilot.knowledge.durable import sandbox as sandboxes

    target = plugin.launcher_dir(launcher) if launcher else None
    if target is not None:
        plugin.check_launcher(target)  # refuse before anything changes
    codex = install(trust)
    result: SetUp = {"action": "setup", "python": sys.executable, "codex": codex, "launcher": None}
    if target is not None:
        result["launcher"] = plugin.write_launcher(target)
    result["statusline"] = plugin.add_statusline() if statusline else None
    result["sandbox"] = sandboxes.turn_on() if sandbox else None
    if result["sandbox"]:
        said = result["sandbox"]
        codex_lines = ", ".join(line for line in said["codex"]["added"] if not line.startswith("#"))
        say(
            f"sandboxes on: {said['claude']['settings']} (sandbox.enabled, allowUnsandboxedCommands false, "
            f"failIfUnavailable, denyWrite and Edit deny rules for {', '.join(said['protected'])}); "
            f"{said['codex']['config']} ({codex_lines or 'already sandboxed'}); --uninstall puts them back"
        )
    steps = result["next"] = _next_steps(codex, result["launcher"], how)
    if not statusline:
        steps.insert(-1, f"To see the run in Claude Code's status line: {how} --statusline")
    if not sandbox and any(row["canWriteStore"] for row in sandboxes.status()):
        steps.insert(
            -1,
            f"Agents' shells can write your durable store (approvals, anchors): {how} --sandbox turns on both "
            "agents' own sandboxes (run it in your own terminal)",
        )
    for line in steps:
        say(line)
    return result


def uninstall() -> TornDown:
    """Remove the Codex side and every launcher this command wrote (where it recorded them, on PATH, ~/.local/bin)."""
    from autopilot.codex.install import uninstall as uninstall_codex
    from autopilot.knowledge.durable.sandbox import turn_off

    removed = plugin.remove_launchers()
    say(f"removed {len(removed)} launcher(s)" + (f": {', '.join(removed)}" if removed else ""))
    return {
        "action": "uninstall",
        "codex": uninstall_codex(),
        "launchersRemoved": removed,
        "statusline": plugin.remove_statusline(),
        "sandbox": turn_off(),
    }


def _next_steps(codex: Installed, launcher: Launcher | None, how: str) -> list[str]:
    steps = []
    if codex["trust"]["status"] != "trusted":
        steps.append(
            f"Codex runs the $handoff hook only once trusted: {how} --trust records it (or type /hooks in "
            "Codex and trust it there)."
        )
    if launcher is None:
        steps.append(
            f"For `codex-bridge` in your own shell: {how} --launcher ~/.local/bin (any directory on your "
            "PATH; nothing else is installed)."
        )
    elif launcher["shadowedBy"]:
        steps.append(
            f"another codex-bridge comes first on PATH ({launcher['shadowedBy']}); {launcher['path']} is not used"
        )
    elif not launcher["onPath"]:
        steps.append(f"{Path(launcher['path']).parent} is not on your PATH: add it to use `codex-bridge` in your shell")
    steps.append("Then type $handoff in Claude Code and $from-claude in Codex (or $handoff there, /from-codex here).")
    return steps
