"""CLI adapters: each module registers its command (``add_parser(sub)``) and runs it (``run(args)``).

A command module parses nothing itself beyond its arguments, calls one operation (``loop/``,
``handoff/packets/``, ``codex/``...) and prints the result with :mod:`autopilot.output`. ``cli.py``
imports only the module of the command being run, so adding a command costs others nothing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the fast paths
if TYPE_CHECKING:
    import argparse


BACKENDS = ("codex-cli", "openai")
EFFORTS = ("low", "medium", "high", "xhigh")


def backend_flags(p: argparse.ArgumentParser, purpose: str | None = None) -> None:
    """--backend, --model and --effort, for every command that asks Codex (``purpose``: what --backend does, when not
    the usual choice of backend)."""
    p.add_argument(
        "--backend",
        choices=list(BACKENDS),
        help=purpose or "Codex backend (default: AUTOPILOT_BACKEND, the run's, config, codex on PATH, openai)",
    )
    p.add_argument(
        "--model",
        help="model to ask (default: AUTOPILOT_MODEL, the config's phases.<phase>.model, its model, the run's, "
        "Codex's own)",
    )
    p.add_argument(
        "--effort",
        choices=list(EFFORTS),
        help="reasoning effort to ask for (default: AUTOPILOT_EFFORT, the config's phases.<phase>.effort, its "
        "effort, the run's, the model's own); a plan's becomes the run's",
    )
