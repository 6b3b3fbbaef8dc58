"""The scripted Responses server speaks plain JSON to the SDK and SSE to streaming clients."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from autopilot.scripted.responses_server import (
    ResponsesServer,
    http_error,
    rate_limit_headers,
    reply_json,
    tool_call,
    with_headers,
)


def post(url: str, body: dict) -> tuple[int, str, str]:
    req = urllib.request.Request(
        f"{url}/responses", data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.headers["content-type"], resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers["content-type"], exc.read().decode()


def test_plain_request_gets_a_json_response_with_usage():
    """A non-streaming request gets one Response object carrying the scripted output and usage."""
    usage = {"input_tokens": 7, "cached_tokens": 2, "output_tokens": 3}
    with ResponsesServer([reply_json({"a": 1}, usage=usage)]) as s:
        status, ctype, body = post(s.url, {"model": "m", "input": "hi"})
    data = json.loads(body)
    assert (status, ctype, data["id"], data["status"]) == (200, "application/json", "resp_1", "completed")
    assert data["output"][0]["content"][0]["text"] == '{"a": 1}'
    assert data["usage"]["input_tokens_details"]["cached_tokens"] == 2


def test_streaming_request_gets_sse_ending_in_completed():
    """A streaming request gets response.created, the output items, then response.completed."""
    with ResponsesServer([tool_call("exec_command", {"cmd": "ls"})]) as s:
        status, ctype, body = post(s.url, {"model": "m", "input": "hi", "stream": True})
    events = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]
    assert ctype == "text/event-stream"
    assert [e["type"] for e in events] == [
        "response.created",
        "response.output_item.added",
        "response.output_item.done",
        "response.completed",
    ]
    assert events[2]["item"]["name"] == "exec_command" and json.loads(events[2]["item"]["arguments"]) == {"cmd": "ls"}


def test_errors_then_responder_then_default():
    """Queued steps answer first (an HTTP error here), then the responder, and every body is recorded."""
    with ResponsesServer([http_error(429, "slow down")], responder=lambda body: reply_json({"n": body["n"]})) as s:
        first = post(s.url, {"n": 1})
        second = post(s.url, {"n": 2})
        assert s.pending() == 0
    assert first[0] == 429 and json.loads(first[2])["error"]["message"] == "slow down"
    assert json.loads(json.loads(second[2])["output"][0]["content"][0]["text"]) == {"n": 2}
    assert [r["n"] for r in s.requests] == [1, 2]


def test_unknown_paths_are_404():
    """Only /responses is served."""
    with ResponsesServer() as s, pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(urllib.request.Request(f"{s.url}/chat/completions", data=b"{}"), timeout=10)
    assert err.value.code == 404


@pytest.mark.parametrize("stream", [False, True])
def test_a_step_can_send_extra_headers(stream):
    """A step's ``headers`` come back as HTTP response headers, on plain and streamed answers alike."""
    extra = rate_limit_headers(42.5, 17, primary_reset=1796103449, secondary_reset=1796499849)
    with ResponsesServer([with_headers(reply_json({"a": 1}), extra)]) as s:
        req = urllib.request.Request(
            f"{s.url}/responses", data=json.dumps({"input": "hi", "stream": stream}).encode(), method="POST"
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            got = {name: resp.headers[name] for name in extra}
    assert got == extra and got["x-codex-primary-used-percent"] == "42.5"
