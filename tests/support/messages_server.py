"""A local, scripted Anthropic Messages-API server for the real ``claude`` binary in tests.

It speaks enough of ``POST /v1/messages`` (any query string, e.g. ``?beta=true``) for
Claude Code: streaming SSE (``message_start``, ``content_block_start/delta/stop``,
``message_delta``, ``message_stop``) or one JSON message, plus
``POST /v1/messages/count_tokens``; anything else is a 404. Typical use::

    with MessagesServer() as srv:
        srv.push(tool_use("Write", {"file_path": "a.txt", "content": "hi\\n"}), text("Done."))
        subprocess.run([claude, "-p", "make a.txt", "--allowedTools", "Write"],
                       env={**os.environ, **srv.env(home=tmp)})
        srv.requests            # every /v1/messages body, in order (main and background)
        srv.main_requests()     # only the ones the script answered

A *step* is a plain dict, so a script can be a JSON file:
    {"content": [block, ...], "stop_reason": "end_turn"}   one assistant message; blocks
        are Anthropic content blocks: text, thinking, redacted_thinking, tool_use (an
        ``id`` is made up when missing); ``stop_reason`` defaults to ``tool_use`` when a
        tool_use block is present, else ``end_turn``; optional ``usage``, ``model``
    {"status": 529, "error": {"type": "overloaded_error", "message": "..."}}  HTTP error
    {"stream_error": {"type": "overloaded_error", "message": "..."}}  SSE ``error`` event
    {"delay": 1.5, ...}   wait before answering;  {"drop": true}  close without answering
    {"headers": {...}, ...}   extra response headers (e.g. the ``anthropic-ratelimit-unified-*`` ones)

Which step answers a request:
    1. a *background* request (by default one for a haiku/small model, which Claude Code
       uses for titles and other side tasks; see :func:`is_background`) gets
       ``background`` (a step or a callable), so it never eats the script;
    2. otherwise the ``responder`` callable, if given and it returns a step;
    3. otherwise the next queued step;
    4. otherwise ``default`` (an ``end_turn`` text), counted in ``unscripted``.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from autopilot.scripted.serving import BackgroundServer, delay_or_drop, serve_until_interrupted

Step = dict[str, Any]
Responder = Callable[[dict[str, Any]], "Step | None"]

MAIN_MODEL = "claude-scripted-main"
SMALL_MODEL = "claude-scripted-haiku"
DEFAULT_USAGE = {"input_tokens": 100, "output_tokens": 20}


def text(value: str, **extra: Any) -> Step:
    """A step answering with one text block."""
    return {"content": [{"type": "text", "text": value}], **extra}


def tool_use(name: str, input: dict[str, Any], id: str | None = None, *, say: str | None = None, **extra: Any) -> Step:
    """A step asking Claude Code to run a tool, optionally after a sentence of text."""
    block: dict[str, Any] = {"type": "tool_use", "name": name, "input": input}
    if id:
        block["id"] = id
    lead = [{"type": "text", "text": say}] if say else []
    return {"content": [*lead, block], **extra}


def thinking(thought: str, then: Step | None = None) -> Step:
    """A step whose message starts with a thinking block, followed by ``then``'s blocks."""
    block = {"type": "thinking", "thinking": thought, "signature": "c2NyaXB0ZWQ="}
    rest = then or text("…")
    return {**rest, "content": [block, *rest.get("content", [])]}


def blocks(*content: dict[str, Any], **extra: Any) -> Step:
    """A step answering with the given content blocks."""
    return {"content": list(content), **extra}


def http_error(status: int, message: str = "scripted error", type: str = "api_error") -> Step:
    """A step answering with an HTTP error status and an Anthropic error body."""
    return {"status": status, "error": {"type": type, "message": message}}


def delay(step: Step, seconds: float) -> Step:
    """The same step, answered after ``seconds``."""
    return {**step, "delay": seconds}


def is_background(body: dict[str, Any]) -> bool:
    """Whether a request is one of Claude Code's side tasks (titles, summaries of tool use…)."""
    model = str(body.get("model") or "")
    return "haiku" in model.lower() or model == SMALL_MODEL


@dataclass
class Request:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    route: str  # main | background | count_tokens | unknown
    step: Step | None = None
    at: float = field(default_factory=time.time)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any  # serving._HTTPServer, whose .owner is the MessagesServer

    def log_message(self, *args: Any) -> None:  # quiet: tests read .requests instead
        pass

    def _send(
        self, status: int, body: bytes, ctype: str = "application/json", headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", f"req_01Scripted{next(self.server.owner._request_ids):08d}")
        self.end_headers()
        self.wfile.write(body)

    def _not_found(self) -> None:
        self._send(404, _error_body("not_found_error", f"no route for {self.command} {self.path}"))

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.server.owner._record(self.path, dict(self.headers), {}, "unknown")
        self._not_found()

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, _error_body("invalid_request_error", "body is not JSON"))
            return
        owner = self.server.owner
        if path == "/v1/messages/count_tokens":
            owner._record(self.path, dict(self.headers), body, "count_tokens")
            self._send(200, json.dumps({"input_tokens": max(1, len(raw) // 4)}).encode())
            return
        if path != "/v1/messages":
            owner._record(self.path, dict(self.headers), body, "unknown")
            self._not_found()
            return
        step = owner._answer(self.path, dict(self.headers), body)
        if delay_or_drop(self, step):
            return
        if "status" in step:
            error = step.get("error") or {}
            self._send(
                int(step["status"]), _error_body(error.get("type", "api_error"), error.get("message", "scripted error"))
            )
            return
        message = owner._message(step, body)
        extra = step.get("headers")
        if body.get("stream"):
            self._send(200, _sse(message, step.get("stream_error")), "text/event-stream", extra)
        else:
            self._send(200, json.dumps(message).encode(), headers=extra)


def _error_body(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


def _sse(message: dict[str, Any], stream_error: dict[str, Any] | None) -> bytes:
    """The streamed form of a message, as the Anthropic API sends it."""
    head = {**message, "content": [], "stop_reason": None, "usage": {**message["usage"], "output_tokens": 1}}
    out = [_event("message_start", {"type": "message_start", "message": head}), _event("ping", {"type": "ping"})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        start: dict[str, Any]
        deltas: list[dict[str, Any]]
        if kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": block["text"]}]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [
                {"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block.get("signature", "")},
            ]
        elif kind == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
        else:  # redacted_thinking and anything else arrive whole
            start, deltas = block, []
        out.append(
            _event("content_block_start", {"type": "content_block_start", "index": index, "content_block": start})
        )
        for delta in deltas:
            out.append(_event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
        if stream_error and index == 0:
            out.append(_event("error", {"type": "error", "error": stream_error}))
            return "".join(out).encode()
    if stream_error and not message["content"]:
        out.append(_event("error", {"type": "error", "error": stream_error}))
        return "".join(out).encode()
    out.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
    )
    out.append(_event("message_stop", {"type": "message_stop"}))
    return "".join(out).encode()


class MessagesServer(BackgroundServer):
    """A scripted Messages-API server on 127.0.0.1 that records every request it gets."""

    thread_name = "messages-server"

    def __init__(
        self,
        steps: list[Step] | None = None,
        *,
        responder: Responder | None = None,
        background: Step | Responder | None = None,
        default: Step | None = None,
        route: Callable[[dict[str, Any]], bool] = is_background,
        port: int = 0,
    ) -> None:
        self.responder = responder
        self.background = background if background is not None else text("Scripted session")
        self.default = default if default is not None else text("(the script has no more steps)")
        self.route = route
        self.unscripted = 0  # main requests answered by ``default``
        self._log: list[Request] = []
        self._ids = itertools.count(1)
        self._request_ids = itertools.count(1)
        super().__init__(_Handler, port, steps)

    @classmethod
    def from_script(cls, script: list[Step] | dict[str, Any], port: int = 0) -> MessagesServer:
        """A server for a JSON script: a list of steps, or ``{steps, background, default}``."""
        if isinstance(script, list):
            script = {"steps": script}
        return cls(script.get("steps"), background=script.get("background"), default=script.get("default"), port=port)

    @property
    def url(self) -> str:
        """The base URL for ``ANTHROPIC_BASE_URL`` (no ``/v1``: the client adds it)."""
        return f"http://127.0.0.1:{self.port}"

    def env(self, home: str | None = None, **extra: str) -> dict[str, str]:
        """Environment that points the real ``claude`` at this server, offline and quiet."""
        env = {
            "ANTHROPIC_BASE_URL": self.url,
            "ANTHROPIC_API_KEY": "sk-scripted-not-a-key",
            "ANTHROPIC_MODEL": MAIN_MODEL,
            "ANTHROPIC_DEFAULT_SONNET_MODEL": MAIN_MODEL,
            "ANTHROPIC_DEFAULT_OPUS_MODEL": MAIN_MODEL,
            "ANTHROPIC_DEFAULT_HAIKU_MODEL": SMALL_MODEL,
            "ANTHROPIC_SMALL_FAST_MODEL": SMALL_MODEL,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL": "1",
        }
        if home is not None:
            env["HOME"] = home
            env["CLAUDE_CONFIG_DIR"] = f"{home}/.claude"
        env.update(extra)
        return env

    @property
    def log(self) -> list[Request]:
        """Every request received (count_tokens and unknown paths included), in order."""
        with self._lock:
            return list(self._log)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The body of every ``/v1/messages`` request, main and background, in order."""
        return [r.body for r in self.log if r.route in ("main", "background")]

    def main_requests(self) -> list[dict[str, Any]]:
        """The bodies of requests answered by the script (not background side tasks)."""
        return [r.body for r in self.log if r.route == "main"]

    def background_requests(self) -> list[dict[str, Any]]:
        """The bodies of background side-task requests."""
        return [r.body for r in self.log if r.route == "background"]

    def _record(
        self, path: str, headers: dict[str, str], body: dict[str, Any], route: str, step: Step | None = None
    ) -> None:
        with self._lock:
            self._log.append(Request(path, headers, body, route, step))

    def _answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Step:
        if self.route(body):
            bg = self.background
            step = bg(body) if callable(bg) else bg
            route = "background"
        else:
            step = self.responder(body) if self.responder is not None else None
            route = "main"
            if step is None:
                with self._lock:
                    if self._steps:
                        step = self._steps.popleft()
                    else:
                        self.unscripted += 1
                        step = self.default
        step = step or self.default
        self._record(path, headers, body, route, step)
        return step

    def _message(self, step: Step, body: dict[str, Any]) -> dict[str, Any]:
        n = next(self._ids)
        content = []
        for i, block in enumerate(step.get("content") or []):
            block = dict(block)
            if block.get("type") == "tool_use":
                block.setdefault("id", f"toolu_01Scripted{n:06d}{i:03d}")
            content.append(block)
        has_tool = any(b.get("type") == "tool_use" for b in content)
        return {
            "id": f"msg_01Scripted{n:08d}",
            "type": "message",
            "role": "assistant",
            "model": step.get("model") or body.get("model") or MAIN_MODEL,
            "content": content,
            "stop_reason": step.get("stop_reason") or ("tool_use" if has_tool else "end_turn"),
            "stop_sequence": None,
            "usage": {
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                **DEFAULT_USAGE,
                **(step.get("usage") or {}),
            },
        }


def main(argv: list[str] | None = None) -> int:
    """Serve a JSON script until interrupted (for manual runs of the real ``claude``)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m tests.support.messages_server", description="Serve scripted Messages-API answers on 127.0.0.1."
    )
    parser.add_argument("--script", help="JSON file: a list of steps, or {steps, background, default}")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    script: Any = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            script = json.load(fh)
    return serve_until_interrupted(MessagesServer.from_script(script, port=args.port))


if __name__ == "__main__":
    raise SystemExit(main())
