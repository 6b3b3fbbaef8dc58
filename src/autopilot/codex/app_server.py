"""A ``codex app-server`` child process spoken to over stdio JSON-RPC, allowed only a fixed set of methods.

The app server speaks newline-delimited JSON-RPC without the ``"jsonrpc"`` field. A client is
created with the methods it may send; any other method is refused before it is sent, and
requests the server sends to the client are answered with an error (nothing is ever granted).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections.abc import Collection
from typing import Any, TypeVar

from autopilot import __version__
from autopilot.config import codex_binary, parse_version
from autopilot.errors import BridgeError

_Client = TypeVar("_Client", bound="AppServerClient")
# The app servers running now, from any thread: a process that ends stops those its threads left (stop_all).
_LIVE: set[subprocess.Popen[str]] = set()
_LIVE_LOCK = threading.Lock()


def stop_all() -> None:
    """Kill every app server this process still runs (a server process ending while a request thread reads one)."""
    with _LIVE_LOCK:
        left = list(_LIVE)
        _LIVE.clear()
    for proc in left:
        try:
            proc.kill()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            continue


class AppServerClient:
    """``codex app-server`` as a child process that only ever receives ``methods``."""

    def __init__(
        self,
        binary: str | None = None,
        *,
        methods: Collection[str],
        timeout: float = 30.0,
        cwd: str | None = None,
        client: str = "codex_autopilot",
        purpose: str = "codex-autopilot",
        hint: str = "check AUTOPILOT_CODEX_BIN",
    ) -> None:

        found = binary or codex_binary()
        if not found:
            raise BridgeError(
                "the codex binary was not found, so codex app-server cannot run",
                hint="install the Codex CLI (npm install -g @openai/codex) or name it with "
                f"AUTOPILOT_CODEX_BIN; {hint}",
            )
        self.binary: str = found
        self.methods = frozenset(methods) | {"initialize"}
        self.timeout = timeout
        self.cwd = cwd
        self.client, self.purpose, self.hint = client, purpose, hint
        self.sent: list[str] = []  # every method sent, in order (tests check it)
        self.version: tuple[int, ...] | None = None  # the server's codex version, from initialize
        self._ids = 0
        self._inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None

    def __enter__(self: _Client) -> _Client:
        try:
            self.proc = subprocess.Popen(
                [self.binary, "app-server"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
                cwd=self.cwd,
            )
        except OSError as exc:
            raise BridgeError(f"cannot start {self.binary} app-server: {exc.strerror}", hint=self.hint) from None
        with _LIVE_LOCK:
            _LIVE.add(self.proc)
        self._reader = threading.Thread(target=self._pump, name="app-server-reader", daemon=True)
        self._reader.start()
        try:
            hello = self.call(
                "initialize",
                {
                    "clientInfo": {"name": self.client, "title": self.purpose, "version": __version__},
                    "capabilities": {"experimentalApi": True},
                },
            )
            self._send({"method": "initialized"})
        except BaseException as exc:  # `with` calls __exit__ only once __enter__ returned: a server that never
            self.__exit__(type(exc), exc, None)  # answered is stopped here
            raise
        agent = hello.get("userAgent")  # "<client>/<codex version> (<os>; <arch>) ..."
        self.version = parse_version(agent.split(" ", 1)[0]) if isinstance(agent, str) else None
        return self

    def __exit__(self, *exc: object) -> None:
        proc = self.proc
        if proc is None:
            return
        try:
            if exc[0] is not None:  # the read failed or was ended: nothing more to wait for
                proc.kill()
            if proc.stdin:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            with _LIVE_LOCK:
                _LIVE.discard(proc)
        # The reader stops at the end of the output, which the exit brings; then its pipe is closed here rather than
        # left to the garbage collector (not while a grandchild still holds it open and the reader still reads).
        if self._reader is not None:
            self._reader.join(timeout=10)
        if proc.stdout is not None and not (self._reader is not None and self._reader.is_alive()):
            proc.stdout.close()

    def _pump(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict):
                self._inbox.put(message)
        self._inbox.put(None)

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()
        except OSError:
            raise BridgeError("codex app-server closed its input", hint=self.hint) from None

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return its result; a method outside ``methods`` is refused unsent."""
        if method not in self.methods:
            raise BridgeError(
                f"refused to call {method}: this app-server client may only send {', '.join(sorted(self.methods))}",
                hint="resuming threads and starting turns is never part of a read",
            )
        self._ids += 1
        rid = self._ids
        self.sent.append(method)
        self._send({"id": rid, "method": method, "params": params})
        while True:
            try:
                message = self._inbox.get(timeout=self.timeout)
            except queue.Empty:
                raise BridgeError(
                    f"codex app-server did not answer {method} within {self.timeout:.0f}s", hint=self.hint
                ) from None
            if message is None:
                raise BridgeError(f"codex app-server exited while answering {method}", hint=self.hint)
            if "method" in message and "id" in message:  # the server asks the client: never granted
                self._send({"id": message["id"], "error": {"code": -32601, "message": "read-only client"}})
                continue
            if message.get("id") != rid:
                continue  # a notification
            if "error" in message:
                error = message["error"] if isinstance(message["error"], dict) else {}
                raise BridgeError(f"codex app-server refused {method}: {error.get('message', error)}")
            return message.get("result") or {}
