"""Fixtures for driving the bridge against the scripted Responses server through the real openai SDK."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest

from autopilot.scripted.responses_server import ResponsesServer, reply_json

PLAN = {
    "summary": "two steps",
    "tasks": [
        {"id": "T1", "title": "Add feature", "description": "add feature.py", "acceptance": ["feature.py exists"]},
        {"id": "T2", "title": "Test it", "description": "add test_feature.py", "acceptance": ["test passes"]},
    ],
}
APPROVE = {"decision": "approve", "summary": "looks right", "issues": []}


def continue_to(task_id: str, progressed: bool = True) -> dict:
    return {"decision": "continue", "reason": f"now do {task_id}", "next_task_id": task_id,
            "progressed": progressed, "criteria": []}


def done(*criteria: str) -> dict:
    return {"decision": "done", "reason": "all met", "next_task_id": None, "progressed": True,
            "criteria": [{"criterion": c, "met": True, "evidence": f"evidence for {c}"} for c in criteria]}


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


def state_of(bridge, repo) -> dict:
    code, out, err = bridge("-C", str(repo), "state")
    assert code == 0, err
    return json.loads(out)


def commit_all(repo, message="work") -> None:
    subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message],
                   check=True)
