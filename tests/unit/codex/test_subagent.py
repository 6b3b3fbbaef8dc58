"""codex/subagent.py: the one test of whether a rollout's thread is a subagent, from its session_meta payload."""

from __future__ import annotations

import pytest

from autopilot.codex.subagent import child_marker


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        ({"agent_path": "explorer/1"}, "a subagent (agent_path explorer/1)"),
        ({"thread_source": "subagent"}, "a subagent (thread_source: subagent)"),
        ({"source": {"subagent": {"parent": "t-1"}}}, "a subagent (source.subagent)"),
        ({"agent_path": "a", "thread_source": "subagent"}, "a subagent (agent_path a)"),  # the first reason found
    ],
)
def test_a_child_thread_says_why_it_is_one(payload, why):
    """Each of Codex's three ways of marking a child thread is named."""
    assert child_marker(payload) == why


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"forked_from_id": "t-0", "thread_source": "user"},  # a user's fork stays a session to hand over
        {"agent_path": "", "thread_source": "exec", "source": "cli"},
        {"source": {"exec": {}}},
    ],
)
def test_a_root_session_or_a_users_fork_is_no_child(payload):
    """No marker, an empty one, or a source that is not a subagent: a root session ('')."""
    assert child_marker(payload) == ""
