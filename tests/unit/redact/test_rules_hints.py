"""redact/rules.py: a rule list's hints asked once each (Hints, apply_hinted) make what apply_all makes."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from autopilot.redact import bare, generic, material, named, prose, shell, tokens
from autopilot.redact.rules import Hints, Rule, apply_all, apply_hinted
from tests.support.secret_corpus import audited, placed_in, redteamed, shapes, unenumerated

NAMED = named.NAMED + shell.SHELL + prose.PROSE
LISTS = {
    "shapes": material.MATERIAL + tokens.TOKENS,
    "named, not local": [rule for rule in NAMED if not rule.local],
    "generic": generic.GENERIC + bare.BARE,
}


def corpus_texts() -> list[str]:
    found = shapes() + audited() + unenumerated() + redteamed()
    ordinary = ["/home/dev/work/src/autopilot/loop/control_new.py", "ok", "", "Done.", "pytest -q tests/unit -k key"]
    return [s.text for s in found] + [placed_in(s) for s in found] + ordinary


@pytest.mark.parametrize("name", LISTS)
def test_the_hinted_rules_make_what_every_rule_asked_in_turn_makes(name):
    """Over the secret corpus, alone and placed in a file, apply_hinted gives apply_all's text and counts."""
    rules = LISTS[name]
    hints = Hints(rules)
    differ = []
    for text in corpus_texts():
        lowered = text.lower()
        want_counts: Counter[str] = Counter()
        want = apply_all(rules, text, lowered, want_counts)
        got_counts: Counter[str] = Counter()
        if (apply_hinted(hints, text, lowered, got_counts), got_counts) != (want, want_counts):
            differ.append(text[:60])
    assert differ == []


def test_a_hint_a_rule_writes_lets_the_later_rules_be_asked():
    """A rule whose hint only an earlier rule's placeholder brings is still asked, as apply_all asks it."""
    first = Rule("alpha_kind", re.compile(r"foo\w+"))  # no hints: always asked
    second = Rule("beta", re.compile(r"alpha_kind"), hints=("alpha_",))  # its hint is in the first's placeholder
    rules = [first, second]
    text = "x foobar y"
    want = apply_all(rules, text, text.lower(), Counter())
    assert want == "x [REDACTED:[REDACTED:beta]] y"
    assert apply_hinted(Hints(rules), text, text.lower(), Counter()) == want


def test_rules_are_asked_in_their_order():
    """The hinted rules run in the list's order, whatever the order their hints are found in."""
    rules = [
        Rule("one", re.compile(r"ab"), hints=("b",)),
        Rule("two", re.compile(r"abc"), hints=("a",)),
    ]
    text = "abc"
    assert (
        apply_hinted(Hints(rules), text, text, Counter())
        == apply_all(rules, text, text, Counter())
        == ("[REDACTED:one]c")
    )
