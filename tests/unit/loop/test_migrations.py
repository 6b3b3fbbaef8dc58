"""loop/migrations.py: every older state.json, as literal files, brought up to the current version."""

from __future__ import annotations

import json

from autopilot.loop.migrations import CURRENT_VERSION, migrate, migrate_budget_fields
from autopilot.loop.state import Store
from tests.unit.loop.test_state import write

# A state.json as the original Node bridge wrote it before budgets existed.
NODE_PRE_BUDGET = """{
  "goal": "ship the exporter",
  "plan_path": "docs/autopilot/plans/2026-05-01-ship-the-exporter.md",
  "plan": {"summary": "s", "tasks": [{"id": "T1", "title": "t", "description": "d", "acceptance": ["a"]}]},
  "conversation_id": "thread-1",
  "current_task": {"id": "T1", "title": "t", "description": "d", "acceptance": ["a"]},
  "base_sha": "abc123",
  "iteration": 2,
  "no_progress_streak": 1,
  "status": "running",
  "token_usage": {"plan": {"input": 10, "cached": 0, "output": 5, "calls": 1},
                  "review": {"input": 20, "cached": 4, "output": 6, "calls": 2}},
  "last_review": null,
  "last_verdict": null,
  "stop_reason": null
}"""


# The Node bridge's later shape: budget fields present, still no schema_version.
NODE_WITH_BUDGET = json.dumps({**json.loads(NODE_PRE_BUDGET), "budget_used_usd": 1.25, "budget_usd": 3.0})


# A running run as schema version 3 wrote it (before the effort and the rate-limit floor).
VERSION_3 = """{
  "schema_version": 3, "run_id": "r3", "workspace": "/w", "owner_session_id": null, "goal": "g",
  "plan_path": "p.md", "plan": {"summary": "s", "tasks": [{"id": "T1", "title": "t", "acceptance": ["a"]}]},
  "conversation_id": "c", "backend": "openai", "model": "gpt-6.2-sol",
  "current_task": {"id": "T1", "title": "t", "acceptance": ["a"]}, "base_sha": null, "plan_tree": null,
  "iteration": 1, "max_iterations": 20, "no_progress_streak": 0, "no_progress_threshold": 3,
  "status": "running", "budget_used_usd": 0.25, "budget_usd": 5.0, "plan_usd": 0.01,
  "token_usage": {"plan": {"input": 1, "cached": 0, "output": 1, "calls": 1},
                  "review": {"input": 2, "cached": 1, "output": 2, "calls": 1},
                  "verdict": {"input": 0, "cached": 0, "output": 0, "calls": 0}},
  "last_review": null, "last_verdict": null, "stop_reason": null, "last_error": null,
  "consecutive_errors": 0, "verdict_errors": 0, "consecutive_blocks": 0, "unknown_models": [], "notices": [],
  "created_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-01T00:00:00Z"
}"""


# A running run as schema version 4 wrote it (before its conversation was bounded), mid-conversation.
VERSION_4 = VERSION_3.replace('"schema_version": 3', '"schema_version": 4').replace(
    '"plan_tree": null,', '"plan_tree": null, "effort": "high", "min_rate_limit_left": 10,'
)


def test_node_bridge_state_without_budget_fields_loads_with_defaults(git_repo):
    """A Node-bridge file gains budget_used_usd 0 and budget_usd 5.00 and keeps every other field."""
    store = Store(git_repo)
    write(store, NODE_PRE_BUDGET)
    s = store.load()
    assert (s["budget_used_usd"], s["budget_usd"], s["schema_version"]) == (0.0, 5.0, CURRENT_VERSION)
    assert (s["goal"], s["iteration"], s["no_progress_streak"], s["status"]) == ("ship the exporter", 2, 1, "running")
    assert s["token_usage"]["review"] == {"input": 20, "cached": 4, "output": 6, "calls": 2}
    assert s["token_usage"]["verdict"] == {"input": 0, "cached": 0, "output": 0, "calls": 0}


def test_migrate_budget_fields_honours_the_env_default(git_repo, monkeypatch):
    """AUTOPILOT_BUDGET_USD is the budget a pre-budget file gets."""
    monkeypatch.setenv("AUTOPILOT_BUDGET_USD", "12.5")
    store = Store(git_repo)
    write(store, NODE_PRE_BUDGET)
    assert store.load()["budget_usd"] == 12.5


def test_migrate_budget_fields_is_idempotent():
    """Running migrateBudgetFields twice changes nothing the second time, and keeps existing values."""
    once = migrate_budget_fields(json.loads(NODE_WITH_BUDGET), {})
    twice = migrate_budget_fields(json.loads(json.dumps(once)), {"AUTOPILOT_BUDGET_USD": "99"})
    assert once == twice
    assert (twice["budget_used_usd"], twice["budget_usd"]) == (1.25, 3.0)


def test_migrated_state_is_written_back_at_the_current_version(git_repo):
    """The first transaction on an old file writes it at the current schema version, validated."""
    store = Store(git_repo)
    write(store, NODE_WITH_BUDGET)
    with store.transaction() as s:
        s["iteration"] += 1
    on_disk = json.loads(store.path.read_text())
    assert on_disk["schema_version"] == CURRENT_VERSION
    assert (on_disk["iteration"], on_disk["budget_used_usd"]) == (3, 1.25)


def test_version_one_file_gains_bridge_fields():
    """A schema_version 1 file runs only the later migrations."""
    state, ran = migrate(
        {
            "schema_version": 1,
            "status": "done",
            "iteration": 4,
            "no_progress_streak": 0,
            "budget_used_usd": 0.5,
            "budget_usd": 2.0,
            "token_usage": {},
        }
    )
    assert ran and state["schema_version"] == CURRENT_VERSION
    assert (state["max_iterations"], state["no_progress_threshold"], state["consecutive_errors"]) == (20, 3, 0)
    assert state["owner_session_id"] is None


def test_version_three_file_gains_effort_and_rate_limit_floor(git_repo):
    """A schema_version 3 run keeps everything and gains effort and min_rate_limit_left, both unset."""
    store = Store(git_repo)
    write(store, VERSION_3)
    s = store.load()
    assert (s["schema_version"], s["effort"], s["min_rate_limit_left"]) == (CURRENT_VERSION, None, None)
    assert (s["run_id"], s["budget_used_usd"], s["token_usage"]["review"]["calls"]) == ("r3", 0.25, 1)
    assert json.loads(store.path.read_text())["schema_version"] == CURRENT_VERSION


def test_version_four_file_gains_the_conversation_bound_fields(git_repo):
    """A schema_version 4 run keeps its conversation and gains a history count of 0 with no base (its next call
    measures it whole), no restarts and no finished tasks."""
    store = Store(git_repo)
    write(store, VERSION_4)
    s = store.load()
    assert (s["schema_version"], s["conversation_id"], s["effort"]) == (CURRENT_VERSION, "c", "high")
    assert (s["conversation_tokens"], s["conversation_base"], s["conversation_restarts"], s["tasks_done"]) == (
        0,
        None,
        0,
        [],
    )


def test_unknown_legacy_status_becomes_idle():
    """A status this version does not know is read as idle rather than crashing every hook."""
    state, _ = migrate({"status": "stopped", "iteration": 0, "no_progress_streak": 0, "token_usage": {}})
    assert state["status"] == "idle"


def test_old_file_is_written_back_by_the_first_transaction_even_without_changes(git_repo, monkeypatch):
    """A transaction that changes nothing still saves a migrated file, so its budget stops depending on env."""
    store = Store(git_repo)
    write(store, NODE_PRE_BUDGET)
    monkeypatch.setenv("AUTOPILOT_BUDGET_USD", "7")
    with store.transaction():
        pass
    on_disk = json.loads(store.path.read_text())
    assert (on_disk["schema_version"], on_disk["budget_usd"]) == (CURRENT_VERSION, 7.0)
    monkeypatch.setenv("AUTOPILOT_BUDGET_USD", "2")
    assert store.load()["budget_usd"] == 7.0


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
    write(store, VERSION_5)
    s = store.load()
    assert (s["schema_version"], s["reviews_pending"], s["verdict_tree"], s["plan_to_show"]) == (
        CURRENT_VERSION,
        [],
        None,
        False,
    )
    assert (s["last_review"]["fingerprint"], s["conversation_tokens"], s["run_id"]) == ("t1", 1200, "r5")
    assert json.loads(store.path.read_text())["schema_version"] == CURRENT_VERSION == 6
