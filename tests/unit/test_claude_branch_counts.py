"""The page's branch counts, gathered for all entries at once, agree with judging each entry by ``branch``."""

from __future__ import annotations

import random
from array import array

import pytest

from autopilot.handoff.transcripts.claude_intake import branch, branch_counts


@pytest.mark.parametrize("boundary", [None, 3])
def test_branch_counts_match_branch_entry_by_entry(boundary):
    """On random lineage and view flags, with and without a compaction, the counts equal those of branch()."""
    rng = random.Random(25)
    for _ in range(50):
        lines = rng.randint(1, 400)
        st = {
            "active": bytearray(rng.randint(0, 1) for _ in range(lines + 1)),
            "view": bytearray(rng.randint(0, 1) for _ in range(lines + 1)),
            "viewBoundary": boundary,
        }
        entries = array("q", sorted(rng.sample(range(1, lines + 1), rng.randint(0, lines))))
        kinds = [branch(st, n) for n in entries]  # type: ignore[arg-type]
        expected = (kinds.count("non-lineage"), kinds.count("compacted"))
        assert branch_counts(st, entries) == expected  # type: ignore[arg-type]
