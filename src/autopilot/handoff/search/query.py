"""A search query: its words, paths and symbols, or a clear refusal; nothing a user types reaches FTS5 as syntax.

The query is "error text, a path or a symbol". Its words are quoted one by one before they
reach SQLite, so ``"``, ``*``, ``NEAR(``, ``AND`` and the like are only text. Two parts of a
query are taken whole: a path (its words count only where the path is, ``src/a.py`` is not
``src`` and ``a`` anywhere) and a quoted value (``KeyError: 'JPY'``: a result holds ``JPY``). Refused, with a
hint (exit 1): an empty query, and one with no word in it (only punctuation or search
syntax). Searched, with a note: a query holding bytes that are not UTF-8 (they are left
out), words longer than 64 characters (left out), and more than 24 words (the first 24 are
searched: a pasted 100 KB log is fine).
"""

from __future__ import annotations

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.handoff.search import terms
from autopilot.patterns import lazy
from autopilot.text import clip

MAX_WORDS = 24
MAX_WORD_CHARS = 64
SHOWN_CHARS = 200  # how much of the query an answer echoes
EXAMPLE = 'codex-bridge handoff search "parse_header"'


# A quoted value ('JPY', "dry run"): the quote opens after no letter or digit and closes before none, so
# the apostrophes of can't, doesn't or banker's open nothing.
QUOTED = lazy(r"(?<![\w'\"])(['\"])([^'\"\n]{1,80})\1(?![\w])")


class Query:
    """What a query asks for (a plain class: a NamedTuple would import typing, ~2 ms of every search)."""

    __slots__ = (
        "text", "words", "paths", "symbols", "notes", "required", "loose", "distinct", "related", "phrase", "terms",
    )  # fmt: skip

    def __init__(
        self,
        text: str,
        words: list[str],
        paths: list[str],
        symbols: list[str],
        notes: list[str],
        required: list[str] | None = None,
        loose: list[str] | None = None,
        distinct: list[str] | None = None,
        related: str | None = None,
    ) -> None:
        self.text = text  # the query as searched (valid UTF-8), cut for echoing
        self.words = words
        self.paths = paths
        self.symbols = symbols
        self.notes = notes
        self.required = required or []  # words of quoted values: a result holds every one
        self.loose = words if loose is None else loose  # the words that are not only part of a path
        self.distinct = distinct or []  # words of numbers, codes, acronyms and identifiers: what made it specific
        self.related = related  # quoted values and what relates them ('EUR' == 'USD'), as terms.flat makes it
        # the whole query as terms.flat makes it, when it is one line of several words: a result holding it as
        # written ranks first
        self.phrase = terms.flat(text) if len(words) > 1 and "\n" not in text.strip() else None
        self.terms: dict[str, str] = {}  # each word's index term (terms.term: a stem, or an identifier whole)


def parse(raw: str) -> Query:
    """The words, paths and symbols of a query, with notes on what was left out; BridgeError when nothing is left."""
    notes: list[str] = []
    text = raw
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # argv bytes that are not UTF-8 arrive as lone surrogates
        data = raw.encode("utf-8", "surrogateescape")
        text = data.decode("utf-8", "replace")
        bad = text.count("\ufffd") - raw.count("\ufffd")
        text = text.replace("\ufffd", " ")
        notes.append(f"the query held {bad} byte(s) that are not UTF-8; they were left out")
    if not text.strip():
        if notes:
            raise BridgeError(
                "the search query is not UTF-8 text (it holds only bytes that are not)",
                hint=f"pass the query as UTF-8 text: {EXAMPLE}",
            )
        raise BridgeError("the search query is empty", hint=f"give an error message, a path or a symbol: {EXAMPLE}")
    words = terms.words(text)
    long = [w for w in words if len(w) > MAX_WORD_CHARS]
    if long:
        words = [w for w in words if len(w) <= MAX_WORD_CHARS]
        notes.append(f"{len(long)} word(s) longer than {MAX_WORD_CHARS} characters were left out")
    if not words:
        why = (
            f"its only words are longer than {MAX_WORD_CHARS} characters"
            if long
            else "it is only punctuation or search syntax"
        )
        raise BridgeError(
            f"the search query {_shown(text, 60)!r} has no words to search for: {why}",
            hint=f"search for words of an error message, a path or a symbol: {EXAMPLE}",
        )
    if len(words) > MAX_WORDS:
        notes.append(f"the query has {len(words)} different words; the first {MAX_WORDS} are searched")
        words = words[:MAX_WORDS]
    head = text[:20_000]  # paths and symbols come from the beginning of a pasted log
    symbols = terms.symbols(head, 16)
    bare = text.strip()
    if not symbols and terms.IDENT.fullmatch(bare) and bare.lower() not in terms.STOPWORDS:
        symbols = [bare]  # a single word may well be a symbol
    paths = terms.paths(head, 8)
    outside = head
    for path in paths:
        outside = outside.replace(path, " ")
    loose = set(terms.words(outside))
    quoted = list(QUOTED.finditer(head))
    required = [w for m in quoted for w in terms.words(m.group(2))]
    required = list(dict.fromkeys(w for w in required if w in words and w not in terms.STOPWORDS))
    related = None
    if len(quoted) >= 2 and "\n" not in text.strip():  # one pasted line relating two values: matched as written
        related = terms.flat(head[quoted[0].start() : quoted[-1].end()])
    distinct = [w for w in terms.distinctive(head) if w in words]
    loose_words = [w for w in words if w in loose]
    q = Query(_shown(text), words, paths, symbols, notes, required, loose_words, distinct, related)
    wanted = set(words)
    for token in terms.WORD.findall(text):  # case kept: an identifier is matched whole, a plain word by its stem
        word = terms.fold(token)
        if word in wanted and word not in q.terms and word not in terms.STOPWORDS:
            q.terms[word] = terms.term(token)
    return q


def _shown(text: str, limit: int = SHOWN_CHARS) -> str:
    text = " ".join(text.split())
    return clip(text, limit)


def since(value: str | None) -> float | None:
    """Seconds since the epoch of ``--since`` (a date, or a date and time; UTC unless it says)."""
    if value is None:
        return None
    try:
        when = clock.parse(value)
    except ValueError:
        raise BridgeError(
            f"--since {value!r} is not a date",
            hint="give a date or a date and time: --since 2026-11-30 or --since 2026-11-30T14:00",
        ) from None
    if when.tzinfo is None:
        from datetime import timezone  # noqa: PLC0415 - only a search --since needs it (clock.parse loaded it)

        when = when.replace(tzinfo=timezone.utc)
    return when.timestamp()
