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
import json
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

from autopilot import clock, paths
from autopilot.errors import BridgeError
from autopilot.hooks import slash
from autopilot.output import emit, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from autopilot.commands.shapes import Installed, Launcher, SetUp, StatusLine, TornDown

LAUNCHER_NAME = "codex-bridge"
LAUNCHER_MARK = "# codex-autopilot launcher: written by `codex-bridge setup --launcher`"
SETUP_COMMAND = slash.namespaced("setup")


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
    p.add_argument("--uninstall", action="store_true", help="remove the Codex side, the launcher and the status line")
    p.add_argument("--from-claude", action="store_true", help=argparse.SUPPRESS)  # run by the slash command
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Set up (or undo) the Codex side and the launcher; print a JSON summary, say what is next on stderr."""
    if args.uninstall and (args.trust or args.launcher or args.statusline):
        raise BridgeError("--uninstall removes everything setup added; it takes no other option")
    how = SETUP_COMMAND if args.from_claude else "codex-bridge setup"
    emit(
        uninstall()
        if args.uninstall
        else setup(trust=args.trust, launcher=args.launcher, statusline=args.statusline, how=how)
    )
    return 0


def setup(
    *, trust: bool = False, launcher: str | None = None, statusline: bool = False, how: str = "codex-bridge setup"
) -> SetUp:
    """Install the Codex side (and trust, and a launcher when asked); what was done and what is left."""
    from autopilot.commands.install import _install

    target = _launcher_dir(launcher) if launcher else None
    if target is not None:
        _check_launcher(target)  # refuse before anything changes
    codex = _install(trust)
    result: SetUp = {"action": "setup", "python": sys.executable, "codex": codex, "launcher": None}
    if target is not None:
        result["launcher"] = _write_launcher(target)
    result["statusline"] = add_statusline() if statusline else None
    steps = result["next"] = _next_steps(codex, result["launcher"], how)
    if not statusline:
        steps.insert(-1, f"To see the run in Claude Code's status line: {how} --statusline")
    for line in steps:
        say(line)
    return result


def uninstall() -> TornDown:
    """Remove the Codex side and every launcher this command wrote (where it recorded them, on PATH, ~/.local/bin)."""
    from autopilot.commands.install import _uninstall

    removed = []
    recorded = [Path(p).parent for p in _recorded_launchers()]
    for folder in dict.fromkeys([*recorded, *_launcher_candidates()]):
        path = folder / LAUNCHER_NAME
        if _is_ours(path):
            path.unlink()
            removed.append(str(path))
    _launcher_record().unlink(missing_ok=True)
    say(f"removed {len(removed)} launcher(s)" + (f": {', '.join(removed)}" if removed else ""))
    return {
        "action": "uninstall",
        "codex": _uninstall(),
        "launchersRemoved": removed,
        "statusline": remove_statusline(),
    }


# How a launcher runs the bridge: `-c`, not `-m autopilot` (runpy costs ~4 ms a call; the status line runs on
# every render, bench/bench_statusline.py).
RUN_BRIDGE = "-c 'from autopilot.cli import entry; entry()'"
STATUSLINE_MARK = "statusline"  # the word our status-line command ends with (before any --with)


def _settings() -> Path:
    return paths.claude_config_dir() / "settings.json"


def _statusline_record() -> Path:
    return paths.autopilot_home() / "statusline-previous.json"


def _ours(command: object) -> bool:
    return isinstance(command, str) and f"{RUN_BRIDGE} {STATUSLINE_MARK}" in command


def _load_settings(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise BridgeError(
            f"{path} cannot be read as JSON ({exc}); nothing was changed",
            hint="fix it (Claude Code cannot read it either), then run setup again",
        ) from None
    if not isinstance(data, dict):
        raise BridgeError(f"{path} is not a JSON object; nothing was changed", hint="fix it, then run setup again")
    return data


def add_statusline() -> StatusLine:
    """Put the run's segment in Claude Code's status line: settings.json backed up, an existing line kept first."""
    import shlex

    from autopilot.fsutil import atomic_write, replace_text

    path = _settings()
    settings = _load_settings(path)
    current = settings.get("statusLine")
    command = f"{shlex.quote(sys.executable)} -I {RUN_BRIDGE} {STATUSLINE_MARK}"
    if isinstance(current, dict) and _ours(current.get("command")):
        return {"settings": str(path), "command": current.get("command"), "changed": False}
    if isinstance(current, dict) and current.get("type") == "command" and isinstance(current.get("command"), str):
        command += f" --with {shlex.quote(current['command'])}"
    elif current is not None:
        raise BridgeError(
            f"{path} has a statusLine setup does not know how to keep ({json.dumps(current)[:120]})",
            hint="add the segment yourself: " + f"{command} --with '<your command>'",
        )
    backup = None
    if path.exists():
        backup = path.with_name(f"settings.json.codex-autopilot-{int(clock.unix())}.bak")
        shutil.copy2(path, backup)
    atomic_write(_statusline_record(), json.dumps({"settings": str(path), "previous": current}) + "\n")
    settings["statusLine"] = {"type": "command", "command": command, "padding": 0}
    replace_text(path, json.dumps(settings, indent=2) + "\n")  # through a dotfiles symlink, mode kept
    return {"settings": str(path), "command": command, "changed": True, "backup": str(backup) if backup else None}


def remove_statusline() -> StatusLine | None:
    """Put Claude Code's status line back as it was before setup (only if it is still ours)."""
    from autopilot.fsutil import replace_text

    record = _statusline_record()
    try:
        saved = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    path = Path(saved.get("settings") or _settings())
    settings = _load_settings(path)
    if not _ours((settings.get("statusLine") or {}).get("command")):
        record.unlink()
        return {"settings": str(path), "changed": False, "why": "the status line is no longer codex-autopilot's"}
    if saved.get("previous") is None:
        settings.pop("statusLine", None)
    else:
        settings["statusLine"] = saved["previous"]
    replace_text(path, json.dumps(settings, indent=2) + "\n")  # through a dotfiles symlink, mode kept
    record.unlink()
    return {"settings": str(path), "changed": True, "restored": saved.get("previous")}


def _launcher_dir(raw: str) -> Path:
    return Path(os.path.expanduser(raw)).absolute()


def _check_launcher(folder: Path) -> None:
    path = folder / LAUNCHER_NAME
    if path.exists() and not _is_ours(path):
        raise BridgeError(
            f"{path} exists and was not written by codex-autopilot's setup; it was left alone",
            hint="choose another --launcher DIR, or remove that file yourself",
        )
    if folder.exists() and not folder.is_dir():
        raise BridgeError(f"{folder} is not a directory", hint="give --launcher a directory")


def _is_ours(path: Path) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return LAUNCHER_MARK in fh.read(4096)
    except (OSError, UnicodeDecodeError):
        return False


def _write_launcher(folder: Path) -> Launcher:
    """A ``codex-bridge`` script in ``folder`` running the bridge in this venv; what it is and whether PATH finds it."""
    from autopilot.fsutil import atomic_write

    python = sys.executable
    text = (
        "#!/bin/sh\n"
        f"{LAUNCHER_MARK}\n"
        "# It runs the bridge in codex-autopilot's Python environment (the Claude Code plugin's own venv).\n"
        "# Remove it with `codex-bridge setup --uninstall`, or delete this file.\n"
        f"py={_sh_quote(python)}\n"
        'if [ ! -x "$py" ]; then\n'
        "  echo \"codex-bridge: codex-autopilot's Python environment is gone ($py): start Claude Code once "
        f'(the plugin rebuilds it), or run {SETUP_COMMAND} again" >&2\n'
        "  exit 1\n"
        "fi\n"
        f'exec "$py" -I {RUN_BRIDGE} "$@"\n'
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LAUNCHER_NAME
    changed = not path.exists() or path.read_text(encoding="utf-8") != text
    if changed:
        atomic_write(path, text, mode=stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    known = _recorded_launchers()
    if str(path) not in known:  # so --uninstall finds it in a folder that is not on PATH
        atomic_write(_launcher_record(), json.dumps(sorted({*known, str(path)}), indent=2) + "\n")
    found = shutil.which(LAUNCHER_NAME)
    return {
        "path": str(path),
        "python": python,
        "changed": changed,
        "onPath": found is not None and Path(found).absolute() == path,
        "shadowedBy": found if found and Path(found).absolute() != path else None,
    }


def _launcher_record() -> Path:
    return paths.autopilot_home() / "launchers.json"


def _recorded_launchers() -> list[str]:
    """The launchers setup wrote, as it recorded them (an unreadable record counts as none: PATH is searched too)."""
    try:
        found = json.loads(_launcher_record().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [p for p in found if isinstance(p, str)] if isinstance(found, list) else []


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def _launcher_candidates() -> list[Path]:
    folders = [Path(p).absolute() for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    folders.append(Path(os.path.expanduser("~/.local/bin")).absolute())
    return list(dict.fromkeys(folders))


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
