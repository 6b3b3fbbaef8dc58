"""What the end-to-end test files share: the pinned real claude, and the real codex on a scripted server.

``codex_server`` and ``codex`` make the real ``codex`` binary the bridge's backend (codex-cli), its
Codex home configured for a scripted Responses server on 127.0.0.1: ``codex_server`` is that server
(answers in the order they were pushed, ``requests`` holds what codex sent), ``codex`` a
``ScriptedCodex`` that keeps a queue of answers per phase (plan, review, verdict).
"""

from __future__ import annotations

import pytest

from autopilot.scripted.responses_server import ResponsesServer
from tests.support.agents import agent_bin, write_codex_config
from tests.support.plugin_harness import ScriptedCodex


@pytest.fixture
def claude():
    """The pinned real claude binary (fails, not skips, under AUTOPILOT_REQUIRE_E2E=1)."""
    return agent_bin("claude")


def use_real_codex(codex_home, url: str, monkeypatch) -> None:
    """Configure the test's Codex home for the server at ``url`` and make the real codex the backend."""
    write_codex_config(codex_home, url)
    monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(agent_bin("codex")))
    monkeypatch.setenv("AUTOPILOT_BACKEND", "codex-cli")
    monkeypatch.setenv("FAKE_OPENAI_KEY", "not-a-real-key")


@pytest.fixture
def codex_server(isolated_homes, monkeypatch):
    """The real codex as the backend, talking to a scripted server that answers in order."""
    with ResponsesServer() as server:
        use_real_codex(isolated_homes / "codex", server.url, monkeypatch)
        yield server


@pytest.fixture
def codex(isolated_homes, monkeypatch):
    """The real codex as the backend, answered by a ScriptedCodex (a queue of answers per phase)."""
    brain = ScriptedCodex()
    with brain.server:
        use_real_codex(isolated_homes / "codex", brain.server.url, monkeypatch)
        yield brain
