"""Words, paths and symbols of a text: the one tokenizer the evidence index and a query share.

*Words* are what SQLite's FTS5 ``unicode61`` tokenizer makes of a text with ``_`` as a
token character (``parse_header`` is one word), lowercased. *Stopwords* are English function
words (``the``, ``of``, ``what``, ``is``...): a query searches its other words, so a stopword never
brings in a result by itself. *Intent words* (``fixed``; ``passing``, ``status``; ``approach``, ``tried``...) say what
a question asks for, not what it is about: they shape the ranking instead of being searched. *Paths* look like files
(``src/headers.py``, ``headers.py``, ``/abs/path/x.ts``). *Symbols* look like code, not
prose: identifiers with an inner ``_`` or a lower-to-upper case change, names followed by
``(``, names after ``def``/``class``/``function``/``fn``/``func``, and pytest node ids'
last part (``tests/x.py::test_empty``). A query's words are always quoted before they reach
FTS5, so nothing a user types is FTS syntax.

*Terms* are what the index holds and a query looks for (:func:`index_terms`, :func:`term`): a plain word by its
stem (one stemmer, Snowball's English from PyStemmer, for ranking and for "is anything relevant"), an identifier
whole (``parse_header``, ``ratebadge``) and by the stems of its words (``pars``, ``header``; snake, camel, dotted
and path names alike), so exact matches still rank first and "the tax rules tests" finds ``tax_rules``. A
document is also found by the words people say for the errors it holds (:mod:`.vocabulary`).
"""

from __future__ import annotations

import Stemmer  # PyStemmer (~1.5 ms to import): the one stemmer of the index and of every query

from autopilot.patterns import MULTILINE, lazy

TYPE_CHECKING = False  # typing costs ~2 ms to import, and a search loads this module
if TYPE_CHECKING:
    import re
    from typing import Any

TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'"  # keep in step with WORD (terms are folded already)
WORD = lazy(r"\w+")
# A path starts the text or follows a blank, a quote, a bracket, `=`, `:` or `,`; it ends in `.ext`.
PATH = lazy(r"(?<![^\s\"'`(\[{<=:,])(/?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
IDENT = lazy(r"[A-Za-z_$][A-Za-z0-9_$]*")
DEFINITION = lazy(
    r"^[ \t]*(?:export\s+|pub(?:\([^)]*\))?\s+|async\s+|static\s+|public\s+|private\s+)*"
    r"(?:def|class|function|fn|func|interface|struct|enum|trait|impl|module|type|const|let|var)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)",
    MULTILINE,
)
_NODE_ID = lazy(r"::([A-Za-z_]\w*)")
_NAME = lazy(r"(?<![\w$])([A-Za-z_$][\w$]*)(\s*\()?")
MAX_SYMBOLS = 64
MAX_PATHS = 32
# Words that are followed by "(" in prose and error text, not symbols anyone searches for.
_NOT_SYMBOLS = frozenset(
    {"if", "for", "while", "return", "print", "and", "or", "not", "in", "is", "e", "i", "s", "see", "the", "a"}
)


# English function words: they say how a question is asked, not what it is about. Words of code and of
# error text (not, no, error, failed, import, type...) are not among them.
STOPWORDS = frozenset(
    """a about above after again all also am an and any are as at be been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers him his
    how i if in into is it its itself just me more most my myself nor now of off on once only or other our ours out
    over own same she should so some such than that the their theirs them then there these they this those through
    to too under until up very was we were what when where which while who whom why will with would you your yours
    yourself already always anything become came come every get gets getting got ever made make makes many much
    never something still thing things way yet aren couldn didn doesn don hadn hasn haven isn shouldn wasn weren
    won wouldn d ll m re s t ve
    said says went ran happened happens seemed seems kept stayed anymore possibly suddenly somehow somewhere""".split()  # noqa: SIM905 (a list of 150 quoted words reads worse)
)
# Words that say what kind of answer a question wants rather than what it is about: "what fixed X" asks for
# the edit that fixed X; "is X passing" for X's runs and their outcome; "which approach failed" for the runs
# that showed it. They are not searched for.
FIX_WORDS = frozenset("fix fixed fixes fixing solve solved solves resolve resolved repair repaired".split())  # noqa: SIM905
OUTCOME_WORDS = frozenset(
    """pass passes passed passing fail fails failed failing failure green red broken status result results outcome
    works working hold holds held holding""".split()  # noqa: SIM905
)
REASON_WORDS = frozenset({"why"})  # a stopword, but it asks for the agent's reasons: its words, not only the work
APPROACH_WORDS = frozenset(
    """approach approaches attempt attempted attempts abandon abandoned try tried trying drop dropped revert reverted
    give gave given wrong""".split()  # noqa: SIM905
)


_VERSION = lazy(r"v?\d+(?:\.\d+)*[a-z]{0,2}")
_PART = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_STEMMER = Stemmer.Stemmer("english")
_VOCABULARY: list[Any] = []  # the error vocabulary by each key's first word, made on first use (index time only)
_TOKEN_TERMS: dict[str, str] = {}  # a token's terms, remembered across documents (index time)
TOKEN_CACHE = 200_000


def stem(word: str) -> str:
    """``word`` (folded) by its stem: Snowball's English stemmer (PyStemmer), the one the index and queries share."""
    return str(_STEMMER.stemWord(word))


def identifier(token: str) -> bool:
    """Whether a token (case kept) is an identifier to keep whole: an inner ``_``, a case change, letters and digits."""
    if _code_shaped(token):
        return True
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def parts(token: str) -> list[str]:
    """The words of an identifier (snake, camel, digits apart), folded: ``parseHTTPHeader`` -> parse, http, header."""
    return [fold(p) for chunk in token.split("_") for p in _PART.findall(chunk)]


def term(token: str) -> str:
    """What the index holds for one token (case kept): an identifier folded whole, a plain word by its stem."""
    folded = fold(token)
    return folded if identifier(token) else stem(folded)


def part_terms(token: str) -> list[str]:
    """The stems of an identifier's words (empty for a plain word)."""
    return [stem(p) for p in parts(token)] if identifier(token) else []


def index_terms(text: str, *, expand: bool = True) -> str:
    """The terms of ``text`` as the index holds them, in order: each word's stem, each identifier whole and then its
    words' stems, then (``expand``) the words people say for the errors it holds (:mod:`.vocabulary`)."""
    memo = _TOKEN_TERMS
    if len(memo) > TOKEN_CACHE:  # a reindex meets millions of tokens: the cache is kept bounded
        memo.clear()
    out: list[str] = []
    tokens = WORD.findall(text)
    for token in tokens:
        found = memo.get(token)
        if found is None:
            whole = term(token)
            found = memo[token] = " ".join(dict.fromkeys([whole, *part_terms(token)]))
        out.append(found)
    if expand:
        out += [stem(w) for w in said_for(text, tokens)]
    return " ".join(out)


def said_for(text: str, tokens: list[str] | None = None) -> list[str]:
    """The words people use for the errors ``text`` holds (:data:`.vocabulary.PHRASES`), each once.

    A key is looked for only where its first word is one of the text's words (a set lookup per word), and matched
    whole there: one pattern of 150 alternatives over every document made a reindex three times slower."""
    if not _VOCABULARY:
        import re  # noqa: PLC0415 - index time only, like the vocabulary: a search never expands

        from autopilot.handoff.search.vocabulary import PHRASES

        by_first: dict[str, list[tuple[str, frozenset[str], re.Pattern[str] | None]]] = {}
        for key in sorted(PHRASES, key=len, reverse=True):
            parts = WORD.findall(key)
            whole = len(parts) == 1 and parts[0] == key  # one word: the word itself is the whole match
            found = None if whole else re.compile(r"(?<![\w])" + re.escape(key) + r"(?![\w])")
            by_first.setdefault(parts[0], []).append((key, frozenset(parts), found))
        _VOCABULARY.extend((by_first, PHRASES))
    by_first, phrases = _VOCABULARY
    held = set(WORD.findall(text) if tokens is None else tokens)
    keys: list[str] = []
    for token in held & by_first.keys():  # a key is searched for only when the text holds all its words
        keys += [
            k for k, words, pattern in by_first[token] if words <= held and (pattern is None or pattern.search(text))
        ]
    keys.sort(key=lambda k: (text.find(k), k))  # in the order the text holds them: deterministic
    return list(dict.fromkeys(w for key in keys for w in WORD.findall(phrases[key].lower())))


def words(text: str) -> list[str]:
    """The words of ``text`` as FTS5 stores them (lowercased, accents removed), in order, without repeats."""
    return list(dict.fromkeys(fold(w) for w in WORD.findall(text)))


def fold(word: str) -> str:
    """``word`` lowercased and without diacritics, as ``remove_diacritics 2`` folds it."""
    word = word.lower()
    if word.isascii():
        return word
    import unicodedata  # noqa: PLC0415 - only a word with an accent needs it (~0.3-0.7 ms of a search's imports)

    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def paths(text: str, limit: int = MAX_PATHS) -> list[str]:
    """File-like paths in ``text``, in order, without repeats."""
    found = [m.strip("/") if not m.startswith("/") else m for m in PATH.findall(text)]
    return list(dict.fromkeys(p.rstrip(".") for p in found if not _version(p)))[:limit]


def _version(path: str) -> bool:
    """``1.2.3``-like and ``0.97s``-like strings are not files."""
    return bool(_VERSION.fullmatch(path))


def symbols(text: str, limit: int = MAX_SYMBOLS, *, definitions: bool = False) -> list[str]:
    """Code-like identifiers in ``text`` (case kept): definitions (when asked), pytest node names, calls, code words."""
    found: list[str] = DEFINITION.findall(text) if definitions else []
    if "::" in text:
        found += _NODE_ID.findall(text)
    for name, call in _NAME.findall(text):  # one pass: a name followed by "(" is a call
        if (call and len(name) > 2 and name.lower() not in _NOT_SYMBOLS) or _code_shaped(name):
            found.append(name)
    return list(dict.fromkeys(found))[:limit]


def _code_shaped(name: str) -> bool:
    """An inner "_" (parse_header) or a lower-to-upper change (parseHeader, ValueError)."""
    if "_" in name.strip("_"):
        return True
    return not name.islower() and not name.isupper() and not name.istitle() and any(c.islower() for c in name)


def flat(text: str) -> str:
    """``text`` as a verbatim match compares it: lowercased, each quote ``'`` (JSON's ``\\"`` too), blanks one space."""
    text = text.lower().replace('\\"', "'").replace('"', "'").replace("`", "'")
    return " ".join(text.replace("\\n", " ").replace("\\t", " ").split())


def distinctive(text: str) -> list[str]:
    """The words of ``text`` that name one thing: numbers and codes (``429``, ``0xe9``, ``v3``), acronyms (``ECB``)
    and code-shaped identifiers (``parse_header``, ``RateCache``), folded as :func:`words` folds them."""
    found = [
        w for w in WORD.findall(text) if any(c.isdigit() for c in w) or (len(w) > 1 and w.isupper()) or _code_shaped(w)
    ]
    return list(dict.fromkeys(fold(w) for w in found))


def enclosing(source: str, needle: str) -> str | None:
    """The name of the nearest definition above the first place ``needle`` occurs in ``source``."""
    at = source.find(needle) if needle else -1
    if at < 0:
        return None
    head = source[: at + len(needle.split("\n", 1)[0])]
    names = DEFINITION.findall(head)
    return names[-1] if names else None
