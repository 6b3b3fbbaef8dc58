"""The Stop hook's verdict through the run's warm review worker: the same verdict, charged the same, with no SDK start
in the hook; a worker that is gone, or serves other OpenAI settings, leaves the hook to ask itself; a worker killed
mid-verdict costs one failed verdict, never a lost state or a second call."""

from __future__ import annotations

import os
import signal
import threading
import time

from autopilot.loop.backends.relay import SOCKET
from autopilot.loop.review_worker import WORKER_LOG, running
from autopilot.loop.state import Store
from autopilot.scripted.responses_server import delay, reply_json
from tests.integration.hooks.test_delivery import reason, stop
from tests.integration.loop.test_review_worker import edit, gone, wait_until, worker_pid
from tests.support.hooks import reviewed
from tests.support.loop import APPROVE, continue_to, state_of


def log(repo) -> str:
    return (Store(repo).dir / WORKER_LOG).read_text()


def warm(bridge, repo, server) -> int:
    """An edit reviewed by the run's worker, which now listens on the relay; its pid."""
    server.push(reply_json(APPROVE))
    edit(bridge, repo)
    reviewed(bridge, repo)
    wait_until(lambda: (Store(repo).dir / SOCKET).exists(), what="the relay")
    pid = worker_pid(repo)
    assert pid is not None
    return pid


def test_the_verdict_is_sent_through_the_warm_worker_and_charged_as_billed(planned, openai_env, bridge):
    warm(bridge, planned, openai_env)
    openai_env.push(reply_json(continue_to("T2")))
    assert "Codex's verdict" in reason(stop(bridge, planned))
    state = state_of(bridge, planned)
    assert state["iteration"] == 1 and state["current_task"]["id"] == "T2"
    assert state["token_usage"]["verdict"]["calls"] == 1
    assert "relay: sent autopilot_verdict" in log(planned)
    billed = openai_env.bills[-1]
    assert state["token_usage"]["verdict"]["input"] == billed["input_tokens"]


def test_a_hook_with_other_openai_settings_asks_itself(planned, openai_env, bridge, monkeypatch):
    """The worker was started under another key: the verdict goes out from the hook, under the hook's own."""
    warm(bridge, planned, openai_env)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-another-key-entirely")
    openai_env.push(reply_json(continue_to("T2")))
    stop(bridge, planned)
    assert state_of(bridge, planned)["iteration"] == 1
    assert "relay: sent autopilot_verdict" not in log(planned)
    sent = {k.lower(): v for k, v in openai_env.headers[-1].items()}
    assert sent["authorization"] == "Bearer sk-test-another-key-entirely"


def test_a_worker_killed_mid_verdict_costs_one_failed_verdict_and_the_next_stop_asks_again(planned, openai_env, bridge):
    pid = warm(bridge, planned, openai_env)
    openai_env.push(delay(reply_json(continue_to("T2")), 30.0), reply_json(continue_to("T2")))
    answers: list[object] = []
    hook = threading.Thread(target=lambda: answers.append(stop(bridge, planned)))
    hook.start()
    wait_until(lambda: len(openai_env.requests) == 3, what="the relayed verdict's request")  # plan, review, verdict
    os.kill(pid, signal.SIGKILL)
    hook.join(60)
    assert not hook.is_alive() and "could not give a verdict" in reason(answers[0])
    wait_until(lambda: gone(pid) and not running(Store(planned)), what="the worker's end")
    state = state_of(bridge, planned)  # valid, the failure recorded
    assert state["iteration"] == 0 and state["last_error"]["phase"] == "verdict"
    time.sleep(0.2)
    stop(bridge, planned)  # no worker now: the hook asks itself
    assert state_of(bridge, planned)["iteration"] == 1 and len(openai_env.requests) == 4
