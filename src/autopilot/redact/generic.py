"""The generic rule: a high-entropy value in a secret-shaped context is withheld, whatever its format.

Provider prefixes (:mod:`.tokens`) only know the formats someone listed. What marks an unknown
credential is where it stands: assigned to or keyed by a credential-like name (``HASH_SALT=…``,
``"dsn": "…"``, ``GITHUB_PAT=…``), the user part of a URL (``https://<token>@github.com``), the
argument of a password option (``-p``, ``-w``, ``-N``, ``--oauth2-bearer``, ``-storepass``), or the
value of a structured-config password field (XML elements and ``<add key value>`` settings,
``.pgpass`` lines, Terraform state). In those places a value that reads as generated
(:func:`high_entropy`: long, several character classes, no words or paths) is withheld; the names
that already say "secret" (:mod:`.named`) withhold any value that is not code or a stand-in.

Evasions are undone before any rule runs (:func:`undo_evasions`): a zero-width character inside a
token is dropped, and a percent-encoded run that decodes to a known token is withheld whole.
"""

from __future__ import annotations

import re
from collections import Counter

from autopilot.redact import PLACEHOLDER
from autopilot.redact.named import SECRET_WORDS, not_stand_in
from autopilot.redact.patterns import lazy
from autopilot.redact.rules import NUMBERED, Rule, alnum_run_after, apply, mixed_case, whole_name
from autopilot.text import reads_generated

TYPE_CHECKING = False  # binascii, math and collections.abc load when first needed: a hook that redacts a prompt
if TYPE_CHECKING:  # pays for each module it imports (bench/bench_compare.py)
    from collections.abc import Callable

# Names that hold a credential without saying "secret": salts and peppers, seeds and mnemonics, DSNs and
# connection strings, personal access tokens, JWTs, one-time-password seeds, licence keys, session ids.
_LIKE_WORDS = (
    r"salt|pepper|seed|mnemonic|dsn|conn(?:ection)?[_\-.]?str(?:ing)?|jwt|bearer|totp|otp|licen[cs]e[_\-.]?key"
    r"|session[_\-.]?id|sessid|(?<![A-Za-z0-9])(?:pat|sid|pin|pk|sk)(?![A-Za-z0-9])"
)
LIKE = f"(?:{SECRET_WORDS}|{_LIKE_WORDS})"
# JSON's quote, escaped or not; what may stand between two fields of an object (a line break, a diff marker,
# a line number and its `→`, JSON-escaped or not).
_Q = r'\\{0,3}"'
_FIELDS = r"(?:[\s+\-→]|\\{1,3}[nrtu]|\d){0,40}"
# Only the names that do not say "secret": those that do are :mod:`.named`'s, which knows their code (`'password' =>
# 'required|min:6'`) from their values.
LIKE_NAME = lazy(f"(?i){_LIKE_WORDS}")
_CLASSES = (str.islower, str.isupper, str.isdigit)
_IDENTIFIER = lazy(r"[A-Za-z_][A-Za-z_]*(?:[_\-.][A-Za-z_]+)*")  # words joined, no digits: code
_VERSION = lazy(r"[vV]?\d+(?:\.\d+)+(?:[\-+.][A-Za-z0-9]+)*")  # 1.2.3-SNAPSHOT, 2.0.0+build.5


def high_entropy(value: str) -> bool:
    """Whether ``value`` reads as generated: 12+ characters, letters and digits or three classes, no words or paths.

    Shannon entropy of at least 3 bits a character (a 16-character value of all-different characters
    has 4); hex of 40 characters or more counts (keys and HMACs); paths, URLs, dotted names, version
    numbers and ``snake_case`` words do not.
    """
    if len(value) < 12 or len(value) > 512 or _IDENTIFIER.fullmatch(value) or _VERSION.fullmatch(value):
        return False
    if value.startswith(("/", "./", "~/", "../", "http://", "https://")) or value.count("/") > 2:
        return False
    classes = sum(any(test(c) for c in value) for test in _CLASSES)
    symbols = any(not c.isalnum() for c in value)
    digits = any(c.isdigit() for c in value)
    if not digits or classes + symbols < 3:
        hexish = len(value) >= 32 and all(c in "0123456789abcdefABCDEF" for c in value)
        if not hexish:
            return False
    return bits_per_char(value) >= 3.0


def bits_per_char(value: str) -> float:
    """The Shannon entropy of ``value``'s characters, in bits a character."""
    from math import log2

    size = len(value)
    return -sum(n / size * log2(n / size) for n in Counter(value).values())


# What may stand before a .pgpass line's host: a hunk header, a line number, a diff marker, indentation, a quote.
_PGPASS_HEAD = lazy(r"(?:@@@? [^@\n]{1,100} @@@?[ \t]?)?" + NUMBERED + r"[+\- ]?[ \t]*[\"']?[\w.\-*]{1,253}")


def _pgpass_line(value: str, match: re.Match[str]) -> bool:
    """Whether the fields before a .pgpass-like port start their line (a host, after what a line may start with)."""
    text, start = match.string, match.start()
    line = max(text.rfind("\n", 0, start) + 1, text.rfind("\\n", 0, start) + 2 if "\\n" in text else 0)
    return not_stand_in(value, match) and bool(_PGPASS_HEAD.fullmatch(text, line, start))


def _generated(value: str, match: re.Match[str]) -> bool:
    return high_entropy(value.strip("\"'`"))


# Prefixes whose generated-looking bodies are no secret: digests and encodings, and the ids of messages, tool calls,
# requests and objects that transcripts are full of (Anthropic's `toolu_`, `msg_`; OpenAI's `call_`, `resp_`, ...).
_NOT_SECRET = frozenset(
    ("sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake2s", "base64", "h1")
    + ("toolu", "srvtoolu", "msg", "req", "call", "chatcmpl", "resp", "rs", "fc", "ws", "file", "asst", "thread")
    + ("run", "step", "batch", "ft", "org", "proj", "user", "sess", "session", "cus", "pi", "ch", "evt", "in", "sub")
    + ("price", "prod", "acct", "card", "cs", "id", "uuid", "txn", "tx", "trace", "span", "item")
    # Ids with bodies of 16-31 characters, judged now that bodies that short are: Stripe's objects, Anthropic's and
    # OpenAI's batches, files, workspaces, key ids, conversations, vector stores, fine-tuning jobs, containers.
    + ("pm", "seti", "si", "src", "tok", "po", "tr", "py", "ba", "ii", "il", "ipi", "cn", "dp", "du", "fee", "pyr")
    + ("plink", "promo", "sku", "plan", "coupon", "iv", "msgbatch", "container", "wrkspc", "apikey", "skill", "agent")
    + ("conv", "ctc", "mcp", "ig", "modr", "cmpl", "ftjob", "ftckpt", "ftevent", "vs", "vsfb", "cntr", "upload")
    + ("part", "eval", "evalrun", "outputitem", "fco", "turn", "event", "node", "job", "task", "build", "commit")
)
# The shortest body judged (:func:`autopilot.text.reads_generated` up to 31 characters; from 32 on, an entropy
# rule). Below 16, names come within 0.2 of its bound (`CPyList_GetItemInt64`: a word every 3.0 characters).
SHORT_BODY = 16
_PREFIX = lazy(r"(?<![\w.\-~+])([A-Za-z][A-Za-z0-9]{1,11}(?:[_\-][A-Za-z0-9]{1,11}){0,2})\Z")


def _prefixed_token(value: str, match: re.Match[str]) -> bool:
    """Whether a value after a separator is a generated token behind a vendor's prefix: the prefix a short word (not a
    digest's or an id's); the value, from 32 characters, both cases and a digit at 3.5 bits a character or more, and
    shorter, a body that :func:`autopilot.text.reads_generated`."""
    if len(value) < 32:
        if not reads_generated(value):
            return False
    elif not mixed_case(value) or bits_per_char(value) < 3.5:
        return False
    sep = match.start()
    prefix = _PREFIX.search(match.string, max(0, sep - 40), sep)
    return prefix is not None and prefix.group(1).lower() not in _NOT_SECRET


# The name before a separator: a whole name (quoted, JSON-escaped, or a flag's `--build-arg NAME`).
_NAME_BEFORE = lazy(r"(?<![\w.\-])\\{0,3}[\"']?([\w.\-]{1,80})\\{0,3}[\"']?[\])]?[ \t]*$")


def _named_like(value: str, match: re.Match[str]) -> bool:
    """Whether a generated value is given to a name like a credential's (``HASH_SALT``, ``dsn``, ``GITHUB_PAT``)."""
    if not high_entropy(value):
        return False
    name = _NAME_BEFORE.search(match.string, max(0, match.start() - 90), match.start())
    return name is not None and LIKE_NAME.search(name.group(1)) is not None


# A value in a place that holds one: no white space, quote, comma, semicolon or bracket.
_VALUE = r"([^\s\"'`,;()\[\]{}<>]{12,512})"
GENERIC: list[Rule] = [
    # `HASH_SALT=…`, `"dsn": "…"`, `pat: …`, `--build-arg GITHUB_PAT=…`: a name like a credential, a generated value.
    # Found from the separator (a literal: cheap to search for), the name read back from it.
    Rule(
        "credential_value",
        lazy(r"[:=][=>]?[ \t]*\\{0,3}[\"'`]?" + _VALUE),
        1,
        _named_like,
        hints=("=", ":"),
        needs=(("=", ":"),),
    ),
    # A token of a format nobody listed: a short vendor prefix and a separator (`co_`, `acme-live-`), then a generated
    # body of 16 characters or more. Found from the separator (cheap), the prefix read back.
    Rule(
        "prefixed_token",
        lazy(rf"[_\-](?<=[A-Za-z0-9][_\-])([A-Za-z0-9]{{{SHORT_BODY},200}})(?![\w\-+/=~])"),
        1,
        _prefixed_token,
        gate=lambda text: alnum_run_after(text, "_-", SHORT_BODY),
    ),
    # The user part of a URL with no password: `https://<token>@github.com/…` (a name like `git@` stays).
    Rule(
        "url_credential",
        lazy(r"(://(?<=[A-Za-z0-9+.\-]://))([^\s/:@\[\]]{12,256})(@)"),
        2,
        _generated,
        hints=("://",),
    ),
    # A password option: short flags most tools read a password from, and long ones named for a secret
    # (opening with the literal `-`, so the scan is `re`'s fast one).
    Rule(
        "cli_secret",
        lazy(
            r"(-(?<![\w\-]-)(?:[pPwWkKNa]|-?(?:pw|pwd|passcode|oauth2-bearer|auth|bearer|pin)"
            r"|(?:src|dest)?(?:store|key)pass|passphrase)[ \t]+([\"']?))([^\s\"'`;|&]{6,512})\2"
        ),
        3,
        _generated,
        hints=("-",),
    ),
    # `<password>…</password>`, `<apiToken>…</apiToken>`: an XML element named for a secret.
    Rule(
        "config_secret",
        lazy(r"(?i)(<(" + whole_name(r"[\w.\-:]", LIKE, 3) + r")>[ \t]*)([^<>\s][^<>\n]{2,511}?)(?=[ \t]*</\2>)"),
        4,
        not_stand_in,
        hints=("</",),
    ),
    # .NET's `<add key="ClearTextPassword" value="…"/>` (NuGet.config, web.config appSettings).
    Rule(
        "config_secret",
        lazy(
            r"(?i)(<add[ \t]+key[ \t]*=[ \t]*\\{0,3}[\"']" + whole_name(r"[\w.\-:]", LIKE) + r"\\{0,3}[\"'][ \t]+"
            r"value[ \t]*=[ \t]*\\{0,3}[\"'])([^\"'\\\n]{3,512})"
        ),
        3,
        not_stand_in,
        lower=("<add",),
    ),
    # A .pgpass line: host:port:database:user:password (the port a number or `*`), wherever a line can start.
    # Found from its port (`:5432:`, `:*:`), the host and the line's start checked back from there.
    Rule(
        "pgpass_password",
        lazy(
            r"(?m)(:(?<=[\w.\-*]:)(?:\d{1,5}|\*):[\w.\-*]{1,63}:[\w.\-@*]{1,63}:)([^\s:\"'\\]{3,512})"
            r"(?=[ \t]*(?:$|\\n|[\"']))"
        ),
        2,
        _pgpass_line,
        hints=(":",),
        needs=((":",),),
    ),
    # Terraform state and `terraform output -json`: a sensitive output's value; a random_password's result.
    Rule(
        "terraform_secret",
        lazy(
            rf"({_Q}value{_Q}\s*:\s*{_Q})([^\"\\]{{1,1024}})(?={_Q},{_FIELDS}{_Q}type{_Q}\s*:\s*{_Q}string{_Q},"
            rf"{_FIELDS}{_Q}sensitive{_Q}\s*:\s*true)"
        ),
        2,
        lower=("sensitive",),
    ),
    Rule(
        "terraform_secret",
        lazy(
            rf"({_Q}sensitive{_Q}\s*:\s*true,{_FIELDS}{_Q}type{_Q}\s*:\s*{_Q}string{_Q},{_FIELDS}{_Q}value{_Q}"
            rf"\s*:\s*{_Q})([^\"\\]{{1,1024}})"
        ),
        2,
        lower=("sensitive",),
    ),
    Rule(
        "terraform_secret",
        lazy(rf"({_Q}(?:result|bcrypt_hash){_Q}\s*:\s*{_Q})([^\"\\]{{4,1024}})(?={_Q})"),
        2,
        lower=("random_password", "random_string"),
    ),
]

# Zero-width characters a token can hide behind: dropped when they sit between two token characters.
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_HIDDEN = lazy(r"(?<=[\w\-+/=.])[\u200b\u200c\u200d\u2060\ufeff\u00ad]+(?=[\w\-+/=.])")
_PERCENT = lazy(r"%[0-9A-Fa-f]{2}")
_URL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/%")


def undo_evasions(text: str, counts: Counter[str], tokens: list[Rule]) -> str:
    """``text`` with zero-width characters inside tokens dropped and percent-encoded tokens withheld whole."""
    if any(c in text for c in _ZERO_WIDTH):
        text = _HIDDEN.sub("", text)
    if "%" not in text:
        return text

    parts: list[str] = []
    pos = 0
    while (found := _PERCENT.search(text, pos)) is not None:
        start, end = found.start(), found.end()
        while start > pos and text[start - 1] in _URL_CHARS:  # the run of URL characters around the escape
            start -= 1
        while end < len(text) and text[end] in _URL_CHARS:
            end += 1
        parts += [text[pos:start], _decoded(text[start:end], counts, tokens)]
        pos = end
    return "".join(parts) + text[pos:] if parts else text


def _decoded(run: str, counts: Counter[str], tokens: list[Rule]) -> str:
    """A percent-encoded run as it was, or redacted whole when its decoded text holds a known token."""
    if len(run) < 16:
        return run
    plain = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), run)  # tokens are ASCII; urllib costs ~3 ms
    found: Counter[str] = Counter()
    lowered = plain.lower()
    out = plain
    for rule in tokens:
        out = apply(rule, out, lowered, found)
    if not found:
        return run
    counts.update(found)
    return out if "%" not in out else PLACEHOLDER.format(kind=next(iter(found)))


# -- secrets split across string literals, and secrets encoded ------------------------------------------------------

# Two or more string literals joined into one: by `+`, `.`, `..` or `||`, or adjacent (Python's and C's `"a" "b"`),
# on one line or across a line break (a line number or grep's prefix after it: a Read, `cat -n`, `grep -n`). A secret
# cut in pieces this way matches no pattern piece by piece.
_JOIN = r"[ \t]*(?:\+|\.\.?|\|\|)?[ \t]*(?:(?:\\{1,3}n|\\?\r?\n)" + NUMBERED + r"[ \t]*(?:\+|\.\.?|\|\|)?[ \t]*)?"
_QUOTE = r"(\\{0,3}[\"'])"  # JSON-escaped too: a transcript holds the source as a JSON string
_LITERALS = lazy(_QUOTE + r"[^\"'\\\n]{1,512}\1(?:" + _JOIN + r"\1[^\"'\\\n]{1,512}\1){1,16}")
_PIECE = lazy(_QUOTE + r"([^\"'\\\n]{1,512})\1")


def split_literals(
    text: str, counts: Counter[str], redact: Callable[[str, Counter[str]], tuple[str, Counter[str]]]
) -> str:
    """``text`` with every chain of joined literals whose joined text holds a secret withheld piece by piece (only a
    chain where a run of 16 or more characters without a space crosses a join is judged: one secret, not a sentence)."""
    if "'" not in text and '"' not in text:
        return text

    def judge(match: re.Match[str]) -> str:
        chain = match.group(0)
        pieces = [p.group(2) for p in _PIECE.finditer(chain)]
        if len(pieces) < 2 or not any(_crosses(a, b) for a, b in zip(pieces, pieces[1:], strict=False)):
            return chain
        found: Counter[str] = Counter()
        redact("".join(pieces), found)
        if not found:
            return chain
        kind = next(iter(found))
        counts[kind] += 1
        return _PIECE.sub(lambda p: p.group(1) + PLACEHOLDER.format(kind=kind) + p.group(1), chain)

    return _LITERALS.sub(judge, text)


def _crosses(left: str, right: str) -> bool:
    """Whether a run of 16 or more characters without white space spans the join of ``left`` and ``right``."""
    if left[-1:].isspace() or right[:1].isspace() or not left.strip() or not right.strip():
        return False
    return len(left.split()[-1]) + len(right.split()[0]) >= 16


# Runs that may be a secret encoded: base64 (standard or URL-safe) or hex of 24 characters or more, and `\u00XX` or
# `\xXX` escapes. Each is decoded; when that reads as text (printable ASCII) and the text holds something the
# redactor withholds, the whole run is withheld.
_ENCODED = lazy(r"[A-Za-z0-9+/_\-]{24,}={0,2}")
_ESCAPED = lazy(r"(?:\\(?:u00|x)[0-9a-fA-F]{2}){8,}")
_PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}


def encoded_secrets(
    text: str, counts: Counter[str], redact: Callable[[str, Counter[str]], tuple[str, Counter[str]]]
) -> str:
    """``text`` with every encoded run whose decoded text holds a secret withheld whole (``redact`` judges it)."""

    def judge(match: re.Match[str]) -> str:
        run = match.group(0)
        plain = _decode(run)
        if plain is None:
            return run
        found: Counter[str] = Counter()
        redact(plain, found)
        if not found:
            return run
        kind = "encoded_" + next(iter(found))
        counts[kind] += 1
        return PLACEHOLDER.format(kind=kind)

    if "\\u00" in text or "\\x" in text:
        text = _ESCAPED.sub(judge, text)
    return _ENCODED.sub(judge, text)


def _decode(run: str) -> str | None:
    """The text an encoded run stands for, or None when it is no encoding of printable text."""
    raw: bytes | None = None
    if run.startswith("\\"):
        raw = bytes(
            int(run[i + (4 if run[i + 1] == "u" else 2) : i + (6 if run[i + 1] == "u" else 4)], 16)
            for i in range(0, len(run), 6 if run[1] == "u" else 4)
        )
    elif len(run) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in run):
        raw = bytes.fromhex(run)
    else:
        import binascii

        body = run.rstrip("=")
        try:
            raw = binascii.a2b_base64((body.replace("-", "+").replace("_", "/")) + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            return None
    if len(raw) < 12 or any(b not in _PRINTABLE for b in raw):
        return None
    return raw.decode("ascii")
