"""What the bridge prints: JSON documents on stdout (for ``jq``), diagnostics on stderr.

Stdout carries only data a script can parse; everything meant for a person goes to stderr,
prefixed with ``codex-bridge:``. Hooks have their own output (hook JSON, see ``hooks/``).
"""

from __future__ import annotations

import sys

PREFIX = "codex-bridge: "


def emit(payload: object) -> None:
    """Print one JSON document on stdout."""
    import json

    sys.stdout.write(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    sys.stdout.flush()


def say(message: str) -> None:
    """A diagnostic line on stderr (stdout is kept for JSON)."""
    print(f"{PREFIX}{message}", file=sys.stderr, flush=True)
