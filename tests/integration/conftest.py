"""Fixtures for driving the bridge against the scripted Responses server through the real openai SDK."""

from __future__ import annotations

import pytest

from autopilot.scripted.responses_server import ResponsesServer
from tests.support.loop import plan_two_tasks
from tests.support.world import point_openai


@pytest.fixture
def server():
    """A running scripted Responses server."""
    with ResponsesServer() as srv:
        yield srv


@pytest.fixture
def openai_env(server, monkeypatch):
    """Point the openai backend at the scripted server, with fast retries."""
    point_openai(monkeypatch, server.url)
    return server


@pytest.fixture
def planned(openai_env, git_repo, bridge):
    """A repo with a running two-task plan (one plan call made)."""
    return plan_two_tasks(openai_env, git_repo, bridge)
