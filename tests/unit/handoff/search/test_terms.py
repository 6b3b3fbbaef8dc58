"""Index terms (issue 37): one stemmer, identifiers whole and split into their words, the error vocabulary."""

from __future__ import annotations

import pytest

from autopilot.handoff.search import terms


@pytest.mark.parametrize(
    ("token", "split"),
    [
        ("tax_rules", ["tax", "rules"]),
        ("parseHTTPHeader", ["parse", "http", "header"]),
        ("RateBadge", ["rate", "badge"]),
        ("TS2322", ["ts", "2322"]),
        ("__init__", ["init"]),
    ],
)
def test_an_identifier_splits_into_its_words(token, split):
    """Snake, camel, acronym and digit boundaries all split."""
    assert terms.parts(token) == split


def test_an_identifier_is_kept_whole_and_its_words_follow_stemmed():
    """`tax_rules` is held whole (an exact match) and as `tax` and `rule` (the words people type)."""
    assert terms.index_terms("tax_rules", expand=False).split() == ["tax_rules", "tax", "rule"]
    assert terms.index_terms("RateBadge", expand=False).split() == ["ratebadge", "rate", "badg"]


def test_a_plain_word_is_held_by_its_stem_and_a_query_word_meets_it():
    """ "failing", "fails" and "failed" are one term; so are "monthly" and "month", "reports" and "report"."""
    assert {terms.term(w) for w in ("failing", "fails", "failed")} == {"fail"}
    assert terms.term("monthly") == terms.term("month") and terms.term("reports") == terms.term("report")


def test_a_query_identifier_is_matched_whole():
    """A query's identifier is its own term, so `parse_record` never stands for `parse` and `record`."""
    assert terms.term("parse_record") == "parse_record" and terms.term("ValueError") == "valueerror"


def test_dotted_and_path_names_split_at_their_separators():
    """`ledger.reports.monthly` and `src/ledger/reports/monthly.py` are their words."""
    assert terms.index_terms("ledger.reports.monthly", expand=False).split() == ["ledger", "report", "month"]
    assert terms.index_terms("src/tax_rules/io.py", expand=False).split() == [
        "src",
        "tax_rules",
        "tax",
        "rule",
        "io",
        "py",
    ]


def test_an_error_brings_the_words_people_say_for_it():
    """A division by zero is found by "divide" and "dividing"; a traceback's class by its plain words."""
    held = set(terms.index_terms("E       ZeroDivisionError: division by zero").split())
    assert {terms.term("dividing"), terms.term("divide"), "zero", "zerodivisionerror"} <= held


def test_a_word_that_merely_resembles_an_error_brings_nothing():
    """Keys match whole words as printed: "failed" in prose is not pytest's FAILED, "KeyErrors" is not KeyError."""
    assert terms.said_for("the import failed once") == []
    assert terms.said_for("KeyErrors everywhere") == []
    assert "broken" in terms.said_for("FAILED tests/test_a.py::test_x")
