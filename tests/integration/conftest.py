"""Fixtures for driving the bridge against the scripted Responses server through the real openai SDK."""

from __future__ import annotations

import copy

import pytest

from autopilot.scripted.responses_server import ResponsesServer, reply_json
from tests.support.loop import PLAN


@pytest.fixture
def server():
    """A running scripted Responses server."""
    with ResponsesServer() as srv:
        yield srv


@pytest.fixture
def openai_env(server, monkeypatch):
    """Point the openai backend at the scripted server, with fast retries."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("AUTOPILOT_BACKEND", "openai")
    monkeypatch.setenv("AUTOPILOT_MODEL", "gpt-6.2-sol")
    monkeypatch.setenv("AUTOPILOT_RETRY_BASE_S", "0.01")
    monkeypatch.setenv("AUTOPILOT_RETRY_MAX_S", "0.05")
    return server


@pytest.fixture
def planned(openai_env, git_repo, bridge):
    """A repo with a running two-task plan (one plan call made)."""
    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    code, out, err = bridge("-C", str(git_repo), "plan", "--goal", "Add a feature with a test")
    assert code == 0, err
    return git_repo
