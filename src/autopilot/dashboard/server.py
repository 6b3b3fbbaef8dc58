"""Serving the dashboard: one socket on 127.0.0.1, its address with a one-time launch code first on stdout.

Each address works once, within two minutes (``security.Guard``); at a terminal, Enter prints a new
one (to open the dashboard in another browser or after the first code expired). Ctrl-C stops it. The browser
it opens is given a page only this user can read, with a code of its own, never the address itself: a
browser's command line is readable by every local user (:func:`launch_page`).

The socket is bound here, to the loopback address only, before uvicorn sees it (uvicorn is
given the socket, never a host name to resolve), so the dashboard cannot listen anywhere
else whatever its settings say. Started inside an agent's shell, it serves everything but
approvals (see :mod:`autopilot.knowledge.durable`).
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import secrets
import socket
import sys
import threading
import webbrowser
from pathlib import Path

import uvicorn

from autopilot.codex import app_server
from autopilot.dashboard.api import Api
from autopilot.dashboard.app import build
from autopilot.dashboard.security import CODE_TTL_S, Guard
from autopilot.errors import BridgeError
from autopilot.knowledge.durable.store import agent_marker
from autopilot.output import say
from autopilot.paths import autopilot_home

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


def launch_page(url: str) -> Path:
    """A page that sends the browser to ``url``, readable by this user alone: what the browser is started with.

    A browser's command line is readable by every local user (``/proc/PID/cmdline``): an address with the launch
    code in it could be read there and traded before the browser does. So the browser is given the path of this
    file instead (``$AUTOPILOT_HOME/dashboard``, mode 0700; the file 0600), and the code reaches it by reading the
    file. It is removed when the code expires or the dashboard stops."""
    folder = autopilot_home() / "dashboard"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    path = folder / f"launch-{secrets.token_hex(8)}.html"
    target = html.escape(url, quote=True)
    page = (
        '<!doctype html><meta charset="utf-8"><title>codex-autopilot dashboard</title>'
        f'<meta http-equiv="refresh" content="0;url={target}">'
        f"<script>location.replace({json.dumps(url)})</script>"
        f'<p><a href="{target}">Open the codex-autopilot dashboard</a></p>\n'
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(page)
    return path


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


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
    launch = None
    if open_browser:
        launch = launch_page(guard.url(guard.new_code()))
        threading.Timer(0.5, webbrowser.open, args=(launch.as_uri(),)).start()
        threading.Timer(CODE_TTL_S, _remove, args=(launch,)).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # uvicorn has shut down cleanly and re-raised the signal: stopping is what was asked
    finally:
        sock.close()
        app_server.stop_all()  # a request thread still reading Codex's sessions would leave its codex running
        if launch is not None:
            _remove(launch)
    say("dashboard stopped")
    return 0
