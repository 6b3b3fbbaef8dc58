"""codex_sessions' shared finders: a thread's rollout by id, and the newest root session in a repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopilot import paths
from autopilot.codex import sessions
from tests.support.codex_home import meta_line, rollout, thread
from tests.support.measured import unmeasured


@pytest.fixture
def work(tmp_path):
    """A git repository the sessions were started in."""
    repo = tmp_path / "work"
    (repo / ".git").mkdir(parents=True)
    return repo


def test_find_rollout_in_sessions(work):
    """A live thread's rollout is found in the dated sessions folders."""
    path = rollout(thread(1), work)
    rollout(thread(2), work)
    assert sessions.find_rollout(thread(1)) == path


def test_find_rollout_in_archived_sessions(work):
    """An archived thread's rollout is found in archived_sessions."""
    path = rollout(thread(1), work, archived=True)
    assert sessions.find_rollout(thread(1)) == path


def test_find_rollout_prefers_the_live_copy(work):
    """While a thread is in both places (mid-archive), the live rollout is the one returned."""
    rollout(thread(1), work, archived=True, age=0)
    live = rollout(thread(1), work, age=50)
    assert sessions.find_rollout(thread(1)) == live


def test_find_rollout_checks_session_meta(work):
    """A file named for the thread whose line 1 names another thread is not the thread's rollout."""
    rollout(thread(1), work, body=json.dumps(meta_line("root", thread(9), work)) + "\n")
    assert sessions.find_rollout(thread(1)) is None


def test_find_rollout_accepts_a_rollout_still_being_created(work):
    """A named rollout with no first line yet is returned (the file name is all there is to go on)."""
    path = rollout(thread(1), work, body="")
    assert sessions.find_rollout(thread(1)) == path


@pytest.mark.parametrize("query", ["", "*", "../x", f"{thread(1)[:-1]}?"])
def test_find_rollout_refuses_what_is_not_a_thread_id(work, query):
    """Anything but a UUID-shaped id (glob characters, paths, empty) finds nothing."""
    rollout(thread(1), work)
    assert sessions.find_rollout(query) is None


def test_find_rollout_without_codex_home():
    """With no sessions folders at all, nothing is found and nothing fails."""
    assert not (paths.codex_home() / "sessions").exists()
    assert sessions.find_rollout(thread(1)) is None


def test_newest_root_session_skips_children_and_other_repositories(work, tmp_path):
    """The newest root session started in the repository wins over newer children and other directories' ones."""
    other = tmp_path / "other"
    other.mkdir()
    root = rollout(thread(1), work, age=50)
    rollout(thread(2), work, kind="child", age=10)
    rollout(thread(3), other, age=0)
    found = sessions.newest_root_session(str(work / "src"))
    assert found is not None and (found.path, found.thread_id, found.kind) == (root, thread(1), "root")


def test_newest_root_session_since(work):
    """Only rollouts written since ``since`` (less a second of clock slack) count."""
    rollout(thread(1), work, age=60)
    now = time.time()
    assert sessions.newest_root_session(str(work), since=now) is None
    fresh = rollout(thread(2), work, age=0)
    found = sessions.newest_root_session(str(work), since=now)
    assert found is not None and found.path == fresh


def test_newest_root_session_exclude(work):
    """Excluded thread ids are passed over."""
    older = rollout(thread(1), work, age=50)
    rollout(thread(2), work, age=0)
    found = sessions.newest_root_session(str(work), exclude={thread(2)})
    assert found is not None and found.path == older


def test_newest_root_session_none(work):
    """With no session in the repository, there is none."""
    assert sessions.newest_root_session(str(work)) is None
    assert os.path.isdir(work)


def test_a_rollout_record_is_immutable_and_equal_by_its_fields():
    """Rollout keeps the frozen dataclass's behaviour: equal and hashed by its fields, no field reassigned."""
    from autopilot.codex.sessions import Rollout

    one = Rollout(Path("/r.jsonl"), "root", thread_id="t", mtime=1.0)
    assert one == Rollout(Path("/r.jsonl"), "root", "t", None, 1.0) and hash(one) == hash(
        Rollout(Path("/r.jsonl"), "root", "t", mtime=1.0)
    )
    assert one != Rollout(Path("/r.jsonl"), "child", thread_id="t", mtime=1.0) and "kind='root'" in repr(one)
    with pytest.raises(AttributeError):
        one.kind = "child"  # type: ignore[misc]


def test_finding_a_rollout_loads_neither_typing_nor_dataclasses():
    """A Codex page that meets another thread loads this module: typing and dataclasses (~10 ms) stay out."""
    code = (
        "import sys, autopilot.codex.sessions as s; print([m for m in ('typing', 'dataclasses') if m in sys.modules])"
    )
    argv = [sys.executable, "-I", "-c", code]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    assert out.stdout == "[]\n"
