"""The active memory as plain documents for an evidence index (what search/ will take with add_documents)."""

from __future__ import annotations

import os

from autopilot.handoff.memory import checkpoint, observe
from autopilot.handoff.memory.feed import documents
from autopilot.handoff.memory.store import SessionStore

SESSION = "aaaaaaaa-1111-4222-8333-444444444444"
KEYS = {"kind", "session", "agent", "worktree", "branch", "time", "text", "outcome", "ref", "task"}


def session(repo) -> SessionStore:
    data = {"session_id": SESSION, "cwd": str(repo)}
    observe.record("UserPromptSubmit", {**data, "prompt": "Fix it, the key is AKIAABCDEFGHIJKLMNOP"}, "claude")
    observe.record("PostToolUse", {**data, "tool_name": "Edit", "tool_input": {"file_path": "/w/a.py"}}, "claude")
    failing = {**data, "tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "error": "Exit code 1\n1 failed"}
    observe.record("PostToolUseFailure", failing, "claude")
    observe.record("Stop", data, "claude")
    store = SessionStore("claude", SESSION, os.path.realpath(repo))
    body = {"objective": "o", "constraints": [], "next_action": "n", "unresolved": ["u"], "completed": []}
    checkpoint.record(store, body, "stdin")
    return store


def test_every_document_is_a_plain_dict_with_the_index_columns(git_repo):
    """Each checkpoint and observation (turn ends aside) is a dict with the index columns (kind, session, time...)."""
    docs = documents(session(git_repo))
    assert [d["kind"] for d in docs] == ["memory.request", "memory.edit", "memory.run", "memory.checkpoint"]
    assert all(set(d) == KEYS for d in docs)
    assert {(d["session"], d["agent"], d["branch"]) for d in docs} == {(SESSION, "claude", "main")}


def test_documents_carry_outcomes_and_claims(git_repo):
    """A test run carries its judged outcome; a checkpoint is marked as a claim."""
    docs = {d["kind"]: d for d in documents(session(git_repo))}
    assert docs["memory.run"]["outcome"] == "fail" and docs["memory.edit"]["outcome"] == "ok"
    assert docs["memory.checkpoint"]["ref"]["claim"] is True and "unresolved: u" in docs["memory.checkpoint"]["text"]


def test_documents_are_redacted(git_repo):
    """A credential in a prompt does not reach the index."""
    (request,) = [d for d in documents(session(git_repo)) if d["kind"] == "memory.request"]
    assert "AKIAABCDEFGHIJKLMNOP" not in request["text"] and "[REDACTED:" in request["text"]
