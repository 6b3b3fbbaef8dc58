"""The Claude fold's model view (what the model is sent after a compaction) against a plain reference.

``update_view`` skips the boundaries a plain parentUuid walk shows cannot be reached and finds rows by
searching the key column; the reference here tries every boundary, newest first, with nothing but linear
scans, as docs/claude-intake.md states the rule (a row's parent is the nearest earlier row with its uuid; the
anchor, the first row with its uuid from the boundary on). Random lineages (duplicate and missing uuids, rewinds,
cycles, preserved rows never written or written again later, segments, rows too large to be nodes) must give
the same view and boundary both ways.

An index extended append after append holds what a fresh read of the file gives: sessions from
``tests/fixtures/make_big_sessions.py`` (real claude 2.1.332 rows: compactions automatic and typed, rewinds,
subagents, repeated texts) cut into random pieces, some in the middle of a row (a row being written) and some
cut short for good (a crash); random lineages grown a few nodes at a time keep the view a fresh computation gives.
"""

from __future__ import annotations

import json
import random
from array import array
from pathlib import Path

import pytest

from autopilot.handoff.transcripts import claude_fold, jsonl
from autopilot.handoff.transcripts.claude_fold import ClaudeFold, update_lineage, update_view
from autopilot.handoff.transcripts.claude_intake import branch, branch_counts, intake
from tests.fixtures.make_big_sessions import Shape, claude_session
from tests.support.claude_rows import Transcript, fixture, text


def _last(keys: list[int], key: int, lo: int = 0, hi: int | None = None) -> int | None:
    """The index of the last ``key`` in ``keys[lo:hi]``, by a linear scan."""
    hi = len(keys) if hi is None else hi
    for i in range(hi - 1, lo - 1, -1):
        if keys[i] == key:
            return i
    return None


def _reference_walk(st: dict, b: int) -> tuple[list[int], bool]:
    keys, parents = list(st["nodeKey"]), list(st["nodeParent"])
    where, kinds = list(st["nodeLine"]), list(st["nodeKind"])
    b_line, _trigger, _key, anchor, kept, segment, _summary = st["boundaries"][b]
    if b_line not in where or st["leafLine"] not in where:
        return [], False
    ib = where.index(b_line)
    if kept is None:  # the segment: parentUuid from its tail back to its head, each row before the one after it
        kept, want, below = [], segment[1] if segment else 0, ib
        while want:
            i = _last(keys, want, 0, below)
            if i is None:
                break
            kept.append(want)
            if want == segment[0]:
                break
            want, below = parents[i], i
        kept.reverse()
    before = {k: _last(keys, k, 0, ib) for k in kept}
    kept = [k for k in kept if before[k] is not None]
    position = {k: n for n, k in enumerate(kept)}
    tail = kept[-1] if kept else 0

    def after(
        k: int, child: int
    ) -> int | None:  # a row's parent: the nearest earlier row with its uuid, if not dropped
        i = _last(keys, k, 0, child)
        return i if i is not None and i >= ib else None

    def parent(i: int) -> int:
        if keys[i] in position:
            n = position[keys[i]]
            return anchor if n == 0 else kept[n - 1]
        p = parents[i]
        if tail and p == anchor:
            return tail
        if tail and p and kinds[i] and after(p, i) is None and p not in position:
            return tail
        return p

    node: int | None = where.index(st["leafLine"])
    out: list[int] = []
    seen: set[int] = set()
    while node is not None and node not in seen:
        seen.add(node)
        out.append(where[node])
        if node == ib:
            return out, True
        p = parent(node)
        if not p:
            break
        if p in position:
            node = before[p]
        elif keys[node] in position:  # the first preserved row hangs under the anchor: its first row from B on
            node = next((i for i in range(ib, len(keys)) if keys[i] == p), None)
        else:
            node = after(p, node)
    return out, False


def reference_view(st: dict) -> tuple[set[int], int | None]:
    """The lines of the model's view and the boundary it starts at: the newest boundary the leaf's walk reaches."""
    for b in range(len(st["boundaries"]) - 1, -1, -1):
        lines, reached = _reference_walk(st, b)
        if reached:
            return set(lines), b
    return set(), None


def random_state(rng: random.Random) -> dict:
    """A fold state with a random lineage and random compaction boundaries."""
    n = rng.randint(1, 40)
    pool = rng.choice([4 * n, n + 3])  # a small pool makes uuids repeat
    lines, line = [], 0
    for _ in range(n):
        line += rng.choice([1, 1, 1, 2, 3])
        lines.append(line)
    keys = [rng.randint(1, pool) for _ in range(n)]
    never = [pool + 1 + k for k in range(5)]  # uuids no row carries
    parents = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.55 and i:
            parents.append(keys[i - 1])
        elif roll < 0.75 and i:
            parents.append(keys[rng.randrange(i)])
        elif roll < 0.85:
            parents.append(0)
        elif roll < 0.92:
            parents.append(rng.choice(never))
        else:
            parents.append(rng.choice(keys))  # possibly a later row: cycles and forward links
    kinds = bytearray(rng.choice([0, 1, 1]) for _ in range(n))
    boundaries = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 6])):
        at = rng.randrange(n)
        b_line = lines[at] if rng.random() < 0.9 else lines[at] + 1  # a boundary row too large to be a node
        anchor = rng.choice([*keys[at:], *never, 0])
        shape = rng.random()
        if shape < 0.6:
            kept = rng.sample([*keys, *never], k=min(len(keys), rng.randint(0, 4)))
            preserved: list = [anchor, kept, None]
        elif shape < 0.8:
            preserved = [anchor, None, [rng.choice([*keys, *never]), rng.choice([*keys, *never])]]
        else:
            preserved = [0, [], None]
        boundaries.append([b_line, "manual", keys[at], *preserved, 0])
    boundaries.sort(key=lambda b: b[0])
    st = ClaudeFold().start()
    st.update(
        nodeLine=array("q", lines),
        nodeKey=array("q", keys),
        nodeParent=array("q", parents),
        nodeKind=kinds,
        boundaries=boundaries,
        leafLine=rng.choice(lines[-3:]) if rng.random() < 0.95 else line + 1,
        leaf=keys[-1],
    )
    return st


@pytest.mark.parametrize("seed", range(40))
def test_model_view_matches_trying_every_boundary(seed):
    """Over 100 random lineages per seed, the view and its boundary are those the plain reference finds."""
    rng = random.Random(seed)
    for _ in range(100):
        st = random_state(rng)
        lines = st["nodeLine"][-1] + 2
        update_view(st, lines)
        shown = {n for n in range(lines + 1) if st["view"][n]}
        assert (shown, st["viewBoundary"]) == reference_view(st)


def test_a_leaf_that_reaches_no_boundary_walks_none_of_them(monkeypatch):
    """Hundreds of boundaries the leaf's walk never meets are ruled out without walking each one."""
    from autopilot.handoff.transcripts import claude_fold

    st = ClaudeFold().start()
    n, walked = 3000, []
    st.update(
        nodeLine=array("q", range(1, n + 1)),
        nodeKey=array("q", range(1, n + 1)),
        nodeParent=array("q", [0, *range(1, n)]),
        nodeKind=bytearray([1] * n),
        leafLine=n,
        leaf=n,
    )
    for b in range(1, n - 10, 10):  # each boundary starts a new root; the leaf's chain starts after the last one
        st["nodeParent"][b - 1] = 0
        st["boundaries"].append([b, "manual", b, b + 1, [b - 1 if b > 1 else 99999], None, 0])
    st["nodeParent"][n - 6] = 0
    real = claude_fold.model_view
    monkeypatch.setattr(claude_fold, "model_view", lambda *a: walked.append(a[1]) or real(*a))
    update_view(st, n)
    assert st["viewBoundary"] is None and reference_view(st) == (set(), None)
    assert walked == [len(st["boundaries"]) - 1]  # only the newest, tried before the plain walk is made


def _same(a: dict, b: dict) -> bool:
    """Two intake answers agree on everything but how the index was obtained."""
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))
    for answer in (a, b):
        for key in ("index", "scannedBytes"):
            answer["diagnostics"].pop(key)
    return a == b


COMPACTED = ["compact", "compact_print", "compact_tui", "compact_auto_print", "compact_instructions", "compact_tui"]


@pytest.mark.parametrize("tail", ["compact_auto_tui", "tools"])
def test_a_cached_page_after_each_append_equals_a_fresh_read(tmp_path, tail):
    """Real sessions with compactions appended one by one, half a session at a time, ending in one whose leaf
    reaches the newest boundary or none: every cached page after an append is the page a full parse gives."""
    path = tmp_path / "many.jsonl"
    path.write_bytes(b"")
    for name in [*COMPACTED, tail]:
        rows = fixture(name).read_bytes().splitlines(keepends=True)
        for part in (rows[: len(rows) // 2], rows[len(rows) // 2 :]):
            with open(path, "ab") as fh:
                fh.write(b"".join(part))
            cached = intake(path, limit=20)
            assert cached["diagnostics"]["index"] in ("built", "extended")
            assert _same(cached, intake(path, limit=20, cache=False))
    assert (cached["branches"]["compactionLine"] is None) == (tail == "tools")


def test_a_turn_appended_under_an_older_summary_reads_as_a_full_parse_does(tmp_path):
    """A turn appended under the first of two compactions' summaries hangs under the newest boundary's preserved
    rows (Claude Code's rule for a dropped parent); the cached page says so exactly as a full parse does."""
    path = tmp_path / "rewound.jsonl"
    first, second = fixture("compact_print").read_bytes(), fixture("compact_instructions").read_bytes()
    path.write_bytes(first + second)
    intake(path)
    rows = [json.loads(r) for r in first.splitlines()]
    after = next(r for r in rows if r.get("isCompactSummary"))
    t = Transcript(session=after["sessionId"])
    t.user("back under the first compaction", parent=after["uuid"])
    t.assistant(text("rewound"))
    with open(path, "ab") as fh:
        fh.write(t.write(tmp_path / "more.jsonl").read_bytes())
    cached = intake(path, limit=20)
    assert cached["diagnostics"]["index"] == "extended"
    assert _same(cached, intake(path, limit=20, cache=False))
    summary = first.count(b"\n") + second.count(b"\n", 0, second.find(b'"isCompactSummary":true')) + 1
    assert cached["checkpoint"]["line"] == summary


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


def test_a_chain_that_skips_every_boundary_is_judged_without_a_walk_per_boundary(monkeypatch):
    """One parent chain that passes every compaction by (each row after a boundary hangs under the row before it,
    so the boundary is never reached, and the plain walk rules none out): whether each boundary is reached is found
    from the lineage, not by walking it once per boundary (650 boundaries over 90,000 rows took 13 s an append),
    and the answer, none, is the reference's."""
    n, count = 4000, 150
    st = ClaudeFold().start()
    st.update(
        nodeLine=array("I", range(1, n + 1)),
        nodeKey=array("I", range(1, n + 1)),
        nodeParent=array("I", [0, *range(1, n)]),
        nodeKind=bytearray(n),
        leafLine=n,
        leaf=n,
    )
    for k in range(1, count + 1):
        b = k * (n // (count + 1))
        st["boundaries"].append([b, "manual", b, b + 1, [], None, 0])
        st["nodeParent"][b] = b - 1  # the row after the boundary hangs under the row before it
    steps = []
    real = claude_fold._Relink.step
    monkeypatch.setattr(claude_fold._Relink, "step", lambda self, *a: steps.append(a[-1]) or real(self, *a))
    update_view(st, n + 1)
    assert st["viewBoundary"] is None
    assert len(steps) < n + 10 * count  # the newest boundary's walk, then a step or two for each of the others
    monkeypatch.undo()
    assert reference_view(st) == (set(), None)
