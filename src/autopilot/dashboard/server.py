"""Serving the dashboard: one socket on 127.0.0.1, its address with a one-time launch code first on stdout.

Each address works once, within two minutes (``security.Guard``); at a terminal, Enter prints a new
one (to open the dashboard in another browser or after the first code expired). Ctrl-C stops it.

The socket is bound here, to the loopback address only, before uvicorn sees it (uvicorn is
given the socket, never a host name to resolve), so the dashboard cannot listen anywhere
else whatever its settings say. Started inside an agent's shell, it serves everything but
approvals (see :mod:`autopilot.knowledge.durable`).
"""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser

import uvicorn

from autopilot.codex import app_server
from autopilot.dashboard.api import Api
from autopilot.dashboard.app import build
from autopilot.dashboard.security import Guard
from autopilot.errors import BridgeError
from autopilot.knowledge.durable.store import agent_marker
from autopilot.output import say

HOST = "127.0.0.1"


def bind(port: int) -> socket.socket:
    """A listening TCP socket on 127.0.0.1:``port`` (0: any free port)."""
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are TCP, and without
    # it a keep-alive answer written in two parts waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise BridgeError(f"cannot listen on {HOST}:{port}: {exc.strerror}", hint="choose another --port") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _new_codes(guard: Guard) -> None:
    """Print a fresh one-time address for each line read from the dashboard's stdin (Enter at its terminal)."""
    for _ in sys.stdin:
        sys.stdout.write(guard.url(guard.new_code()) + "\n")
        sys.stdout.flush()


def serve(project_dir: str | None, *, port: int = 0, open_browser: bool = True) -> int:
    """Serve until Ctrl-C; the first stdout line is the address with a one-time launch code."""
    sock = bind(port)
    guard = Guard(sock.getsockname()[1])
    marker = agent_marker()
    api = Api(project_dir, approvals=marker is None)
    sys.stdout.write(guard.url() + "\n")
    sys.stdout.flush()
    say(f"dashboard for {api.project_dir} on {HOST}:{guard.port}; Ctrl-C stops it")
    if marker:
        say(f"started inside an agent's shell ({marker} is set): approving and revoking durable rules are off")
    if sys.stdin.isatty():
        say("the address works once, for two minutes; press Enter here for a new one")
    threading.Thread(target=_new_codes, args=(guard,), name="launch-codes", daemon=True).start()
    config = uvicorn.Config(
        build(api, guard),
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=3,
    )
    server = uvicorn.Server(config)
    threading.Thread(target=api.warm, name="warm-packets", daemon=True).start()
    if open_browser:
        threading.Timer(0.5, webbrowser.open, args=(guard.url(),)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn has shut down cleanly and re-raised the signal: stopping is what was asked
    finally:
        sock.close()
        app_server.stop_all()  # a request thread still reading Codex's sessions would leave its codex running
    say("dashboard stopped")
    return 0
