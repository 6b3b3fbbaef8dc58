"""Fixtures: the bridge against the scripted Responses server through the real openai SDK; a team sharing a remote."""

from __future__ import annotations

import pytest

from autopilot.scripted.responses_server import ResponsesServer
from tests.support.loop import plan_two_tasks
from tests.support.share import copied_team, team
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


@pytest.fixture(scope="module")
def made_team(tmp_path_factory):
    """The team's bare remote and two machines with clones of it, made once for the module (``machines`` copies)."""
    root = tmp_path_factory.mktemp("team")
    team(root)
    return root


@pytest.fixture
def machines(tmp_path, made_team):
    """The team's bare remote and two machines with clones of it: (remote, Ada's, Bob's)."""
    return copied_team(made_team, tmp_path)
