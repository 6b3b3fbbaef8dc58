"""The Claude fold after appends: the state an extended index holds is the state a fresh read of the file gives.

Sessions come from ``tests/fixtures/make_big_sessions.py`` (real claude 2.1.332 rows: compactions automatic and
typed, rewinds, subagents, repeated texts), cut into random pieces that are appended one by one, some of them in
the middle of a row (a row being written) and some cut short for good (a crash: the row stays broken). After
every append the cached index, extended with only the new bytes, must hold what a fresh read of the whole file
holds, down to every column and the model's view of the newest compaction.
"""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest

from autopilot.handoff.transcripts import claude_fold, jsonl
from autopilot.handoff.transcripts.claude_fold import ClaudeFold, update_lineage, update_view
from autopilot.handoff.transcripts.claude_intake import branch, branch_counts
from tests.fixtures.make_big_sessions import Shape, claude_session
from tests.unit.test_claude_view import random_state, reference_view


def _state(path: Path, *, cache: bool) -> tuple[dict, jsonl.Index]:
    index = jsonl.scan(path, ClaudeFold(), cache=cache)
    update_lineage(index.state, index.lines)  # what every reader does after a scan (a partial row may move the leaf)
    return dict(index.state), index


def _pieces(data: bytes, rng: random.Random, n: int) -> list[tuple[bytes, bool]]:
    """``data`` cut at ``n`` random places: (piece, whether the row it ends in is lost to a crash)."""
    cuts = sorted(rng.sample(range(1, len(data)), n))
    out, start = [], 0
    for cut in [*cuts, len(data)]:
        out.append((data[start:cut], rng.random() < 0.15))
        start = cut
    return out


@pytest.mark.parametrize("seed", range(8))
def test_an_index_extended_append_after_append_holds_what_a_fresh_read_holds(tmp_path, seed):
    """A session with a dozen compactions, rewinds and subagents, appended in random pieces (some ending in the
    middle of a row, some rows never finished): after every append the extended index equals a fresh read."""
    rng = random.Random(seed)
    shape = Shape(megabytes=0.6, compact_every=0.05, rewinds=6, subagent_every=4, seed=seed, scale=0.1)
    made = claude_session(tmp_path / "made", shape)
    assert made.compactions >= 6 and made.rewinds >= 2
    data = made.path.read_bytes()
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    statuses = set()
    for piece, crashed in _pieces(data, rng, 10):
        with open(path, "ab") as fh:
            fh.write(piece)
            if crashed and not piece.endswith(b"\n"):
                fh.write(b"\n")  # the row is lost: the next bytes start a new line
        cached, index = _state(path, cache=True)
        fresh, full = _state(path, cache=False)
        statuses.add(index.status)
        assert cached == fresh
        assert (list(index.entries), list(index.offsets), index.malformed) == (
            list(full.entries),
            list(full.offsets),
            full.malformed,
        )
        kinds = [branch(index.state, n) for n in index.entries]  # the page's counts, from the fold's entry flags
        assert branch_counts(index.state, index.entries) == (kinds.count("non-lineage"), kinds.count("compacted"))
    assert "extended" in statuses
    assert fresh["viewBoundary"] is not None and fresh["boundaries"]


def _grown(full: dict, upto: int, leafable: list[bool]) -> dict:
    """``full``'s first ``upto`` nodes, with the boundaries among them and the newest leafable node as the leaf."""
    where = full["nodeLine"][:upto]
    last = where[-1]
    leaves = [i for i in range(upto) if leafable[i]]
    leaf = leaves[-1] if leaves else upto - 1
    st = ClaudeFold().start()
    st.update(
        nodeLine=array("q", where),
        nodeKey=array("q", full["nodeKey"][:upto]),
        nodeParent=array("q", full["nodeParent"][:upto]),
        nodeKind=bytearray(full["nodeKind"][:upto]),
        boundaries=[list(b) for b in full["boundaries"] if b[0] <= last],
        leafLine=where[leaf],
        leaf=full["nodeKey"][leaf],
    )
    return st


@pytest.mark.parametrize("seed", range(30))
def test_the_view_kept_across_appends_is_the_view_computed_afresh(seed):
    """Random lineages (repeated and missing uuids, forward links, cycles, rows too large to be nodes, preserved
    rows written again) grown a few nodes at a time: the view carried from append to append, which walks only
    from the new leaf to the path it kept, equals the view computed from nothing, and the reference's."""
    rng = random.Random(seed)
    for _ in range(40):
        full = random_state(rng)
        n = len(full["nodeKey"])
        leafable = [rng.random() < 0.8 for _ in range(n)]
        carried: dict | None = None
        upto = 0
        while upto < n:
            upto = min(n, upto + rng.randint(1, 4))
            grown = _grown(full, upto, leafable)
            lines = grown["nodeLine"][-1] + 2
            if carried is not None:  # the old view, path and key, with the grown columns
                for key in ("view", "viewKey", "viewBoundary", "viewPath"):
                    grown[key] = carried[key]
            update_view(grown, lines)
            fresh = _grown(full, upto, leafable)
            update_view(fresh, lines)
            assert (grown["view"], grown["viewBoundary"], list(grown["viewPath"])) == (
                fresh["view"],
                fresh["viewBoundary"],
                list(fresh["viewPath"]),
            )
            shown = {x for x in range(lines + 1) if grown["view"][x]}
            assert (shown, grown["viewBoundary"]) == reference_view(grown)
            carried = grown


def test_an_append_walks_the_rows_it_added_not_the_whole_segment(tmp_path, monkeypatch):
    """Appending a turn to a session whose newest compaction is thousands of rows back steps through the turn's
    rows (and the one it joins), never back through the whole segment to the boundary."""
    made = claude_session(tmp_path / "made", Shape(2.0, compact_every=1.2, rewinds=0, subagent_every=0, scale=0.3))
    data = made.path.read_bytes()
    cut = data.rfind(b"\n", 0, len(data) - 60_000) + 1
    path = tmp_path / "session.jsonl"
    path.write_bytes(data[:cut])
    before, _ = _state(path, cache=True)
    assert len(before["viewPath"]) > 200  # the rows since the newest compaction
    steps = []
    real = claude_fold._Relink.step
    monkeypatch.setattr(claude_fold._Relink, "step", lambda self, *a: steps.append(a[-1]) or real(self, *a))
    with open(path, "ab") as fh:
        fh.write(data[cut:])
    after, index = _state(path, cache=True)
    assert index.status == "extended"
    added = len(after["nodeKey"]) - len(before["nodeKey"])
    assert 0 < len(steps) <= added + 2
    monkeypatch.undo()
    assert after == _state(path, cache=False)[0]
