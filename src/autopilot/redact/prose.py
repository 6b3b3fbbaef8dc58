"""Credentials said in words: "the staging db password is …", "our analytics api key is <32 hex>", "webhook secret: …".

A credential word (``password``, ``passphrase``, ``passcode``, ``api key``, ``access key``, ``token``, ``secret``,
``credentials``, ``pin``) followed within a few words by a connector (``is``, ``was``, ``:``, ``=``, ``->``, ``set
… to``) and a value-shaped word: letters and digits together, a symbol among letters, ten digits or more, long hex,
or a generated run. A sentence about a secret (``the token is valid for 3600 s``, ``password is required``, ``token
is None``) has no such word where the value would be. Code is :mod:`.named`'s, which runs first: what it withheld is a
placeholder here, never a value. The rule is ``local``: only lines with a secret word are searched.
"""

from __future__ import annotations

from autopilot.patterns import lazy
from autopilot.redact.bare import generated
from autopilot.redact.named import SETTING
from autopilot.redact.rules import Rule, stand_in

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_WORDS = (
    r"pass(?:word|phrase|code|wd)s?|pwd|pin(?:[ \t]+code)?|(?:api|access|secret|auth|signing|private|license|licence)"
    r"[ \t_\-]?keys?|api[ \t_\-]?tokens?|tokens?|secrets?|credentials?|creds"
)
# After the word: up to four more words in the same sentence (`for the admin account`, `we use in prod`), then a
# connector, then an opening quote. Each part is bounded: a line costs one short scan from each word.
_SENTENCE = (
    r"(?i)(?<![\w\-./$])(?:" + _WORDS + r")(?![\w\-])(?:[ \t]+(?!is\b|was\b|are\b|to\b|=)[\w\-']{1,20}){0,4}?"
    r"[ \t]*(?:(?:is|was|are|=|:|->|→|to|equals)(?:[ \t]*:|[ \t]+(?:now|still|just|set[ \t]+to|always))?)"
    # the value: quoted (a passphrase may hold spaces), or one word
    r"[ \t]*([\"'`“‘])?((?(1)[^\"'`\n“”‘’]{6,200}|[^\s\"'`“”‘’<>()\[\]{},;|\\]{6,200}))"
)
# Technical words with digits that follow a credential word without being one (`the token is base64-encoded`).
_TECHNICAL = lazy(
    r"(?i)(?:sha|md|hs|rs|es|ps|aes|utf|base|ipv|oauth|http|x|ed|rsa|gpt|s|ec|k|v|py|python|node|tls|ssl)[\-_]?\d+"
    r"(?:[\-_.][a-z]+\d*)*|\d+(?:st|nd|rd|th|s|ms|m|h|d|px|kb|mb|gb|chars?|characters|bytes|bits|days)"
)
_NAME = lazy(r"[A-Za-z_][A-Za-z_]*(?:[.\-][A-Za-z_]+)*")  # words joined, no digits: code or prose, not a value
_CALL = lazy(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+$")  # a dotted name: `t1.set`, `base64.b16encode`
_CODE_IN_QUOTES = lazy(r", |: |[()=|{}%]")  # what a quoted passphrase never holds and code between two strings does
_COLOUR = lazy(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_SYMBOLS = frozenset("!@#$%^&*+=?~|\\/")
_VERSION = lazy(r"[\d.]+[a-z]?|v?\d+(?:\.\d+)+\S*")  # a version or a number with a unit


def value_shaped(value: str, match: re.Match[str] | None = None) -> bool:
    """Whether a word said after a credential word looks like the credential: letters with digits or with a symbol
    among them, ten digits or more, 16+ hex, or a generated run; not a word, a name, a number, a path, a URL, an
    email address, a stand-in, a technical term (``sha256``, ``3600s``), nor code (``b64encode(...)``, a quoted
    string that closes one and opens another: ``"Password: ", stream: TextIO``)."""
    if match is not None:
        after = match.string[match.end() : match.end() + 1]
        if match.group(1) is None and (after in ("(", "[") or _CALL.match(value)):
            return False  # `token = b64encode(userpass)`, `token = t1.set("x")`: a call
        if match.group(1) is not None and _CODE_IN_QUOTES.search(value):
            return False
    value = value.rstrip(".,:")
    if len(value) < 6 or stand_in(value) or SETTING.fullmatch(value) or value.startswith(("$", "%", "{", "[REDACTED")):
        return False
    if "://" in value or value.startswith(("/", "./", "~/", "../")) or _NAME.fullmatch(value):
        return False
    if "@" in value and "." in value.rsplit("@", 1)[1]:  # an email address
        return False
    if _TECHNICAL.fullmatch(value) or _COLOUR.fullmatch(value):
        return False
    digits = sum(map(str.isdigit, value))
    letters = sum(map(str.isalpha, value))
    if digits == len(value):
        return digits >= 10
    if letters and digits:
        return not _VERSION.fullmatch(value)
    if letters and any(c in _SYMBOLS for c in value[1:-1]) and len(value) >= 8:
        return True
    alnum = "".join(c for c in value if c.isalnum())
    return len(alnum) >= 20 and generated(alnum)


_CONNECTORS = (" is", " was", " are", ": ", ":\t", "=", "->", "→", " to ", " equals ")  # not a placeholder's `:`


def _connected(text: str) -> bool:
    """Whether a span holds one of the connectors a credential said in words needs (else its pattern, the rule's
    costliest to compile, is not compiled: a prompt that only names a key)."""
    return any(c in text for c in _CONNECTORS)


PROSE: list[Rule] = [
    Rule(
        "prose_secret",
        lazy(_SENTENCE),
        2,
        value_shaped,
        lower=("pass", "pwd", "pin", "key", "token", "secret", "cred"),
        local=True,
        gate=_connected,
    ),
]
