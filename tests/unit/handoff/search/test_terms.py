"""handoff/search/terms.py: the words, paths and symbols of a text, as the evidence index and a query both see them."""

from __future__ import annotations

import pytest

from autopilot.handoff.search import terms


def test_words_are_folded_as_fts5_folds_them_once_each():
    """Lowercased, accents removed, ``_`` inside a word, in order, each word once."""
    assert terms.words("Parse_Header failed: Café CAFÉ café, parse_header again") == [
        "parse_header",
        "failed",
        "cafe",
        "again",
    ]


def test_paths_are_file_like_and_versions_and_durations_are_not():
    """Relative, dotted and absolute paths ending in an extension; ``7.4.2`` and ``0.97s`` are no files."""
    text = "edit src/headers.py and ./tests/test_x.py then /abs/path/x.ts; pytest 7.4.2 took 0.97s; see README.md."
    assert terms.paths(text) == ["src/headers.py", "./tests/test_x.py", "/abs/path/x.ts", "README.md"]


def test_paths_are_bounded():
    """At most ``limit`` paths, the first ones found."""
    assert terms.paths(" ".join(f"f{n}.py" for n in range(50)), limit=3) == ["f0.py", "f1.py", "f2.py"]


def test_symbols_are_definitions_node_ids_calls_and_code_shaped_names():
    """A definition's name (when asked), a pytest node's test, ``ValueError``; not ``print(`` nor plain words."""
    text = "def parse_header(line): return ValueError(x) and print(y) in tests/t.py::test_empty"
    assert terms.symbols(text, definitions=True) == ["parse_header", "test_empty", "ValueError"]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("parseHeader RateCache ValueError", ["parseHeader", "RateCache", "ValueError"]),
        ("HTTP http Http Parser", []),  # one case throughout, or a capital and the rest lower: a word
        ("foo() go() load_all", ["foo", "load_all"]),  # a call needs three letters or a code shape
    ],
)
def test_a_symbol_looks_like_code_not_like_a_word(text, found):
    """An inner ``_`` or a lower-to-upper change makes a name code; so does a call of three letters or more."""
    assert terms.symbols(text) == found


def test_distinctive_words_name_one_thing():
    """Numbers and codes, acronyms and code-shaped names, folded; ordinary words and single letters are not."""
    assert terms.distinctive("rate limit 429 from ECB in RateCache at v3 and 0xe9 a I") == [
        "429",
        "ecb",
        "ratecache",
        "v3",
        "0xe9",
    ]


def test_the_enclosing_definition_is_the_nearest_above_the_needle():
    """The name of the last definition before the needle's first line; None without one, or without the needle."""
    source = "class A:\n    def one(self):\n        x = 1\n    def two(self):\n        y = needle\n"
    assert terms.enclosing(source, "needle") == "two"
    assert terms.enclosing("no definitions here: needle", "needle") is None
    assert terms.enclosing(source, "absent") is None and terms.enclosing(source, "") is None


def test_flat_text_compares_quotes_and_blanks_alike():
    """Lowercased, every quote (JSON's escaped ones too) as ``'``, escaped and real blanks as one space."""
    assert terms.flat('assert "EUR" == `USD`\\n  and\t \\"x\\"') == "assert 'eur' == 'usd' and 'x'"


# --- Index terms (issue 37): one stemmer, identifiers whole and split into their words, the error vocabulary.
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
