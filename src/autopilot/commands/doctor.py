"""codex-bridge doctor: one screen that says what is set up, what is not, and the command that fixes each.

Checks, none of which calls a model: the claude and codex binaries found and whether their versions
are supported; the plugin's venv and its stamp; ``claude plugin validate``; the Codex side (hook,
skills, trust, whether it is current); the backend that would be chosen and why; the config file;
``$AUTOPILOT_HOME`` writable; this workspace's run and its last error. Exit 0 when all is well,
1 when something needs action.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from autopilot import __version__, config, paths
from autopilot.config import claude_binary
from autopilot.errors import EXIT_ERROR, BridgeError
from autopilot.hooks import slash
from autopilot.output import emit, show

TYPE_CHECKING = False  # argparse only annotates here: cli.py builds the parsers
if TYPE_CHECKING:
    import argparse
    from typing import Unpack

    from autopilot.commands.shapes import Check, CheckExtra, Doctor
    from autopilot.config import Config

# The oldest versions codex-autopilot works with, and why (README, "Supported versions").
CLAUDE_FLOOR = (2, 1, 143)  # Stop-hook block cap semantics (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP), plugin data, StopFailure
CODEX_FLOOR = (0, 129, 0)  # hook trust (hooks/list, trusted_hash) and the `hooks` feature the reviewer turns off
OK, WARN, FAIL = "ok", "warn", "fail"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "doctor",
        help="check the setup (clients, plugin venv, Codex side, backend, config, this run); no model call",
        description="Say what a user needs when something does not work: the claude and codex versions found "
        "(and whether supported), the plugin's venv, `claude plugin validate`, the Codex hook's trust, the "
        "backend that would be chosen and why, config problems, $AUTOPILOT_HOME, and this workspace's run. "
        "Exit 0 when all is well, 1 when something needs action; each problem comes with its fix.",
    )
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run every check; print them (JSON with --json); exit 1 if any needs action."""
    checks = diagnose(cwd=args.cwd)
    bad = [c for c in checks if c["status"] == FAIL]
    if args.json:
        answer: Doctor = {"ok": not bad, "version": __version__, "checks": checks}
        emit(answer)
    else:
        width = max(len(c["name"]) for c in checks)
        lines = []
        for c in checks:
            mark = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}[c["status"]]
            lines.append(f"{mark}  {c['name']:<{width}}  {c['detail']}")
            if c.get("fix"):
                lines.append(f"{'':<{width + 8}}fix: {c['fix']}")
        lines.append(
            f"\n{'all is well' if not bad else f'{len(bad)} problem(s) need action'} (codex-autopilot {__version__})"
        )
        show("\n".join(lines))  # a detail can quote a config value or a path: printable
    return EXIT_ERROR if bad else 0


def diagnose(cwd: str | None = None) -> list[Check]:
    """Every check, in the order a user would fix them."""
    checks = [_claude(), _codex(), _plugin_venv(), _validate(), _codex_side(), *_config_and_backend()]
    checks += _session_folders()
    checks += [_home(), _run(cwd)]
    return [c for c in checks if c is not None]


def check(name: str, status: str, detail: str, fix: str | None = None, **extra: Unpack[CheckExtra]) -> Check:
    """One check's answer (``extra``: the version found, the path looked at)."""
    return {"name": name, "status": status, "detail": detail, "fix": fix, **extra}


def _dotted(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


def _claude() -> Check:
    binary = claude_binary()
    if not binary:
        return check(
            "claude",
            WARN,
            "not found on PATH (fine if you only use the CLI)",
            "npm install -g @anthropic-ai/claude-code",
        )
    version, said = config.version_of(binary, timeout=20)
    if version is None:
        return check("claude", FAIL, f"{binary} does not say its version ({said[:120]})", "reinstall Claude Code")
    if version < CLAUDE_FLOOR:
        return check(
            "claude",
            FAIL,
            f"{binary} is {_dotted(version)}; codex-autopilot needs {_dotted(CLAUDE_FLOOR)}+",
            "npm install -g @anthropic-ai/claude-code@latest (or update your install)",
            version=_dotted(version),
        )
    return check("claude", OK, f"{_dotted(version)} ({binary})", version=_dotted(version))


def _codex() -> Check:
    binary = config.codex_binary(_config_or_empty())
    if not binary:
        return check(
            "codex",
            WARN,
            "not found (the openai backend and the handoff readers still work)",
            "npm install -g @openai/codex, then codex login",
        )
    version, said = config.version_of(binary, timeout=20)
    if version is None:
        return check(
            "codex",
            FAIL,
            f"{binary} does not say its version ({said[:120]})",
            "reinstall the Codex CLI, or point AUTOPILOT_CODEX_BIN at a working one",
        )
    if version < CODEX_FLOOR:
        return check(
            "codex",
            FAIL,
            f"{binary} is {_dotted(version)}; codex-autopilot needs {_dotted(CODEX_FLOOR)}+",
            "npm install -g @openai/codex@latest",
            version=_dotted(version),
        )
    return check("codex", OK, f"{_dotted(version)} ({binary})", version=_dotted(version))


def plugin_data_dirs() -> list[Path]:
    """Where Claude Code keeps codex-autopilot's data (its venv): $CLAUDE_PLUGIN_DATA, else every install's."""
    data = config.env("CLAUDE_PLUGIN_DATA")
    if data:
        return [Path(data)]
    root = paths.claude_config_dir() / "plugins" / "data"
    try:
        return sorted(p for p in root.iterdir() if p.name.startswith(f"{slash.PLUGIN}-"))
    except OSError:
        return []


def _plugin_venv() -> Check | None:
    found = [d for d in plugin_data_dirs() if (d / "venv").exists()]
    if not found:
        if config.env("CLAUDE_PLUGIN_DATA"):
            return check(
                "plugin venv",
                FAIL,
                f"no venv in {config.env('CLAUDE_PLUGIN_DATA')}",
                "start a new Claude Code session: SessionStart builds it",
            )
        return check(
            "plugin venv",
            WARN,
            "the Claude Code plugin's venv was not found (not installed as a plugin?)",
            "claude plugin install codex-autopilot@codex-autopilot, then start a session",
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
    here = Path(__file__).resolve().parents[3]
    if (here / ".claude-plugin" / "plugin.json").exists():
        return here
    cache = paths.claude_config_dir() / "plugins" / "cache"
    found = sorted(cache.glob(f"*/{slash.PLUGIN}/*/.claude-plugin/plugin.json"), key=lambda p: p.stat().st_mtime)
    return found[-1].parents[1] if found else None


def _validate() -> Check | None:
    binary, root = claude_binary(), _plugin_root()
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


def _codex_side() -> Check:
    from autopilot.codex import skills, trust
    from autopilot.commands.install import SKILLS, installed_bridge, skill_files

    missing = [name for name in SKILLS if skills.read_marker(name) is None]
    if missing:
        return check(
            "codex side",
            WARN,
            f"not set up ({', '.join(missing)} missing in {paths.codex_home()})",
            f"{slash.SETUP} --trust  (in Claude Code; or codex-bridge setup --trust)",
        )
    marker = skills.read_marker("handoff") or {}
    python, bridge = installed_bridge()
    stale = [
        f"{name}/{rel}"
        for name, files in skill_files(python, bridge).items()
        for rel, file in files.items()
        if _read(skills.skill_dir(name) / rel) != file.text
    ]
    if stale:
        return check(
            "codex side",
            FAIL,
            f"set up by another version or environment ({len(stale)} files differ: {', '.join(stale[:3])})",
            f"{slash.SETUP}  (or codex-bridge setup) to bring it up to date",
        )
    records = [r for r in marker.get("trust") or [] if isinstance(r, dict)]
    config_file = paths.codex_home() / "config.toml"
    trusted = any(trust.trusted_hash(config_file, str(r.get("key"))) == r.get("hash") for r in records)
    if not trusted:
        return check(
            "codex side",
            WARN,
            "installed, but Codex has not trusted the $handoff hook yet",
            f"{slash.SETUP} --trust, or /hooks in Codex",
        )
    hooks = _hook_keys(paths.codex_home() / "hooks.json")
    return check("codex side", OK, f"hook trusted; skills current; hooks.json events: {', '.join(hooks) or 'none'}")


def _session_folders() -> list[Check]:
    """Where the handoff readers look for each agent's sessions, and what set it; a configured one must exist."""
    checks = []
    for key, (env, default) in config.READER_DIRS.items():
        try:
            where, source = config.reader_dir(key)
        except BridgeError as exc:  # the config file cannot be read: _config_and_backend says how to fix it
            checks.append(check(key, FAIL, str(exc), exc.hint))
            continue
        if where.is_dir():
            checks.append(check(key, OK, f"{where} (from {source})", path=str(where)))
        elif source == default:  # the client's own folder: absent until it saves a session
            checks.append(check(key, OK, f"{where} (from {source}; no sessions saved yet)", path=str(where)))
        else:
            fix = f"point {env} or {key} in {config.config_path()} at the folder that holds them"
            checks.append(check(key, FAIL, f"{where} (from {source}) is not a directory", fix, path=str(where)))
    return checks


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


def _config_or_empty() -> Config:
    try:
        return config.load_config()
    except BridgeError:
        return {}


def _config_and_backend() -> list[Check]:
    try:
        cfg = config.load_config()
    except BridgeError as exc:
        return [check("config", FAIL, str(exc), f"fix or move aside {config.config_path()}")]
    found = [
        check("config", OK, f"{config.config_path()}" + ("" if config.config_path().exists() else " (none; defaults)"))
    ]
    try:
        name = config.resolve_backend(None, None, cfg)
    except BridgeError:
        found.append(check("backend", FAIL, "no Codex backend is set up", config.SETUP_HINT))
        return found
    why = (
        "AUTOPILOT_BACKEND"
        if config.env("AUTOPILOT_BACKEND")
        else "the config file"
        if cfg.get("backend")
        else "codex is installed"
        if name == "codex-cli"
        else "OPENAI_API_KEY is set"
    )
    found.append(
        check(
            "backend",
            OK,
            f"{name} (because {why}); model: {config.resolve_model(None, None, cfg) or 'the backend default'}",
        )
    )
    return found


def _home() -> Check:
    home = paths.autopilot_home()
    probe = home / f".doctor-{os.getpid()}"
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"x")
        probe.unlink()
    except OSError as exc:
        return check(
            "AUTOPILOT_HOME",
            FAIL,
            f"{home} is not writable ({exc.strerror})",
            "free disk space or fix its permissions, or set AUTOPILOT_HOME elsewhere",
        )
    return check("AUTOPILOT_HOME", OK, f"{home} (writable)")


def _run(cwd: str | None) -> Check | None:
    from autopilot.loop import status
    from autopilot.loop.workspace import Workspace

    try:
        ws = Workspace(cwd)
        state = ws.store.load(repair=False)
    except BridgeError as exc:
        if "not inside a git repository" in str(exc):
            return None
        return check("run", FAIL, str(exc), "codex-bridge stop (moves an unusable state.json aside)")
    if not state.get("plan"):
        return check("run", OK, f"no autopilot run in {ws.root}")
    error = state.get("last_error") or {}
    detail = f"{state['status']} in {ws.root}" + (
        f"; last error: {error.get('kind')}: {str(error.get('message'))[:160]}" if error else ""
    )
    if state["status"] in status.PAUSED or state["status"] == status.STOPPED_BUDGET:
        return check("run", WARN, detail, f"{slash.RESUME} (or codex-bridge resume) once the cause is fixed")
    return check("run", OK, detail)
