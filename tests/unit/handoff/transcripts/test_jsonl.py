"""The format-neutral JSONL scanner and its per-file index."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from array import array

import pytest

from autopilot.handoff.transcripts import jsonl
from tests.support.measured import unmeasured
from tests.support.repo import FIXTURES


class CountFold:
    """A tiny fold: counts rows, keeps their ``n``, marks rows with ``"e": true`` as entries."""

    name = "test"
    version = 1

    def __init__(self) -> None:
        self.calls = 0

    def start(self) -> dict:
        return {"rows": 0, "ns": [], "lines": array("q"), "big": []}

    def row(self, state, line, obj):
        self.calls += 1
        state["rows"] += 1
        state["ns"].append(obj.get("n"))
        state["lines"].append(line)
        return bool(obj.get("e"))

    def oversize(self, state, line, head, tail, size):
        self.calls += 1
        state["big"].append([line, head[:10].decode("latin-1"), tail[-10:].decode("latin-1"), size])
        return True


def write(path, *lines: bytes | dict, end: bytes = b"\n") -> None:
    """Write rows (dicts become JSON) as a JSONL file."""
    raw = [json.dumps(x).encode() if isinstance(x, dict) else x for x in lines]
    path.write_bytes(b"\n".join(raw) + (end if raw else b""))


def append(path, *lines: bytes | dict) -> None:
    """Append rows to a JSONL file."""
    with open(path, "ab") as fh:
        for x in lines:
            fh.write((json.dumps(x).encode() if isinstance(x, dict) else x) + b"\n")


def test_lines_are_numbered_from_one_with_offsets(tmp_path):
    """Every raw line gets a 1-based number and its byte span, blank lines included."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1}, b"", {"n": 3, "e": True})
    index = jsonl.scan(f, CountFold())
    assert (index.lines, index.malformed, list(index.entries)) == (3, {}, [3])
    assert [index.span(n) for n in (1, 2, 3)] == [(0, 8), (9, 0), (10, 19)]
    with index.reader() as r:
        assert r.load(3) == {"n": 3, "e": True}
        assert r.raw(1) == b'{"n": 1}'


def test_malformed_lines_are_counted_by_reason_and_skipped(tmp_path):
    """Invalid JSON or UTF-8, non-objects and a truncated last line are counted, not folded."""
    f = tmp_path / "t.jsonl"
    write(
        f,
        {"n": 1},
        b'{"n": 2',
        b'{"n": "\xff\xfe"}',
        b"[1, 2]",
        b'"text"',
        {"n": 6},
        b'{"n": 7, "e"',
        end=b"",
    )
    fold = CountFold()
    index = jsonl.scan(f, fold)
    assert index.malformed == {
        "invalid_json": 1,
        "invalid_utf8": 1,
        "not_object": 2,
        "truncated": 1,
    }
    assert index.malformed_sample == [2, 3, 4, 5, 7]
    assert index.state["ns"] == [1, 6]


def test_complete_last_line_without_newline_is_folded(tmp_path):
    """A last row that parses but lacks its newline is part of the answer."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1}, {"n": 2, "e": True}, end=b"")
    index = jsonl.scan(f, CountFold())
    assert (index.lines, index.partial, list(index.entries), index.state["ns"]) == (
        2,
        True,
        [2],
        [1, 2],
    )
    assert index.span(2) == (9, 19)


def test_partial_last_line_is_rescanned_once_completed(tmp_path):
    """A partial last line is never saved in the index, so its completion is folded exactly once."""
    f = tmp_path / "t.jsonl"
    f.write_bytes(b'{"n": 1}\n{"n": 2, "e"')
    assert jsonl.scan(f, CountFold()).malformed == {"truncated": 1}
    with open(f, "ab") as fh:
        fh.write(b': true}\n{"n": 3}\n')
    index = jsonl.scan(f, CountFold())
    assert (index.status, index.malformed, index.state["ns"], list(index.entries)) == (
        "extended",
        {},
        [1, 2, 3],
        [2],
    )


def test_unchanged_file_reuses_the_index_without_folding(tmp_path):
    """A second scan of an unchanged file folds nothing and returns the saved state."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1, "e": True}, {"n": 2})
    first = jsonl.scan(f, CountFold())
    fold = CountFold()
    again = jsonl.scan(f, fold)
    assert (first.status, again.status, fold.calls) == ("built", "reused", 0)
    assert (again.state["ns"], list(again.state["lines"]), list(again.entries)) == (
        [1, 2],
        [1, 2],
        [1],
    )
    assert list(again.offsets) == list(first.offsets)


def test_appended_rows_are_scanned_alone_and_match_a_fresh_build(tmp_path):
    """After an append only the new bytes are folded, and the result equals a full rebuild."""
    f = tmp_path / "t.jsonl"
    write(f, *({"n": i, "e": i % 2 == 0} for i in range(50)))
    jsonl.scan(f, CountFold())
    size = f.stat().st_size
    append(f, b"not json", *({"n": i, "e": i % 3 == 0} for i in range(50, 60)))
    fold = CountFold()
    grown = jsonl.scan(f, fold)
    fresh = jsonl.scan(f, CountFold(), cache=False)
    assert (grown.status, fold.calls, grown.scanned_bytes) == (
        "extended",
        10,
        f.stat().st_size - size,
    )
    assert (grown.state, list(grown.entries), list(grown.offsets), grown.malformed) == (
        fresh.state,
        list(fresh.entries),
        list(fresh.offsets),
        fresh.malformed,
    )


@pytest.mark.parametrize("change", ["rewrite_same_size", "shrink", "new_head", "edit_before_end"])
def test_any_change_but_growth_rebuilds(tmp_path, change):
    """A file that was rewritten, shrunk or edited is rebuilt from scratch, never extended."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1}, {"n": 2}, {"n": 3})
    jsonl.scan(f, CountFold())
    data = f.read_bytes()
    if change == "rewrite_same_size":
        f.write_bytes(data.replace(b'"n": 2', b'"n": 7'))
        os.utime(f, ns=(1, 1))
    elif change == "shrink":
        f.write_bytes(data[:-9])
    elif change == "new_head":
        f.write_bytes(data.replace(b'"n": 1', b'"n": 8') + b'{"n": 4}\n')
    else:
        f.write_bytes(data.replace(b'"n": 3', b'"n": 9') + b'{"n": 4}\n')
    index = jsonl.scan(f, CountFold())
    assert index.status == "rebuilt"
    assert index.state == jsonl.scan(f, CountFold(), cache=False).state


def test_replaced_file_gets_its_own_index(tmp_path):
    """A file replaced by a new inode is indexed afresh under its own key."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1})
    jsonl.scan(f, CountFold())
    g = tmp_path / "g.jsonl"
    write(g, {"n": 5}, {"n": 6})
    os.replace(g, f)
    index = jsonl.scan(f, CountFold())
    assert (index.status, index.state["ns"]) == ("built", [5, 6])


def test_unwritable_cache_still_answers(tmp_path, monkeypatch):
    """When the cache directory cannot be created the scan still succeeds."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setattr(jsonl, "cache_dir", lambda: blocker / "cache")
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1, "e": True})
    index = jsonl.scan(f, CountFold())
    assert (index.status, list(index.entries)) == ("built", [1])


def test_oversize_line_is_seen_by_head_and_tail_only(tmp_path, monkeypatch):
    """A line over the size limit reaches the fold as head, tail and size; scanning goes on."""
    monkeypatch.setattr(jsonl, "CHUNK_BYTES", 64)
    monkeypatch.setattr(jsonl, "HEAD_TAIL_BYTES", 16)
    f = tmp_path / "t.jsonl"
    big = b'{"n": 2, "pad": "' + b"x" * 500 + b' "end": 1}'
    write(f, {"n": 1}, big, {"n": 3}, big, big[:300], end=b"")
    index = jsonl.scan(f, CountFold(), max_line_bytes=100)
    assert index.state["big"] == [
        [2, '{"n": 2, "', ' "end": 1}', len(big)],
        [4, '{"n": 2, "', ' "end": 1}', len(big)],
        [5, '{"n": 2, "', "xxxxxxxxxx", 300],
    ]
    assert (index.state["ns"], index.oversize, list(index.entries)) == (
        [1, 3],
        [2, 4, 5],
        [2, 4, 5],
    )
    assert index.span(3) == (index.offsets[2], 8)


def test_twenty_megabyte_line_is_not_parsed(tmp_path):
    """A 20 MB line is reported as oversize with its real size, and the next line is read."""
    f = tmp_path / "t.jsonl"
    big = b'{"n": 1, "pad": "' + b"y" * (20 << 20) + b'"}'
    write(f, big, {"n": 2})
    index = jsonl.scan(f, CountFold())
    assert (index.oversize, index.state["big"][0][3], index.state["ns"]) == ([1], len(big), [2])
    with index.reader() as r:
        assert r.load(1) is None
        head, tail = r.head_tail(1)
        assert head.startswith(b'{"n": 1') and tail.endswith(b'y"}')


def test_pages_walk_every_entry_once_newest_first(tmp_path):
    """Following nextBeforeLine from the newest page visits each entry exactly once, in order."""
    f = tmp_path / "t.jsonl"
    write(f, *({"n": i, "e": i % 3 != 0} for i in range(1, 101)))
    index = jsonl.scan(f, CountFold())
    seen, before = [], None
    while True:
        lines, before = index.page(before, limit=7)
        seen.extend(lines)
        if before is None:
            break
    assert seen == [n for n in range(100, 0, -1) if n % 3 != 0]


def test_before_line_is_exclusive(tmp_path):
    """A page before line N never includes line N."""
    f = tmp_path / "t.jsonl"
    write(f, *({"n": i, "e": True} for i in range(1, 11)))
    index = jsonl.scan(f, CountFold())
    assert index.page(5, limit=2) == ([4, 3], 3)
    assert index.page(2, limit=5) == ([1], None)
    assert index.page(1, limit=5) == ([], None)


def test_random_chunking_matches_a_simple_reader(tmp_path, monkeypatch):
    """Any chunk size gives the lines, offsets, entries and malformed counts of a plain read."""
    rng = random.Random(4)
    rows = []
    for i in range(300):
        kind = rng.random()
        if kind < 0.05:
            rows.append(b"{broken")
        elif kind < 0.08:
            rows.append(b"")
        else:
            rows.append(json.dumps({"n": i, "e": rng.random() < 0.5, "pad": "z" * rng.randint(0, 90)}).encode())
    f = tmp_path / "t.jsonl"
    write(f, *rows)
    offsets, off = [], 0
    for raw in rows:
        offsets.append(off)
        off += len(raw) + 1
    expect_entries = [n for n, raw in enumerate(rows, 1) if raw.startswith(b'{"') and json.loads(raw)["e"]]
    for chunk in (1, 3, 17, 256, 4096):
        monkeypatch.setattr(jsonl, "CHUNK_BYTES", chunk)
        index = jsonl.scan(f, CountFold(), cache=False)
        assert list(index.offsets) == offsets
        assert list(index.entries) == expect_entries
        assert index.malformed == {"invalid_json": rows.count(b"{broken")}


class SkimFold(CountFold):
    """CountFold that counts rows starting with ``{"skip"`` without parsing them, and totals at the end."""

    skim_prefixes = (b'{"skip"',)

    def start(self) -> dict:
        return {**super().start(), "skimmed": [], "total": None}

    def skim(self, state, line, raw):
        if b"parse-me" in raw:
            return None
        state["skimmed"].append(line)
        return b'"e": true' in raw

    def finish(self, state, lines):
        state["total"] = lines


def test_skimmed_lines_are_not_parsed(tmp_path):
    """Lines a fold skims never reach row(); declined ones and unframed ones are parsed as usual."""
    f = tmp_path / "t.jsonl"
    write(f, {"skip": 1, "e": True}, {"n": 2}, {"skip": 3, "why": "parse-me", "n": 3}, b'{"skip": 4')
    index = jsonl.scan(f, SkimFold())
    assert (index.state["skimmed"], index.state["ns"], list(index.entries)) == ([1], [2, 3], [1])
    assert index.malformed == {"invalid_json": 1}


def test_finish_runs_before_the_index_is_saved(tmp_path):
    """State derived in finish() is saved and comes back on reuse."""
    f = tmp_path / "t.jsonl"
    write(f, {"n": 1}, {"n": 2})
    jsonl.scan(f, SkimFold())
    again = jsonl.scan(f, SkimFold())
    assert (again.status, again.state["total"]) == ("reused", 2)


class MarkFold(CountFold):
    """CountFold that asks for the positions of "id" marks inside oversize lines."""

    oversize_marks = __import__("re").compile(rb'"id":"[a-z]+"')

    def oversize(self, state, line, head, tail, size, marks=()):
        state["big"].append([line, [m.decode() for m in marks]])
        return False


def test_oversize_marks_are_found_anywhere_in_the_line(tmp_path, monkeypatch):
    """A fold's mark pattern is found in the middle of an oversize line, even across chunk edges."""
    monkeypatch.setattr(jsonl, "CHUNK_BYTES", 7)
    f = tmp_path / "t.jsonl"
    big = b'{"a": "' + b"x" * 300 + b'", "id":"middle", "b": "' + b"y" * 300 + b'", "id":"late"}'
    write(f, {"n": 1}, big, {"n": 3})
    index = jsonl.scan(f, MarkFold(), max_line_bytes=100)
    assert index.state["big"] == [[2, ['"id":"middle"', '"id":"late"']]]
    assert index.state["ns"] == [1, 3]


ODD_LINES = [
    b'{"n": 2',
    b'{"n": "\xff\xfe"}',
    b"[1, 2]",
    b'"text"',
    b'{"n": NaN}',
    b'{"n": 1e400}',
    b'{"n": "\\ud800"}',
    b'{"n": "\\ud83d\\ude00 caf\xc3\xa9"}',
    b"\xef\xbb\xbf{}",
    b'{"n": 1} trailing',
]


def _folded(path, fold, monkeypatch, small: int) -> tuple:
    monkeypatch.setattr(jsonl, "SMALL_SCAN_BYTES", small)
    index = jsonl.scan(path, fold, cache=False)
    return index.state, list(index.entries), index.malformed, index.malformed_sample, index.oversize


@pytest.mark.parametrize("fold_name", ["claude", "codex"])
def test_a_small_scan_without_orjson_folds_what_orjson_folds(tmp_path, monkeypatch, fold_name):
    """Every real transcript or rollout line and a set of odd ones fold into the same index read either way."""
    from autopilot.handoff.transcripts.claude_fold import ClaudeFold
    from autopilot.handoff.transcripts.codex_fold import CodexFold

    root = FIXTURES / fold_name
    lines = [line for path in sorted(root.rglob("*.jsonl")) for line in path.read_bytes().splitlines()]
    f = tmp_path / "all.jsonl"
    write(f, *lines[:200], *ODD_LINES, *lines[200:])
    make = ClaudeFold if fold_name == "claude" else CodexFold
    with_orjson = _folded(f, make(), monkeypatch, small=0)
    without = _folded(f, make(), monkeypatch, small=1 << 40)
    assert len(lines) > 300 and with_orjson[2]  # the odd lines were counted as malformed
    assert json.dumps(without, default=list) == json.dumps(with_orjson, default=list)


def test_an_append_is_read_and_saved_without_importing_orjson(tmp_path):
    """A cached Claude intake after a small append parses the new rows and writes its index without orjson."""
    (source,) = (FIXTURES / "claude" / "compact").glob("*.jsonl")
    rows = source.read_bytes().splitlines(keepends=True)
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"".join(rows[:40]))
    code = (
        "import sys; from autopilot.handoff.transcripts.claude_intake import intake; "
        "p = intake(sys.argv[1]); print(p['diagnostics']['index'], 'orjson' in sys.modules)"
    )
    argv = [sys.executable, "-c", code, str(f)]
    first = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    with open(f, "ab") as fh:
        fh.write(b"".join(rows[40:]))
    after = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    assert (first.stdout, after.stdout) == ("built False\n", "extended False\n")


@pytest.mark.parametrize("fold_name", ["claude", "codex"])
def test_lines_that_cross_chunks_are_read_without_orjson_on_an_append(tmp_path, fold_name):
    """On an append, a line begun in one chunk and ended in the next is read as the others are: no orjson import,
    and the same index as a scan of whole lines."""
    root = FIXTURES / fold_name
    lines = [line for path in sorted(root.rglob("*.jsonl")) for line in path.read_bytes().splitlines()]
    rows = [line + b"\n" for line in lines if _is_json(line)]  # a malformed row is orjson's to judge
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"".join(rows[:20]))
    module, fold = ("claude_fold", "ClaudeFold") if fold_name == "claude" else ("codex_fold", "CodexFold")
    code = (
        "import sys, json; from autopilot.handoff.transcripts import jsonl; "
        f"from autopilot.handoff.transcripts.{module} import {fold}; "
        "jsonl.CHUNK_BYTES = int(sys.argv[2]); jsonl.SMALL_SCAN_BYTES = 8 << 20; "  # every fixture row: an append
        "i = jsonl.scan(sys.argv[1], " + fold + "()); "
        "print(i.status, 'orjson' in sys.modules, list(i.entries), json.dumps(i.malformed))"
    )
    argv = [sys.executable, "-c", code, str(f), "256"]
    subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    with open(f, "ab") as fh:
        fh.write(b"".join(rows[20:]))
    small = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    status, imported, rest = small.stdout.split(" ", 2)
    assert (status, imported) == ("extended", "False")
    whole = jsonl.scan(f, CountFold(), cache=False)  # every line read: the append above must have seen as many
    assert len(rows) > 100 and whole.lines == len(rows)
    assert rest.strip().endswith("{}")  # no line was taken for malformed


def _is_json(line: bytes) -> bool:
    try:
        json.loads(line)
    except ValueError:
        return False
    return True
