"""The Codex listing through the real app server: every root thread of this worktree, whatever its model provider."""

from __future__ import annotations

import subprocess

import pytest

from autopilot.handoff.sources import Limits, appserver, catalog
from autopilot.handoff.sources.project import Project
from autopilot.scripted.responses_server import reply_text
from tests.fixtures.make_codex_fixtures import rig
from tests.support.agents import agent_bin

pytestmark = pytest.mark.e2e


def test_threads_of_another_model_provider_are_listed_with_their_provider(monkeypatch):
    """Three real `codex exec` threads, the third recorded with another provider than the config names: the app
    server lists all three (left to itself, thread/list keeps only the configured provider's), each naming its
    provider, as the local rollouts do."""
    with rig() as r:
        subprocess.run(["git", "-C", str(r.work), "init", "-q", "-b", "main"], check=True)
        monkeypatch.setenv("CODEX_HOME", str(r.home))
        monkeypatch.setenv("AUTOPILOT_CODEX_BIN", str(agent_bin("codex")))
        other = (
            f'model_providers.other={{name="other",base_url="{r.srv.url}",env_key="FAKE_OPENAI_KEY",'
            'wire_api="responses",request_max_retries=0,stream_max_retries=0}'
        )
        threads = {}
        for n, flags in enumerate([[], [], ["-c", "model_provider=other", "-c", other]]):
            r.srv.push(reply_text(f"answer {n}"))
            events = r.exec("--json", "--skip-git-repo-check", *flags, f"prompt {n}")
            threads[r.thread_id(events)] = "other" if flags else "fake"
        project = Project(str(r.work))
        with appserver.AppServer() as app:  # what the server answers when no provider is named: the config's only
            left = app.call("thread/list", {"sourceKinds": appserver.SOURCE_KINDS, "limit": 100})
        assert sorted(t["modelProvider"] for t in left["data"]) == ["fake", "fake"]
        listed = catalog.sessions("codex", project, Limits())
        assert listed["sourceUsed"] == "app-server"
        assert {s["threadId"]: s["modelProvider"] for s in listed["sessions"]} == threads
        local = catalog.sessions("codex", project, Limits(), source="local")
        assert {s["threadId"]: s["modelProvider"] for s in local["sessions"]} == threads
