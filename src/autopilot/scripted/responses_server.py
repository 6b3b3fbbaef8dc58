"""A local, scripted OpenAI Responses-API server for tests, benchmarks and the offline demo.

It speaks just enough of ``POST /v1/responses`` for the real ``openai`` SDK (plain JSON)
and the real ``codex`` CLI (streaming SSE) to work against it. Answers come from a queue
of *steps*, then from an optional *responder* callable, then from a default reply:

    with ResponsesServer() as srv:
        srv.push(reply_json({"decision": "approve", ...}), http_error(429), delay(reply_text("hi"), 2))
        ... point the client at srv.url ...
        srv.requests  # every request body received, in order

A step is a plain dict (so scripts can be JSON files):
    {"output": [items...]}                        a completed response, billed as a provider would
                                                  (billing.py: the whole conversation, the repeated
                                                  prefix cached); ``srv.bills`` lists every bill
    {"output": [...], "usage": {...}}            the same with the usage it states instead
    {"status": 429, "error": {"message", ...}}   an HTTP error
    {"delay": 1.5, ...}                           wait before answering (long: accepts, never answers)
    {"drip": 1.0, ...}                            send the body one byte a second
    {"drop": true}                                close the connection without an answer
    {"failed": {"code", "message"}}               a streamed ``response.failed``
    {"headers": {"name": "value"}, ...}          extra response headers (e.g. Codex's rate-limit
                                                  ``x-codex-primary-used-percent``, see with_headers)

A request with ``"background": true`` is answered at once with the response ``queued``, as the Responses API does;
its step runs in a thread of its own (its delay is the model's time), and ``GET /v1/responses/{id}`` shows it
``in_progress`` and then ``completed`` (or ``failed``, for a ``failed`` step). An HTTP error or a drop answers the
request itself, as a provider refuses a bad or rate-limited request before it starts. A background response is billed
when it completes, whether or not anyone ever retrieves it: a provider bills the work, not the reading.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

from autopilot import clock
from autopilot.scripted.billing import Ledger
from autopilot.scripted.serving import BackgroundServer, delay_or_drop, serve_until_interrupted, write_body

if TYPE_CHECKING:
    from autopilot.scripted.shapes import ResponseObject, ResponseUsage, StatedUsage, Step

Responder = Callable[[dict[str, Any]], "Step"]  # a request body -> the step that answers it


def _usage(spec: dict[str, int]) -> ResponseUsage:
    inp, out = int(spec["input_tokens"]), int(spec["output_tokens"])
    cached = min(inp, int(spec["cached_tokens"]))
    return {
        "input_tokens": inp,
        "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": int(spec.get("cache_write_tokens", 0))},
        "output_tokens": out,
        "output_tokens_details": {"reasoning_tokens": int(spec.get("reasoning_tokens", 0))},
        "total_tokens": inp + out,
    }


def reply_text(text: str, usage: StatedUsage | None = None) -> Step:
    """A step answering with one assistant message."""
    item = {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return {"output": [item], "usage": usage}


def reply_json(obj: Any, usage: StatedUsage | None = None) -> Step:
    """A step answering with a JSON document as the assistant's text (structured output)."""
    return reply_text(json.dumps(obj), usage)


def tool_call(name: str, arguments: dict[str, Any], call_id: str = "call_1", usage: StatedUsage | None = None) -> Step:
    """A step asking the client to run a function tool (``exec_command`` for Codex)."""
    item = {
        "type": "function_call",
        "name": name,
        "arguments": json.dumps(arguments),
        "call_id": call_id,
        "status": "completed",
    }
    return {"output": [item], "usage": usage}


def http_error(status: int, message: str = "scripted error", code: str | None = None) -> Step:
    """A step answering with an HTTP error status and an OpenAI-style error body."""
    return {"status": status, "error": {"message": message, "type": "scripted", "code": code}}


def delay(step: Step, seconds: float) -> Step:
    """The same step, answered after ``seconds`` (a long delay is a server that accepts and never answers)."""
    return {**step, "delay": seconds}


def with_headers(step: Step, headers: dict[str, str]) -> Step:
    """The same step, answered with extra HTTP response headers (Codex records ``x-codex-*`` rate limits)."""
    return {**step, "headers": {**step.get("headers", {}), **headers}}


def rate_limit_headers(
    primary_used: float, secondary_used: float, *, primary_reset: int, secondary_reset: int
) -> dict[str, str]:
    """The rate-limit headers the Codex service sends: a 5-hour (primary) and a weekly (secondary) window."""
    return {
        "x-codex-primary-used-percent": str(primary_used),
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-at": str(primary_reset),
        "x-codex-secondary-used-percent": str(secondary_used),
        "x-codex-secondary-window-minutes": "10080",
        "x-codex-secondary-reset-at": str(secondary_reset),
    }


def drip(step: Step, seconds_per_byte: float) -> Step:
    """The same step, its body sent one byte every ``seconds_per_byte`` (no read ever times out)."""
    return {**step, "drip": seconds_per_byte}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Any

    def log_message(self, *args: Any) -> None:  # quiet: tests read .requests instead
        pass

    def _send(
        self,
        status: int,
        body: bytes,
        ctype: str = "application/json",
        drip: float = 0.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self.end_headers()
        write_body(self, body, drip)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models"):
            self._send(200, json.dumps({"object": "list", "data": []}).encode())
            return
        head, _, rid = path.rpartition("/")
        found = self.server.owner.retrieve(rid) if head.endswith("/responses") else None
        if found is None:
            self._send(404, json.dumps({"error": {"message": f"No response found with id '{rid}'."}}).encode())
        else:
            self._send(200, json.dumps(found).encode())

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.split("?")[0].endswith("/responses"):
            self._send(404, b'{"error":{"message":"not found"}}')
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, b'{"error":{"message":"invalid JSON"}}')
            return
        step, rid = self.server.owner._next(body, dict(self.headers))
        if body.get("background") and "status" not in step and not step.get("drop"):
            # (an HTTP error or a dropped connection is the request's own fate, background or not)
            owner = self.server.owner
            queued, finished = owner._in_background(step, rid, body)
            if not body.get("stream"):
                self._send(200, json.dumps(queued).encode())
                return
            # Streamed: the created event at once, the rest as the response completes; the connection then closes.
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("connection", "close")
            self.end_headers()
            self.close_connection = True
            with contextlib.suppress(OSError):  # a client that left: the response completes (and bills) anyway
                self.wfile.write(_events([{"type": "response.created", "response": queued}]))
                self.wfile.flush()
                finished.wait()
                done = owner.retrieve(rid)
                ended: Step = {"failed": done["error"]} if done["status"] == "failed" else {}
                self.wfile.write(b"".join(_sse(done, ended)[1:]))
            return
        if delay_or_drop(self, step):
            return
        extra = step.get("headers")
        if "status" in step:
            self._send(int(step["status"]), json.dumps({"error": step.get("error", {})}).encode(), headers=extra)
            return
        response = self.server.owner._response(step, rid, body)
        drip = float(step.get("drip") or 0)
        if body.get("stream"):
            self._send(200, b"".join(_sse(response, step)), "text/event-stream", drip, extra)
        else:
            self._send(200, json.dumps(response).encode(), drip=drip, headers=extra)


def _sse(response: ResponseObject, step: Step) -> list[bytes]:
    """A response as the events a streaming client reads, one ``bytes`` each (the first is ``response.created``)."""
    rid = response["id"]
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**response, "status": "in_progress", "output": []}}
    ]
    for index, item in enumerate(response["output"]):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    if step.get("failed"):
        events.append({"type": "response.failed", "response": {**response, "id": rid, "error": step["failed"]}})
    else:
        events.append({"type": "response.completed", "response": response})
    return [_events([e], n) for n, e in enumerate(events)]


def _events(events: list[dict[str, Any]], first: int = 0) -> bytes:
    """Server-sent events, numbered from ``first``."""
    seq = itertools.count(first)
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': next(seq)})}\n\n" for e in events
    ).encode()


class ResponsesServer(BackgroundServer):
    """A scripted Responses-API server on 127.0.0.1 that records what it was sent."""

    thread_name = "responses-server"

    def __init__(
        self,
        steps: list[Step] | None = None,
        responder: Responder | None = None,
        port: int = 0,
        model: str = "scripted-model",
    ) -> None:
        self.responder = responder
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._ids = itertools.count(1)
        self.ledger = Ledger()
        self._background: dict[str, ResponseObject] = {}  # background responses by id, as they stand now
        super().__init__(_Handler, port, steps)

    def working(self) -> int:
        """How many background responses are still queued or in progress (not billed yet)."""
        with self._lock:
            return sum(r["status"] in ("queued", "in_progress") for r in self._background.values())

    def retrieve(self, rid: str) -> ResponseObject | None:
        """A background response as it stands now (None: no such id)."""
        with self._lock:
            found = self._background.get(rid)
            return found.copy() if found is not None else None

    def _in_background(self, step: Step, rid: str, body: dict[str, Any]) -> tuple[ResponseObject, threading.Event]:
        """Start answering ``body`` in a thread of its own: the response as it stands now (queued), and an event set
        once it has completed or failed."""
        finished = threading.Event()
        now = self._shell(rid, body, "queued")
        with self._lock:
            self._background[rid] = now

        def work() -> None:
            running = now.copy()
            running["status"] = "in_progress"
            with self._lock:
                self._background[rid] = running
            time.sleep(float(step.get("delay") or 0))
            done: ResponseObject
            if step.get("failed"):
                done = now.copy()
                done["status"] = "failed"
                done["error"] = step["failed"]
            else:
                done = self._response(step, rid, body)  # billed here, as it completes
            with self._lock:
                self._background[rid] = done
            finished.set()

        threading.Thread(target=work, name=f"background-{rid}", daemon=True).start()
        return now, finished

    def _shell(self, rid: str, body: dict[str, Any], status: str) -> ResponseObject:
        """A response not finished yet: no output, no usage."""
        return {
            "id": rid,
            "object": "response",
            "created_at": int(clock.unix()),
            "status": status,
            "background": True,
            "model": body.get("model") or self.model,
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "previous_response_id": body.get("previous_response_id"),
            "usage": None,
        }

    @property
    def bills(self) -> list[dict[str, int]]:
        """What each answered call billed, in order: input, cached and output tokens, and the history
        (``history_tokens``: the earlier turns it carried beyond its own prompt)."""
        return self.ledger.bills

    @property
    def url(self) -> str:
        """The base URL clients use (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _next(self, body: dict[str, Any], headers: dict[str, str]) -> tuple[Step, str]:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers)
            rid = f"resp_{next(self._ids)}"
            if self._steps:
                return self._steps.popleft(), rid
        if self.responder is not None:
            return self.responder(body), rid
        return reply_text("ok"), rid

    def _response(self, step: Step, rid: str, body: dict[str, Any]) -> ResponseObject:
        output = []
        for n, item in enumerate(step.get("output") or []):
            item = dict(item)
            item.setdefault("id", f"{'msg' if item.get('type') == 'message' else 'fc'}_{rid[5:]}_{n}")
            output.append(item)
        return {
            "id": rid,
            "object": "response",
            "created_at": int(clock.unix()),
            "status": "completed",
            "model": body.get("model") or self.model,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "previous_response_id": body.get("previous_response_id"),
            "background": bool(body.get("background")),
            "usage": _usage(self.ledger.bill(rid, body, output, step.get("usage"))),
        }


def main(argv: list[str] | None = None) -> int:
    """Serve a JSON file of steps until interrupted (for manual runs against real clients)."""
    parser = argparse.ArgumentParser(
        prog="python -m autopilot.scripted.responses_server",
        description="Serve scripted Responses-API answers on 127.0.0.1.",
    )
    parser.add_argument("--script", help="JSON file holding a list of steps")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    steps = []
    if args.script:
        with open(args.script, encoding="utf-8") as fh:
            steps = json.load(fh)
    return serve_until_interrupted(ResponsesServer(steps, port=args.port))


if __name__ == "__main__":
    raise SystemExit(main())
