"""The rule type and how rules apply: typed placeholders, the checks that keep ordinary text, line spans.

Each ``Rule`` names its kind (the placeholder's ``[REDACTED:<kind>]``), the group it replaces,
an optional check on the value, and cheap literal hints that let a text without them skip it.
Rules that pair a name with a value (``password=…``) are ``local``: they run only on the lines
that hold a secret word (``word_lines``), which keeps long texts cheap. Every pattern is linear:
names are taken atomically (``whole_name``), quantifiers inside a line are bounded. The rules
themselves are in :mod:`.tokens` (known by their shape), :mod:`.named` (known by their name)
and :mod:`.shell` (known by the command line that passes them).
"""

from __future__ import annotations

from autopilot.patterns import lazy
from autopilot.redact import PLACEHOLDER, Counts

# A value that only names a secret (``$TOKEN``, ``${{ secrets.X }}``, ``<your-key>``,
# an earlier placeholder) is not itself a secret.
_REFERENCE = lazy(r"^(\$|\{\{|<|\[REDACTED:|%\(|process\.env|os\.environ)")
# Values that stand in for a secret in docs, schemas and templates, not secrets themselves.
_STAND_INS = frozenset(
    {"string", "number", "integer", "boolean", "object", "null", "none", "true", "false", "required", "optional"}
    | {"password", "secret", "example", "redacted", "hidden", "masked", "undefined", "changeme", "placeholder"}
)


def whole_name(chars: str, words: str, group: int = 2) -> str:
    """A whole name made of ``chars`` that contains one of ``words``, matched without backtracking.

    ``(?=(X+))\\2`` is an atomic group that works on every Python: once the name is taken it is
    never given back, so a long run of name characters costs one scan, not one per position.
    The name is group ``group``: 2 inside the pattern's first group with no group before it.
    """
    return rf"(?={chars}*?(?:{words}))(?=({chars}+))\{group}"


# What may come before a `NAME=value` line's name, so line-anchored patterns still see the line:
# git's hunk header (`@@ -5,4 +5,4 @@ export TOKEN=…`, the nearest line above the hunk), Claude
# Code's Read (`    12→`), `cat -n`, `grep -n` and `grep -rn` prefixes, then a diff marker,
# indentation and a YAML list dash. Each part is bounded, so a line costs one short scan.
LINE_NUMBER = r"[ \t]*\d{1,7}(?:→|\t|:|-)"
GREP_PREFIX = r"[\w./\-]{1,200}(?::\d{1,7}:|-\d{1,7}-|:)"
NUMBERED = rf"(?:{LINE_NUMBER}[ \t]?|{GREP_PREFIX})?"
HUNK = r"(?:@@@? [^@\n]{1,100} @@@?[ \t]?)?"
LINE_START = r"^" + HUNK + NUMBERED + r"[+\- ]?[ \t]*(?:-[ \t]+)?"


_MASK = frozenset("*•xX#/-.: ")


def stand_in(value: str) -> bool:
    """Whether ``value`` is a documentation stand-in (``string``, ``****``, ``****/**/**``) rather than a secret."""
    return value.lower() in _STAND_INS or len(set(value)) == 1 or (set(value) <= _MASK and "*" in value)


def mixed_case(value: str) -> bool:
    return any(map(str.isupper, value)) and any(map(str.islower, value)) and any(map(str.isdigit, value))


TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

    Check = Callable[[str, re.Match[str]], bool]


class Rule:
    """One credential pattern: what it is, the group it replaces (0: all), a check, and cheap hints.

    The rule is skipped when none of ``hints`` is in the text and none of ``lower`` is in the
    lowered text (a rule without hints always runs). A ``local`` rule runs only on the lines
    that hold a secret word and the line after each, which spares long texts most of its cost.
    ``needs`` are literals every match holds, in groups: the rule is also skipped on a text (for a
    local rule, a span of lines) missing every literal of one group, so its pattern, ~1-2 ms to
    compile for the longest, is not compiled for texts it cannot match (a prompt with a key in it).
    ``gate`` is a check of the same kind too subtle for literals: False only for a text (for a local rule, a span)
    no match can lie in. ``spans`` narrows further: the spans of whole lines every match lies in (none: the rule is
    skipped), which the pattern alone then reads, so a long text's other lines cost it nothing.
    A plain class: a NamedTuple would import ``typing`` (~3 ms) into every process that redacts.
    """

    __slots__ = ("kind", "pattern", "group", "check", "hints", "lower", "local", "needs", "gate", "spans")

    def __init__(
        self,
        kind: str,
        pattern: re.Pattern[str],
        group: int = 0,
        check: Check | None = None,
        hints: tuple[str, ...] = (),
        lower: tuple[str, ...] = (),
        local: bool = False,  # a name-and-value rule: only lines with a secret word (_WORD) can match
        needs: tuple[tuple[str, ...], ...] = (),
        gate: Callable[[str], bool] | None = None,
        spans: Callable[[str], list[tuple[int, int]]] | None = None,
    ) -> None:
        self.kind, self.pattern, self.group, self.check = kind, pattern, group, check
        self.hints, self.lower, self.local, self.needs, self.gate = hints, lower, local, needs, gate
        self.spans = spans

    def __repr__(self) -> str:
        return f"Rule({self.kind!r})"


def replacer(rule: Rule, counts: Counts) -> Callable[[re.Match[str]], str]:
    kind, group, check = rule.kind, rule.group, rule.check

    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if (group and _REFERENCE.match(value)) or (check is not None and not check(value, match)):
            return match.group(0)
        counts[kind] += 1
        placeholder = PLACEHOLDER.format(kind=kind)
        if not group:
            return placeholder
        start, end = match.span(group)
        offset = match.start(0)
        whole = match.group(0)
        return whole[: start - offset] + placeholder + whole[end - offset :]

    return replace


def hinted(rule: Rule, text: str, lowered: str) -> bool:
    """Whether ``rule`` may match ``text``: it has no hints, or one of them is there (loops, not any() over
    generators: every string a page or a diff holds asks this of ~130 rules, and this is a third of the time)."""
    hints, lower = rule.hints, rule.lower
    if not hints and not lower:
        return True
    for hint in hints:
        if hint in text:
            return True
    for hint in lower:  # noqa: SIM110 - a loop: any() over a generator costs three times as much here
        if hint in lowered:
            return True
    return False


_PLACEHOLDER_HEAD = PLACEHOLDER.split("{", 1)[0]  # "[REDACTED:": each placeholder holds one colon, there


def holds_needs(needs: tuple[tuple[str, ...], ...], text: str) -> bool:
    """Whether ``text`` holds a literal of every group of a rule's ``needs`` (any text, when it has none).

    A placeholder's colon does not count: the name before it (``REDACTED``) is no secret's name, so no rule's
    separator is ever that colon, and a text whose token a rule already withheld need not compile the others.
    """
    for group in needs:
        for literal in group:
            if literal in text and (literal != ":" or text.count(":") > text.count(_PLACEHOLDER_HEAD)):
                break
        else:
            return False
    return True


def apply(rule: Rule, text: str, lowered: str, counts: Counts) -> str:
    if not hinted(rule, text, lowered) or (rule.needs and not holds_needs(rule.needs, text)):
        return text
    if rule.gate is not None and not rule.gate(text):
        return text
    if rule.spans is not None:
        return apply_in_spans(rule, text, counts)
    return rule.pattern.sub(replacer(rule, counts), text)


def apply_all(rules: list[Rule], text: str, lowered: str, counts: Counts) -> str:
    """:func:`apply` of each rule in turn, its hint checks written out in one loop: a page redacts hundreds of short
    strings, each asking ~130 rules, and two calls per rule were most of that time."""
    for rule in rules:
        hints, lower = rule.hints, rule.lower
        if hints or lower:
            for hint in hints:
                if hint in text:
                    break
            else:
                for hint in lower:
                    if hint in lowered:
                        break
                else:
                    continue
        if rule.needs and not holds_needs(rule.needs, text):
            continue
        if rule.gate is not None and not rule.gate(text):
            continue
        if rule.spans is not None:
            text = apply_in_spans(rule, text, counts)
            continue
        text = rule.pattern.sub(replacer(rule, counts), text)
    return text


class Hints:
    """A rule list's hints, each distinct one asked once of a text: which rules :func:`apply_all` would not skip.

    A page redacts hundreds of strings, and asking each of ~150 rules its own hints in turn was a quarter of it;
    most hints are shared (``=``, ``:``, ``key``) or absent from a text."""

    def __init__(self, rules: list[Rule]) -> None:
        self.rules = rules
        case: dict[str, list[int]] = {}
        lower: dict[str, list[int]] = {}
        self.always = frozenset(i for i, rule in enumerate(rules) if not rule.hints and not rule.lower)
        for i, rule in enumerate(rules):
            for hint in rule.hints:
                case.setdefault(hint, []).append(i)
            for hint in rule.lower:
                lower.setdefault(hint, []).append(i)
        self.case = [(hint, frozenset(ids)) for hint, ids in case.items()]
        self.lower = [(hint, frozenset(ids)) for hint, ids in lower.items()]

    def hinted(self, text: str, lowered: str) -> list[int]:
        """The positions, in order, of the rules with no hints or with one in ``text`` (lower ones in ``lowered``)."""
        found = set(self.always)
        for hint, ids in self.case:
            if hint in text:
                found |= ids
        for hint, ids in self.lower:
            if hint in lowered:
                found |= ids
        return sorted(found)


def apply_hinted(hints: Hints, text: str, lowered: str, counts: Counts) -> str:
    """:func:`apply_all` of ``hints.rules``, the same text made: the rules whose hints ``text`` lacks are skipped
    unasked until one changes it; from there on the rest are asked of the text as it is, as apply_all does."""
    rules = hints.rules
    for i in hints.hinted(text, lowered):
        rule = rules[i]
        if rule.needs and not holds_needs(rule.needs, text):
            continue
        if rule.gate is not None and not rule.gate(text):
            continue
        if rule.spans is not None:
            made = apply_in_spans(rule, text, counts)
        else:
            made = rule.pattern.sub(replacer(rule, counts), text)
        if made is not text:  # a rule changed it (or rebuilt it): a hint absent before may be there now
            return apply_all(rules[i + 1 :], made, lowered, counts)
    return text


def alnum_run_after(text: str, seps: str, size: int, *, digit_first: bool = False) -> bool:
    """Whether one of ``seps`` in ``text`` is followed by ``size`` ASCII letters and digits (the first a digit when
    ``digit_first``): the gate of a token rule found from its separator, checked without its own pattern.

    One small pattern per gate, searched in C: a loop over each separator in Python was a third of a Codex page's
    redaction (tool output holds thousands of ``_`` and ``-``), and a kept program (``patterns``) costs no compile.
    """
    key = (seps, size, digit_first)
    gate = _RUN_GATES.get(key)
    if gate is None:
        body = f"[0-9][A-Za-z0-9]{{{size - 1}}}" if digit_first else f"[A-Za-z0-9]{{{size}}}"
        gate = _RUN_GATES[key] = lazy("[" + "".join("\\" + sep for sep in seps) + "]" + body)
    return gate.search(text) is not None


_RUN_GATES: dict[tuple[str, int, bool], re.Pattern[str]] = {}


def apply_in_spans(rule: Rule, text: str, counts: Counts) -> str:
    """``rule.pattern.sub`` of ``text``, its pattern reading only ``rule.spans(text)``: whole lines with their line
    breaks, so what its lookarounds read at a span's edges (the line breaks around it) is what they read in the whole
    text, and so are its matches and the checks' (``match.string`` is the whole text). A rule's matches and
    lookaheads must not cross a line break for this."""
    assert rule.spans is not None
    spans = rule.spans(text)
    if not spans:
        return text
    replace = replacer(rule, counts)
    finditer = rule.pattern.finditer
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        for match in finditer(text, start, end):
            parts += [text[pos : match.start()], replace(match)]
            pos = match.end()
    return "".join(parts) + text[pos:] if parts else text


def long_word_lines(text: str, size: int, holds: Callable[[str], bool] | None = None) -> list[tuple[int, int]]:
    """The spans of the lines (with their line breaks; adjacent lines merged) that hold a word (a run without white
    space) of ``size`` characters or more for which ``holds`` is true (any, without it): every match of a pattern
    for such a run lies in one. ``holds`` must be true of any word that holds such a word: each word is found after
    the one before it by ``str.find``, which finds it first inside a word that holds it (taken already, then)."""
    spans: list[tuple[int, int]] = []
    pos = taken = 0  # taken: where the last span ends (a word before it is on a line taken already)
    for word in [word for word in text.split() if len(word) >= size]:
        if holds is not None and not holds(word):
            continue
        at = text.find(word, pos)
        pos = at + len(word)
        if at < taken:
            continue
        start = text.rfind("\n", taken, at) + 1 or taken
        end = text.find("\n", pos) + 1 or len(text)
        if spans and start == taken:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        taken = end
    return spans


class words_of:  # noqa: N801 - used as a function: ``spans=words_of(40)``
    """The ``spans`` of a rule each of whose matches is a run of ``size`` characters or more without white space (a
    long token's pattern: a long text's other lines cost it nothing, and a prompt without such a word compiles none).
    ``size`` is kept: tests/unit/redact/test_rules_spans.py holds it to the pattern's shortest match."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __call__(self, text: str) -> list[tuple[int, int]]:
        return long_word_lines(text, self.size)


_WORD = lazy(r"(?i)secret|token|pass|pwd|pw|hmac|key|credential|auth|sig|cookie")
# The same words in lowered text: ten times faster than (?i), which tries every branch at every position. Exact where
# lowering keeps each character's place and no character outside ASCII matches an ASCII letter under (?i) (only these
# four do: `ſecret`, a Kelvin sign's `Key`); else the (?i) pattern reads the text itself.
_WORD_LOWERED = lazy(r"secret|token|pass|pwd|pw|hmac|key|credential|auth|sig|cookie")
_FOLDS_TO_ASCII = ("\u0130", "\u0131", "\u017f", "\u212a")


def _word_search(text: str) -> tuple[Callable[[str, int], re.Match[str] | None], str]:
    """How to find the secret words of ``text``: a search and the text it reads (positions are ``text``'s)."""
    lowered = text.lower()
    if text.isascii() or (len(lowered) == len(text) and not any(c in text for c in _FOLDS_TO_ASCII)):
        return _WORD_LOWERED.search, lowered
    return _WORD.search, text


# A line that opens a YAML block: a key with no value, or a block scalar's indicator (`key: |`, `key: >-`).
_OPENS_BLOCK = lazy(r":[ \t]*(?:[|>][+\-]?[1-9]?)?[ \t]*$")
_BLOCK_LINES = 200


def word_lines(text: str) -> list[tuple[int, int]]:
    """The spans of the lines that hold a secret word, each with the line after it, merged.

    A line that opens a YAML block (``password: |``, ``passwords:``) takes the block's lines
    instead (indented or list items, up to 200), so a secret written under the name is seen with it.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    search, words = _word_search(text)
    while (found := search(words, pos)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.end())
        if line_end < 0:
            line_end = len(text)
        end = text.find("\n", line_end + 1)
        end = len(text) if end < 0 or line_end == len(text) else end
        if end < len(text) and _OPENS_BLOCK.search(text, found.end(), line_end):
            end = _block_end(text, end)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
        pos = line_end + 1
    return spans


def _block_end(text: str, end: int) -> int:
    """Where the lines after ``end`` (the end of a block's first line) stop looking like the block's lines."""
    for _ in range(_BLOCK_LINES):
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        line = text[end + 1 : nxt]
        if not line.strip() or line[0] not in " \t-+0123456789":
            break
        end = nxt
        if nxt == len(text):
            break
    return end


def apply_local(rules: list[Rule], text: str, lowered: str, counts: Counts) -> str:
    """``text`` with the ``local`` rules applied to the lines that hold a secret word (and the line after each)."""
    spans = word_lines(text)  # first: most strings hold no secret word, and then no rule is asked
    if not spans:
        return text
    local = [
        (rule.pattern, replacer(rule, counts), rule.needs, rule.gate)
        for rule in rules
        if rule.local and hinted(rule, text, lowered)
    ]
    if not local:
        return text
    parts, pos = [], 0
    for start, end in spans:
        part = text[start:end]
        for pattern, replace, needs, gate in local:
            # a match lies inside the span: the span holds what it holds
            if (not needs or holds_needs(needs, part)) and (gate is None or gate(part)):
                part = pattern.sub(replace, part)
        parts += [text[pos:start], part]
        pos = end
    return "".join(parts) + text[pos:]
