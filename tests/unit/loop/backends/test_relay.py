"""The relay: a call sent through a process that has the openai SDK loaded is the call the caller would have made;
when nobody takes it the caller sends it itself, and nothing is ever asked twice or unseen."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autopilot.errors import InfraError
from autopilot.loop.backends import Usage, make_backend
from autopilot.loop.backends.relay import ACCEPT_S, SOCKET, Relay, RelayBackend
from autopilot.scripted.responses_server import ResponsesServer, delay, http_error, reply_json
from tests.support.world import openai_settings, point_openai

SCHEMA = {
    "type": "object",
    "properties": {"decision": {"type": "string"}},
    "required": ["decision"],
    "additionalProperties": False,
}
ANSWER = {"decision": "continue"}
ROOT = Path(__file__).resolve().parents[4]


def send(run_dir, timeout: float = 20.0, conversation_id: str | None = None):
    return RelayBackend(str(run_dir)).send(
        "judge the work",
        SCHEMA,
        schema_name="autopilot_verdict",
        schema_path="/nonexistent/verdict.schema.json",
        conversation_id=conversation_id,
        model="gpt-6.2-sol",
        cwd=str(run_dir),
        timeout=timeout,
        effort="low",
    )


@pytest.fixture
def server(monkeypatch):
    with ResponsesServer() as srv:
        point_openai(monkeypatch, srv.url)
        yield srv


@pytest.fixture
def run_dir(tmp_path):
    path = tmp_path / "run"
    path.mkdir(mode=0o700)
    return path


@pytest.fixture
def relay(run_dir, server):
    served = Relay(str(run_dir))
    assert served.start()
    yield served
    served.close(wait=5)


def other_process_relay(run_dir, url: str) -> subprocess.Popen[bytes]:
    """A relay served by another process whose openai backend points at ``url``; returned once it listens."""
    env = {**os.environ, **openai_settings(url), "PYTHONPATH": str(ROOT / "src")}
    code = f"from autopilot.loop.backends.relay import Relay; Relay({str(run_dir)!r}).start(); "
    code += "import time; time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], env=env)
    deadline = time.monotonic() + 30
    while not (run_dir / SOCKET).exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the relay did not open"
        time.sleep(0.05)
    return proc


def test_a_relayed_call_is_the_call_the_caller_would_make(relay, server, run_dir):
    """Same request at the provider, same reply, usage and conversation for the caller; the relay counts it."""
    server.push(reply_json(ANSWER))
    reply = send(run_dir, conversation_id=None)
    assert json.loads(reply.text) == ANSWER and reply.conversation_id and reply.model == "gpt-6.2-sol"
    billed = server.bills[0]
    assert reply.usage == Usage(billed["input_tokens"], billed["cached_tokens"], billed["output_tokens"])
    assert relay.served == 1 and len(server.requests) == 1
    body = server.requests[0]
    assert body["input"] == "judge the work" and body["reasoning"] == {"effort": "low"}
    assert body["text"]["format"]["name"] == "autopilot_verdict"


def test_an_infra_error_crosses_with_its_kind(relay, server, run_dir):
    """A provider's refusal reaches the caller as the InfraError its own send would raise."""
    server.push(http_error(401, "bad key"))
    with pytest.raises(InfraError) as caught:
        send(run_dir)
    assert caught.value.kind == "auth" and relay.served == 1


def test_with_no_worker_the_caller_sends_itself(server, run_dir):
    """No socket: the call goes out from this process, once."""
    server.push(reply_json(ANSWER))
    assert json.loads(send(run_dir).text) == ANSWER
    assert len(server.requests) == 1


def test_a_stale_socket_of_a_killed_worker_means_the_caller_sends_itself(server, run_dir):
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(run_dir / SOCKET))
    dead.close()  # the file stays; nobody listens
    server.push(reply_json(ANSWER))
    assert json.loads(send(run_dir).text) == ANSWER and len(server.requests) == 1


def test_a_listener_that_never_accepts_is_left_after_a_bounded_wait(server, run_dir):
    """A worker too busy to answer: after ACCEPT_S the caller sends the call itself; the provider is asked once."""
    mute = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mute.bind(str(run_dir / SOCKET))
    mute.listen(1)
    try:
        server.push(reply_json(ANSWER))
        started = time.monotonic()
        assert json.loads(send(run_dir).text) == ANSWER
        assert ACCEPT_S - 0.5 < time.monotonic() - started < ACCEPT_S + 10
        assert len(server.requests) == 1
    finally:
        mute.close()


def test_a_worker_with_other_openai_settings_refuses_and_the_caller_sends_itself(server, run_dir):
    """The worker's key or base URL is not the caller's: the call goes where the caller's settings say."""
    with ResponsesServer() as elsewhere:
        proc = other_process_relay(run_dir, elsewhere.url)
        try:
            server.push(reply_json(ANSWER))
            assert json.loads(send(run_dir).text) == ANSWER
            assert len(server.requests) == 1 and elsewhere.requests == []
        finally:
            proc.kill()
            proc.wait()


def test_a_worker_killed_after_go_is_an_infra_error_and_no_second_call(server, run_dir):
    """Once the caller said go, the call may be billed: a worker that dies gives an InfraError, never a retry here."""
    server.push(delay(reply_json(ANSWER), 30.0))
    proc = other_process_relay(run_dir, server.url)
    caught: list[BaseException] = []
    caller = threading.Thread(target=lambda: _record(caught, lambda: send(run_dir, timeout=40)))
    caller.start()
    try:
        deadline = time.monotonic() + 20
        while not server.requests:
            assert time.monotonic() < deadline, "the relayed request never reached the provider"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        caller.join(20)
        assert not caller.is_alive()
    finally:
        proc.kill()
        proc.wait()
    assert len(caught) == 1 and isinstance(caught[0], InfraError) and caught[0].kind == "network"
    assert len(server.requests) == 1


def _record(into: list[BaseException], call) -> None:
    try:
        call()
    except BaseException as exc:
        into.append(exc)


def test_closing_finishes_the_call_it_took(relay, server, run_dir):
    """The worker exits only after the call in flight is answered (the provider bills it either way)."""
    server.push(delay(reply_json(ANSWER), 1.5))
    got: list[object] = []
    caller = threading.Thread(target=lambda: got.append(send(run_dir)))
    caller.start()
    deadline = time.monotonic() + 20
    while not relay.busy():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    relay.close(wait=20)
    assert not relay.busy() and not (run_dir / SOCKET).exists()
    caller.join(20)
    assert len(got) == 1 and json.loads(got[0].text) == ANSWER  # type: ignore[attr-defined]


def test_a_closed_relay_takes_no_call(relay, server, run_dir):
    relay.close(wait=1)
    server.push(reply_json(ANSWER))
    assert json.loads(send(run_dir).text) == ANSWER and relay.served == 0


def test_the_socket_is_the_person_s_only(relay, run_dir):
    """0600 in the run's own 0700 directory, whatever the umask."""
    mode = os.stat(run_dir / SOCKET).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600


def test_a_run_directory_past_the_socket_path_limit_still_relays(server, tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert len(str(deep / SOCKET)) > 108
    served = Relay(str(deep))
    assert served.start()
    try:
        server.push(reply_json(ANSWER))
        assert json.loads(send(deep).text) == ANSWER and served.served == 1
    finally:
        served.close(wait=5)


def test_the_openai_backend_of_a_run_is_the_relay_s_caller(tmp_path):
    """Every openai call of a run may go through its worker; codex-cli calls never do (they start no SDK)."""
    backend = make_backend("openai", run_dir=str(tmp_path), config={})
    assert isinstance(backend, RelayBackend) and backend.name == "openai"
    assert not isinstance(make_backend("codex-cli", run_dir=str(tmp_path), config={}), RelayBackend)
