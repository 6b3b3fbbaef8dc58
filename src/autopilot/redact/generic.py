"""The generic rule: a high-entropy value in a secret-shaped context is withheld, whatever its format.

Provider prefixes (:mod:`.tokens`) only know the formats someone listed. What marks an unknown
credential is where it stands: assigned to or keyed by a credential-like name (``HASH_SALT=…``,
``"dsn": "…"``, ``GITHUB_PAT=…``), the user part of a URL (``https://<token>@github.com``), the
argument of a password option (``-p``, ``-w``, ``-N``, ``--oauth2-bearer``, ``-storepass``), or the
value of a structured-config password field (XML elements and ``<add key value>`` settings,
``.pgpass`` lines, Terraform state). In those places a value that reads as generated
(:func:`high_entropy`: long, several character classes, no words or paths) is withheld; the names
that already say "secret" (:mod:`.named`) withhold any value that is not code or a stand-in.

Evasions and encodings are :mod:`.decode`'s.
"""

from __future__ import annotations

from autopilot.patterns import lazy
from autopilot.redact.named import SECRET_WORDS, not_stand_in
from autopilot.redact.rules import NUMBERED, Rule, alnum_run_after, mixed_case, whole_name
from autopilot.text import reads_generated

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

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
    classes = sum(any(map(test, value)) for test in _CLASSES)
    symbols = not all(map(str.isalnum, value))
    digits = any(map(str.isdigit, value))
    if not digits or classes + symbols < 3:
        hexish = len(value) >= 32 and all(c in "0123456789abcdefABCDEF" for c in value)
        if not hexish:
            return False
    return bits_per_char(value) >= 3.0


def bits_per_char(value: str) -> float:
    """The Shannon entropy of ``value``'s characters, in bits a character."""
    from math import log2

    size = len(value)
    seen: dict[str, int] = {}
    for char in value:
        seen[char] = seen.get(char, 0) + 1
    return -sum(n / size * log2(n / size) for n in seen.values())


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
NOT_SECRET = frozenset(
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
    return prefix is not None and prefix.group(1).lower() not in NOT_SECRET


_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SESSION_ID = lazy(r"(?i)session[_\-.]?id|sessid|(?<![A-Za-z0-9])sid(?![A-Za-z0-9])")
# The name before a separator: a whole name (quoted, JSON-escaped, or a flag's `--build-arg NAME`).
_NAME_BEFORE = lazy(r"(?<![\w.\-])\\{0,3}[\"']?([\w.\-]{1,80})\\{0,3}[\"']?[\])]?[ \t]*$")


def _named_like(value: str, match: re.Match[str]) -> bool:
    """Whether a generated value is given to a name like a credential's (``HASH_SALT``, ``dsn``, ``GITHUB_PAT``); a
    UUID given to a session's id (``"sessionId": "1cb24488-…"``, in every row of a transcript) is an id."""
    if not high_entropy(value):
        return False
    name = _NAME_BEFORE.search(match.string, max(0, match.start() - 90), match.start())
    if name is None or LIKE_NAME.search(name.group(1)) is None:
        return False
    return not (_UUID.fullmatch(value.strip("\\\"'")) and _SESSION_ID.search(name.group(1)))


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
