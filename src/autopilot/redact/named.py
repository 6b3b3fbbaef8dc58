"""Credentials known by the name they are given: ``NAME=value``, config keys and YAML blocks, code, headers, cookies.

A value next to a secret-looking name (``password``, ``API_TOKEN``, ``X-Api-Key``) is redacted
unless it is code, a number, a reference or a stand-in (the checks below keep those). Most of
these rules are ``local``: they run only on the lines that hold a secret word. Command lines
are :mod:`.shell`'s; ``SECRET_WORDS`` and the value checks are shared with it.
"""

from __future__ import annotations

from autopilot.patterns import lazy
from autopilot.redact.rules import (
    GREP_PREFIX,
    HUNK,
    LINE_NUMBER,
    LINE_START,
    NUMBERED,
    Rule,
    mixed_case,
    stand_in,
    whole_name,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

_STRONG_WORDS = (
    r"secret|token|passw(?:or)?d|passwd|passphrase|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|client[_-]?secret|auth[_-]?key|credentials?|session[_-]?key|signing[_-]?key"
)
# Short words count only as the last part of a name (`db_pass`, `ADMIN_PW`, `WEBHOOK_HMAC`, `SIGNING`),
# so `compass`, `pwm_pin` and `hmac_algorithm` stay names. No `\w` here: the env rule upper-cases it.
_SHORT_WORDS = r"(?<![A-Za-z0-9])(?:pass|pw|hmac|signing)(?![A-Za-z0-9_.\-])"
SECRET_WORDS = f"(?:{_STRONG_WORDS}|{_SHORT_WORDS})"
_STRONG = lazy(f"(?i){_STRONG_WORDS}")
_ENV_PREFIX = r"(?:(?:export|ENV|ARG|set|declare[ \t]+-x)[ \t]+|\$env:)?"


_TEMPLATE = lazy(r"%[-#0 +]*\d*[sdifrx]")
# Values that name an algorithm or a switch (`WEBHOOK_HMAC=sha256`, `signing: enabled`), not a secret.
SETTING = lazy(
    r"(?i)(?:hmac[-_]?)?(?:sha|md|blake|hs|rs|es|ps)[-_]?\d*|ed25519|enabled?|disabled?|yes|no|on|off|default"
)


def _inline_value(value: str, match: re.Match[str]) -> bool:
    """Whether an unquoted ``name=value`` in running text holds a secret rather than code.

    ``password=password``, ``token=MY_TOKEN``, ``secret=secretValue`` and ``count=12`` are code
    or numbers; ``password=hunter2`` and ``token=abcdef`` are secrets.
    """
    if value.isdigit() or stand_in(value) or SETTING.fullmatch(value) or _names_a_secret(value, match.group(2)):
        return False
    if _ATTRIBUTE.fullmatch(value):
        return False
    if _TEMPLATE.search(value):  # printf 'TOKEN=ghp_%s' fills it in later
        return False
    after = match.string[match.end() : match.end() + 1]
    if after in ("(", "[") or (after in (",", ")") and value.isalpha() and value.islower()):
        return False  # `password=auth[1]`, `api_key=cast(…)`, `api_key=credential,`: code
    if _IDENTIFIER.fullmatch(value) and not any(map(str.isdigit, value)):
        name = match.group(2).lower().lstrip("-")
        if "_" in value or any(map(str.isupper, value[1:])) or value.lower() in name:
            return False
    return True


def not_stand_in(value: str, match: re.Match[str]) -> bool:
    return not (stand_in(value) or SETTING.fullmatch(value))


def _plain_word_for_short_name(value: str, name: str) -> bool:
    """Whether a lower-case word is given to a name with only a short word (``"pass": "passed"``): not a secret."""
    return value.isalpha() and value.islower() and not _STRONG.search(name)


_CALL = lazy(r"[\w.\]]\([ \t]*$")
_ATTRIBUTE = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")  # `self.token`, `settings.api.key`
_IDENTIFIER = lazy(r"[A-Za-z_]\w*")
_THREE_DIGITS = lazy(r"\d{3}")
_EXTENSION = lazy(r"\.[A-Za-z]{2,5}$")  # a file name's
_CALL_CLOSED = lazy(r"\)[ \t]*(?:,|=|:)")
_HEX = lazy(r"[0-9a-fA-F]+")
_NUMBER = lazy(r"[\d_.]+")  # `4_096`, `1.5`
_CONSTANT = lazy(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*")  # a constant's name: `API_KEY`
_SECRET_WORD = lazy(f"(?i){SECRET_WORDS}")
# Names that hold where or what a secret is, not the secret: `SECRET_MANAGER_REGION`, `TOKENIZER_PATH`.
_ABOUT_A_SECRET = lazy(
    r"(?i)[_\-.](?:path|file|dir|name|region|url|uri|host|model|type|kind|format|len|length|placeholder|regex|pattern"
    r"|prefix|suffix|header|field|param|label|hint|env|var|count|limit|(?<!secret[_\-.])id)$"
)


def _word_runs_on(name: str) -> bool:
    """Whether every secret word in ``name`` runs on into a longer word (`tokenizer`, `TOKENIZER_PATH`, `passwordless`),
    rather than ending a part of it (`secret_key`, `secretKey`, `DB_PASSWORD`)."""
    found = list(_SECRET_WORD.finditer(name))
    shouting = name.isupper()
    return bool(found) and all(
        m.end() < len(name) and name[m.end()].isalpha() and (name[m.end()].islower() or shouting) for m in found
    )


def _spelled(text: str) -> str:
    """A name as its words spell it: lower case, no separators (``TOKEN_LIST``, ``tokenList``: ``tokenlist``)."""
    return "".join(c for c in text.lower() if c.isalnum())


# A type or a class: capitalised words run together, no digits (`ClientSecret`, `SecretStr`, `HTTPPasswordMgr`,
# `Comment`); a colour; a dotted name of code (`network.ContinueWithAuthParameters_Credentials`).
_TYPE_NAME = lazy(r"(?=[A-Z]*[a-z])(?:[A-Z][a-z]+|[A-Z]{2,}(?=[A-Z][a-z]|$))+")
_SNAKE_WORDS = lazy(r"[a-z]+(?:_[a-z]+)+")  # `workload_identity`: a variable
_COLOUR = lazy(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
_DOTTED_NAME = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_COLON_WORDS = lazy(r"[\w.\-]*:[\w.\-:]*")  # `min:6`, `max:255`: a rule's arguments
_PATH = lazy(r"(?:\.{0,2}/|~/)?[\w.\-]+(?:/[\w.\-]+)+")
_REGION = lazy(r"[a-z]{2}-[a-z]+-\d")  # `us-east-1`
_SNAKE = lazy(r"[A-Za-z_]\w*_\w*")


def _names_a_secret(value: str, name: str) -> bool:
    """Whether a name's value is code about a secret, not one: a rule list (`required|min:6`), a path, a region,
    an identifier spelled from the name's own word (`password_bytes`, `call_assertion_pass_hook`), the name itself
    in another case (an enum's `TOKEN_LIST = "tokenList"`, `OTP_CREDENTIALS = "otp-credentials"`), a type or a class
    (`client_secret: ClientSecret`, `token: TrioToken`), a colour (`Token: "#ddd0c0"`)."""
    spelled = _spelled(value)
    if spelled in (_spelled(name), _spelled(name.rsplit(".", 1)[-1])) or _ABOUT_A_SECRET.search(name):
        return True
    if _word_runs_on(name) or _SNAKE_WORDS.fullmatch(value):
        return True
    if _TYPE_NAME.fullmatch(value) or _COLOUR.fullmatch(value) or _DOTTED_NAME.fullmatch(value):
        return True
    if "|" in value or (_COLON_WORDS.fullmatch(value) and not _THREE_DIGITS.search(value)):
        return True  # `required|min:6`; colon-joined words unless a run of digits makes them look generated
    if _PATH.fullmatch(value) and (_EXTENSION.search(value) or value.startswith(("/", "./", "~/"))):
        return True  # a file (`models/tokenizer.json`) or a rooted path, not `abc/def` (a secret may hold a slash)
    if _REGION.fullmatch(value):
        return True
    words = {m.group(0).lower() for m in _SECRET_WORD.finditer(name)}
    return bool(_SNAKE.fullmatch(value)) and any(w in value.lower() for w in words)


def _assigned_value(value: str, match: re.Match[str]) -> bool:
    """Whether an assigned or passed literal is a secret: not a stand-in, and a comma only after a call's quoted name.

    ``getenv("DB_PASSWORD", "…")`` passes a default; a tuple or a list (``("token_count", "rate_limits")``)
    only lists names.
    """
    if not not_stand_in(value, match) or _plain_word_for_short_name(value, match.group(2)):
        return False
    if _names_a_secret(value, match.group(2)):
        return False
    prefix, sep = match.group(1), match.group(3)
    if sep not in ("||", "??") and _CALL_CLOSED.search(prefix):
        return False  # `pop("token"), "…"` closes the call first; only a default may follow a call
    if sep == ",":  # the name is the call's first argument: quoted, right after `(`
        name = match.group(2)
        if not (name.isupper() or name.islower()):  # `MovedAttribute("HTTPPasswordMgr", …)`: a class, not a setting
            return False
        opened = prefix.lstrip("\\").startswith(('"', "'"))
        return opened and bool(_CALL.search(match.string, max(0, match.start() - 80), match.start()))
    return True


def opens_a_block(text: str) -> bool:
    """Whether a line of ``text`` may open a YAML block: a colon followed, after blanks, by a comment, a block indicator
    (``|``, ``>``) or the line's end, and another line after it; the block rule below needs one, and is the
    redactor's costliest pattern to compile."""
    at = text.find(":")
    while at >= 0:
        end = text.find("\n", at)
        if end < 0:
            return False
        rest = text[at + 1 : end].lstrip(" \t")
        if not rest or rest[0] in "#|>\r":
            return True
        at = text.find(":", at + 1)
    return False


_ENV_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
# The env rule's secret words as it matches them (upper case): each holds one of these.
ENV_WORDS = ("SECRET", "TOKEN", "PASS", "PW", "KEY", "CREDENTIAL", "HMAC", "SIGNING")


def assigns_a_value(text: str, upper_name: bool = False) -> bool:
    """Whether an ``=`` in ``text`` is followed (after white space and a quote) by something other than a placeholder:
    a ``NAME=value`` rule changes nothing where each value is withheld already (``OPENAI_API_KEY=[REDACTED:…]``).
    ``upper_name``: and preceded (after white space) by upper-case name characters holding one of :data:`ENV_WORDS`
    where a line may open with them (:func:`may_open_a_line`)."""
    at, size = text.find("="), len(text)
    openings: dict[int, int] = {}
    while at >= 0:
        i = at + 1
        while i < size and text[i].isspace():
            i += 1
        if i < size and text[i] in "\"'":
            i += 1
        if not text.startswith("[REDACTED:", i) and (not upper_name or _upper_secret_name_before(text, at, openings)):
            return True
        at = text.find("=", at + 1)
    return False


def _upper_secret_name_before(text: str, at: int, openings: dict[int, int]) -> bool:
    end = at
    while end > 0 and text[end - 1].isspace():
        end -= 1
    start = end
    while start > 0 and text[start - 1] in _ENV_NAME_CHARS:
        start -= 1
    name = text[start:end]
    return any(word in name for word in ENV_WORDS) and may_open_a_line(text, start, openings)


# What a line may hold before a name at its start (``LINE_START``, ``_ENV_PREFIX``): a line number and its `→`, a grep
# prefix, a diff marker, indentation, `export`, `$env:`; a hunk header (`@@ … @@`) may hold anything.
_OPENING_CHARS = frozenset("_./-: \t+→$")


def may_open_a_line(text: str, start: int, openings: dict[int, int]) -> bool:
    """Whether what stands between the start of ``start``'s line and ``start`` may be what a line-anchored rule lets
    a line open with before a name (``openings`` remembers, per line, where that stops being possible)."""
    line = text.rfind("\n", 0, start) + 1
    stop = openings.get(line)
    if stop is None:
        if text.startswith("@@", line):
            stop = len(text)
        else:
            stop, end = line, len(text)
            while stop < end and (text[stop].isalnum() or text[stop] in _OPENING_CHARS):
                stop += 1
        openings[line] = stop
    return start <= stop


_LOWER_WORDS = tuple(word.lower() for word in ENV_WORDS)  # each secret word, matched in any case, holds one
_NAME_EXTRA = "_.-"  # with the letters and digits (``\\w``), what a name is made of


def named_value(
    text: str,
    seps: str,
    *,
    words: tuple[str, ...] = _LOWER_WORDS,
    skip_before: str = "",
    skip_after: str = "",
    value: Callable[[str], bool],
    line_start: bool = False,
) -> bool:
    """Whether ``text`` holds a separator (one of ``seps``) after a name holding one of ``words`` (any case), and a
    value ``value`` accepts after it: the shape of a name-and-value rule, checked without its pattern.

    Before the separator, white space and ``skip_before`` are passed over, then the name's letters, digits and
    ``_.-``; after it, white space and ``skip_after``, then ``value`` sees the rest. A name with a character outside
    ASCII always counts: a case-insensitive pattern matches ``ſecret`` and ``ᴋey`` as it matches ``secret``.
    ``line_start``: the name must also stand where a line may open with it (:func:`may_open_a_line`).
    """
    size = len(text)
    openings: dict[int, int] = {}
    for sep in seps:
        at = text.find(sep)
        while at >= 0:
            end = at
            while end > 0 and (text[end - 1].isspace() or text[end - 1] in skip_before):
                end -= 1
            start = end
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] in _NAME_EXTRA):
                start -= 1
            name = text[start:end]
            named = name and (not name.isascii() or any(word in name.lower() for word in words))
            if named and (not line_start or may_open_a_line(text, start, openings)):
                i = at + 1
                while i < size and (text[i].isspace() or text[i] in skip_after):
                    i += 1
                if value(text[i : i + 16]):
                    return True
            at = text.find(sep, at + 1)
    return False


def _unquoted_value(head: str) -> bool:  # config_secret's value: not a quote, a reference, a bracket or a comment
    return bool(head) and head[0] not in "\"'$<{[#()]}>,;"


def _inline_value_head(head: str) -> bool:  # inline_secret's: right after the sign, none of what it refuses
    return bool(head) and not head[0].isspace() and head[0] not in "\"'$<{[`,;()]}>&|\\"


def _quoted_value(head: str) -> bool:  # secret_assignment's: a quote, then something other than a placeholder
    return bool(head) and head[0] in "\"'`" and not head[1:].startswith("[REDACTED:")


_B64_HEAD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_HEADER_VALUE = _B64_HEAD | frozenset("._~=-")


def _b64_value(head: str) -> bool:  # key_material's: base64 (or Laravel's `base64:` prefix)
    return bool(head) and head[0] in _B64_HEAD


def _header_value(head: str) -> bool:  # header_secret's value characters
    return bool(head) and head[0] in _HEADER_VALUE


def config_assignment(text: str) -> bool:
    """config_secret's line shape: a secret name, ``:`` or ``=``, an unquoted value."""
    return named_value(text, ":=", value=_unquoted_value, line_start=True)


def inline_assignment(text: str) -> bool:
    """inline_secret's shape: a secret name, ``=``, a value right after it."""
    return named_value(text, "=", value=_inline_value_head)


def quoted_assignment(text: str) -> bool:
    """secret_assignment's shape: a quoted or bracketed secret name, an operator, a quoted value not withheld yet."""
    return named_value(text, "=:,|?", skip_before="\\\"')]=:|?", skip_after="\\=>|?", value=_quoted_value)


def key_assignment(text: str) -> bool:
    """key_material's shape: a name with ``key``, ``:`` or ``=``, base64."""
    return named_value(text, ":=", words=("key",), skip_before="\\\"'", skip_after="\\\"'", value=_b64_value)


def header_assignment(text: str) -> bool:
    """header_secret's shape: a key or token header name, ``:``, a token's characters."""
    return named_value(text, ":", words=("key", "token"), skip_before="\\\"'", skip_after="\\\"'", value=_header_value)


def env_assignment(text: str) -> bool:
    """Whether ``text`` may hold a ``NAME=value`` line the env rule withholds: an upper-case name with a secret word,
    then ``=`` and a value not withheld yet."""
    return assigns_a_value(text, upper_name=True)


# A line of a YAML block: a line number when the key had one (group 2), else maybe a grep prefix.
_BLOCK_LINE = rf"(?(2){LINE_NUMBER}|(?:{GREP_PREFIX})?)"
_COOKIE_VALUE = lazy(r"=[ \t]*((?![$<{%]|\[REDACTED:)[^;\s]{8,})")


def _session_value(value: str) -> bool:
    """Whether a cookie's value looks like a session token: eight characters or more, not a plain word."""
    return len(value) >= 8 and not (value.isalpha() and value.islower()) and not stand_in(value)


def _cookie(value: str, match: re.Match[str]) -> bool:
    """Whether a ``Set-Cookie`` value is a session token (``theme=dark`` is not)."""
    return _session_value(value)


def _cookie_list(value: str, match: re.Match[str]) -> bool:
    """Whether a ``Cookie`` list holds a session token, not only settings and references (``sid=${SID}``)."""
    return any(_session_value(m.group(1)) for m in _COOKIE_VALUE.finditer(value))


_MAPPING_ITEM = lazy(r"[\"']?[\w.\-]+[\"']?[ \t]*:(?:[ \t]|$)")


def _block_value(value: str, match: re.Match[str]) -> bool:
    """Whether a YAML block under a secret name holds a secret: not a stand-in, nor a list of mappings."""
    first = value.split("\n", 1)[0].strip()
    if match.group(6) and (_MAPPING_ITEM.match(first) or " " in first or (first.isalpha() and first.islower())):
        # `credentials:` then `- user: …`: the rules for names see each field; `Passwords:` then
        # `- must be long`: a list in prose
        return False
    return not (stand_in(first) or SETTING.fullmatch(first))


# Names of keys that identify rather than protect: a hex digest under them is not a secret.
_ID_KEY = lazy(
    r"(?i)(?:cache|primary|foreign|sort|partition|hash|range|idempotency|public|lookup|row|object)[_.\-]?key"
)


def _key_value(value: str, match: re.Match[str]) -> bool:
    """Whether a value under a key's name is key material: Laravel's ``base64:…``, long hex, or mixed-case base64.

    Hex under a name that identifies (``cache_key``, ``public_key``) is a digest, not a secret.
    """
    if value.startswith("base64:"):
        return len(value) >= 24
    if _HEX.fullmatch(value):
        return not _ID_KEY.search(match.group(2))
    return len(value) >= 40 and mixed_case(value)


def env_value(value: str, match: re.Match[str]) -> bool:
    """Whether a ``NAME=value`` line's value is a secret, not a number (``MAX_TOKENS=4_096``), a stand-in or code
    about a secret (``SIGNING = "Signing"``, ``DB_PASSWORD_FILE=/run/secrets/db``)."""
    if stand_in(value) or _NUMBER.fullmatch(value) or SETTING.fullmatch(value):
        return False
    return not _names_a_secret(value, match.group(2))


def _config_value(value: str, match: re.Match[str]) -> bool:
    """Whether a config line's value is a secret, not a stand-in or a constant's name (``api_key=API_KEY``)."""
    name = match.group(2).lower()
    if stand_in(value) or value.lower() == name or _NUMBER.fullmatch(value) or SETTING.fullmatch(value):
        return False
    if _names_a_secret(value, match.group(2)):
        return False
    return not _CONSTANT.fullmatch(value)


NAMED: list[Rule] = [
    # `aws_secret_access_key = …`, `aws configure set aws_secret_access_key …`.
    Rule(
        "aws_secret_access_key",
        lazy(
            r"(?i)(aws_?secret_?(?:access_?)?key\\{0,3}[\"']?(?:\s*(?::=|=>|[:=,])\s*|[ \t]+)\\{0,3}[\"']?)"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        2,
        lower=("secret",),
        local=True,
    ),
    Rule(
        "bearer_token",
        lazy(
            # any scheme: Bearer, Basic, Token, Okta's SSWS, Splunk, FlyV1, AWS4-HMAC-SHA256 Credential=…
            r"(?i)(\b(?:proxy-)?authorization\\{0,3}[\"']?\s*[:=]\s*\\{0,3}[\"']?\s*[A-Za-z][\w\-]{1,30}\s+)"
            r"([A-Za-z0-9._~+/=\-]{12,})"
        ),
        2,
        lower=("authorization",),
        local=True,
        needs=((":", "="),),
    ),
    # API keys in request headers, wherever the header is written (curl -H, code, logs).
    Rule(
        "header_secret",
        lazy(
            r"(?i)(?<![\w\-])((?:x-)?(?:api-?key|auth-?token|access-?token|vault-token|private-token"
            r"|amz-security-token|goog-api-key|functions-key|ocp-apim-subscription-key)"
            r"\\{0,3}[\"']?[ \t]*:[ \t]*\\{0,3}[\"']?)([A-Za-z0-9._~+/=\-]{8,})"
        ),
        2,
        not_stand_in,
        lower=("key", "token"),
        local=True,
        needs=((":",),),
        gate=header_assignment,
    ),
    # Azure storage and Service Bus connection strings.
    Rule(
        "azure_key",
        lazy(r"(?i)(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)([^;\"'\s]{16,})"),
        2,
        lower=("accountkey", "sharedaccess"),
        local=True,
        needs=(("=",),),
    ),
    # The signature of a signed URL: Azure SAS `sig=`, S3 `X-Amz-Signature=`, GCS `X-Goog-Signature=`.
    Rule(
        "signed_url",
        lazy(r"(?i)(?<![\w\-])((?:x-amz-|x-goog-)?(?:sig|signature)=)([A-Za-z0-9%+/=_\-]{16,})"),
        2,
        lower=("sig",),
        local=True,
        needs=(("=",),),
    ),
    # Docker's config.json: `"auth": "<base64 of user:password>"`, JSON-escaped or not.
    Rule(
        "docker_auth",
        lazy(r"(?i)(\\{0,3}[\"']auth\\{0,3}[\"'][ \t]*:[ \t]*\\{0,3}[\"'])([A-Za-z0-9+/=]{8,})"),
        2,
        not_stand_in,
        lower=("auth",),
        local=True,
        needs=((":",), ('"', "'")),
    ),
    # .netrc: `machine HOST login USER password PASS` on one line, or one field a line below `machine`.
    Rule(
        "netrc_password",
        lazy(r"(\b(?:machine[ \t]+[\w.\-]+|default)[ \t]+login[ \t]+\S+[ \t]+password[ \t]+)(\S+)"),
        2,
        not_stand_in,
        hints=("password",),
        local=True,
    ),
    Rule(
        "netrc_password",
        lazy(r"(?m)(" + LINE_START + r"password[ \t]+)(\S+)[ \t]*$"),
        2,
        hints=("machine ",),
        local=True,
    ),
    # KEY=value lines of .env files and shell exports whose name says it holds a secret; the
    # line may carry a diff marker, a hunk header or a line number, which is how most reach Codex.
    Rule(
        "env_secret",
        lazy(
            r"(?m)(" + LINE_START + _ENV_PREFIX + whole_name(r"[A-Z0-9_]", SECRET_WORDS.upper() + "|PASS") + r"\s*=\s*)"
            # the lookahead checks the rest of the line once, so a line that does not end as a value
            # may end costs one pass, not one per character of the value (20,000 characters took 7 s)
            r"(?![\"']?\s*$)([\"']?)(?=[^\"'\n#]*\3\s*(?:#.*)?$)([^\s\"'#]{4,}[^\"'\n#]*?)\3(?=\s*(?:#.*)?$)"
        ),
        4,
        env_value,
        hints=("=",),
        local=True,
        # the name is matched as written, upper case: each secret word holds one of these
        needs=(("=",), ENV_WORDS),
        gate=env_assignment,
    ),
    # Unquoted `db_password: s3cr3t` / `api_key = abc123` lines of YAML, TOML and INI files
    # (any case). Values that look like code (calls, indexing, references) are left alone.
    Rule(
        "config_secret",
        lazy(
            r"(?im)(" + LINE_START + whole_name(r"[\w.\-]", SECRET_WORDS) + r"\s*[:=]\s*)"
            # not a quote or reference, not a number, not `obj.attr` code
            r"(?![\"'$<{\[])(?!\d+\s*(?:#.*)?$)(?![A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\s*(?:#.*)?$)"
            r"([^\s\"'#()\[\]{}<>,;]{6,})(?=\s*(?:#.*)?$)"
        ),
        3,
        _config_value,
        local=True,
        needs=((":", "="),),
        gate=config_assignment,
    ),
    # A YAML block under a secret name: a block scalar's lines (`password: |`, `token: >-`) or a
    # list's items (`passwords:` then `- …`). The block is the lines indented deeper than the key
    # (for a list, at the first item's indentation), with the diff marker or line number they carry.
    Rule(
        "config_secret",
        lazy(
            r"(?im)(^"
            + HUNK
            + rf"(?:({LINE_NUMBER})|{GREP_PREFIX})?"
            + r"[+\- ]?([ \t]*)(?:-[ \t]+)?[\"']?"
            + whole_name(r"[\w.\-]", SECRET_WORDS, 4)
            + r"[\"']?[ \t]*:[ \t]*"
            + r"(?:[|>][+\-]?[1-9]?[ \t]*(?:#[^\n]*)?\r?\n"
            + _BLOCK_LINE
            + r"[+\- ]?(\3[ \t]+)"
            + r"|(?:#[^\n]*)?\r?\n"
            + _BLOCK_LINE
            + r"[+\- ]?(\3[ \t]*-[ \t]+)))"
            + r"(\S[^\n]*(?:\n"
            + _BLOCK_LINE
            + r"[+\- ]?(?:\5|\6(?=\S))[^\n]*)*)"
        ),
        7,
        _block_value,
        local=True,
        needs=((":",), ("\n",)),
        gate=opens_a_block,
    ),
    # A Kubernetes or ECS environment entry: `- name: DB_PASSWORD` and `value: …` on the next line,
    # or `{"name": "DB_PASSWORD", "value": "…"}` on one.
    Rule(
        "env_secret",
        lazy(
            r"(?im)((?<![\w\-])[\"']?name[\"']?[ \t]*:[ \t]*[\"']?"
            + whole_name(r"[\w.\-]", SECRET_WORDS)
            + r"[\"']?[ \t]*,?[ \t]*(?:\r?\n"
            + NUMBERED
            + r"[+\- ]?[ \t]*)?[\"']?value[\"']?[ \t]*:[ \t]*([\"']?))"
            r"([^\s\"'#][^\"'\n#]{3,255}?)\3(?=[ \t]*(?:[,}\]#]|$))"
        ),
        4,
        env_value,
        lower=("value",),
        local=True,
        needs=((":",),),
    ),
    # "api_key": "value" in JSON, YAML, TOML and code, and JSON escaped in a string (\"key\": \"value\");
    # PHP and Ruby's `=>`, Go's `:=`, `headers['X-API-KEY'] = "…"`; a literal passed with a quoted secret
    # name (`getenv("DB_PASSWORD", "…")`) or given as a default (`process.env.API_TOKEN || "…"`).
    Rule(
        "secret_assignment",
        lazy(
            # Start only at a token boundary: trying every offset inside a long word-like
            # run (base64, minified code) made this quadratic in the run's length.
            r"(?i)(?<![\w.\-])(\\{0,3}[\"']?" + whole_name(r"[\w.\-]", SECRET_WORDS) + r"\\{0,3}[\"']?[\])]?"
            r"\s*(=>|:=|[:=,]|\|\||\?\?)\s*\\{0,3}([\"'`]))([^\"'`\s]{6,}?)(?=\\{0,3}\4)"
        ),
        5,
        _assigned_value,
        local=True,
        needs=(("=", ":", ",", "|", "?"), ('"', "'", "`")),
        gate=quoted_assignment,
    ),
    # A shell default: `${DB_PASSWORD:-…}`.
    Rule(
        "secret_assignment",
        lazy(r"(?i)(\$\{" + whole_name(r"\w", SECRET_WORDS) + r":?[-=])([^}\s\"'$]{4,})(?=\})"),
        3,
        not_stand_in,
        hints=("${",),
        local=True,
    ),
    # `password=hunter2` in running text, a URL query or a command line (unquoted, mid-line).
    Rule(
        "inline_secret",
        lazy(
            r"(?i)(?<![\w.\-$])(" + whole_name(r"[\w.\-]", SECRET_WORDS) + r"=)(?![\"'$<{\[])"
            r"([^\s\"'`,;()\[\]{}<>&|\\]{4,})"
        ),
        3,
        _inline_value,
        hints=("=",),
        local=True,
        needs=(("=",),),
        gate=inline_assignment,
    ),
    # Cookies: a request's `Cookie:` header (every value: the whole list goes), a response's
    # `Set-Cookie:` value (its attributes stay), and `document.cookie = "…"`.
    Rule(
        "cookie",
        lazy(
            r"(?im)((?<![\w\-])set-cookie\\{0,3}[\"']?[ \t]*:[ \t]*\\{0,3}[\"']?[^\s\"'=;]{1,128}=)"
            r"([^;\s\"'\\]{4,})"
        ),
        2,
        _cookie,
        lower=("set-cookie",),
        local=True,
        needs=((":",), ("=",)),
    ),
    Rule(
        "cookie",
        lazy(
            r"(?im)((?<![\w\-])cookie\\{0,3}[\"']?[ \t]*[:=][ \t]*\\{0,3}[\"']?)"
            r"([^\s\"'=;]{1,128}=[^\n\"'\\]{4,4000})"
        ),
        2,
        _cookie_list,
        lower=("cookie",),
        local=True,
        needs=(("=",),),
    ),
    # Key material under a name with "key" in it: `client-key-data: …`, `tls.key: …`, `"key": "…"`,
    # `ENCRYPTION_KEY=<hex>`, Laravel's `APP_KEY=base64:…`, `RAILS_MASTER_KEY=<hex>`.
    Rule(
        "key_material",
        lazy(
            r"(?i)(?<![\w.\-])(\\{0,3}[\"']?" + whole_name(r"[\w.\-]", "key") + r"\\{0,3}[\"']?[ \t]*[:=][ \t]*"
            r"\\{0,3}[\"']?)((?:base64:)?[A-Za-z0-9+/]{32,}={0,2})(?![A-Za-z0-9+/=])"
        ),
        3,
        _key_value,
        lower=("key",),
        local=True,
        needs=((":", "="),),
        gate=key_assignment,
    ),
]
