"""state.json: corrupt files moved aside, atomic validated writes, and a transaction that expects the run it read."""

from __future__ import annotations

import json
import os

import pytest

from autopilot.errors import RunChanged, StateError, Unwritable
from autopilot.loop import state as state_mod
from autopilot.loop.migrations import CURRENT_VERSION
from autopilot.loop.state import Store


def write(store: Store, text: str) -> None:
    store.dir.mkdir(parents=True, exist_ok=True)
    store.path.write_text(text, encoding="utf-8")


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
