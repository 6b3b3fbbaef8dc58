"""What codex-autopilot, a Claude Code plugin, adds around itself on this machine when ``codex-bridge setup`` asks.

- **The run's segment in Claude Code's status line**: settings.json backed up first, a status line
  already there kept first (``--with``), the one before put back on uninstall if the line is still ours.
- **A shell launcher**: a ``codex-bridge`` script in a folder of the user's choosing that runs the bridge
  in the plugin's own venv (in ``$CLAUDE_PLUGIN_DATA``, which keeps its path when the plugin updates), so
  ``codex-bridge status``, ``state | jq`` and ``handoff …`` work in the user's shell without a second
  install.

Only a file setup wrote is ever replaced or removed. The Codex side setup installs too is
:mod:`autopilot.codex.install`'s.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import sys
import time
from pathlib import Path
from typing import Any

from autopilot import SETUP, paths
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write, replace_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NotRequired, TypedDict

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


LAUNCHER_NAME = "codex-bridge"
LAUNCHER_MARK = "# codex-autopilot launcher: written by `codex-bridge setup --launcher`"
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
        backup = path.with_name(f"settings.json.codex-autopilot-{int(time.time())}.bak")
        shutil.copy2(path, backup)
    atomic_write(_statusline_record(), json.dumps({"settings": str(path), "previous": current}) + "\n")
    settings["statusLine"] = {"type": "command", "command": command, "padding": 0}
    replace_text(path, json.dumps(settings, indent=2) + "\n")  # through a dotfiles symlink, mode kept
    return {"settings": str(path), "command": command, "changed": True, "backup": str(backup) if backup else None}


def remove_statusline() -> StatusLine | None:
    """Put Claude Code's status line back as it was before setup (only if it is still ours)."""
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


def launcher_dir(raw: str) -> Path:
    return Path(os.path.expanduser(raw)).absolute()


def check_launcher(folder: Path) -> None:
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


def write_launcher(folder: Path) -> Launcher:
    """A ``codex-bridge`` script in ``folder`` running the bridge in this venv; what it is and whether PATH finds it."""
    python = sys.executable
    text = (
        "#!/bin/sh\n"
        f"{LAUNCHER_MARK}\n"
        "# It runs the bridge in codex-autopilot's Python environment (the Claude Code plugin's own venv).\n"
        "# Remove it with `codex-bridge setup --uninstall`, or delete this file.\n"
        f"py={_sh_quote(python)}\n"
        'if [ ! -x "$py" ]; then\n'
        "  echo \"codex-bridge: codex-autopilot's Python environment is gone ($py): start Claude Code once "
        f'(the plugin rebuilds it), or run {SETUP} again" >&2\n'
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


def remove_launchers() -> list[str]:
    """Remove every launcher setup wrote (where it recorded them, on PATH, in ~/.local/bin); the paths removed."""
    removed = []
    recorded = [Path(p).parent for p in _recorded_launchers()]
    for folder in dict.fromkeys([*recorded, *_launcher_candidates()]):
        path = folder / LAUNCHER_NAME
        if _is_ours(path):
            path.unlink()
            removed.append(str(path))
    _launcher_record().unlink(missing_ok=True)
    return removed
