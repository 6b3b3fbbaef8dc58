"""Codex's active-memory hook: record one Codex event, and relay the bridge's injection when one may be due.

``codex-bridge install codex`` puts a stand-alone launcher in Codex's hooks (``codex/assets/handoff/scripts/
memory_hook.py``, run for SessionStart, UserPromptSubmit, PostToolUse, PreCompact, PostCompact, Stop and
SessionEnd): it puts the package path the installer recorded on ``sys.path`` and calls :func:`main`, the one name
of the package it imports. Launchers stay installed across upgrades until ``install codex`` runs again, so
:func:`main`'s name and argument are a contract: keep them.

Recording is :mod:`.observe`'s, the same as Claude Code's hooks (the redactor and :mod:`.names` load only when
needed). What is Codex's own is here: the installation beside the launcher (``installed.json``: the bridge, its
Python), the injection asked of that bridge in a process of its own (``handoff inject --agent codex``, a few
hundred milliseconds, only when :func:`observe.record` says one may be due) and its answer relayed as it is, and
failing open as Codex expects of a hook: any error is a crash-log line, exit 0 and no output.

Codex has no hook for a model switch (the model is read from the ``model`` field every event carries) and its
PostToolUse hands over a command's output without its exit code (``handoff recover --from codex`` reads it from the
rollout; coverage says so until then).

Codex runs this on every event: it imports what :mod:`.observe` imports and nothing more (subprocess only for an
injection; tests/integration/hooks/test_memory.py pins the list).
"""

from __future__ import annotations

import os
import sys

from autopilot import config
from autopilot.fastjson import parse_json
from autopilot.handoff.memory import observe

AGENT = "codex"
INSTALLED = "installed.json"  # beside the launcher: {"bridge", "python", "package"} (commands/install.py)
INJECT_TIMEOUT = 8.0  # Codex gives the hook 10 s


def main(folder: str) -> int:
    """Record the event on stdin and print the injection's answer, if any, for the launcher in ``folder``; always 0.

    The entry point every installed launcher calls (its folder holds ``installed.json``).
    """
    try:
        out = handle(sys.stdin.buffer.read(), folder)
    except Exception as exc:  # fail open: a broken hook must not break the user's session
        from autopilot.plugin import write_crash_log  # only a crash pays for it

        write_crash_log(config.autopilot_home(), exc)
        return 0
    if out:
        sys.stdout.write(out + "\n")
        sys.stdout.flush()
    return 0


def handle(raw: bytes, folder: str) -> str:
    """Record one event; the hook's stdout (the bridge's answer, or "" when it has nothing or is not asked)."""
    data = parse_json(raw.decode("utf-8")) if raw.strip() else {}
    if not isinstance(data, dict):
        return ""
    recorded = observe.record(str(data.get("hook_event_name") or ""), data, AGENT)
    if recorded is None or not recorded[1]:
        return ""
    return inject(raw, folder)


def installed(folder: str) -> dict[str, object]:
    """What ``install codex`` recorded in ``folder`` (installed.json): the bridge, its Python, its package."""
    try:
        with open(os.path.join(folder, INSTALLED), encoding="utf-8") as fh:
            found = parse_json(fh.read())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def bridge_command(folder: str) -> list[str] | None:
    """How to run the bridge that installed the launcher in ``folder``, or None when it is gone."""
    recorded = installed(folder)
    bridge, python = recorded.get("bridge"), recorded.get("python")
    if isinstance(bridge, str) and os.access(bridge, os.X_OK):
        return [bridge]
    if isinstance(python, str) and os.access(python, os.X_OK):
        return [python, "-I", "-m", "autopilot"]
    return None


def inject(raw: bytes, folder: str) -> str:
    """The bridge's injection answer for this event (hook JSON), or "" when it has nothing or cannot say."""
    command = bridge_command(folder)
    if command is None:
        return ""
    import subprocess

    proc = subprocess.run(
        [*command, "handoff", "inject", "--agent", AGENT],
        input=raw,
        capture_output=True,
        timeout=INJECT_TIMEOUT,
    )
    out = proc.stdout.decode("utf-8", "replace").strip()
    return out if proc.returncode == 0 and out.startswith("{") else ""
