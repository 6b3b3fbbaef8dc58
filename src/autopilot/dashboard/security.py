"""Who may talk to the dashboard: a per-launch token, the Host header, the Origin of anything that changes state.

The dashboard listens on 127.0.0.1 only, but any web page the user opens can send requests
there, and a DNS-rebinding page can even read answers. So every request passes :class:`Guard`
(an ASGI middleware, before any route runs):

- ``Host`` must be ``127.0.0.1:PORT`` or ``localhost:PORT`` (a rebinding page's requests carry
  its own host name): otherwise 403;
- the caller must hold the launch token: the session cookie the page got for it
  (HttpOnly, SameSite=Strict), or ``Authorization: Bearer TOKEN`` for scripts: otherwise 401;
- a request that can change state (any method but GET and HEAD) must come from the
  dashboard's own origin: a foreign ``Origin`` (or ``Sec-Fetch-Site: cross-site``) is 403, and
  a cookie-authenticated one without any ``Origin`` is 403 too;
- there is no CORS: no ``Access-Control-*`` header is ever sent, and ``OPTIONS`` is 405.

``GET /?token=T`` with the right token answers 303 to ``/`` with the cookie set, so the token
leaves the address bar. Every answer carries a strict Content-Security-Policy, ``nosniff``,
``no-referrer``, ``DENY`` framing and ``no-store``.
"""

from __future__ import annotations

import hmac
import json
import secrets
from typing import Any
from urllib.parse import parse_qs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, MutableMapping

    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SAFE_METHODS = (b"GET", b"HEAD")
HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
     b"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
]  # fmt: skip


class Guard:
    """The per-launch secrets and the checks every request passes."""

    def __init__(self, port: int, *, token: str | None = None) -> None:
        self.port = port
        self.token = token or secrets.token_urlsafe(32)  # what the printed URL carries
        self.session = secrets.token_urlsafe(32)  # what the cookie carries (never printed)
        self.cookie = f"autopilot_dashboard_{port}"  # cookies are not per port: the name is
        self.hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
        self.origins = {f"http://{h}" for h in self.hosts}

    def url(self) -> str:
        """The address to open: the dashboard with its launch token."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def set_cookie(self) -> bytes:
        """The Set-Cookie header value that trades the token for a session."""
        return f"{self.cookie}={self.session}; HttpOnly; SameSite=Strict; Path=/".encode()

    def authenticated(self, headers: dict[bytes, bytes]) -> str | None:
        """``cookie`` or ``bearer`` when the request holds the launch's secret, else None."""
        auth = headers.get(b"authorization", b"").decode("latin-1")
        if auth.startswith("Bearer ") and hmac.compare_digest(auth[7:].strip().encode(), self.token.encode()):
            return "bearer"
        for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
            name, _, value = part.strip().partition("=")
            if name == self.cookie and hmac.compare_digest(value.encode(), self.session.encode()):
                return "cookie"
        return None

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
        if headers.get(b"sec-fetch-site") == b"cross-site":
            return 403, "a cross-site request is refused"
        if _token_exchange(scope):
            return None  # answered by the guard itself, below
        how = self.authenticated(headers)
        if how is None:
            return 401, "no valid dashboard token: open the address `codex-bridge dashboard` printed"
        if method not in SAFE_METHODS and how == "cookie" and origin is None:
            return 403, "a state-changing request from the page must carry its Origin"
        scope.setdefault("state", {})["auth"] = how
        return None


def _token_exchange(scope: Scope) -> bool:
    return scope.get("path") == "/" and scope.get("method") == "GET" and b"token=" in scope.get("query_string", b"")


class GuardMiddleware:
    """ASGI middleware: :meth:`Guard.refusal` before the app, the token exchange, and the safety headers."""

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
        if _token_exchange(scope):
            given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [""])[0]
            if not hmac.compare_digest(given.encode(), self.guard.token.encode()):
                await _answer(send, 401, {"error": "wrong dashboard token: open the address the command printed"})
                return
            await _answer(send, 303, None, [(b"location", b"/"), (b"set-cookie", self.guard.set_cookie())])
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if not k.lower().startswith(b"access-control-")]
                message["headers"] = kept + HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def _answer(send: Send, status: int, body: Any, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    data = b"" if body is None else json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or []) + HEADERS})
    await send({"type": "http.response.body", "body": data})
