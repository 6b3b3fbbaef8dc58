"""Credential redaction: every string that leaves the machine or lands in a packet passes here.

Each match is replaced by a typed placeholder ``[REDACTED:<kind>]`` and counted, so a
reader knows something was removed and of what kind. Redaction is idempotent: a
placeholder never matches a pattern. Every pattern runs in time linear in the text
(``tests/unit/test_redact_speed.py``): names are taken atomically, quantifiers inside a
line are bounded, and key bodies are found line by line, never by a backtracking regex.
Pattern-based redaction is a strong filter, not a guarantee; results of reads of
secret-bearing files are dropped elsewhere (see ``is_secret_path`` and ``KEY_FILE_LINES``).
"""

from __future__ import annotations

import binascii
import re
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple, overload

PLACEHOLDER = "[REDACTED:{kind}]"

# A value that only names a secret (``$TOKEN``, ``${{ secrets.X }}``, ``<your-key>``,
# an earlier placeholder) is not itself a secret.
_REFERENCE = re.compile(r"^(\$|\{\{|<|\[REDACTED:|%\(|process\.env|os\.environ)")
# Values that stand in for a secret in docs, schemas and templates, not secrets themselves.
_STAND_INS = frozenset(
    {"string", "number", "integer", "boolean", "object", "null", "none", "true", "false", "required", "optional"}
    | {"password", "secret", "example", "redacted", "hidden", "masked", "undefined", "changeme", "placeholder"}
)

_SECRET_WORDS = (
    r"(?:secret|token|passw(?:or)?d|passwd|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|client[_-]?secret|auth[_-]?key|credentials?|session[_-]?key|signing[_-]?key)"
)


def _name(chars: str, words: str) -> str:
    """A whole name made of ``chars`` that contains one of ``words``, matched without backtracking.

    ``(?=(X+))\\2`` is an atomic group that works on every Python: once the name is taken it is
    never given back, so a long run of name characters costs one scan, not one per position.
    Use it inside the pattern's first group: the name becomes group 2 and later groups shift.
    """
    return rf"(?={chars}*?(?:{words}))(?=({chars}+))\2"


# What may come before a `NAME=value` line's name, so line-anchored patterns still see the line:
# git's hunk header (`@@ -5,4 +5,4 @@ export TOKEN=…`, the nearest line above the hunk), Claude
# Code's Read (`    12→`), `cat -n`, `grep -n` and `grep -rn` prefixes, then a diff marker,
# indentation and a YAML list dash. Each part is bounded, so a line costs one short scan.
_NUMBERED = r"(?:[ \t]*\d{1,7}(?:→|\t|:|-)[ \t]?|[\w./\-]{1,200}(?::\d{1,7}:|-\d{1,7}-|:))?"
_HUNK = r"(?:@@@? [^@\n]{1,100} @@@?[ \t]?)?"
_LINE_START = r"^" + _HUNK + _NUMBERED + r"[+\- ]?[ \t]*(?:-[ \t]+)?"
_ENV_PREFIX = r"(?:(?:export|ENV|ARG|set|declare[ \t]+-x)[ \t]+|\$env:)?"


_TEMPLATE = re.compile(r"%[-#0 +]*\d*[sdifrx]")


def _stand_in(value: str) -> bool:
    """Whether ``value`` is a documentation stand-in (``string``, ``****``) rather than a secret."""
    return value.lower() in _STAND_INS or len(set(value)) == 1


def _inline_value(value: str, match: re.Match[str]) -> bool:
    """Whether an unquoted ``name=value`` in running text holds a secret rather than code.

    ``password=password``, ``token=MY_TOKEN``, ``secret=secretValue`` and ``count=12`` are code
    or numbers; ``password=hunter2`` and ``token=abcdef`` are secrets.
    """
    if value.isdigit() or _stand_in(value) or re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", value):
        return False
    if _TEMPLATE.search(value):  # printf 'TOKEN=ghp_%s' fills it in later
        return False
    if re.fullmatch(r"[A-Za-z_]\w*", value) and not any(c.isdigit() for c in value):
        name = match.group(2).lower().lstrip("-")
        if "_" in value or any(c.isupper() for c in value[1:]) or value.lower() in name:
            return False
    return True


def _flag_value(value: str, match: re.Match[str]) -> bool:
    """Whether ``--password VALUE`` passes a secret: not a path option, and not a plain word of prose."""
    if re.search(r"file|path|dir|stdin|env|name|type|length|count|size|prompt|id$", match.group(2), re.I):
        return False
    return not _stand_in(value) and (not value.isalpha() or len(value) >= 12)


def _mixed(value: str, match: re.Match[str]) -> bool:
    """Whether a base64 value has upper case, lower case and digits, as key material does (hex and words do not)."""
    return _mixed_case(value)


def _mixed_case(value: str) -> bool:
    return any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)


def _not_stand_in(value: str, match: re.Match[str]) -> bool:
    return not _stand_in(value)


def _env_value(value: str, match: re.Match[str]) -> bool:
    """Whether a ``NAME=value`` line's value is a secret, not a number (``MAX_TOKENS=4_096``) or a stand-in."""
    return not (_stand_in(value) or re.fullmatch(r"[\d_.]+", value))


def _config_value(value: str, match: re.Match[str]) -> bool:
    """Whether a config line's value is a secret, not a stand-in or a constant's name (``api_key=API_KEY``)."""
    name = match.group(2).lower()
    if _stand_in(value) or value.lower() == name or re.fullmatch(r"[\d_.]+", value):
        return False
    return not re.fullmatch(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*", value)


Check = Callable[[str, "re.Match[str]"], bool]


class _Rule(NamedTuple):
    """One credential pattern: what it is, the group it replaces (0: all), a check, and cheap hints.

    The rule is skipped when none of ``hints`` is in the text and none of ``lower`` is in the
    lowered text (a rule without hints always runs). A ``local`` rule runs only on the lines
    that hold a secret word and the line after each, which spares long texts most of its cost.
    """

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    check: Check | None = None
    hints: tuple[str, ...] = ()
    lower: tuple[str, ...] = ()
    local: bool = False  # a name-and-value rule: only lines with a secret word (_WORD) can match


# Order matters: specific token shapes first, so an Anthropic key is not reported as an OpenAI one.
_PRIVATE_KEY = _Rule(
    "private_key",
    re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
    ),
    hints=("PRIVATE KEY",),
)
_RULES: list[_Rule] = [
    _Rule("anthropic_api_key", re.compile(r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,}"), hints=("sk-ant-",)),
    _Rule(
        "openai_api_key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}(?:T3BlbkFJ[A-Za-z0-9_\-]+)?"),
        hints=("sk-",),
    ),
    _Rule("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    _Rule(
        "aws_secret_access_key",
        re.compile(
            r"(?i)(aws_?secret_?(?:access_?)?key\\{0,3}[\"']?\s*[:=]\s*\\{0,3}[\"']?)"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        2,
        lower=("secret",),
        local=True,
    ),
    _Rule(
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
        hints=("gh", "github_pat_"),
    ),
    _Rule(
        "gitlab_token",
        re.compile(r"\bgl(?:pat|ptt|dt|rt|cbt|imt|agent|oas|ft|soat)-[A-Za-z0-9_\-]{20,}"),
        hints=("gl",),
    ),
    _Rule("slack_token", re.compile(r"\b(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}"), hints=("xox", "xapp-")),
    _Rule(
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
        hints=("hooks.slack.com",),
    ),
    _Rule("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), hints=("_live_", "_test_")),
    _Rule("stripe_webhook_secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}\b"), hints=("whsec_",)),
    _Rule("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), hints=("AIza",)),
    _Rule("google_oauth_token", re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), hints=("ya29.",)),
    _Rule("google_client_secret", re.compile(r"\bGOCSPX-[0-9A-Za-z_\-]{20,}"), hints=("GOCSPX-",)),
    _Rule("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), hints=("npm_",)),
    _Rule("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), hints=("hf_",)),
    _Rule("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), hints=("SG.",)),
    _Rule("pypi_token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), hints=("pypi-",)),
    _Rule("vault_token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_\-]{20,}"), hints=("hvs.", "hvb.", "hvr.")),
    _Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), hints=("eyJ",)),
    # A Sentry DSN's key is the URL's user part (32 hex digits; the old form adds `:secret`).
    _Rule("sentry_dsn", re.compile(r"(?i)(\bhttps?://)([0-9a-f]{32}(?::[0-9a-f]{32})?)(@)"), 2, hints=("://",)),
    # The user may be empty: `redis://:password@host`.
    _Rule(
        "url_password",
        re.compile(r"\b([a-z][a-z0-9+.\-]{1,20}://[^\s/:@\[\]]{0,64}:)([^\s/@]{1,128})(@)"),
        2,
        hints=("://",),
    ),
    _Rule(
        "bearer_token",
        re.compile(
            r"(?i)(\b(?:proxy-)?authorization\\{0,3}[\"']?\s*[:=]\s*\\{0,3}[\"']?\s*(?:bearer|token|basic)\s+)"
            r"([A-Za-z0-9._~+/=\-]{12,})"
        ),
        2,
        lower=("authorization",),
        local=True,
    ),
    # API keys in request headers, wherever the header is written (curl -H, code, logs).
    _Rule(
        "header_secret",
        re.compile(
            r"(?i)(?<![\w\-])((?:x-)?(?:api-?key|auth-?token|access-?token|vault-token|private-token"
            r"|amz-security-token|goog-api-key|functions-key|ocp-apim-subscription-key)"
            r"\\{0,3}[\"']?[ \t]*:[ \t]*\\{0,3}[\"']?)([A-Za-z0-9._~+/=\-]{8,})"
        ),
        2,
        _not_stand_in,
        lower=("key", "token"),
        local=True,
    ),
    # Azure storage and Service Bus connection strings.
    _Rule(
        "azure_key",
        re.compile(r"(?i)(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)([^;\"'\s]{16,})"),
        2,
        lower=("accountkey", "sharedaccess"),
        local=True,
    ),
    # The signature of a signed URL: Azure SAS `sig=`, S3 `X-Amz-Signature=`, GCS `X-Goog-Signature=`.
    _Rule(
        "signed_url",
        re.compile(r"(?i)(?<![\w\-])((?:x-amz-|x-goog-)?(?:sig|signature)=)([A-Za-z0-9%+/=_\-]{16,})"),
        2,
        lower=("sig",),
        local=True,
    ),
    # Docker's config.json: `"auth": "<base64 of user:password>"`, JSON-escaped or not.
    _Rule(
        "docker_auth",
        re.compile(r"(?i)(\\{0,3}[\"']auth\\{0,3}[\"'][ \t]*:[ \t]*\\{0,3}[\"'])([A-Za-z0-9+/=]{8,})"),
        2,
        _not_stand_in,
        lower=("auth",),
        local=True,
    ),
    # .netrc: `machine HOST login USER password PASS` on one line, or one field a line below `machine`.
    _Rule(
        "netrc_password",
        re.compile(r"(\b(?:machine[ \t]+[\w.\-]+|default)[ \t]+login[ \t]+\S+[ \t]+password[ \t]+)(\S+)"),
        2,
        _not_stand_in,
        hints=("password",),
        local=True,
    ),
    _Rule(
        "netrc_password",
        re.compile(r"(?m)(" + _LINE_START + r"password[ \t]+)(\S+)[ \t]*$"),
        2,
        hints=("machine ",),
        local=True,
    ),
    # KEY=value lines of .env files and shell exports whose name says it holds a secret; the
    # line may carry a diff marker, a hunk header or a line number, which is how most reach Codex.
    _Rule(
        "env_secret",
        re.compile(
            r"(?m)(" + _LINE_START + _ENV_PREFIX + _name(r"[A-Z0-9_]", _SECRET_WORDS.upper() + "|PASS") + r"\s*=\s*)"
            r"(?![\"']?\s*$)([\"']?)([^\s\"'#]{4,}[^\"'\n#]*?)\3(?=\s*(?:#.*)?$)"
        ),
        4,
        _env_value,
        hints=("=",),
        local=True,
    ),
    # Unquoted `db_password: s3cr3t` / `api_key = abc123` lines of YAML, TOML and INI files
    # (any case). Values that look like code (calls, indexing, references) are left alone.
    _Rule(
        "config_secret",
        re.compile(
            r"(?im)(" + _LINE_START + _name(r"[\w.\-]", _SECRET_WORDS) + r"\s*[:=]\s*)"
            # not a quote or reference, not a number, not `obj.attr` code
            r"(?![\"'$<{\[])(?!\d+\s*(?:#.*)?$)(?![A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\s*(?:#.*)?$)"
            r"([^\s\"'#()\[\]{}<>,;]{6,})(?=\s*(?:#.*)?$)"
        ),
        3,
        _config_value,
        local=True,
    ),
    # "api_key": "value" in JSON, YAML, TOML and code, and JSON escaped in a string (\"key\": \"value\").
    _Rule(
        "secret_assignment",
        re.compile(
            # Start only at a token boundary: trying every offset inside a long word-like
            # run (base64, minified code) made this quadratic in the run's length.
            r"(?i)(?<![\w.\-])(\\{0,3}[\"']?" + _name(r"[\w.\-]", _SECRET_WORDS) + r"\\{0,3}[\"']?\s*[:=]\s*"
            r"\\{0,3}[\"'])([^\"'\s]{6,}?)(?=\\{0,3}[\"'])"
        ),
        3,
        _not_stand_in,
        local=True,
    ),
    # `password=hunter2` in running text, a URL query or a command line (unquoted, mid-line).
    _Rule(
        "inline_secret",
        re.compile(
            r"(?i)(?<![\w.\-$])(" + _name(r"[\w.\-]", _SECRET_WORDS) + r"=)(?![\"'$<{\[])"
            r"([^\s\"'`,;()\[\]{}<>&|\\]{4,})"
        ),
        3,
        _inline_value,
        hints=("=",),
        local=True,
    ),
    # `--password VALUE`, `--api-key VALUE` on a command line (the `=` form is inline_secret's),
    # and curl's `-u user:password`.
    _Rule(
        "cli_secret",
        re.compile(
            r"(?i)(?<![\w\-])(--?" + _name(r"[\w\-]", _SECRET_WORDS) + r"[ \t]+([\"']?))"
            r"(?![\-$<{\[])([^\s\"'`;|&]{4,})\3"
        ),
        4,
        _flag_value,
        hints=("-",),
        local=True,
    ),
    _Rule(
        "cli_secret",
        re.compile(r"(?<![\w\-])((?:-u|--user)[ \t]+[\"']?[^\s:\"'@]{1,64}:)([^\s\"'@]{3,})"),
        2,
        hints=("-u", "--user"),
    ),
    # A long base64 value under a name with "key" in it: `client-key-data: …`, `tls.key: …`, `"key": "…"`.
    _Rule(
        "key_material",
        re.compile(
            r"(?i)(?<![\w.\-])(\\{0,3}[\"']?" + _name(r"[\w.\-]", "key") + r"\\{0,3}[\"']?[ \t]*[:=][ \t]*"
            r"\\{0,3}[\"']?)([A-Za-z0-9+/]{40,}={0,2})(?![A-Za-z0-9+/=])"
        ),
        3,
        _mixed,
        lower=("key",),
        local=True,
    ),
]


def _replacer(rule: _Rule, counts: Counter[str]) -> Callable[[re.Match[str]], str]:
    kind, group, check = rule.kind, rule.group, rule.check

    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if group and (_REFERENCE.match(value) or (check is not None and not check(value, match))):
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


def _hinted(rule: _Rule, text: str, lowered: str) -> bool:
    return not (rule.hints or rule.lower) or any(h in text for h in rule.hints) or any(h in lowered for h in rule.lower)


def _apply(rule: _Rule, text: str, lowered: str, counts: Counter[str]) -> str:
    return rule.pattern.sub(_replacer(rule, counts), text) if _hinted(rule, text, lowered) else text


def redact(text: str, counts: Counter[str] | None = None) -> tuple[str, Counter[str]]:
    """Return ``text`` with credentials replaced by typed placeholders, and the counts by kind."""
    counts = Counter() if counts is None else counts
    if not text:
        return text, counts
    lowered = text.lower()
    text = _apply(_PRIVATE_KEY, text, lowered, counts)
    # Key bodies without their BEGIN line next, before any other pattern cuts them into pieces.
    text = _key_bodies(text, counts)
    for rule in _RULES:
        if not rule.local:
            text = _apply(rule, text, lowered, counts)
    local = [(rule.pattern, _replacer(rule, counts)) for rule in _RULES if rule.local and _hinted(rule, text, lowered)]
    spans = _word_lines(text) if local else []
    if spans:
        parts, pos = [], 0
        for start, end in spans:
            part = text[start:end]
            for pattern, replace in local:
                part = pattern.sub(replace, part)
            parts += [text[pos:start], part]
            pos = end
        text = "".join(parts) + text[pos:]
    return text, counts


_WORD = re.compile(r"(?i)secret|token|pass|pwd|key|credential|auth|sig")


def _word_lines(text: str) -> list[tuple[int, int]]:
    """The spans of the lines that hold a secret word, each with the line after it, merged."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while (found := _WORD.search(text, pos)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.end())
        if line_end < 0:
            line_end = len(text)
        end = text.find("\n", line_end + 1)
        end = len(text) if end < 0 or line_end == len(text) else end
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
        pos = line_end + 1
    return spans


# --- key material without its BEGIN line ------------------------------------------------------

_B64_CHARS = "A-Za-z0-9+/"
_LONG_B64 = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}")
# One whole line of a base64 body: an optional line number, diff marker, indentation or quotes
# around it. Lines end at real line breaks or at the literal `\n` of a string in code or JSON, and
# the first may start a quoted string (`"private_key": "MIIE…\n…`).
_BODY_LINE = re.compile(
    r"(?:^|(?<=\\n)|(?<=[\"']))"
    + _HUNK
    + _NUMBERED
    + r"[+\- ]?[ \t]*[\"']?([A-Za-z0-9+/]{8,}={0,2})[\"']?,?[ \t]*(?=\r?$|(?:\\r)?\\n)",
    re.MULTILINE,
)
_SEPARATORS = frozenset({"\n", "\r\n", "\\n", "\\r\\n"})
_KEY_END = re.compile(r"[+\- ]?[ \t]*-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PUBLIC_END = re.compile(r"[+\- ]?[ \t]*-----END ")
# Base64 that opens a key file or a base64-wrapped one: PEM armour (`-----BEGIN`), an OpenSSH
# key (`openssh-key-v1`), a PuTTY key file; DER keys start with "M" (an ASN.1 SEQUENCE).
_KEY_TOKEN = re.compile(
    r"(?<![A-Za-z0-9+/])(?:LS0tLS1CRUdJTi|b3BlbnNzaC1rZXktdjE|UHVUVFktVXNlci1LZXktRmlsZS|M[A-Za-z0-9+/]{3})"
    r"[A-Za-z0-9+/]{36,}={0,2}"
)
# Base64 that opens a picture or a document: ordinary data, never key material.
_NOT_KEY = ("iVBORw0KGg", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "PD94bWw", "JVBERi0", "AAABAA", "Qk0", "d09GR")
# ASN.1 object ids of password-protected keys (PKCS#5 PBES2, PKCS#12 PBE).
_ENCRYPTED_KEY_OIDS = (b"\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d", b"\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x01")


def _decoded_head(b64: str) -> bytes:
    head = b64[:96]
    try:
        return binascii.a2b_base64(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return b""


def opens_private_key(b64: str) -> bool:
    """Whether base64 text begins with a private key: PEM or PuTTY text, an OpenSSH or a DER key.

    DER is read far enough to tell a private key (a SEQUENCE whose first field is a small version
    INTEGER: PKCS#1, PKCS#8, SEC1, PKCS#12, or an encrypted PKCS#8) from a certificate or a public
    key (a SEQUENCE that opens with another SEQUENCE), so public material stays readable.
    """
    if b64.startswith(("b3BlbnNzaC1rZXktdjE", "UHVUVFktVXNlci1LZXktRmlsZS")):
        return True
    raw = _decoded_head(b64)
    if b64.startswith("LS0tLS1CRUdJTi"):
        return b"PRIVATE KEY" in raw
    if len(raw) < 8 or raw[0] != 0x30:
        return False
    n = 2 + (raw[1] - 0x80 if raw[1] > 0x80 else 0)  # skip the SEQUENCE's length
    body = raw[n : n + 4]
    if len(body) == 4 and body[0] == 0x02 and body[1] == 0x01 and body[2] in (0, 1, 3):
        return body[3] in (0x02, 0x04, 0x30)
    return any(oid in raw for oid in _ENCRYPTED_KEY_OIDS)


_LOWER_RUN = re.compile(r"[a-z]{9}")


def _random_line(line: str) -> bool:
    """Whether a base64 line looks random, as key material does: long, mixed case and digits, no long word."""
    return len(line) >= 40 and _mixed_case(line) and not _LOWER_RUN.search(line)


def opens_public_der(b64: str) -> bool:
    """Whether base64 text begins with public DER: a SEQUENCE opening with a SEQUENCE (a certificate, a public key)."""
    raw = _decoded_head(b64)
    if len(raw) < 8 or raw[0] != 0x30 or any(oid in raw for oid in _ENCRYPTED_KEY_OIDS):
        return False
    n = 2 + (raw[1] - 0x80 if raw[1] > 0x80 else 0)
    return raw[n : n + 1] == b"\x30"


def _run_kind(text: str, run: list[re.Match[str]], after: int) -> tuple[str | None, int]:
    """What a run of base64 lines is (``private_key``, ``key_material`` or None) and where it ends."""
    first = run[0].group(1)
    end = _KEY_END.match(text, after)
    if end is not None:  # the tail of a PEM key: body lines and the END line
        return "private_key", end.end()
    if _PUBLIC_END.match(text, after) or first.startswith(_NOT_KEY):
        return None, 0  # a certificate or public key block, or a picture: public data
    start = run[0].start()
    previous = text[text.rfind("\n", 0, max(0, start - 1)) + 1 : start]
    if "-----BEGIN " in previous or "Public-Lines:" in previous:
        return None, 0  # public: an armoured block that is not a private key, a PuTTY key's public lines
    if "Private-Lines:" in previous or opens_private_key(first):
        return "private_key", run[-1].end(1)
    if opens_public_der(first):
        return None, 0  # a certificate or a public key whose BEGIN line is not in the text
    # The middle of a key: lines of one width (64 in PEM, 70 in OpenSSH) of mixed-case base64.
    widths = Counter(len(m.group(1)) for m in run if _random_line(m.group(1)))
    return ("key_material", run[-1].end(1)) if widths and max(widths.values()) >= 2 else (None, 0)


def _key_bodies(text: str, counts: Counter[str]) -> str:
    """Key material whose BEGIN line is not in ``text``: bodies cut out of a key, tails, base64-wrapped keys.

    A run of whole base64 lines is a key when it ends at an END line, follows a PuTTY
    ``Private-Lines:`` line, opens like a private key, or has two or more long lines of mixed
    case and digits (the middle of a PEM or OpenSSH key in a diff hunk). Single base64 tokens
    that open like a private key (``client-key-data: LS0t…``) are redacted where they stand.
    """
    if "PRIVATE KEY" not in text and "Private-Lines" not in text and not _LONG_B64.search(text):
        return text
    lines = list(_BODY_LINE.finditer(text))
    out, pos, i = [], 0, 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and text[lines[j].end() : lines[j + 1].start()] in _SEPARATORS:
            j += 1
        run, i = lines[i : j + 1], j + 1
        after = lines[j].end()
        for sep in ("\r\n", "\n", "\\r\\n", "\\n"):
            if text.startswith(sep, after):
                after += len(sep)
                break
        kind, end = _run_kind(text, run, after)
        if kind is not None:
            out += [text[pos : run[0].start(1)], PLACEHOLDER.format(kind=kind)]
            counts[kind] += 1
            pos = end
    text = "".join(out) + text[pos:] if out else text
    if "PRIVATE KEY" in text:  # an END line alone
        text, n = _LONE_END.subn(PLACEHOLDER.format(kind="private_key"), text)
        counts["private_key"] += n
    if _LONG_B64.search(text):
        text = _KEY_TOKEN.sub(_token_replacer(counts), text)
    return text


_LONE_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")


def _token_replacer(counts: Counter[str]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if not opens_private_key(match.group(0)):
            return match.group(0)
        counts["private_key"] += 1
        return PLACEHOLDER.format(kind="private_key")

    return replace


class Redactor:
    """Redacts many strings and keeps one running count of what it removed."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()

    def __call__(self, text: str) -> str:
        """Redact one string, adding to the running counts."""
        return redact(text, self.counts)[0]

    @overload
    def walk(self, value: dict[str, Any]) -> dict[str, Any]: ...
    @overload
    def walk(self, value: Any) -> Any: ...
    def walk(self, value: Any) -> Any:
        """Redact every string inside a JSON-like value (keys included); a dict gives a dict."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self.walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.walk(v) for v in value]
        return value

    def summary(self) -> dict[str, Any]:
        """How many redactions were made, in total and by kind."""
        return {"total": sum(self.counts.values()), "by_kind": dict(sorted(self.counts.items()))}


# --- secret-bearing files ---------------------------------------------------------------------

_SECRET_NAMES = re.compile(
    r"(^|/)(\.env(\..+)?|\.envrc|\.netrc|_netrc|\.npmrc|\.pypirc|\.git-credentials|\.pgpass|\.my\.cnf"
    r"|\.s3cfg|\.vault-token|\.dockercfg|\.htpasswd|kubeconfig(\.ya?ml)?"
    r"|credentials(\.json|\.csv)?|secrets?(\.[a-z]+)?|id_(rsa|dsa|ecdsa|ed25519)"
    r"|.*\.(pem|key|p8|p12|pfx|ppk|jks|keystore|keytab|asc|gpg|ovpn|kdbx|tfstate(\.backup)?))$",
    re.IGNORECASE,
)
_SECRET_DIRS = re.compile(r"(^|/)(\.ssh|\.gnupg|\.aws|\.docker|\.kube|\.config/gcloud)/", re.IGNORECASE)
_NOT_SECRET = re.compile(r"(^|/)\.env\.(example|sample|template|dist)$|\.pub$|(^|/)known_hosts$", re.IGNORECASE)

# Lines that make a file a key file whatever its name, as POSIX extended regexes (``git grep -E``
# reads them; ``is_key_file_text`` is the same test in Python): a PEM private key's BEGIN line, a
# PuTTY key file's first line, a kubeconfig's embedded client key, an OpenSSH key's first body
# line. Whole lines only, so code and docs that merely mention them (a regex, a test string) are
# not key files.
KEY_FILE_LINES = (
    r"^[[:space:]]*-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----[[:space:]]*$",
    r"^PuTTY-User-Key-File-[0-9]+:",
    r"^[[:space:]]*client-key-data:[[:space:]]*[A-Za-z0-9+/]",
    r"^[[:space:]]*b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/]*=*[[:space:]]*$",
)
_KEY_FILE = re.compile("|".join(f"(?:{p})" for p in KEY_FILE_LINES).replace("[[:space:]]", r"[ \t\r]"), re.M)


def is_key_file_text(text: str) -> bool:
    """Whether file contents hold a key file's telltale line (``KEY_FILE_LINES``)."""
    return bool(_KEY_FILE.search(text))


def is_secret_path(path: str) -> bool:
    """Whether a file path names a secret-bearing file whose contents must never be copied."""
    p = path.replace("\\", "/")
    if _NOT_SECRET.search(p):
        return False
    return bool(_SECRET_NAMES.search(p) or _SECRET_DIRS.search(p))
