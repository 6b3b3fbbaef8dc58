"""codex-bridge doctor: one screen that says what is set up, what is not, and the command that fixes each.

Checks, none of which calls a model: the claude and codex binaries found and whether their versions
are supported; the plugin's venv and its stamp; ``claude plugin validate``; the Codex side (hook,
skills, trust, whether it is current); the backend that would be chosen and why; the config file;
``$AUTOPILOT_HOME`` writable; this workspace's run and its last error. Exit 0 when all is well,
1 when something needs action.

Each check lives beside what it checks: the clients and the plugin's venv in :mod:`autopilot.plugin`, the
Codex side in :mod:`autopilot.codex.install`. The bridge's own settings (the config file, the backend, the
readers' folders, the home) and this workspace's run are checked here, read as ``status`` and the CLI
read them: config.py and paths.py sit below the checks' vocabulary (``plugin.check``), and ``status``
would pay for it in loop/summary.py.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from autopilot import RESUME, __version__, config, paths
from autopilot.errors import EXIT_ERROR, BridgeError
from autopilot.output import emit, show
from autopilot.plugin import (
    FAIL,
    OK,
    WARN,
    check,
    check_claude,
    check_codex,
    check_codex_side,
    check_validate,
    check_venv,
)

if TYPE_CHECKING:
    import argparse

    from autopilot.commands.shapes import Doctor
    from autopilot.plugin import Check


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
    checks = [check_claude(), check_codex(), check_venv(), check_validate(), check_codex_side()]
    checks += _config_and_backend()
    checks += _session_folders()
    checks += [_home(), _run(cwd)]
    checks += _sandboxes()
    return [c for c in checks if c is not None]


def _sandboxes() -> list[Check]:
    """Per agent: can its shell (or, for Claude Code, its Edit and Write tools) write the durable store?"""
    from autopilot.knowledge.durable import sandbox

    out = []
    for row in sandbox.status():
        name = f"sandbox:{row['agent']}"
        if row["canWriteStore"]:
            out.append(check(name, WARN, f"can write the durable store: {row['why']}", row["fix"]))
        else:
            out.append(check(name, OK, row["why"]))
    return out


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
        return check("run", WARN, detail, f"{RESUME} (or codex-bridge resume) once the cause is fixed")
    return check("run", OK, detail)
