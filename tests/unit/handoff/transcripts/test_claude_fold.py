"""The Claude fold's model view (what the model is sent after a compaction) against a plain reference.

``update_view`` skips the boundaries a plain parentUuid walk shows cannot be reached and finds rows by
searching the key column; the reference here tries every boundary, newest first, with nothing but linear
scans, as docs/claude-intake.md states the rule. Random lineages (duplicate and missing uuids, rewinds,
cycles, preserved rows never written or written again later, segments, rows too large to be nodes) must give
the same view and boundary both ways.
"""

from __future__ import annotations

import json
import random
from array import array

import pytest

from autopilot.handoff.transcripts.claude_fold import ClaudeFold, update_view
from autopilot.handoff.transcripts.claude_intake import intake
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

    def after(k: int) -> int | None:
        i = _last(keys, k)
        return i if i is not None and i >= ib else None

    def parent(i: int) -> int:
        if keys[i] in position:
            n = position[keys[i]]
            return anchor if n == 0 else kept[n - 1]
        p = parents[i]
        if tail and p == anchor:
            return tail
        if tail and p and kinds[i] and after(p) is None and p not in position:
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
        node = before[p] if p in position else after(p)
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
