"""Who may talk to the dashboard: a one-time launch code, a session no other server can use, the Host and Origin.

The dashboard listens on 127.0.0.1 only, but any web page the user opens can send requests there,
a DNS-rebinding page can even read answers, other local users can read a browser's command line,
and every other server on 127.0.0.1 receives the browser's cookies for 127.0.0.1 (cookies ignore
ports). So:

- The address printed (and opened) carries a **launch code** in its fragment (``/#code=C``): good for
  one exchange, within :data:`CODE_TTL_S` seconds. The page trades it (``POST /api/session``) for a
  **session** secret it keeps in ``sessionStorage`` (per origin: scheme, host *and port*) and sends as
  ``Authorization: Bearer S`` with each API call. There is no cookie: the browser sends nothing of
  the dashboard's to another port, so a server there has nothing to capture and replay. A code read
  from the browser's command line is spent or expired; a code used twice ends the session it made
  (someone else had it too), and the page says so.
- Every request passes :class:`Guard` (an ASGI middleware, before any route runs): ``Host`` must be
  ``127.0.0.1:PORT`` or ``localhost:PORT`` (else 403); the page and its static files are served to
  anyone (they hold no data), from any site (the launch page the browser opens is a local file); every ``/api/``
  call needs a live session (else 401), except the code exchange; any other request must not carry a foreign
  ``Origin`` or ``Sec-Fetch-Site: cross-site`` (403); ``OPTIONS`` is 405 and no ``Access-Control-*`` header is
  sent.
- A request body is refused as it arrives once it passes :data:`MAX_BODY` (413, connection closed): a
  declared ``Content-Length`` over it before a byte is read, a chunked body at the chunk that passes it.

Every answer carries a strict Content-Security-Policy, ``nosniff``, ``no-referrer``, ``DENY``
framing and ``no-store``. Deciding a rule needs more than a session: the person's approval
passphrase (``autopilot.knowledge.durable.secret``).
"""

from __future__ import annotations

import hmac
import json
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from autopilot.errors import BridgeError

if TYPE_CHECKING:
    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = (b"GET", b"HEAD")
CODE_TTL_S = 120.0
MAX_BODY = 64 * 1024
SESSION_PATH = "/api/session"
PUBLIC = ("/", "/static/")  # the page and its files: no data, served to anyone on the right Host
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
]  # fmt: skip


class BodyTooLarge(Exception):
    """A request body passed MAX_BODY while it was being read."""


class LaunchRefused(BridgeError):
    """A launch code that opens nothing (unknown, expired, or used before): HTTP 401."""


class Guard:
    """The launch code, the live sessions, and the checks every request passes."""

    def __init__(self, port: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.clock = clock
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}
        self._lock = threading.Lock()
        self._codes: dict[str, dict[str, Any]] = {}  # code -> {"expires", "session" (once used)}
        self._sessions: set[str] = set()
        self.code = self.new_code()

    def new_code(self) -> str:
        """A fresh one-time launch code, good for :data:`CODE_TTL_S` seconds (older unused ones keep their own time)."""
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = {"expires": self.clock() + CODE_TTL_S, "session": None}
        self.code = code
        return code

    def url(self, code: str | None = None) -> str:
        """The address to open: the dashboard with a launch code in its fragment (never sent to any server)."""
        return f"http://127.0.0.1:{self.port}/#code={code or self.code}"

    def exchange(self, code: Any) -> str:
        """Trade a launch code for a session (:class:`LaunchRefused` says why not). A second use of a code ends the
        session the first use made: two holders of one code means one was not the person's browser."""
        if not isinstance(code, str) or not code:
            raise LaunchRefused("no launch code: open the address `codex-bridge dashboard` printed")
        with self._lock:
            found = next((v for k, v in self._codes.items() if hmac.compare_digest(k.encode(), code.encode())), None)
            if found is None:
                raise LaunchRefused("unknown launch code: open the address `codex-bridge dashboard` printed")
            if found["session"] is not None:
                self._sessions.discard(found["session"])
                found["session"] = ""
                raise LaunchRefused(
                    "this launch code was already used, so someone else may have read the address: the session it "
                    "made is ended. Press Enter in the dashboard's terminal for a new address, or restart it"
                )
            if self.clock() > found["expires"]:
                raise LaunchRefused(
                    "this launch code has expired (codes last two minutes): press Enter in the dashboard's terminal "
                    "for a new address, or restart it"
                )
            session = secrets.token_urlsafe(32)
            found["session"] = session
            self._sessions.add(session)
            return session

    def authenticated(self, headers: dict[bytes, bytes]) -> bool:
        """Whether the request carries a live session (``Authorization: Bearer S``)."""
        auth = headers.get(b"authorization", b"").decode("latin-1")
        if not auth.startswith("Bearer "):
            return False
        given = auth[7:].strip().encode()
        with self._lock:
            return any(hmac.compare_digest(given, s.encode()) for s in self._sessions)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why this request is refused (status and reason) before any route runs, or None."""
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if host not in self.hosts:
            return 403, "unexpected Host header (the dashboard answers only 127.0.0.1 and localhost on its port)"
        method = scope.get("method", "GET").encode()
        if method == b"OPTIONS":
            return 405, "no CORS: cross-origin requests are not served"
        origin = headers.get(b"origin")
        if origin is not None and origin.decode("latin-1") not in self.origins:
            return 403, "a request from another origin is refused"
        path = str(scope.get("path") or "")
        page = method in SAFE_METHODS and (path == "/" or path.startswith("/static/"))
        if headers.get(b"sec-fetch-site") == b"cross-site" and not page:
            # (the page itself, which holds no data, may be reached from elsewhere: the launch page the browser is
            # given is a file, and Chromium calls a navigation from file:// to 127.0.0.1 cross-site)
            return 403, "a cross-site request is refused"
        if not path.startswith("/api/") or path == SESSION_PATH:
            return None  # the page, its files, and the code exchange (checked by its own route)
        if not self.authenticated(headers):
            return 401, "no live dashboard session: open the address `codex-bridge dashboard` printed"
        return None


class GuardMiddleware:
    """ASGI middleware: :meth:`Guard.refusal` before the app, the body limit while it arrives, the safety headers."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app, self.guard = app, guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.guard.refusal(scope)
        if refused is not None:
            await _answer(send, refused[0], {"error": refused[1]})
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.strip().isdigit() and int(declared) > MAX_BODY:
            await _answer(send, 413, {"error": f"the request body is over {MAX_BODY // 1024} KiB"}, close=True)
            return
        started = False
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    raise BodyTooLarge
            return message

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                kept = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"access-control-")]
                message["headers"] = kept + HEADERS
            await send(message)

        try:
            await self.app(scope, limited, send_with_headers)
        except BodyTooLarge:
            if not started:
                await _answer(send, 413, {"error": f"the request body is over {MAX_BODY // 1024} KiB"}, close=True)


async def _answer(send: Send, status: int, body: Any, *, close: bool = False) -> None:
    data = b"" if body is None else json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers + HEADERS})
    await send({"type": "http.response.body", "body": data})
