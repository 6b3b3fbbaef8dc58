"""The run's warm line to the Responses API: a call sent through the review worker, which has the openai SDK loaded.

Importing the openai SDK and building its client costs about a second of CPU (more on a busy 2-core laptop). The
review worker (``loop/review_worker.py``) pays it once per run; without this module the Stop hook, which the person
waits for, would pay it again on every verdict. So while a worker runs, it also listens on ``relay.sock`` in the run
directory and sends one prompt per connection with its own :class:`ResponsesBackend`. Everything else stays with the
caller: its call slot, the budget guard, the record of the answer. The relay only moves the HTTP exchange.

Invariants:
- **Nothing is asked twice, nothing is asked unseen.** The exchange is: the caller's request line, the worker's
  ``accepted`` line, the caller's ``go``, the answer. Until the caller says ``go`` nothing reaches the provider, so
  a caller that gets no ``accepted`` in time (no worker, a stale socket, a worker busy exiting, another environment)
  sends the call itself, and the worker drops the request it accepted. After ``go``, a worker that ends without an
  answer is an :class:`InfraError` (the call may have been billed; like a process killed mid-call).
- **The same call the caller would make.** The worker serves only a caller whose OpenAI settings (the key, the base
  URL, proxies, retries: :func:`config.openai_environment_digest`) are its own; others send the call themselves.
- **Only the person.** The socket lives in the run directory (0700, under the private home) and the worker serves
  a peer of its own uid only (``SO_PEERCRED``).
- **Bounded.** The caller waits for the answer at most the call's own timeout plus :data:`GRACE_S`. A worker that is
  told to stop finishes the calls it took (each is billed either way) before it exits.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import threading
import time
from contextlib import suppress
from typing import TYPE_CHECKING, Any, BinaryIO

from autopilot import config
from autopilot.errors import InfraError
from autopilot.loop.backends import Reply, Usage

if TYPE_CHECKING:
    from typing import TypedDict

    class Call(TypedDict):
        """What ``Backend.send`` was given: the call the worker makes for the caller."""

        prompt: str
        schema: dict[str, Any]
        schema_name: str
        schema_path: str
        conversation_id: str | None
        model: str | None
        cwd: str
        timeout: float
        effort: str | None

    class Request(TypedDict):
        """The caller's first line."""

        v: int
        env: str  # config.openai_environment_digest()
        call: Call

    class Failure(TypedDict):
        """An InfraError, as the caller raises it again."""

        message: str
        kind: str
        hint: str | None
        usage: dict[str, int] | None

    class Answer(TypedDict, total=False):
        """The worker's last line: the reply's fields, or ``error``."""

        text: str
        usage: dict[str, int]
        conversation_id: str | None
        model: str | None
        context_tokens: int | None
        error: Failure


SOCKET = "relay.sock"
PROTOCOL = 1
ACCEPT_S = 3.0  # how long a caller waits for the worker to take its call before it sends the call itself
GRACE_S = 5.0  # past the call's own timeout, for the worker to hand the answer over
MAX_LINE = 64 * 1024 * 1024  # a request line's cap (a prompt is at most a few hundred kB)
POLL_S = 0.5  # how often the listening thread looks whether it should close
_SUN_PATH = 100  # AF_UNIX paths are cut at 108 bytes; longer ones are reached through /proc/self/fd


class Relay:
    """The worker's side: listens on the run directory's socket and sends the calls it is given."""

    def __init__(self, run_dir: str) -> None:
        self.run_dir = run_dir
        self.path = os.path.join(run_dir, SOCKET)
        self.last_active = time.monotonic()  # the worker's idle clock counts the calls it relays
        self.served = 0
        self._listener: socket.socket | None = None
        self._in_flight = 0
        self._lock = threading.Condition()
        self._closing = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        """Listen (a stale socket of a killed worker is replaced: the caller holds the run's review lock); whether
        the relay is open."""
        from autopilot.loop.backends import responses  # noqa: F401  (the SDK, loaded before any caller waits)

        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with suppress(FileNotFoundError):
                os.unlink(self.path)
            _at(self.path, listener.bind)
            os.chmod(self.path, 0o600)
            listener.listen(8)
            listener.settimeout(POLL_S)
        except OSError as exc:
            listener.close()
            _say(f"relay: not opened ({exc}); each caller sends its own calls")
            return False
        self._listener = listener
        self._thread = threading.Thread(target=self._accept, name="relay", daemon=True)
        self._thread.start()
        return True

    def busy(self) -> bool:
        """Whether a call it took is still in flight."""
        with self._lock:
            return self._in_flight > 0

    def close(self, wait: float) -> None:
        """Take no more calls and finish those taken, for at most ``wait`` seconds (each is billed either way)."""
        self._closing.set()
        if self._thread is not None:
            self._thread.join()
        if self._listener is not None:
            self._listener.close()
        with suppress(FileNotFoundError):
            os.unlink(self.path)
        end = time.monotonic() + wait
        with self._lock:
            while self._in_flight and time.monotonic() < end:
                self._lock.wait(max(0.0, end - time.monotonic()))

    def _accept(self) -> None:
        assert self._listener is not None
        while not self._closing.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), name="relay-call", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rb") as reader:
            try:
                taken = self._take(conn, reader)
            except (OSError, ValueError) as exc:
                _say(f"relay: a request was refused ({exc})")
                return
            if taken is None:
                return
            try:
                self._send(conn, taken)
            finally:
                with self._lock:
                    self._in_flight -= 1
                    self.last_active = time.monotonic()
                    self._lock.notify_all()

    def _take(self, conn: socket.socket, reader: BinaryIO) -> Call | None:
        """The request, once the caller said ``go``; None when it was refused or the caller went elsewhere."""
        conn.settimeout(ACCEPT_S)
        uid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[2]
        if uid != os.getuid():
            raise ValueError(f"a process of uid {uid} is not this worker's user")
        request: Request = json.loads(_line(reader))
        why = _refusal(request)
        with self._lock:
            if why is None and self._closing.is_set():
                why = "the worker is exiting"
            if why is None:
                self._in_flight += 1
                self.last_active = time.monotonic()
        if why is not None:
            _write(conn, {"accepted": False, "why": why})
            return None
        try:
            _write(conn, {"accepted": True})
            if _line(reader).strip() != b"go":  # the caller stopped waiting and sends the call itself
                raise ValueError("the caller did not go on")
        except (OSError, ValueError):
            with self._lock:
                self._in_flight -= 1
                self._lock.notify_all()
            return None
        conn.settimeout(None)
        return request["call"]

    def _send(self, conn: socket.socket, call: Call) -> None:
        started = time.monotonic()
        try:
            reply = sent_here(call)
            answer: Answer = {
                "text": reply.text,
                "usage": reply.usage.as_dict(),
                "conversation_id": reply.conversation_id,
                "model": reply.model,
                "context_tokens": reply.context_tokens,
            }
        except InfraError as exc:
            usage = getattr(exc, "usage", None)
            answer = {
                "error": {
                    "message": str(exc),
                    "kind": exc.kind,
                    "hint": exc.hint,
                    "usage": usage.as_dict() if isinstance(usage, Usage) else None,
                }
            }
        except Exception as exc:  # the caller's failure to handle, as if its own send had failed
            failed = f"the relayed call failed: {exc}"
            answer = {"error": {"message": failed, "kind": "network", "hint": None, "usage": None}}
        self.served += 1
        _say(f"relay: sent {call['schema_name']} in {time.monotonic() - started:.1f}s")
        with suppress(OSError):  # a caller killed meanwhile: its call is billed all the same, like its own would be
            _write(conn, answer)


class RelayBackend:
    """The ``openai`` backend of a run: through the run's review worker when one listens, else the caller's own."""

    name = "openai"

    def __init__(self, run_dir: str) -> None:
        self.path = os.path.join(run_dir, SOCKET)

    def send(
        self,
        prompt: str,
        schema: dict[str, Any],
        *,
        schema_name: str,
        schema_path: str,
        conversation_id: str | None,
        model: str | None,
        cwd: str,
        timeout: float,
        effort: str | None = None,
    ) -> Reply:
        """Ask through the worker; when no worker takes the call, ask with this process's own client."""
        call: Call = {
            "prompt": prompt,
            "schema": schema,
            "schema_name": schema_name,
            "schema_path": schema_path,
            "conversation_id": conversation_id,
            "model": model,
            "cwd": cwd,
            "timeout": timeout,
            "effort": effort,
        }
        reply = relayed(self.path, call, timeout)
        return reply if reply is not None else sent_here(call)


def sent_here(call: Call) -> Reply:
    """``call`` sent with this process's own client (the worker's, or a caller's that no worker took)."""
    from autopilot.loop.backends.responses import ResponsesBackend

    return ResponsesBackend().send(
        call["prompt"],
        call["schema"],
        schema_name=call["schema_name"],
        schema_path=call["schema_path"],
        conversation_id=call["conversation_id"],
        model=call["model"],
        cwd=call["cwd"],
        timeout=float(call["timeout"]),
        effort=call["effort"],
    )


def relayed(path: str, call: Call, timeout: float) -> Reply | None:
    """``call``'s reply from the worker listening at ``path``; None when no worker took it (nothing was asked)."""
    if not os.path.exists(path):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with conn, conn.makefile("rb") as reader:
        conn.settimeout(ACCEPT_S)
        try:
            _at(path, conn.connect)
            _write(conn, {"v": PROTOCOL, "env": config.openai_environment_digest(), "call": call})
            taken = json.loads(_line(reader))
        except (OSError, ValueError):  # no worker, a stale socket, a worker too busy to answer in time
            return None
        if not taken.get("accepted"):
            return None
        try:
            conn.sendall(b"go\n")
        except OSError:
            return None  # it is gone before it was told to go: nothing was asked
        conn.settimeout(max(0.1, timeout) + GRACE_S)
        try:
            answer = json.loads(_line(reader))
        except TimeoutError:
            raise InfraError(
                f"the review worker gave no answer within {timeout:.0f}s",
                kind="timeout",
                hint="raise AUTOPILOT_TIMEOUT, or check the server (it may be hung)",
            ) from None
        except (OSError, ValueError):
            raise InfraError(
                "the review worker ended during the call; the provider may have billed it",
                kind="network",
                hint="ask again; `codex-bridge status` shows the run",
            ) from None
    return _reply(answer)


def _reply(answer: Answer) -> Reply:
    """The worker's answer as the caller's own send would have given it: a Reply, or the InfraError raised."""
    error = answer.get("error")
    if error is not None:
        exc = InfraError(str(error["message"]), kind=str(error["kind"]), hint=error.get("hint"))
        used = error.get("usage")
        if used is not None:
            exc.with_usage(Usage(**used))
        raise exc
    return Reply(
        text=str(answer["text"]),
        usage=Usage(**answer["usage"]),
        conversation_id=answer.get("conversation_id"),
        model=answer.get("model"),
        context_tokens=answer.get("context_tokens"),
    )


def _refusal(request: Request) -> str | None:
    """Why the worker will not send this request, or None."""
    if request.get("v") != PROTOCOL:
        return f"protocol {request.get('v')!r}, not {PROTOCOL}"
    if request.get("env") != config.openai_environment_digest():
        return "the caller's OpenAI settings are not the worker's"
    if not isinstance(request.get("call"), dict):
        return "no call"
    return None


def _at(path: str, act: Any) -> None:
    """``act(path)`` (bind or connect), through the directory's descriptor when the path is too long for AF_UNIX."""
    if len(os.fsencode(path)) < _SUN_PATH:
        act(path)
        return
    fd = os.open(os.path.dirname(path), os.O_PATH | os.O_DIRECTORY)
    try:
        act(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
    finally:
        os.close(fd)


def _write(conn: socket.socket, value: object) -> None:
    conn.sendall(json.dumps(value).encode() + b"\n")


def _line(reader: BinaryIO) -> bytes:
    line = reader.readline(MAX_LINE)
    if not line.endswith(b"\n"):
        raise ValueError("the line ended early")
    return line


def _say(text: str) -> None:
    from autopilot.output import say

    say(text)
