"""The literal gates that spare the redactor compiling patterns a text cannot match, checked against the patterns.

A rule's ``needs`` and the key-body shortcut for one-line texts only decide whether a pattern runs (and so is
compiled): they must never skip a text the pattern would change. Each gate is checked here against its own
pattern, on the secret corpus and on generated texts; and a prompt that ends with an API key, the memory hook's
costly case, is redacted in a fresh interpreter compiling only the few patterns it needs.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
import subprocess
import sys
import time
from collections import Counter

import pytest

from autopilot.redact import bare, generic, keys, material, named, prose, redact, shell, tokens
from autopilot.redact.rules import (
    Hints,
    Rule,
    apply_all,
    apply_hinted,
    apply_in_spans,
    holds_needs,
    long_word_lines,
    replacer,
    word_lines,
    words_of,
)
from tests.support.measured import untraced
from tests.support.secret_corpus import (
    audited,
    der_ec,
    der_encrypted,
    der_pkcs8,
    der_rsa,
    placed_in,
    redteamed,
    shapes,
    unenumerated,
)

RULES = named.NAMED + shell.SHELL + tokens.TOKENS + generic.GENERIC + material.MATERIAL
GATED = [r for r in RULES if r.needs or r.gate]


def _corpus_texts() -> list[str]:
    found = shapes() + audited() + unenumerated()
    return [s.text for s in found] + [placed_in(s) for s in found]


@pytest.mark.parametrize("rule", GATED, ids=lambda r: f"{r.kind}-{GATED.index(r)}")
def test_every_match_of_a_gated_rule_passes_its_gates(rule):
    """Each match a gated rule's pattern finds in the corpus holds a literal of every group of its needs, and passes
    its gate (a span holding the match passes it too)."""
    matches = [m.group(0) for text in _corpus_texts() for m in rule.pattern.finditer(text)]
    assert matches, "the corpus must exercise the rule, or this test proves nothing"
    assert [m for m in matches if not holds_needs(rule.needs, m)] == []
    assert [m for m in matches if rule.gate is not None and not rule.gate(m)] == []


def test_the_block_gate_tells_a_key_that_opens_a_block():
    """A key with nothing, a comment or a block indicator after its colon, and a line after, may open a block."""
    assert all(named.opens_a_block(t) for t in ("password:\n", "token:  # x\n", "key: |-\n", "pw:\t>\r\n"))
    opens_none = ("password: hunter2\n", "no colon here", "[REDACTED:github_token]\n", "count: 4\nOutput:")
    assert not any(named.opens_a_block(t) for t in opens_none)


def test_the_assignment_gate_skips_only_values_already_withheld():
    """An `=` before a value may assign a secret; one before a placeholder (quoted or spaced) no longer can."""
    assert all(named.assigns_a_value(t) for t in ("A=b", "X=[REDACTED:k] Y= 'v'", "T=\n  v", 'K="[x]"'))
    withheld = ("OPENAI_API_KEY=[REDACTED:openai_api_key]\n", 'T = "[REDACTED:jwt]"', "no sign", "a=\n[REDACTED:k]")
    assert not any(named.assigns_a_value(t) for t in withheld)


def test_the_env_gate_needs_an_upper_case_secret_name_before_the_sign():
    """`GITHUB_TOKEN = v` and `DB_PASSWORD=v` may be env lines; `verdict=done` and a withheld value are not."""
    assert all(named.env_assignment(t) for t in ("GITHUB_TOKEN = v", "export DB_PASSWORD=v", "X_PW=\n 'v'"))
    assert not any(named.env_assignment(t) for t in ("verdict=done", "API_KEY=[REDACTED:k]", "Token=x", "KEYS"))


def test_a_placeholder_colon_does_not_open_a_gate():
    """A text whose only colon is a placeholder's lacks ':' for the gates; one with another colon has it."""
    assert not holds_needs(((":",),), "the api key [REDACTED:openai_api_key]")
    assert holds_needs(((":",),), "key: [REDACTED:openai_api_key]")


def _one_line_texts(rng: random.Random) -> list[str]:
    """One-line texts ending in base64: key openings of every kind, cut anywhere, with junk after and before."""
    heads = [base64.b64encode(der()).decode() for der in (der_rsa, der_pkcs8, der_ec, der_encrypted)]
    heads += [base64.b64encode(b"openssh-key-v1\0" + bytes(40)).decode(), base64.b64encode(bytes(range(60))).decode()]
    heads += ["Ab3Cd4Ef5" * 5, "M" * 30, "bUL+/" * 9]
    before = ["", "deploy with the api key ", "signing: ", '"', "x = '", "12→", "+ ", "# ", "sk-proj-"]
    after = ["", "=", "==", '"', "' +", " ,", "  ", "\r", "+", "&", ". "]
    texts = []
    for _ in range(600):
        head = rng.choice(heads)
        cut = head[: rng.randint(8, len(head))]
        filler = "Zq9" * rng.randint(0, 20)  # sometimes a 40-character run elsewhere, so key_bodies looks further
        texts.append(rng.choice(before) + filler + " " + rng.choice(before) + cut + rng.choice(after))
    return texts


def test_the_one_line_shortcut_withholds_what_the_body_line_pattern_does(monkeypatch):
    """On one-line texts, key_bodies with the shortcut returns what it returns with the body-line pattern always run."""
    texts = _one_line_texts(random.Random(25))
    shortcut = [keys.key_bodies(t, Counter()) for t in texts]
    monkeypatch.setattr(keys, "_body_may_count", lambda text: True)
    always = [keys.key_bodies(t, Counter()) for t in texts]
    assert shortcut == always
    assert any("[REDACTED:private_key]" in out for out in always), "some texts must hold a key, or this proves nothing"


def test_a_one_line_der_key_at_the_end_is_still_withheld():
    """A short DER private key opening quoted at the end of a one-line text, after a long base64 run, is withheld."""
    der = base64.b64encode(der_pkcs8()).decode()[:24]
    out, counts = redact(f"run {'Zq9' * 15} then '{der}'")
    assert der not in out and counts["private_key"] == 1


COUNT_COMPILED = r"""
import json, sys
from autopilot import patterns
from autopilot.redact import redact, generic, keys, material, named, rules, shell, tokens, files
out, counts = redact(sys.argv[1])
compiled = [
    name for module in (generic, keys, material, named, rules, shell, tokens, files)
    for name, value in vars(module).items() if isinstance(value, patterns._Lazy) and "_compiled" in value.__dict__
]
compiled += [
    rule.kind for module in (generic, material, named, shell, tokens) for rule in vars(module).get(
        {"generic": "GENERIC", "material": "MATERIAL", "named": "NAMED", "shell": "SHELL", "tokens": "TOKENS"}[
            module.__name__.rsplit(".", 1)[1]], []) if "_compiled" in rule.pattern.__dict__
]
print(json.dumps({"out": out, "compiled": compiled}))
"""


def test_a_prompt_ending_in_an_api_key_compiles_few_patterns():
    """The memory hook's credential prompt is redacted in a fresh interpreter compiling at most 5 of ~170 patterns."""
    prompt = "deploy with the api key sk-proj-" + "Ab3Cd4Ef5" * 5
    proc = subprocess.run([sys.executable, "-c", COUNT_COMPILED, prompt], capture_output=True, text=True, check=True)
    answer = json.loads(proc.stdout)
    assert answer["out"] == "deploy with the api key [REDACTED:openai_api_key]"
    assert "openai_api_key" in answer["compiled"]
    # among them the older Azure DevOps PAT's (52 characters of base32, no prefix): no literal to gate it on
    assert len(answer["compiled"]) <= 5, answer["compiled"]


def test_the_name_and_value_gates_skip_what_their_rules_cannot_change():
    """A secret name before a withheld value or before code opens no gate; one before a value, in any case, does."""
    line = "printf 'APPROVED by reviewer: verdict=done\\nOPENAI_API_KEY=[REDACTED:openai_api_key]\\n'"
    gates = (named.config_assignment, named.inline_assignment, named.quoted_assignment, named.key_assignment)
    assert not any(gate(line) for gate in (*gates, named.header_assignment))
    assert named.config_assignment("db_password: hunter2x") and named.inline_assignment("?Token=abcd1234")
    assert named.quoted_assignment('"apiKey" => "s3cr3t-v4lue"') and named.key_assignment("TLS_KEY: MIIEvQIBADAN")
    assert named.header_assignment("X-Api-Key: 9f8e7d6c5b4a")


def test_a_name_outside_ascii_always_opens_the_gates(monkeypatch):
    """`ſecret` and `Key` with a Kelvin sign match a case-insensitive pattern as `secret` and `key` do: texts with such
    names are redacted as they are with every gate removed."""
    assert named.inline_assignment("\u017fecret=hunter2x") and named.config_assignment("\u212aEY: abcdefgh")
    texts = [
        "\u017fecret=hunter2x now",
        "\u212aey: ZmFrZWtleWZha2VrZXlmYWtla2V5ZmFrZWtleQ==",
        '"\u017fecret": "s3cr3tv4l"',
    ]
    gated = [redact(t)[0] for t in texts]
    assert all("[REDACTED:" in out for out in gated)
    for rule in RULES:
        monkeypatch.setattr(rule, "gate", None)
        monkeypatch.setattr(rule, "needs", ())
    assert gated == [redact(t)[0] for t in texts]


def test_line_anchored_gates_need_a_name_where_a_line_may_open_with_it():
    """`printf 'GITHUB_TOKEN=…'` opens no line-anchored rule; a name after a line number, a grep prefix, a diff marker,
    `export` or a hunk header does."""
    inside = "printf 'GITHUB_TOKEN=ghp_%s\\n' 0123456789abcdef"
    assert not named.env_assignment(inside) and not named.config_assignment(inside)
    for opening in ("    12→", "src/app.py:12:", "+", "export ", "@@ -1,2 +1,2 @@ x('", "- ", "\t"):
        line = f"{opening}GITHUB_TOKEN=abcdef123456"
        assert named.env_assignment(line) and named.config_assignment(line), opening
    assert named.env_assignment("first line\nAPI_KEY=abcdef123456")


@pytest.mark.parametrize("kind", ["github_token", "asana_token"])
def test_a_token_rules_hints_are_the_openings_of_its_matches(kind):
    """The GitHub and Asana token rules' hints are literals each match opens with (`ghp_`…, `1/`, `2/`), not `gh`
    or `/`, which nearly every page holds: every corpus match holds one."""
    (rule,) = [r for r in tokens.TOKENS if r.kind == kind]
    matches = [m.group(0) for text in _corpus_texts() for m in rule.pattern.finditer(text)]
    assert matches and all(any(m.startswith(h) for h in rule.hints) for m in matches)


def test_the_separator_run_gate_wants_the_whole_run_after_a_separator():
    """A token found from its separator needs that many ASCII letters and digits right after it (a digit first for
    ngrok's secret half); a shorter run, a run elsewhere or a run of other characters opens no gate."""
    from autopilot.redact.rules import alnum_run_after

    assert alnum_run_after("acme_" + "Ab1" * 6, "_-", 16) and alnum_run_after("x-" + "a" * 16 + "!", "_-", 16)
    assert not alnum_run_after("acme_" + "Ab1" * 5, "_-", 16) and not alnum_run_after("A" * 40, "_-", 16)
    assert not alnum_run_after("_" + "é" * 16, "_-", 16)
    assert alnum_run_after("id_" + "7" + "a" * 20, "_", 21, digit_first=True)
    assert not alnum_run_after("id_" + "a" * 21, "_", 21, digit_first=True)


# -- where a long text's rules look: only the lines a match can lie in, and the secret words in lowered text --------
#
# ``long_word_lines`` picks the lines that hold a long word, and ``apply_in_spans`` runs a rule's pattern on those
# alone; ``word_lines`` finds the secret words in the lowered text when that is exact. Each is checked against what
# the pattern does on the whole text (``re``'s own ``sub`` and ``(?i)`` search), on made texts that put matches at the
# text's ends, on adjacent lines, inside longer words and after characters that change under ``lower()``.

SPAN_RNG = random.Random(3536)
_DIGIT_WORD = re.compile(r"\S{16,}")


def _digit(word: str) -> bool:
    return any(c.isdigit() for c in word)


def made_text(lines: int) -> str:
    """Lines of short words, some with a long word (with or without a digit), some empty, some white space only."""
    out = []
    for _ in range(lines):
        words = []
        for _ in range(SPAN_RNG.randrange(0, 6)):
            size = SPAN_RNG.choice([3, 5, 15, 16, 17, 30])
            words.append("".join(SPAN_RNG.choice(string.ascii_letters + "0123456789_-./+") for _ in range(size)))
        out.append(SPAN_RNG.choice([" ", "\t", "  "]).join(words))
    return "\n".join(out) + SPAN_RNG.choice(["", "\n"])


@pytest.mark.parametrize("seed", range(40))
def test_every_long_word_with_a_digit_lies_in_a_span_of_whole_lines(seed):
    """Each word of 16+ characters with a digit lies inside a span; each span is whole lines (it starts a line and
    ends after a line break or at the text's end); spans are ordered and apart; no span holds no such word."""
    SPAN_RNG.seed(seed)
    text = made_text(SPAN_RNG.randrange(1, 60))
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
    SPAN_RNG.seed(seed)
    text = made_text(SPAN_RNG.randrange(1, 60))
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


# ---- a rule list's hints asked once each (Hints, apply_hinted) make what apply_all makes ----

NAMED_ALL = named.NAMED + shell.SHELL + prose.PROSE
HINT_LISTS = {
    "shapes": material.MATERIAL + tokens.TOKENS,
    "named, not local": [rule for rule in NAMED_ALL if not rule.local],
    "generic": generic.GENERIC + bare.BARE,
}


def hint_corpus_texts() -> list[str]:
    found = shapes() + audited() + unenumerated() + redteamed()
    ordinary = ["/home/dev/work/src/autopilot/loop/control_new.py", "ok", "", "Done.", "pytest -q tests/unit -k key"]
    return [s.text for s in found] + [placed_in(s) for s in found] + ordinary


@pytest.mark.parametrize("name", HINT_LISTS)
def test_the_hinted_rules_make_what_every_rule_asked_in_turn_makes(name):
    """Over the secret corpus, alone and placed in a file, apply_hinted gives apply_all's text and counts."""
    rules = HINT_LISTS[name]
    hints = Hints(rules)
    differ = []
    for text in hint_corpus_texts():
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
