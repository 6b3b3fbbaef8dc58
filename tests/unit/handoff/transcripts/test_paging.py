"""handoff/transcripts/paging.py: the one check of a page's bounds, shared by both intakes, at its edges."""

from __future__ import annotations

import pytest

from autopilot.errors import BridgeError
from autopilot.handoff.transcripts.paging import MAX_LIMIT, MIN_MAX_CHARS, check


@pytest.mark.parametrize(
    ("before_line", "limit", "max_chars"),
    [(None, 1, None), (1, MAX_LIMIT, MIN_MAX_CHARS), (10**9, 12, 2000)],
)
def test_bounds_at_their_edges_pass(before_line, limit, max_chars):
    """The first line, one entry or MAX_LIMIT of them, MIN_MAX_CHARS characters or strings uncut are all valid."""
    assert check(before_line=before_line, limit=limit, max_chars=max_chars) is None


@pytest.mark.parametrize(
    ("bounds", "message"),
    [
        ({"before_line": 0}, "--before-line 0 is not a raw line number; pass the previous page's nextBeforeLine"),
        ({"limit": 0}, f"--limit 0 is out of range; use 1 to {MAX_LIMIT}"),
        ({"limit": MAX_LIMIT + 1}, f"--limit {MAX_LIMIT + 1} is out of range; use 1 to {MAX_LIMIT}"),
        ({"max_chars": MIN_MAX_CHARS - 1}, f"--max-chars {MIN_MAX_CHARS - 1} is too small; use at least 80, or --full"),
    ],
)
def test_a_bound_past_its_edge_names_the_option_and_what_to_give(bounds, message):
    """Each refusal is a BridgeError that names the option and the values it takes."""
    given = {"before_line": None, "limit": 12, "max_chars": 2000, **bounds}
    with pytest.raises(BridgeError) as refused:
        check(**given)
    assert str(refused.value) == message
