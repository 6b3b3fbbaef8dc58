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
"""

from __future__ import annotations

import re
import unicodedata

TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '_'"  # keep in step with WORD
WORD = re.compile(r"\w+")
# A path starts the text or follows a blank, a quote, a bracket, `=`, `:` or `,`; it ends in `.ext`.
PATH = re.compile(r"(?<![^\s\"'`(\[{<=:,])(/?(?:[\w.@+-]+/)*[\w@+-][\w.@+-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?![\w/])")
IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
DEFINITION = re.compile(
    r"^[ \t]*(?:export\s+|pub(?:\([^)]*\))?\s+|async\s+|static\s+|public\s+|private\s+)*"
    r"(?:def|class|function|fn|func|interface|struct|enum|trait|impl|module|type|const|let|var)\s+"
    r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)",
    re.M,
)
_NODE_ID = re.compile(r"::([A-Za-z_]\w*)")
_NAME = re.compile(r"(?<![\w$])([A-Za-z_$][\w$]*)(\s*\()?")
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
    won wouldn d ll m re s t ve""".split()  # noqa: SIM905 (a list of 150 quoted words reads worse)
)
# Words that say what kind of answer a question wants rather than what it is about: "what fixed X" asks for
# the edit that fixed X; "is X passing" for X's runs and their outcome; "which approach failed" for the runs
# that showed it. They are not searched for.
FIX_WORDS = frozenset("fix fixed fixes fixing solve solved solves resolve resolved repair repaired".split())  # noqa: SIM905
OUTCOME_WORDS = frozenset(
    """pass passes passed passing fail fails failed failing failure green red broken status result results outcome
    works working""".split()  # noqa: SIM905
)
APPROACH_WORDS = frozenset(
    """approach approaches attempt attempted attempts abandon abandoned try tried trying drop dropped revert reverted
    give gave given wrong""".split()  # noqa: SIM905
)


def words(text: str) -> list[str]:
    """The words of ``text`` as FTS5 stores them (lowercased, accents removed), in order, without repeats."""
    return list(dict.fromkeys(fold(w) for w in WORD.findall(text)))


def fold(word: str) -> str:
    """``word`` lowercased and without diacritics, as ``remove_diacritics 2`` folds it."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def paths(text: str, limit: int = MAX_PATHS) -> list[str]:
    """File-like paths in ``text``, in order, without repeats."""
    found = [m.strip("/") if not m.startswith("/") else m for m in PATH.findall(text)]
    return list(dict.fromkeys(p.rstrip(".") for p in found if not _version(p)))[:limit]


def _version(path: str) -> bool:
    """``1.2.3``-like and ``0.97s``-like strings are not files."""
    return bool(re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]{0,2}", path))


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
