"""The scripted Anthropic Messages-API server that stands in for the model behind real claude."""

from __future__ import annotations

import http.client
import json
import threading
import time

import pytest

from tests.support import messages_server as ms
from tests.support.messages_server import MessagesServer


def post(srv: MessagesServer, path: str, body: dict | bytes) -> tuple[int, dict[str, str], bytes]:
    """POST a body to the server and return status, headers and raw response."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    conn.request("POST", path, data, {"content-type": "application/json"})
    resp = conn.getresponse()
    out = resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    conn.close()
    return out


def events(raw: bytes) -> list[tuple[str, dict]]:
    """Parse an SSE body into (event name, data) pairs."""
    out = []
    for chunk in raw.decode().split("\n\n"):
        if chunk.strip():
            name, data = chunk.split("\n", 1)
            out.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


def ask(stream: bool = True, model: str = ms.MAIN_MODEL, **extra) -> dict:
    """A minimal Messages request body."""
    return {
        "model": model,
        "max_tokens": 100,
        "stream": stream,
        "messages": [{"role": "user", "content": "hi"}],
        **extra,
    }


@pytest.fixture
def srv():
    """A running server, stopped after the test."""
    with MessagesServer() as server:
        yield server


def test_text_step_streams_the_full_event_sequence(srv):
    """A text step is streamed as message_start, one text block, message_delta and message_stop."""
    srv.push(ms.text("hello"))
    status, headers, raw = post(srv, "/v1/messages?beta=true", ask())
    assert (status, headers["content-type"]) == (200, "text/event-stream")
    names = [name for name, _ in events(raw)]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    parsed = dict(events(raw))
    assert parsed["content_block_delta"]["delta"] == {"type": "text_delta", "text": "hello"}
    assert parsed["message_delta"]["delta"]["stop_reason"] == "end_turn"
    assert parsed["message_start"]["message"]["model"] == ms.MAIN_MODEL


def test_tool_use_step_streams_json_input_and_stops_for_the_tool(srv):
    """A tool_use step gets an id, streams its input as input_json_delta, and stops with tool_use."""
    srv.push(ms.tool_use("Write", {"file_path": "a.txt", "content": "x"}, say="Writing."))
    _, _, raw = post(srv, "/v1/messages", ask())
    evs = events(raw)
    starts = [d["content_block"] for n, d in evs if n == "content_block_start"]
    assert starts[0] == {"type": "text", "text": ""}
    assert starts[1]["type"] == "tool_use" and starts[1]["name"] == "Write"
    assert starts[1]["id"].startswith("toolu_")
    deltas = [d["delta"] for n, d in evs if n == "content_block_delta"]
    assert json.loads(deltas[1]["partial_json"]) == {"file_path": "a.txt", "content": "x"}
    assert [d for n, d in evs if n == "message_delta"][0]["delta"]["stop_reason"] == "tool_use"


def test_thinking_step_streams_thinking_and_signature(srv):
    """A thinking block arrives as a thinking_delta and a signature_delta before the text."""
    srv.push(ms.thinking("let me think", ms.text("answer")))
    _, _, raw = post(srv, "/v1/messages", ask())
    deltas = [d["delta"]["type"] for n, d in events(raw) if n == "content_block_delta"]
    assert deltas == ["thinking_delta", "signature_delta", "text_delta"]


def test_non_streaming_request_gets_one_json_message(srv):
    """Without ``stream`` the answer is a single Message object."""
    srv.push(ms.text("plain"))
    status, _, raw = post(srv, "/v1/messages", ask(stream=False))
    body = json.loads(raw)
    assert (status, body["type"], body["content"], body["stop_reason"]) == (
        200,
        "message",
        [{"type": "text", "text": "plain"}],
        "end_turn",
    )


def test_count_tokens_answers_without_using_the_script(srv):
    """count_tokens returns a token estimate and leaves the queue alone."""
    srv.push(ms.text("kept"))
    status, _, raw = post(srv, "/v1/messages/count_tokens?beta=true", ask())
    assert status == 200 and json.loads(raw)["input_tokens"] > 0
    assert (srv.pending(), srv.requests, srv.log[0].route) == (1, [], "count_tokens")


def test_unknown_paths_are_404(srv):
    """Paths other than the Messages endpoints answer 404 with an Anthropic error body."""
    status, _, raw = post(srv, "/v1/complete", ask())
    assert (status, json.loads(raw)["error"]["type"]) == (404, "not_found_error")
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    conn.request("GET", "/v1/models")
    assert conn.getresponse().status == 404
    conn.close()


def test_http_error_step_answers_with_status_and_error_body(srv):
    """An http_error step sends that status with the Anthropic error envelope."""
    srv.push(ms.http_error(529, "Overloaded", "overloaded_error"))
    status, _, raw = post(srv, "/v1/messages", ask())
    assert (status, json.loads(raw)) == (
        529,
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    )


def test_stream_error_step_emits_an_error_event(srv):
    """A stream_error step breaks the stream with an SSE error event and no message_stop."""
    srv.push({**ms.text("partial"), "stream_error": {"type": "overloaded_error", "message": "x"}})
    _, _, raw = post(srv, "/v1/messages", ask())
    names = [n for n, _ in events(raw)]
    assert names[-1] == "error" and "message_stop" not in names


def test_delay_step_waits_before_answering(srv):
    """A delayed step is answered no sooner than its delay."""
    srv.push(ms.delay(ms.text("late"), 0.3))
    start = time.monotonic()
    post(srv, "/v1/messages", ask())
    assert time.monotonic() - start >= 0.3


def test_background_requests_do_not_consume_the_script(srv):
    """A request for the small (haiku) model gets the background reply and leaves the queue."""
    srv.push(ms.text("main answer"))
    _, _, raw = post(srv, "/v1/messages", ask(stream=False, model=ms.SMALL_MODEL))
    assert json.loads(raw)["content"][0]["text"] == "Scripted session"
    _, _, raw = post(srv, "/v1/messages", ask(stream=False))
    assert json.loads(raw)["content"][0]["text"] == "main answer"
    assert (len(srv.background_requests()), len(srv.main_requests()), len(srv.requests)) == (1, 1, 2)


def test_responder_answers_first_and_falls_back_to_the_queue(srv):
    """A responder's step wins; when it returns None the queued step answers."""
    srv.push(ms.text("queued"))
    srv.responder = lambda body: ms.text("by responder") if body.get("metadata") else None
    _, _, raw = post(srv, "/v1/messages", ask(stream=False, metadata={"user_id": "x"}))
    assert json.loads(raw)["content"][0]["text"] == "by responder"
    _, _, raw = post(srv, "/v1/messages", ask(stream=False))
    assert json.loads(raw)["content"][0]["text"] == "queued"


def test_exhausted_script_answers_with_the_default_and_counts_it(srv):
    """With no steps left the default reply is sent and counted as unscripted."""
    _, _, raw = post(srv, "/v1/messages", ask(stream=False))
    assert json.loads(raw)["content"][0]["text"] == "(the script has no more steps)"
    assert srv.unscripted == 1


def test_every_concurrent_request_is_recorded(srv):
    """Requests arriving at once are all recorded, each with its own body."""
    threads = [threading.Thread(target=post, args=(srv, "/v1/messages", ask(stream=False, n=i))) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(body["n"] for body in srv.requests) == list(range(64))


def test_request_headers_and_query_are_recorded(srv):
    """The log keeps each request's path with its query string and its headers."""
    post(srv, "/v1/messages?beta=true", ask(stream=False))
    (entry,) = srv.log
    assert (entry.path, entry.route, entry.headers["content-type"]) == (
        "/v1/messages?beta=true",
        "main",
        "application/json",
    )


def test_script_file_shape_builds_a_server(tmp_path):
    """A JSON script may be a list of steps or an object with steps, background and default."""
    with MessagesServer.from_script({"steps": [ms.text("one")], "default": ms.text("dflt")}) as srv:
        texts = [json.loads(post(srv, "/v1/messages", ask(stream=False))[2])["content"][0]["text"] for _ in range(2)]
    assert texts == ["one", "dflt"]
    with MessagesServer.from_script([ms.text("only")]) as srv:
        assert srv.pending() == 1


def test_env_points_claude_at_the_server(srv, tmp_path):
    """env() names the server URL, a dummy key, offline switches and a hermetic home."""
    env = srv.env(home=str(tmp_path))
    assert env["ANTHROPIC_BASE_URL"] == f"http://127.0.0.1:{srv.port}"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert (env["HOME"], env["CLAUDE_CONFIG_DIR"]) == (str(tmp_path), f"{tmp_path}/.claude")
