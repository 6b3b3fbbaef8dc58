"""The index a scan keeps (jsonl_index.py): its cache file reads back what was saved; rebuilt when damaged or stale."""

from __future__ import annotations

from pathlib import Path

from autopilot.handoff.transcripts import jsonl
from tests.unit.handoff.transcripts.test_jsonl import CountFold, write


def test_damaged_index_file_is_rebuilt(tmp_path):
    """A cache file that cannot be read back is ignored and rewritten."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1})
    jsonl.scan(f, CountFold())
    (cached,) = Path(jsonl.cache_dir()).glob("*.idx")
    cached.write_bytes(cached.read_bytes()[:-5])
    assert jsonl.scan(f, CountFold()).status == "rebuilt"
    assert jsonl.scan(f, CountFold()).status == "reused"


def test_new_fold_version_rebuilds(tmp_path):
    """An index written by another version of the fold is not trusted."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1})
    jsonl.scan(f, CountFold())
    newer = CountFold()
    newer.version = 2
    assert jsonl.scan(f, newer).status == "rebuilt"


def test_an_index_header_reads_back_what_was_saved(tmp_path):
    """A state with non-ASCII text, escapes and astral characters survives the cache file unchanged."""
    f = tmp_path / "t.jsonl"
    odd = ["café", "日本", "😀 \\ud83d", 'quote " and \\ back', "\u2028\x00", "\U0010ffff"]
    write(f, *({"n": text, "e": True} for text in odd))
    built = jsonl.scan(f, CountFold())
    again = jsonl.scan(f, CountFold())
    assert (built.status, again.status) == ("built", "reused")
    assert again.state["ns"] == odd
