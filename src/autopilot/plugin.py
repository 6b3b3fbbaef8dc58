"""The Claude Code plugin on this machine: what ``codex-bridge setup`` adds around it, and doctor's checks of it.

- **The run's segment in Claude Code's status line**: settings.json backed up first, a status line
  already there kept first (``--with``), the one before put back on uninstall if the line is still ours.
- **A shell launcher**: a ``codex-bridge`` script in a folder of the user's choosing that runs the bridge
  in the plugin's own venv (in ``$CLAUDE_PLUGIN_DATA``, which keeps its path when the plugin updates), so
  ``codex-bridge status``, ``state | jq`` and ``handoff …`` work in the user's shell without a second
  install.

Only a file setup wrote is ever replaced or removed. The Codex side setup installs too is
:mod:`autopilot.codex.install`'s.

Doctor's checks of the clients the plugin works with (claude, codex: found, and new enough), of the
plugin's venv and of ``claude plugin validate`` are here too, with the vocabulary every check uses
(:func:`check`, ``OK``, ``WARN``, ``FAIL``); ``codex-bridge doctor`` composes and prints them.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import stat
import subprocess
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import PLUGIN, SETUP, __version__, clock, config, git, paths
from autopilot.codex import install, skills, trust
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write, replace_text
from autopilot.redact import redact

if TYPE_CHECKING:
    from typing import NotRequired, TypedDict, Unpack

    from autopilot.config import Config

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
        backup = path.with_name(f"settings.json.codex-autopilot-{int(clock.unix())}.bak")
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


# -- doctor's checks of the clients and of the plugin (codex-bridge doctor composes and prints them) ----------

OK, WARN, FAIL = "ok", "warn", "fail"
# The oldest versions codex-autopilot works with, and why (README, "Supported versions").
CLAUDE_FLOOR = (2, 1, 143)  # Stop-hook block cap semantics (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), plugin data, StopFailure
CODEX_FLOOR = (0, 129, 0)  # hook trust (hooks/list, trusted_hash) and the `hooks` feature the reviewer turns off


def check(name: str, status: str, detail: str, fix: str | None = None, **extra: Unpack[CheckExtra]) -> Check:
    """One check's answer (``extra``: the version found, the path looked at)."""
    return {"name": name, "status": status, "detail": detail, "fix": fix, **extra}


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def check_claude() -> Check:
    """The claude CLI found, and whether its version is supported."""
    return _check_client(
        "claude",
        config.claude_binary(),
        CLAUDE_FLOOR,
        missing=("not found on PATH (fine if you only use the CLI)", "npm install -g @anthropic-ai/claude-code"),
        mute="reinstall Claude Code",
        old="npm install -g @anthropic-ai/claude-code@latest (or update your install)",
    )


def check_codex() -> Check:
    """The codex CLI found, and whether its version is supported."""
    return _check_client(
        "codex",
        config.codex_binary(_config_or_empty()),
        CODEX_FLOOR,
        missing=(
            "not found (the openai backend and the handoff readers still work)",
            "npm install -g @openai/codex, then codex login",
        ),
        mute="reinstall the Codex CLI, or point AUTOPILOT_CODEX_BIN at a working one",
        old="npm install -g @openai/codex@latest",
    )


def _check_client(
    name: str, binary: str | None, floor: tuple[int, ...], *, missing: tuple[str, str], mute: str, old: str
) -> Check:
    """A client's check: ``missing`` (detail, fix) without a binary, else the fix for one that does not say its
    version (``mute``) or says one older than ``floor`` (``old``)."""
    if not binary:
        return check(name, WARN, *missing)
    version, said = config.version_of(binary, timeout=20)
    if version is None:
        return check(name, FAIL, f"{binary} does not say its version ({said[:120]})", mute)
    if version < floor:
        return check(
            name,
            FAIL,
            f"{binary} is {_dotted(version)}; codex-autopilot needs {_dotted(floor)}+",
            old,
            version=_dotted(version),
        )
    return check(name, OK, f"{_dotted(version)} ({binary})", version=_dotted(version))


def plugin_data_dirs() -> list[Path]:
    """Where Claude Code keeps codex-autopilot's data (its venv): $CLAUDE_PLUGIN_DATA, else every install's."""
    data = config.env("CLAUDE_PLUGIN_DATA")
    if data:
        return [Path(data)]
    root = paths.claude_config_dir() / "plugins" / "data"
    try:
        return sorted(p for p in root.iterdir() if p.name.startswith(f"{PLUGIN}-"))
    except OSError:
        return []


def check_venv() -> Check | None:
    """The plugin's venv: found, finished (its stamp) and built for this version."""
    found = [d for d in plugin_data_dirs() if (d / "venv").exists()]
    if not found:
        if config.env("CLAUDE_PLUGIN_DATA"):
            return check(
                "plugin venv",
                FAIL,
                f"no venv in {config.env('CLAUDE_PLUGIN_DATA')}",
                "start a new Claude Code session: SessionStart builds it",
            )
        on_path = shutil.which(LAUNCHER_NAME)
        if on_path:
            # The plugin's shim runs the codex-bridge on PATH before it would build a venv of its own (scripts/bridge):
            # with one there, no plugin venv is ever made, and none is needed.
            return check(
                "plugin venv",
                OK,
                f"none needed: the plugin runs the codex-bridge on PATH ({on_path})",
                path=on_path,
            )
        return check(
            "plugin venv",
            WARN,
            "the Claude Code plugin's venv was not found, and no codex-bridge is on PATH (not installed as a plugin?)",
            "claude plugin install codex-autopilot@codex-autopilot, then start a session (it builds the venv)",
        )
    venv = found[0] / "venv"
    stamp = venv / "codex-autopilot.stamp"
    try:
        built = stamp.read_text(encoding="utf-8").splitlines()[0]
    except (OSError, IndexError):
        return check(
            "plugin venv",
            FAIL,
            f"{venv} has no stamp: it was never finished",
            "start a new Claude Code session (SessionStart rebuilds it)",
        )
    if built != __version__:
        return check(
            "plugin venv",
            WARN,
            f"{venv} holds codex-autopilot {built}, this is {__version__}",
            "start a new Claude Code session: the plugin rebuilds its venv for the new version",
        )
    return check("plugin venv", OK, f"{venv} (codex-autopilot {built})", path=str(venv))


def _plugin_root() -> Path | None:
    """The plugin directory this bridge belongs to: a checkout's root, else the installed plugin's."""
    here = Path(__file__).resolve().parents[2]
    if (here / ".claude-plugin" / "plugin.json").exists():
        return here
    cache = paths.claude_config_dir() / "plugins" / "cache"
    found = sorted(cache.glob(f"*/{PLUGIN}/*/.claude-plugin/plugin.json"), key=lambda p: p.stat().st_mtime)
    return found[-1].parents[1] if found else None


def check_validate() -> Check | None:
    """``claude plugin validate`` on the plugin this bridge belongs to (None without claude or a plugin)."""
    binary, root = config.claude_binary(), _plugin_root()
    if not binary or root is None:
        return None
    try:
        proc = subprocess.run(
            [binary, "plugin", "validate", str(root)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return check("plugin validate", WARN, f"could not run claude plugin validate: {exc}")
    if proc.returncode != 0:
        said = (proc.stdout + proc.stderr).strip().splitlines()
        return check(
            "plugin validate",
            FAIL,
            f"{root}: " + (said[-1] if said else f"exit {proc.returncode}"),
            f"claude plugin validate {root}  (then reinstall the plugin)",
        )
    return check("plugin validate", OK, f"{root} passes")


def _config_or_empty() -> Config:
    try:
        return config.load_config()
    except BridgeError:
        return {}


def check_codex_side() -> Check:
    """Doctor's check of the Codex side: installed, current (this version, this Python) and trusted."""
    missing = [name for name in install.SKILLS if skills.read_marker(name) is None]
    if missing:
        return check(
            "codex side",
            WARN,
            f"not set up ({', '.join(missing)} missing in {paths.codex_home()})",
            f"{SETUP} --trust  (in Claude Code; or codex-bridge setup --trust)",
        )
    marker = skills.read_marker("handoff") or {}
    stale = [
        f"{name}/{rel}"
        for name, files in install.skill_files().items()
        for rel, file in files.items()
        if _read(skills.skill_dir(name) / rel) != file.text
    ]
    if stale:
        return check(
            "codex side",
            FAIL,
            f"set up by another version of codex-autopilot ({len(stale)} files differ: {', '.join(stale[:3])})",
            f"{SETUP}  (or codex-bridge setup) to bring it up to date",
        )
    gone = _recorded_environment()
    if gone:
        return check("codex side", FAIL, gone, f"{SETUP}  (or codex-bridge setup) to set it up from this environment")
    records = [r for r in marker.get("trust") or [] if isinstance(r, dict)]
    config_file = paths.codex_home() / "config.toml"
    trusted = any(trust.trusted_hash(config_file, str(r.get("key"))) == r.get("hash") for r in records)
    if not trusted:
        return check(
            "codex side",
            WARN,
            "installed, but Codex has not trusted the $handoff hook yet",
            f"{SETUP} --trust, or /hooks in Codex",
        )
    hooks = _hook_keys(paths.codex_home() / "hooks.json")
    return check("codex side", OK, f"hook trusted; skills current; hooks.json events: {', '.join(hooks) or 'none'}")


def _recorded_environment() -> str | None:
    """Why the environment the Codex side's scripts run in (installed.json: its Python and package) cannot run them,
    or None when it can. Which environment it is (the plugin's venv, a shell install) does not matter."""
    problems = []
    for name in install.RECORDED:
        path = skills.skill_dir(name) / install.RECORD
        try:
            recorded = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            problems.append(f"{path} is missing or unreadable")
            continue
        python = recorded.get("python") if isinstance(recorded, dict) else None
        package = recorded.get("package") if isinstance(recorded, dict) else None
        if not isinstance(python, str) or not os.access(python, os.X_OK):
            problems.append(f"the Python it runs is gone ({python})")
        elif not isinstance(package, str) or not (Path(package) / "autopilot" / "__init__.py").is_file():
            problems.append(f"the codex-autopilot it runs is gone ({package})")
    if not problems:
        return None
    return "set up from an environment that is gone: " + "; ".join(dict.fromkeys(problems))


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _hook_keys(path: Path) -> list[str]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    return sorted(hooks) if isinstance(hooks, dict) else []


CRASH_LOG_MAX_BYTES = 1_000_000  # then the log moves aside to crash.log.1 (one older log kept)
PROBE_TIMEOUT_S = 2.0  # each binary's --version in a crash log: a hung one must not hang the crash path


def versions() -> dict[str, str]:
    """The versions that explain a crash: Python, the platform, and git, claude and codex as each says (x.y.z and
    where it is; ``not found``; or what it said instead), each binary asked for at most PROBE_TIMEOUT_S seconds."""
    found = {
        "python": f"{platform.python_version()} ({platform.python_implementation()}, {sys.executable})",
        "platform": platform.platform(),
    }
    said = git.version(PROBE_TIMEOUT_S)
    version = config.parse_version(said)
    found["git"] = f"{_dotted(version)} ({shutil.which('git')})" if version else said
    for name, binary in (("claude", config.claude_binary()), ("codex", config.codex_binary())):
        if not binary:
            found[name] = "not found"
            continue
        version, said = config.version_of(binary, PROBE_TIMEOUT_S)
        found[name] = f"{_dotted(version)} ({binary})" if version else f"{binary} said: {said[:200]}"
    return found


def write_crash_log(home: str, exc: BaseException) -> str:
    """Append a traceback to the crash log, with this bridge's version and the :func:`versions` that explain it
    (Python, the platform, git, claude, codex); the log's path. Never raises for want of room."""
    path = os.path.join(home, "crash.log")
    try:
        os.makedirs(home, exist_ok=True)
        if os.path.exists(path) and os.path.getsize(path) > CRASH_LOG_MAX_BYTES:
            os.replace(path, path + ".1")  # keep one older log, never grow without bound
        text = (
            f"--- {clock.local('%Y-%m-%dT%H:%M:%S%z')} codex-autopilot {__version__}\n"
            f"argv: {sys.argv!r}\n"
            + "".join(f"{name}: {said}\n" for name, said in versions().items())
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        )
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(redact(text)[0])  # a goal or message in argv may carry a credential
    except OSError:
        pass
    return path
