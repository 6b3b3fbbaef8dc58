"""Where a long text's rules look: only the lines a match can lie in, and the secret words found in lowered text.

``long_word_lines`` picks the lines that hold a long word, and ``apply_in_spans`` runs a rule's pattern on those
alone; ``word_lines`` finds the secret words in the lowered text when that is exact. Each is checked here against
what the pattern does on the whole text (``re``'s own ``sub`` and ``(?i)`` search), on made texts that put matches
at the text's ends, on adjacent lines, inside longer words and after characters that change under ``lower()``.
"""

from __future__ import annotations

import random
import re
import string
import time
from collections import Counter

import pytest

from autopilot.redact.rules import Rule, apply_in_spans, long_word_lines, replacer, word_lines, words_of
from tests.support.measured import untraced

RNG = random.Random(3536)
_DIGIT_WORD = re.compile(r"\S{16,}")


def _digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def made_text(lines: int) -> str:
    """Lines of short words, some with a long word (with or without a digit), some empty, some white space only."""
    out = []
    for _ in range(lines):
        words = []
        for _ in range(RNG.randrange(0, 6)):
            size = RNG.choice([3, 5, 15, 16, 17, 30])
            words.append("".join(RNG.choice(string.ascii_letters + "0123456789_-./+") for _ in range(size)))
        out.append(RNG.choice([" ", "\t", "  "]).join(words))
    return "\n".join(out) + RNG.choice(["", "\n"])


@pytest.mark.parametrize("seed", range(40))
def test_every_long_word_with_a_digit_lies_in_a_span_of_whole_lines(seed):
    """Each word of 16+ characters with a digit lies inside a span; each span is whole lines (it starts a line and
    ends after a line break or at the text's end); spans are ordered and apart; no span holds no such word."""
    RNG.seed(seed)
    text = made_text(RNG.randrange(1, 60))
    spans = long_word_lines(text, 16, _digit)
    wanted = [m.span() for m in _DIGIT_WORD.finditer(text) if _digit(m.group(0))]
    for start, end in wanted:
        assert any(a <= start and end <= b for a, b in spans), (text, spans, (start, end))
    for a, b in spans:
        assert a == 0 or text[a - 1] == "\n"
        assert b == len(text) or text[b - 1] == "\n"
        assert any(a <= start and end <= b for start, end in wanted)
    assert all(b <= a2 for (_, b), (a2, _) in zip(spans, spans[1:], strict=False))


def test_adjacent_lines_are_one_span_and_a_word_inside_a_longer_one_is_found_after_it():
    text = "short\nab12cd34ef56gh78ij\nxx x0x0x0x0x0x0x0x0x0x0\nshort\nzz 0123456789abcdefX\n"
    second = text.index("\nshort") + 1
    assert long_word_lines(text, 16, _digit) == [(6, second), (text.index("zz"), len(text))]
    # the later word is a piece of the earlier one: found after it, on its own line
    assert long_word_lines("a0a0a0a0a0a0a0a0a0a0 b\nc a0a0a0a0a0a0a0a0", 16, _digit) == [(0, 41)]
    assert long_word_lines("no long words here\nnone\n", 16, _digit) == []


@pytest.mark.parametrize("seed", range(40))
def test_a_rule_read_in_spans_changes_what_its_pattern_changes_in_the_whole_text(seed):
    """apply_in_spans of a rule whose matches need a long word with a digit gives what re.sub gives on the whole
    text, with lookbehinds and lookaheads at the spans' edges, and the same counts."""
    RNG.seed(seed)
    text = made_text(RNG.randrange(1, 60))
    pattern = re.compile(r"(?<![\w.])[A-Za-z0-9_\-.]{15}[A-Za-z0-9]+(?![\w/])")

    def check(value: str, match: re.Match[str]) -> bool:
        assert match.string is text  # the checks read the whole text around a match
        return _digit(value)

    rule = Rule("t", pattern, check=check, spans=lambda t: long_word_lines(t, 16, _digit))
    counts: Counter[str] = Counter()
    expected = pattern.sub(lambda m: "[REDACTED:t]" if _digit(m.group(0)) else m.group(0), text)
    assert apply_in_spans(rule, text, counts) == expected
    assert counts["t"] == expected.count("[REDACTED:t]")


@untraced
@pytest.mark.parametrize(
    "text",
    [
        " ".join(["a1" * 10] * 40_000),  # one 840 KB line of long words
        "\n".join(["a1" * 10] * 40_000),  # 40,000 lines of one long word
        "x" * 400_000 + " " + "a1" * 10,  # a long word at the end of a long line
    ],
    ids=["one line", "many lines", "late"],
)
def test_finding_the_lines_stays_linear(text):
    start = time.process_time()
    long_word_lines(text, 16, _digit)
    assert time.process_time() - start < 1.0


_WORDS = re.compile(r"(?i)secret|token|pass|pwd|pw|hmac|key|credential|auth|sig|cookie")


@pytest.mark.parametrize(
    "text",
    [
        "plain\nAPI_KEY = x\nother\nmore\nlast",
        "a \u017fecret here\nnext\nfar\nfarther",  # long s: (?i) matches it as `s`
        "\u212aey: value\nnext\nfar\nfarther",  # a Kelvin sign: `k` under (?i), and `k` lowered
        "s\u0131g: x\nnext\nfar\nfarther",  # a dotless i
        "\u0130\u0130\u0130\nfar\nToken=1\nnext\nfar\nfarther",  # lowered, each dotted capital I is two characters
        "caf\u00e9 na\u00efve\nfar\nPassword=1\nnext\nfar",  # outside ASCII, lowered in place: the lowered text is read
    ],
    ids=["ascii", "long s", "kelvin", "dotless i", "dotted I", "accents"],
)
def test_secret_words_are_found_where_a_case_blind_search_finds_them(text):
    """word_lines' spans hold every line where the (?i) pattern finds a secret word, at its place in the text."""
    spans = word_lines(text)
    for m in _WORDS.finditer(text):
        assert any(a <= m.start() and m.end() <= b for a, b in spans), (text, spans, m)
    for a, _ in spans:
        assert a == 0 or text[a - 1] == "\n"
    assert spans  # every text above holds one


def _corpus_texts() -> list[str]:
    from tests.support.secret_corpus import audited, placed_in, shapes, unenumerated

    found = shapes() + audited() + unenumerated()
    return [s.text for s in found] + [placed_in(s) for s in found]


def _spanned_rules() -> list[Rule]:
    from autopilot.redact import bare, generic, material, named, prose, shell, tokens

    rules = named.NAMED + shell.SHELL + prose.PROSE + tokens.TOKENS + generic.GENERIC + material.MATERIAL + bare.BARE
    return [rule for rule in rules if rule.spans is not None]


SPANNED = _spanned_rules()


def test_the_long_token_rules_read_only_their_lines():
    """The rules whose every match is a long word read only the lines that hold one (each is checked below)."""
    kinds = {rule.kind for rule in SPANNED}
    assert {"bare_token", "ethereum_private_key", "azure_devops_pat", "sentry_dsn", "google_refresh_token"} <= kinds


@pytest.mark.parametrize("rule", SPANNED, ids=lambda r: f"{r.kind}-{SPANNED.index(r)}")
def test_every_match_of_a_spanned_rule_lies_in_its_spans(rule):
    """Each match a rule replaces in the whole text (the corpus's texts, and the corpus joined with ordinary lines
    between) lies inside one of the rule's spans of that text: reading only the spans loses none. (A match its check
    keeps may lie outside: the line it is on holds no match the rule replaces, and spans are whole lines.)"""
    texts = _corpus_texts()
    texts.append("\n".join(f"an ordinary line {n}\n{text}" for n, text in enumerate(texts)))
    replace = replacer(rule, Counter())
    found: list[str] = []
    for text in texts:
        spans = rule.spans(text)
        for m in rule.pattern.finditer(text):
            if replace(m) != m.group(0):
                found.append((text[max(0, m.start() - 60) : m.start()], m.group(0)))
                assert any(a <= m.start() and m.end() <= b for a, b in spans), (rule.kind, m.group(0))
    assert found, "the corpus must exercise the rule, or this test proves nothing"
    for before, value in found:  # each withheld match a word of its own, at its shortest, after what preceded it
        text = f"see\n{value}\nand see {value} here\n{before} {value} here"
        spans = rule.spans(text)
        for m in rule.pattern.finditer(text):
            if replace(m) != m.group(0):
                assert any(a <= m.start() and m.end() <= b for a, b in spans), (rule.kind, m.group(0))


@pytest.mark.parametrize(
    "rule", [r for r in SPANNED if isinstance(r.spans, words_of)], ids=lambda r: f"{r.kind}-{SPANNED.index(r)}"
)
def test_a_long_token_rule_reads_words_no_longer_than_its_shortest_match(rule):
    """A rule that reads only lines with a word of N characters never matches fewer than N (its pattern's shortest
    match, as re's own parser measures it, lookarounds aside), and no match holds white space."""
    from re import _parser  # type: ignore[attr-defined]  # re's own parser: the width of what a pattern matches

    assert isinstance(rule.spans, words_of)
    assert rule.spans.size <= _parser.parse(rule.pattern.pattern, rule.pattern.flags).getwidth()[0]
    assert not any(c in rule.pattern.pattern for c in (r"\s", " ", r"\S", "[^"))
