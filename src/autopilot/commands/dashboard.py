"""codex-bridge dashboard: the local web page (runs, handover, memory, approvals) on 127.0.0.1."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "dashboard",
        help="a local web page: autopilot runs, handover, active/passive/durable memory",
        description="Serve the dashboard on 127.0.0.1 only and open it in the browser. The first line on "
        "stdout is its address with a one-time launch code (it works once, within two minutes; press Enter in "
        "this terminal for a new one); the page trades it for a session no other server can use. Approving or "
        "revoking a rule asks for your approval passphrase. Handover panels show the project of the current "
        "directory (or -C DIR). Ctrl-C stops it.",
    )
    p.add_argument("--port", type=int, default=0, metavar="N", help="port to listen on (default: any free port)")
    p.add_argument("--no-open", action="store_true", help="print the address; do not open a browser")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve the dashboard until Ctrl-C."""
    from autopilot.dashboard.server import serve
    from autopilot.errors import BridgeError

    if not 0 <= args.port <= 65535:
        raise BridgeError(f"--port {args.port} is not a port", hint="give 1 to 65535, or 0 for any free one")
    return serve(args.cwd, port=args.port, open_browser=not args.no_open)
