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
