"""A Codex listing leaves out the threads it is told to hide, and says how many."""

from __future__ import annotations

from autopilot.handoff.sources import Limits, catalog
from autopilot.handoff.sources.project import Project
from tests.support.codex_home import rollout, thread


def test_hidden_threads_are_left_out_and_counted_latest_included(git_repo, monkeypatch):
    """Two reviewer threads (the newest among them) and the person's one: the listing shows the person's alone,
    `--latest` too (the newest not hidden), and `hidden.count` is 2; with nothing to hide nothing is said."""
    monkeypatch.chdir(git_repo)
    rollout(thread(1), git_repo, age=30)  # the person's
    rollout(thread(2), git_repo, age=20)
    rollout(thread(3), git_repo, age=10)
    own = {thread(2), thread(3)}
    for latest in (False, True):
        answer = catalog.sessions("codex", Project(str(git_repo)), Limits(), source="local", latest=latest, hide=own)
        assert [row["threadId"] for row in answer["sessions"]] == [thread(1)]
        assert answer["hidden"]["count"] == 2
    plain = catalog.sessions("codex", Project(str(git_repo)), Limits(), source="local")
    assert len(plain["sessions"]) == 3 and "hidden" not in plain
