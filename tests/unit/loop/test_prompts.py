"""loop/prompts.py cuts a long diff, message or name in its middle with the wording Codex has always been shown."""

from __future__ import annotations

from autopilot.loop.prompts import diff_evidence, middle_cut
from autopilot.loop.snapshot import Snapshot
from autopilot.redact import Redactor

# 300 characters: 150 of the start, 150 of the end.
LONG = "(" * 150 + ")" * 150
# What git.bound, the loop's own clip before text.clip_middle served it, made of LONG at 200: 133 + 67 kept.
CUT_AT_200 = "(" * 133 + "\n[... 100 characters omitted from the middle; the full text has 300 ...]\n" + ")" * 67


def test_a_prompt_cuts_the_middle_as_it_always_has():
    """Two thirds of the limit from the start (rounded down), the rest from the end, and the loop's own mark."""
    assert middle_cut(LONG, 200) == CUT_AT_200


def test_a_prompt_leaves_a_text_within_the_limit_alone():
    """A text of exactly the limit is not cut."""
    assert middle_cut(LONG, 300) == LONG


def test_a_diff_over_the_limit_is_evidence_cut_in_its_middle(monkeypatch):
    """The diff as evidence is the cut one, and its facts say so (its size, the cut, the limit)."""
    monkeypatch.delenv("AUTOPILOT_MAX_DIFF_CHARS", raising=False)
    snap = Snapshot(base=None, head=None, tree="t" * 40, patch=LONG, stat="", files=["f.txt"])
    evidence, facts = diff_evidence({"max_diff_chars": 200}, snap, Redactor())
    assert CUT_AT_200 in evidence and "diff is 300 characters, middle cut to 200\n" in evidence
    assert (facts["diff_chars"], facts["cut"], facts["limit"]) == (300, True, 200)
