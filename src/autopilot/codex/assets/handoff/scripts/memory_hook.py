"""codex-autopilot's Codex hook for the active memory: a launcher for the bridge that installed it.

Installed by `codex-bridge install codex` for SessionStart, UserPromptSubmit, PostToolUse, PreCompact,
PostCompact, Stop and SessionEnd, and run by Codex (through `memory-hook`) with the event's JSON on stdin.
The hook itself is the bridge's: ``autopilot.handoff.memory.codex_hook.main``, which records the event as
Claude Code's hooks do and relays the bridge's injection. This file only finds it: standard library only, it
puts the package path `install codex` recorded in installed.json beside it on ``sys.path`` (else the
``autopilot`` already importable is used) and imports nothing of the package but that one entry point
(tests/unit/test_architecture.py holds it to that): the one arrow from Codex's home up to the handoff's memory.

When the package cannot be imported (the bridge uninstalled, moved or broken) it fails open as a hook with
nothing to say: it reads the event, records nothing, prints nothing and exits 0 (`codex-bridge install codex`,
which setup runs, mends it).
"""

import os
import sys


class _Defaults:
    """The settings ``json.JSONDecoder`` gives its C scanner: ``autopilot.fastjson``'s, which cannot be imported
    before the package is found (and the json package would import ``re``)."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, float


def recorded_package(folder: str) -> "str | None":
    """The package path `install codex` recorded in ``folder``/installed.json, or None."""
    try:
        with open(os.path.join(folder, "installed.json"), encoding="utf-8") as fh:
            text = fh.read().strip()
        try:
            from _json import make_scanner
        except ImportError:  # not CPython
            from json import loads

            found = loads(text)
        else:
            found, end = make_scanner(_Defaults())(text, 0)  # type: ignore[arg-type]
            if end != len(text):
                return None  # more after the JSON value: not what install writes
    except (OSError, ValueError, StopIteration):
        return None
    package = found.get("package") if isinstance(found, dict) else None
    return package if isinstance(package, str) else None


def main() -> int:
    """Run the bridge's memory hook on the event on stdin; without a bridge, read it and say nothing."""
    folder = os.path.dirname(os.path.abspath(__file__))
    package = recorded_package(folder)
    if package and os.path.isdir(os.path.join(package, "autopilot")) and package not in sys.path:
        sys.path.insert(0, package)
    try:
        from autopilot.handoff.memory.codex_hook import main as hook
    except Exception:  # no bridge, a moved or a broken one: nothing to record with
        import contextlib

        with contextlib.suppress(Exception):
            sys.stdin.buffer.read()  # the event is taken all the same, as any hook takes it
        return 0
    return hook(folder)


if __name__ == "__main__":
    sys.exit(main())
