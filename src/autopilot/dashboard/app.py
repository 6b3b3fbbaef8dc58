"""The dashboard's ASGI app: routes onto :class:`~autopilot.dashboard.api.Api`, run in worker threads.

Every endpoint calls one ``Api`` method through ``run_in_threadpool``: git, transcript reads
and packet builds block, and must never hold the event loop (one slow export would freeze
every other panel). Errors keep the CLI's meaning: :class:`~autopilot.dashboard.api.InvalidInput`
400, :class:`~autopilot.dashboard.api.NotFound` 404, any other refusal (``BridgeError``,
exit 1) 400, an unusable state or a spent budget 409, Codex unavailable 503, a wrong approval
passphrase 403 and too many of them 429; the body is ``{"error", "hint", "exitCode"}``. A bug is
500 and a line in ``crash.log``. ``POST /api/session`` trades the launch code for a session
(``security.Guard.exchange``). Approving and revoking need the person's approval passphrase in the
request, whoever holds the session.

Every answer, errors included, is redacted on its way out (:func:`_shown`): what the stores hold is redacted
already, but a view also shows names read live (a branch, a changed file, a worktree's folder), and a credential
in one of those never reaches the page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from autopilot.dashboard.api import Api, InvalidInput, NotFound
from autopilot.dashboard.security import MAX_BODY, BodyTooLarge, Guard, GuardMiddleware, LaunchRefused
from autopilot.errors import EXIT_ERROR, BridgeError, BudgetExhausted, InfraError, StateError
from autopilot.knowledge.durable import secret
from autopilot.output import printable
from autopilot.paths import autopilot_home
from autopilot.plugin import write_crash_log
from autopilot.redact import Redactor

STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}


def _status(exc: BridgeError) -> int:
    if isinstance(exc, InvalidInput):
        return 400
    if isinstance(exc, LaunchRefused):
        return 401
    if isinstance(exc, secret.WrongSecret):
        return 403
    if isinstance(exc, secret.TooManyAttempts):
        return 429
    if isinstance(exc, NotFound):
        return 404
    if isinstance(exc, (StateError, BudgetExhausted)):
        return 409
    if isinstance(exc, InfraError):
        return 503
    return 400 if exc.exit_code == EXIT_ERROR else 409


def _error(exc: BridgeError) -> JSONResponse:
    message = exc.args[0] if exc.args else str(exc)
    body = _shown({"error": message, "hint": exc.hint, "exitCode": exc.exit_code})
    return JSONResponse(body, status_code=_status(exc))


def _shown(answer: Any) -> Any:
    """An answer as the page may show it: every string (keys included) redacted."""
    return Redactor().walk(answer)


def _answer(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return _shown(fn(*args, **kwargs))


async def _call(fn: Callable[..., Any], *args: Any, shown: bool = True, **kwargs: Any) -> Response:
    """Run one API function in a worker thread and answer its JSON, redacted unless ``shown`` is False (the session
    the launch code is traded for: a credential the page must hold), or its error."""
    try:
        if shown:
            result = await run_in_threadpool(_answer, fn, *args, **kwargs)
        else:
            result = await run_in_threadpool(fn, *args, **kwargs)
    except BridgeError as exc:
        return _error(exc)
    except Exception as exc:  # a bug: say so, keep the traceback
        log = write_crash_log(str(autopilot_home()), exc)
        return JSONResponse(
            {
                "error": f"internal error: {type(exc).__name__}: {printable(str(exc))[:300]}",
                "hint": f"a bug in codex-bridge, or a file it did not expect: the traceback is in {log} (please report "
                "it); `codex-bridge doctor` checks the setup",
            },
            status_code=500,
        )
    return JSONResponse(result)


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()  # the guard's receive raises BodyTooLarge as soon as it passes MAX_BODY
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        raise InvalidInput("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise InvalidInput("the request body must be a JSON object")
    return data


def _too_large() -> JSONResponse:
    return JSONResponse(
        {"error": f"the request body is over {MAX_BODY // 1024} KiB"}, status_code=413, headers={"connection": "close"}
    )


async def _posted(request: Request, call: Callable[[dict[str, Any]], Any], *, shown: bool = True) -> Response:
    """Read the request's JSON body (refused as it passes MAX_BODY), then run ``call(body)`` like any other endpoint."""
    try:
        body = await _body(request)
    except BridgeError as exc:
        return _error(exc)
    except BodyTooLarge:
        return _too_large()
    return await _call(call, body, shown=shown)


def _page(name: str) -> bytes:
    return resources.files("autopilot.dashboard").joinpath("static", name).read_bytes()


def build(api: Api, guard: Guard) -> GuardMiddleware:
    """The whole app: the guard around the routes."""
    index = _page("index.html")
    static = {name: _page(name) for name in STATIC}

    async def page(request: Request) -> Response:
        return Response(index, media_type="text/html; charset=utf-8")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in static:
            return JSONResponse({"error": "no such file"}, status_code=404)
        return Response(static[name], media_type=STATIC[name])

    def q(request: Request, key: str, default: Any = None) -> Any:
        return request.query_params.get(key, default)

    async def overview(request: Request) -> Response:
        return await _call(api.overview)

    async def runs(request: Request) -> Response:
        return await _call(api.runs)

    async def run(request: Request) -> Response:
        return await _call(api.run, request.path_params["run"])

    async def stop(request: Request) -> Response:
        return await _posted(request, lambda b: api.stop(request.path_params["run"], b.get("reason")))

    async def resume(request: Request) -> Response:
        return await _call(api.resume, request.path_params["run"])

    async def sources(request: Request) -> Response:
        return await _call(api.sources, request.path_params["agent"], latest=q(request, "latest") in ("1", "true"))

    async def session(request: Request) -> Response:
        p = request.path_params
        return await _call(
            api.session, p["agent"], p["session"], limit=q(request, "limit", 20), before=q(request, "before")
        )

    async def export(request: Request) -> Response:
        return await _posted(
            request,
            lambda b: api.export(b.get("agent"), b.get("session"), b.get("to"), preview=b.get("preview") is True),
        )

    async def packet_list(request: Request) -> Response:
        return await _call(api.packets, limit=q(request, "limit", 200))

    async def packet(request: Request) -> Response:
        return await _call(api.packet, request.path_params["packet"])

    async def packet_import(request: Request) -> Response:
        pid = request.path_params["packet"]
        return await _posted(
            request, lambda b: api.import_packet(pid, b.get("to"), b.get("session"), b.get("newSession"))
        )

    async def active(request: Request) -> Response:
        return await _call(api.active_memory)

    async def recover(request: Request) -> Response:
        return await _posted(request, api.recover)

    async def readiness(request: Request) -> Response:
        return await _call(api.readiness)

    async def archives(request: Request) -> Response:
        return await _call(api.archives)

    async def search(request: Request) -> Response:
        archived = q(request, "archived") in ("1", "true")
        return await _call(api.search, q(request, "q"), limit=q(request, "limit", 10), archived=archived)

    async def durable_list(request: Request) -> Response:
        return await _call(api.durable_list, q(request, "status"))

    async def propose(request: Request) -> Response:
        return await _posted(request, api.propose)

    def decision(action: str) -> Callable[[Request], Any]:
        async def decide(request: Request) -> Response:
            rule = request.path_params["rule"]
            return await _posted(request, lambda b: api.decide(action, rule, b))

        return decide

    async def launch(request: Request) -> Response:
        return await _posted(request, lambda b: {"session": guard.exchange(b.get("code"))}, shown=False)

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/static/{name}", asset, methods=["GET"]),
        Route("/api/session", launch, methods=["POST"]),
        Route("/api/overview", overview, methods=["GET"]),
        Route("/api/runs", runs, methods=["GET"]),
        Route("/api/runs/{run:path}/stop", stop, methods=["POST"]),
        Route("/api/runs/{run:path}/resume", resume, methods=["POST"]),
        Route("/api/runs/{run:path}", run, methods=["GET"]),
        Route("/api/sources/{agent}", sources, methods=["GET"]),
        Route("/api/sources/{agent}/{session:path}", session, methods=["GET"]),
        Route("/api/export", export, methods=["POST"]),
        Route("/api/packets", packet_list, methods=["GET"]),
        Route("/api/packets/{packet:path}/import", packet_import, methods=["POST"]),
        Route("/api/packets/{packet:path}", packet, methods=["GET"]),
        Route("/api/memory/active", active, methods=["GET"]),
        Route("/api/memory/recover", recover, methods=["POST"]),
        Route("/api/readiness", readiness, methods=["GET"]),
        Route("/api/archive", archives, methods=["GET"]),
        Route("/api/search", search, methods=["GET"]),
        Route("/api/durable", durable_list, methods=["GET"]),
        Route("/api/durable", propose, methods=["POST"]),
        Route("/api/durable/{rule:path}/approve", decision("approve"), methods=["POST"]),
        Route("/api/durable/{rule:path}/revoke", decision("revoke"), methods=["POST"]),
    ]
    return GuardMiddleware(Starlette(routes=routes), guard)
