"""state.json: migrations from literal old files, corrupt files moved aside, atomic validated writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autopilot.errors import RunChanged, StateError, Unwritable
from autopilot.loop import state as state_mod
from autopilot.loop.migrations import CURRENT_VERSION, migrate, migrate_budget_fields
from autopilot.loop.state import Store

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


def write(store: Store, text: str) -> None:
    store.dir.mkdir(parents=True, exist_ok=True)
    store.path.write_text(text, encoding="utf-8")


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


def test_version_three_file_gains_effort_and_rate_limit_floor(git_repo):
    """A schema_version 3 run keeps everything and gains effort and min_rate_limit_left, both unset."""
    store = Store(git_repo)
    write(store, VERSION_3)
    s = store.load()
    assert (s["schema_version"], s["effort"], s["min_rate_limit_left"]) == (CURRENT_VERSION, None, None)
    assert (s["run_id"], s["budget_used_usd"], s["token_usage"]["review"]["calls"]) == ("r3", 0.25, 1)
    assert json.loads(store.path.read_text())["schema_version"] == CURRENT_VERSION


# A running run as schema version 4 wrote it (before its conversation was bounded), mid-conversation.
VERSION_4 = VERSION_3.replace('"schema_version": 3', '"schema_version": 4').replace(
    '"plan_tree": null,', '"plan_tree": null, "effort": "high", "min_rate_limit_left": 10,'
)


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


def test_newer_schema_is_refused_with_upgrade_hint(git_repo):
    """A file from a newer schema is refused, says to upgrade, and is left untouched."""
    store = Store(git_repo)
    text = json.dumps({"schema_version": CURRENT_VERSION + 1, "status": "running"})
    write(store, text)
    with pytest.raises(StateError, match="upgrade"):
        store.load()
    assert store.path.read_text() == text


@pytest.mark.parametrize("garbage", ["{not json", "[1, 2, 3]", '"a string"', ""])
def test_corrupt_state_is_moved_aside_not_overwritten(git_repo, garbage):
    """An unparsable state.json is renamed to state.json.corrupt-<ts> with its bytes intact, and reported."""
    store = Store(git_repo)
    write(store, garbage)
    with pytest.raises(StateError, match="moved aside"):
        store.load()
    aside = [p for p in store.dir.iterdir() if p.name.startswith("state.json.corrupt-")]
    assert len(aside) == 1 and aside[0].read_text() == garbage
    assert not store.path.exists()
    assert store.load()["status"] == "idle"


def test_old_file_survives_a_failed_write(git_repo, monkeypatch):
    """If writing the new state fails midway, the previous state.json is still whole."""
    store = Store(git_repo)
    with store.transaction() as s:
        s["goal"] = "before"
    before = store.path.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(state_mod.os, "replace", broken_replace)
    with pytest.raises(Unwritable, match="disk full.*the old state.json is unchanged"), store.transaction() as s:
        s["goal"] = "after"
    assert store.path.read_bytes() == before
    assert [p.name for p in store.dir.iterdir() if p.name.endswith(".tmp")] == []


def test_invalid_state_is_never_written(git_repo):
    """A transaction that would break the schema raises and leaves the file as it was."""
    store = Store(git_repo)
    with store.transaction() as s:
        s["goal"] = "ok"
    before = store.path.read_bytes()
    with pytest.raises(StateError, match="invalid state.json"), store.transaction() as s:
        s["iteration"] = -1
    assert store.path.read_bytes() == before


def test_no_run_reads_as_idle_without_creating_files(git_repo):
    """Loading a workspace that never had a run gives an idle state and writes nothing."""
    store = Store(git_repo)
    assert store.load()["status"] == "idle"
    assert not store.dir.exists()


def test_run_dirs_are_per_workspace(tmp_path):
    """Two workspaces with the same name get different run directories."""
    a, b = tmp_path / "x" / "proj", tmp_path / "y" / "proj"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    assert Store(a).dir != Store(b).dir
    assert Store(a).dir.name.startswith("proj-")


def test_unchanged_transaction_does_not_rewrite(git_repo):
    """A transaction that changes nothing leaves the file itself in place (an atomic write would replace it)."""
    store = Store(git_repo)
    with store.transaction() as s:
        s["goal"] = "g"
    before = os.stat(store.path).st_ino
    with store.transaction():
        pass
    assert os.stat(store.path).st_ino == before
    with store.transaction() as s:
        s["goal"] = "h"  # the check can fail: a real change does replace the file
    assert os.stat(store.path).st_ino != before


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


def test_status_vocabulary_is_the_schemas():
    """loop/status.py and state_schema.json name exactly the same statuses, in the same order."""
    from autopilot.loop import status

    schema = json.loads(Path(state_mod.SCHEMA_PATH).read_text())
    assert tuple(schema["properties"]["status"]["enum"]) == status.ALL


def test_every_published_status_enum_is_the_vocabulary():
    """Every run-status enum the package publishes (the dashboard's run summaries) lists every status, no other."""
    from autopilot.loop import status

    schemas = sorted((Path(state_mod.SCHEMA_PATH).parents[1] / "dashboard" / "schemas").glob("*.json"))
    enums = []

    def walk(node):
        if isinstance(node, dict):
            props = node.get("properties")
            found = props.get("status") if isinstance(props, dict) else None
            if isinstance(found, dict) and status.RUNNING in (found.get("enum") or []):  # rules have their own
                enums.append(found["enum"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for path in schemas:
        walk(json.loads(path.read_text()))
    assert enums, "no run status enum found in the dashboard's schemas"
    assert all(tuple(e) == status.ALL for e in enums)


def valid_state_text(store: Store) -> str:
    """A current-version state.json as this bridge writes it."""
    with store.transaction() as s:
        s["goal"] = "g"
    return store.path.read_text()


@pytest.mark.parametrize(
    "edit, where",
    [
        (lambda s: s.update(iteration="three"), "iteration"),
        (lambda s: s.update(status="sleeping"), "status"),
        (lambda s: s.update(budget_usd=-1), "budget_usd"),
        (lambda s: s.pop("token_usage"), "token_usage"),
    ],
)
def test_schema_invalid_state_is_refused_with_what_is_wrong(git_repo, edit, where):
    """A parseable state.json that breaks the schema is an unusable file (exit 5) naming the bad field."""
    store = Store(git_repo)
    state = json.loads(valid_state_text(store))
    edit(state)
    text = json.dumps(state)
    write(store, text)
    with pytest.raises(StateError, match=where) as caught:
        store.load(repair=False)
    assert caught.value.exit_code == 5 and store.path.read_text() == text  # reported, left as it is
    with pytest.raises(StateError, match="moved aside"):
        store.load()
    assert not store.path.exists()


def test_a_hand_edit_that_stays_valid_is_accepted(git_repo):
    """Editing state.json by hand is fine as long as it keeps to the schema (the digest only skips the check)."""
    store = Store(git_repo)
    state = json.loads(valid_state_text(store))
    state["goal"] = "edited by hand"
    write(store, json.dumps(state))
    assert store.load(repair=False)["goal"] == "edited by hand"


def test_own_writes_are_not_revalidated_on_load(git_repo, monkeypatch):
    """A file whose bytes match the digest of the last validated write loads without jsonschema."""
    store = Store(git_repo)
    valid_state_text(store)
    monkeypatch.setattr(state_mod, "problem", lambda s: pytest.fail("validated again"))
    assert store.load(repair=False)["goal"] == "g"


def test_what_a_killed_process_left_is_swept_before_the_next_call(git_repo):
    """Stale temp files and index folders in the run directory go; fresh ones (a live writer's) stay."""
    import time

    from autopilot.loop import snapshot

    store = Store(git_repo)
    valid_state_text(store)
    old = time.time() - 3600
    stale = [store.dir / ".state.json.abc123.tmp", store.dir / ".write-probe-99999"]
    fresh = store.dir / ".state.json.live99.tmp"
    for path in (*stale, fresh):
        path.write_text("x")
    folder = store.dir / "autopilot-index-dead"
    folder.mkdir()
    (folder / "index").write_text("x")
    for path in (*stale, folder):
        os.utime(path, (old, old))
    store.check_writable()
    snapshot.work_tree(str(git_repo), str(store.dir / "work-index"))
    assert not any(p.exists() for p in stale) and not folder.exists() and fresh.exists()


def test_temp_files_of_a_killed_state_writer_go_with_the_next_write(git_repo):
    """Under the lock no writer of state.json is alive, so its temp files are swept at once; others wait to be stale."""
    store = Store(git_repo)
    valid_state_text(store)
    dead = [store.dir / ".state.json.k1ll3d.tmp", store.dir / ".state.json.valid.k1ll3d.tmp"]
    other = store.dir / ".review-20261201T000000.000000Z-abcdef.json.live.tmp"  # maybe a live writer's
    for path in (*dead, other):
        path.write_text("{")
    with store.transaction() as s:
        s["goal"] = "next"
    assert not any(p.exists() for p in dead) and other.exists()


@pytest.mark.parametrize("field", ["budget_usd", "budget_used_usd"])
def test_nan_in_state_is_refused(git_repo, field):
    """A NaN budget passes JSON Schema's minimum; the state check refuses it and names the field."""
    store = Store(git_repo)
    state = json.loads(valid_state_text(store))
    state[field] = float("nan")
    write(store, json.dumps(state))  # json writes NaN as a bare NaN token, which Python reads back
    with pytest.raises(StateError, match=field):
        store.load(repair=False)


def running_run(store: Store, run_id: str = "run-1") -> dict:
    """A running run ``run_id`` written to ``store`` (only the fields the expectation looks at matter)."""
    with store.transaction() as s:
        s.update(run_id=run_id, status="running")
        return dict(s)


def test_a_transaction_expecting_the_run_it_holds_goes_ahead(git_repo):
    """Told the run that is there (and that it must be running), the transaction writes as usual."""
    store = Store(git_repo)
    read = running_run(store)
    with store.transaction(expect=read, running=True) as s:
        s["iteration"] = 3
    assert store.load()["iteration"] == 3


def test_a_replaced_run_is_refused_and_left_untouched(git_repo):
    """A transaction expecting a run that was re-planned meanwhile raises RunChanged before it changes anything."""
    store = Store(git_repo)
    read = running_run(store, "old")
    running_run(store, "new")
    before = store.path.read_bytes()
    with pytest.raises(RunChanged) as caught, store.transaction(expect=read) as s:
        s["iteration"] = 99
    assert caught.value.replaced and caught.value.now["run_id"] == "new" and store.path.read_bytes() == before


def test_a_run_no_longer_running_is_refused_when_running_is_expected(git_repo):
    """``running=True`` refuses the same run once it has paused: RunChanged, not replaced, nothing written."""
    store = Store(git_repo)
    read = running_run(store)
    with store.transaction() as s:
        s["status"] = "paused_block_cap"
    with pytest.raises(RunChanged) as caught, store.transaction(expect=read, running=True) as s:
        s["iteration"] = 99
    assert not caught.value.replaced and caught.value.now["status"] == "paused_block_cap"
    assert store.load()["iteration"] == 0


def test_a_stopped_run_may_still_be_written_when_only_identity_is_expected(git_repo):
    """Without ``running`` a transaction only asks that the run is the same one (a charge lands on a paused run)."""
    store = Store(git_repo)
    read = running_run(store)
    with store.transaction() as s:
        s["status"] = "idle"
    with store.transaction(expect=read) as s:
        s["iteration"] = 2
    assert store.load()["iteration"] == 2
