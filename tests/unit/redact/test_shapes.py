"""redact/shapes.py: the redaction summary every view prints has the shape's keys, and adds up."""

from __future__ import annotations

from autopilot.redact import Redactor, shapes
from tests.support.shapes import mismatches

TOKEN = "ghp_" + "a1B2" * 9


def test_a_summary_is_the_total_and_the_counts_by_kind():
    """After two strings with credentials and one without, the summary's total is the sum of its kinds."""
    redactor = Redactor()
    redactor(f"token={TOKEN}")
    redactor(f"again {TOKEN} and AKIA{'IOSFODNN7EXAMPLE'}")
    redactor("nothing here")
    summary = redactor.summary()
    assert mismatches(summary, shapes.Redactions) == []
    assert summary["total"] == sum(summary["by_kind"].values()) == 3 and summary["by_kind"]["github_token"] == 2


def test_an_empty_summary_has_the_shape_too():
    """A redactor that removed nothing says so in the same shape: a zero total, no kinds."""
    assert Redactor().summary() == {"total": 0, "by_kind": {}}
