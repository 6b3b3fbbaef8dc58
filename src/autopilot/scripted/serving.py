"""What both scripted servers share: a threaded HTTP server on 127.0.0.1, run in the background."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from autopilot.scripted.shapes import Step

_Server = TypeVar("_Server", bound="BackgroundServer")


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The default listen backlog of 5 refuses connections when a client (claude with parallel
    # subagents, 32 bridge processes) opens many at once.
    request_queue_size = 128
    owner: Any


class BackgroundServer:
    """Serves one handler class on 127.0.0.1 in a daemon thread, answering from a queue of scripted steps."""

    thread_name = "scripted-server"

    def __init__(self, handler: type[BaseHTTPRequestHandler], port: int = 0, steps: list[Any] | None = None) -> None:
        self._steps: deque[Any] = deque(steps or [])
        self._lock = threading.Lock()
        self._httpd = _HTTPServer(("127.0.0.1", port), handler)
        self._httpd.owner = self
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    def push(self, *steps: Any) -> None:
        """Queue steps to answer the next requests, in order."""
        with self._lock:
            self._steps.extend(steps)

    def pending(self) -> int:
        """How many queued steps have not been used yet."""
        with self._lock:
            return len(self._steps)

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return int(self._httpd.server_address[1])

    def start(self: _Server) -> _Server:
        """Serve in a background thread and return the server."""
        self._thread = threading.Thread(target=self._serve, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        # One request at a time, waiting without a poll, until stop() (which wakes the wait with a connection).
        while not self._stopping.is_set():
            self._httpd.handle_request()

    def stop(self) -> None:
        """Stop serving and close the socket, at once (the serving thread is woken, not polled: every test's
        teardown waits for it)."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._stopping.set()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=5):
                pass  # the wake-up: handled as a request that sends nothing
            thread.join(timeout=5)
        self._httpd.server_close()

    def __enter__(self: _Server) -> _Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def delay_or_drop(handler: BaseHTTPRequestHandler, step: Step) -> bool:
    """Apply a step's ``delay``; with ``drop``, close the connection unanswered and return True."""
    if step.get("delay"):
        time.sleep(float(step["delay"]))
    if not step.get("drop"):
        return False
    handler.close_connection = True
    with contextlib.suppress(OSError):
        handler.connection.shutdown(socket.SHUT_RDWR)
    return True


def write_body(handler: BaseHTTPRequestHandler, body: bytes, drip: float = 0.0) -> None:
    """Write the response body; with ``drip``, one byte at a time, ``drip`` seconds apart, until the client leaves."""
    if not drip:
        handler.wfile.write(body)
        return
    for i in range(len(body)):
        try:
            handler.wfile.write(body[i : i + 1])
            handler.wfile.flush()
        except OSError:
            return
        time.sleep(drip)


def serve_until_interrupted(server: BackgroundServer) -> int:
    """Print the server's URL and serve until Ctrl-C (for manual runs against real clients)."""
    server.start()
    print(getattr(server, "url", f"http://127.0.0.1:{server.port}"), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
    return 0
