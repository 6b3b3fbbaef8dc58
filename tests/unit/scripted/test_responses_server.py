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
    reply_text,
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
        with exc:  # the error is the response too: closed, its connection is
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
    err.value.close()  # the error is the response too: its connection stays open until closed
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


def usage_of(url: str, body: dict) -> tuple[str, dict]:
    """Post ``body`` and return the response's id and usage."""
    status, _, raw = post(url, body)
    assert status == 200, raw
    data = json.loads(raw)
    return data["id"], data["usage"]


def test_a_call_bills_its_prompt_at_four_characters_a_token():
    """input_tokens is the prompt's characters over four, rounded up; output_tokens the answer's."""
    with ResponsesServer([reply_text("x" * 41)]) as s:
        _, usage = usage_of(s.url, {"model": "m", "input": "y" * 401})
    assert (usage["input_tokens"], usage["output_tokens"], usage["input_tokens_details"]["cached_tokens"]) == (
        101,
        11,
        0,
    )


def test_the_output_format_and_tools_are_billed_as_prompt():
    """A request's JSON schema and tool definitions are part of what it pays for."""
    fmt = {"type": "json_schema", "name": "n", "schema": {"type": "object"}, "strict": True}
    with ResponsesServer() as s:
        _, bare = usage_of(s.url, {"input": "y" * 400})
        _, shaped = usage_of(s.url, {"input": "y" * 400, "text": {"format": fmt}, "tools": [{"name": "t"}]})
    extra = len(json.dumps(fmt, separators=(",", ":"))) + len(json.dumps([{"name": "t"}], separators=(",", ":")))
    assert shaped["input_tokens"] - bare["input_tokens"] == -(-(400 + extra) // 4) - 100


def test_a_chained_call_bills_the_whole_conversation_so_far():
    """With previous_response_id, a call pays for every earlier input and answer as well as its own prompt."""
    with ResponsesServer([reply_text("a" * 400), reply_text("b" * 400), reply_text("c")]) as s:
        first, _ = usage_of(s.url, {"input": "p" * 800})
        second, _ = usage_of(s.url, {"input": "q" * 800, "previous_response_id": first})
        _, third = usage_of(s.url, {"input": "r" * 800, "previous_response_id": second})
    assert third["input_tokens"] == (800 + 400 + 800 + 400 + 800) // 4
    assert [b["history_tokens"] for b in s.bills] == [0, 300, 600]


def test_a_client_that_resends_the_conversation_bills_the_same():
    """A stateless client (Codex: store false, the whole history in input) pays for all of it too."""
    turn = [{"role": "user", "content": [{"type": "input_text", "text": "p" * 800}]}]
    answer = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "a" * 400}]}
    again = [*turn, answer, {"role": "user", "content": [{"type": "input_text", "text": "q" * 800}]}]
    with ResponsesServer([reply_text("a" * 400), reply_text("b")]) as s:
        usage_of(s.url, {"input": turn, "store": False})
        _, usage = usage_of(s.url, {"input": again, "store": False})
    assert (usage["input_tokens"], s.bills[1]["history_tokens"]) == (500, 300)


def test_the_repeated_prefix_is_cached_in_blocks_once_a_prompt_is_long_enough():
    """A prompt of 1,024+ tokens bills the 128-token blocks an earlier prompt began with as cached; shorter: never."""
    with ResponsesServer([reply_text("a" * 40), reply_text("b"), reply_text("c"), reply_text("d")]) as s:
        first, one = usage_of(s.url, {"input": "p" * 5000})
        _, two = usage_of(s.url, {"input": "q" * 100, "previous_response_id": first})
        short, _ = usage_of(s.url, {"input": "s" * 3000})
        _, four = usage_of(s.url, {"input": "t" * 100, "previous_response_id": short})
    cached = [u["input_tokens_details"]["cached_tokens"] for u in (one, two, four)]
    assert cached == [0, (5000 // 512) * 128, 0]
    assert two["input_tokens"] == -(-(5000 + 40 + 100) // 4)


def test_a_step_that_states_its_usage_bills_that():
    """A scripted step's own usage replaces the counted tokens (a provider's bill for a case under test)."""
    stated = {"input_tokens": 100_000, "cached_tokens": 0, "output_tokens": 5}
    with ResponsesServer([reply_text("x", usage=stated)]) as s:
        _, usage = usage_of(s.url, {"input": "hi"})
    assert (usage["input_tokens"], usage["output_tokens"], s.bills[0]["input_tokens"]) == (100_000, 5, 100_000)


def get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def test_a_background_request_is_answered_at_once_and_billed_when_it_completes():
    """``background: true``: queued at once, in progress while its delay runs, then completed with its usage; the bill
    is made as it completes, whether or not anyone retrieves it."""
    import time

    with ResponsesServer([{**reply_json({"a": 1}), "delay": 0.6}]) as s:
        started = time.monotonic()
        status, _, body = post(s.url, {"model": "m", "input": "hi", "background": True})
        assert time.monotonic() - started < 0.5
        first = json.loads(body)
        assert (status, first["status"], first["usage"]) == (200, "queued", None)
        assert get(f"{s.url}/responses/{first['id']}")[1]["status"] in ("queued", "in_progress")
        assert s.bills == []
        time.sleep(1.0)
        assert len(s.bills) == 1  # billed unread
        code, done = get(f"{s.url}/responses/{first['id']}")
        assert (code, done["status"], json.loads(done["output"][0]["content"][0]["text"])) == (
            200,
            "completed",
            {"a": 1},
        )
        assert done["usage"]["output_tokens"] > 0
        assert get(f"{s.url}/responses/resp_404")[0] == 404


def test_a_background_failed_step_ends_failed_and_an_http_error_answers_at_once():
    """A ``failed`` step in the background is a response that ends ``failed`` with its error, unbilled; an HTTP-error
    step answers the request itself (a provider refuses a bad request before starting it)."""
    import time

    failed = {"failed": {"code": "server_error", "message": "boom"}}
    with ResponsesServer([failed, http_error(429, "slow down")]) as s:
        first = json.loads(post(s.url, {"model": "m", "input": "hi", "background": True})[2])
        time.sleep(0.3)
        done = get(f"{s.url}/responses/{first['id']}")[1]
        assert (done["status"], done["error"]["message"], s.bills) == ("failed", "boom", [])
        status, _, body = post(s.url, {"model": "m", "input": "hi", "background": True})
        assert (status, json.loads(body)["error"]["message"]) == (429, "slow down")
