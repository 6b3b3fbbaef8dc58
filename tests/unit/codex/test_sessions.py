"""codex/sessions.py: a thread's rollout by id, the newest root session in a repository, compressed rollouts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import zstandard

from autopilot import paths
from autopilot.codex import sessions
from autopilot.errors import BridgeError
from autopilot.handoff.transcripts.codex_intake import intake
from tests.support.codex_home import FIXTURES, meta_line, rollout, thread


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
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"


# Compressed rollouts (`.jsonl.zst`, as Codex writes old sessions) are read like plain ones.

# Written by the real codex 0.171 (app-server rollout/compress): one zstd frame, content size, no checksum.
REAL = next((FIXTURES / "compressed").glob("*.jsonl.zst"))
THREAD = "01a22fe6-15b3-70c0-8fd1-b5f1580d56fd"


def compress(source: Path, target: Path) -> Path:
    """``source`` compressed the way Codex does it."""
    target.write_bytes(zstandard.ZstdCompressor(write_content_size=True).compress(source.read_bytes()))
    return target


def without_paths(answer: dict) -> dict:
    """An intake answer minus what names the file it was read from."""
    return {k: v for k, v in answer.items() if k not in ("transcript", "path", "source", "file")}


def test_intake_of_a_compressed_rollout_equals_the_plain_ones(tmp_path):
    """The same rollout, plain and compressed, gives the same intake."""
    plain = FIXTURES / "exec_plain.jsonl"
    packed = compress(plain, tmp_path / (plain.name + ".zst"))
    assert without_paths(intake(str(sessions.readable(packed)))) == without_paths(intake(str(plain)))


def test_the_rollout_codex_compressed_is_read(tmp_path):
    """A rollout the real codex compressed decompresses to its 18 JSONL lines, session_meta first."""
    plain = sessions.readable(REAL)
    lines = plain.read_bytes().splitlines()
    assert len(lines) == 18 and json.loads(lines[0])["payload"]["id"] == THREAD
    assert sessions.read(REAL).thread_id == THREAD  # classified by line 1 without a full decompression
    assert sessions.readable(REAL) == plain  # decompressed once, then reused


def test_a_compressed_thread_is_found_by_id(isolated_homes):
    """find_rollout finds a thread whose only rollout is compressed; a plain copy of it wins when both exist."""
    day = isolated_homes / "codex" / "sessions" / "2026" / "11" / "23"
    day.mkdir(parents=True)
    packed = day / REAL.name
    shutil.copy(REAL, packed)
    assert sessions.find_rollout(THREAD) == packed
    plain = day / REAL.name.removesuffix(".zst")
    plain.write_bytes(sessions.readable(packed).read_bytes())
    assert sessions.find_rollout(THREAD) == plain


def test_the_cli_reads_a_compressed_rollout(tmp_path, bridge):
    """`handoff from-codex intake x.jsonl.zst` answers as for the plain file (it used to refuse)."""
    packed = compress(FIXTURES / "exec_plain.jsonl", tmp_path / "rollout-x.jsonl.zst")
    code, out, err = bridge("handoff", "from-codex", "intake", str(packed))
    assert code == 0, err
    assert json.loads(out)["session"]["id"] == "01a22c45-f34f-7752-9ff7-c45689ad7d88"


def test_a_decompression_bomb_is_refused(tmp_path, monkeypatch):
    """A .zst that decompresses past the limit is refused with a clear error and leaves no partial copy."""
    monkeypatch.setattr(sessions, "MAX_ROLLOUT_BYTES", 1 << 20)
    bomb = tmp_path / "rollout-bomb.jsonl.zst"
    bomb.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n" * (2 << 20)))
    with pytest.raises(BridgeError, match="decompresses to more than"):
        sessions.readable(bomb)
    cache = Path(sessions.paths.autopilot_home()) / "cache" / "rollouts"
    assert not list(cache.glob("*")) if cache.exists() else True


def test_a_damaged_zst_is_a_clear_error(tmp_path):
    """Bytes that are not zstd give a one-line error naming the file, never a traceback."""
    bad = tmp_path / "rollout-bad.jsonl.zst"
    bad.write_bytes(b"not zstd at all")
    with pytest.raises(BridgeError, match="cannot decompress"):
        sessions.readable(bad)
    assert sessions.read(bad).kind in ("empty", "corrupt")
