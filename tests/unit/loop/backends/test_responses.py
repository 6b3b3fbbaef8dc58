"""The openai backend's background mode: a call the review worker may leave running, and fetching it later by id."""

from __future__ import annotations

import time

import pytest

from autopilot.errors import InfraError
from autopilot.loop.backends import DETACH, Detach, Detached
from autopilot.loop.backends.responses import ResponsesBackend
from autopilot.scripted.responses_server import ResponsesServer, delay, http_error, reply_json
from tests.support.world import point_openai

SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": False}


def send(leave=lambda: False, started=None):
    """One send with DETACH set, as the worker's review makes it; the ids it was told."""
    told: list[str] = []
    token = DETACH.set(Detach(started or told.append, leave))
    try:
        reply = ResponsesBackend().send(
            "hi", SCHEMA, schema_name="t", schema_path="", conversation_id=None, model="m", cwd=".", timeout=20
        )
    finally:
        DETACH.reset(token)
    return reply, told


@pytest.fixture
def server(monkeypatch):
    with ResponsesServer() as srv:
        point_openai(monkeypatch, srv.url)
        yield srv


def test_a_detachable_call_is_asked_in_the_background_and_waited_for(server):
    """Asked with ``background: true`` and streamed; the id is told as soon as the provider took it; the reply is the
    same as a call waited for (text, usage as billed)."""
    server.push(delay(reply_json({"a": 1}), 1.0))
    reply, told = send()
    assert server.requests[0]["background"] is True and server.requests[0]["stream"] is True
    assert told == [reply.conversation_id]
    assert reply.text == '{"a": 1}' and reply.usage.output == server.bills[0]["output_tokens"] > 0


def test_a_call_waited_for_without_detach_is_not_in_the_background(server):
    """Everywhere but the worker's reviews (the Stop hook's verdict, relayed or not) nothing changes."""
    server.push(reply_json({"a": 1}))
    ResponsesBackend().send(
        "hi", SCHEMA, schema_name="t", schema_path="", conversation_id=None, model="m", cwd=".", timeout=20
    )
    assert "background" not in server.requests[0]


def test_leaving_raises_detached_at_once_and_the_answer_is_fetched_later(server):
    """``leave()`` true: Detached with the id within a fraction of a second, the provider still working; retrieve()
    says None while it is, then the reply with what it billed."""
    server.push(delay(reply_json({"a": 2}), 1.5))
    left_at: list[float] = []

    def leave() -> bool:
        if not left_at:
            left_at.append(time.monotonic() + 0.3)
        return time.monotonic() > left_at[0]

    with pytest.raises(Detached) as caught:
        send(leave)
    assert time.monotonic() - left_at[0] < 0.5 and server.bills == []  # asked every 0.2 s
    backend = ResponsesBackend()
    assert backend.retrieve(caught.value.response_id, 5) is None
    time.sleep(1.6)
    reply = backend.retrieve(caught.value.response_id, 5)
    assert reply is not None and reply.text == '{"a": 2}' and reply.usage.input == server.bills[0]["input_tokens"]


def test_a_background_call_that_fails_is_an_infra_error(server):
    """The provider ends it ``failed``: an InfraError saying so (a failed review, counted as such)."""
    server.push({"failed": {"code": "server_error", "message": "boom"}})
    with pytest.raises(InfraError, match="ended failed: boom") as caught:
        send()
    assert caught.value.kind == "server"


def test_an_http_error_on_asking_is_the_same_as_without_background(server):
    """A request refused before it starts (400) raises as it always did: kind ``http_400``, nothing kept."""
    server.push(http_error(400, "bad schema"))
    told: list[str] = []
    with pytest.raises(InfraError) as caught:
        send(started=told.append)
    assert caught.value.kind == "http_400" and told == []


def test_an_unknown_id_is_an_http_404(server):
    with pytest.raises(InfraError) as caught:
        ResponsesBackend().retrieve("resp_nope", 5)
    assert caught.value.kind == "http_404"
