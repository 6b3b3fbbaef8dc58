"""Migration 6: a run from before the background reviews loads as one with nothing pending."""

from __future__ import annotations

import json

from autopilot.loop.migrations import CURRENT_VERSION
from autopilot.loop.state import Store

# A running run as schema version 5 wrote it (its last review handed to Claude by the hook that waited for it).
VERSION_5 = """{
  "schema_version": 5, "run_id": "r5", "workspace": "/w", "owner_session_id": "s1", "goal": "g",
  "plan_path": "p.md", "plan": {"summary": "s", "tasks": [{"id": "T1", "title": "t", "acceptance": ["a"]}]},
  "conversation_id": "c", "conversation_tokens": 1200, "conversation_base": 300, "conversation_restarts": 0,
  "backend": "openai", "model": "gpt-6.2-sol", "effort": null, "min_rate_limit_left": null,
  "current_task": {"id": "T1", "title": "t", "acceptance": ["a"]}, "tasks_done": [], "base_sha": null,
  "plan_tree": "t0", "iteration": 1, "max_iterations": 20, "no_progress_streak": 0, "no_progress_threshold": 3,
  "status": "running", "budget_used_usd": 0.25, "budget_usd": 5.0, "plan_usd": 0.01,
  "token_usage": {"plan": {"input": 1, "cached": 0, "output": 1, "calls": 1},
                  "review": {"input": 2, "cached": 1, "output": 2, "calls": 1},
                  "verdict": {"input": 0, "cached": 0, "output": 0, "calls": 0}},
  "last_review": {"task_id": "T1", "decision": "request_changes", "summary": "s", "issues_count": 1,
                  "issues": [{"severity": "major", "file": "a.py", "line": 1, "message": "m"}],
                  "fingerprint": "t1", "timestamp": "2026-11-30T10:00:00.000000Z", "review_path": null},
  "last_verdict": null, "stop_reason": null, "last_error": null,
  "consecutive_errors": 0, "verdict_errors": 0, "consecutive_blocks": 0, "unknown_models": [],
  "notices": ["review:2026-11-30T10:00:00.000000Z"],
  "created_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-30T10:00:00Z"
}"""


def test_version_five_file_gains_an_empty_pending_list_and_is_written_back(git_repo):
    """A schema_version 5 run keeps its last review (handed over already) and gains nothing pending, no judged tree
    and no plan to show; the migration is saved once."""
    store = Store(git_repo)
    store.dir.mkdir(parents=True, exist_ok=True)
    store.path.write_text(VERSION_5)
    s = store.load()
    assert (s["schema_version"], s["reviews_pending"], s["verdict_tree"], s["plan_to_show"]) == (
        CURRENT_VERSION,
        [],
        None,
        False,
    )
    assert (s["last_review"]["fingerprint"], s["conversation_tokens"], s["run_id"]) == ("t1", 1200, "r5")
    assert json.loads(store.path.read_text())["schema_version"] == CURRENT_VERSION == 6
