"""The credential patterns: token shapes, names with values, and the checks that keep ordinary text.

Each ``Rule`` names its kind (the placeholder's ``[REDACTED:<kind>]``), the group it replaces,
an optional check on the value, and cheap literal hints that let a text without them skip it.
Rules that pair a name with a value (``password=…``) are ``local``: they run only on the lines
that hold a secret word (``word_lines``), which keeps long texts cheap. Every pattern is linear:
names are taken atomically (``_name``), quantifiers inside a line are bounded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import NamedTuple

from autopilot.redact import PLACEHOLDER

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
NUMBERED = r"(?:[ \t]*\d{1,7}(?:→|\t|:|-)[ \t]?|[\w./\-]{1,200}(?::\d{1,7}:|-\d{1,7}-|:))?"
HUNK = r"(?:@@@? [^@\n]{1,100} @@@?[ \t]?)?"
_LINE_START = r"^" + HUNK + NUMBERED + r"[+\- ]?[ \t]*(?:-[ \t]+)?"
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
    return mixed_case(value)


def mixed_case(value: str) -> bool:
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


class Rule(NamedTuple):
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
PRIVATE_KEY = Rule(
    "private_key",
    re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
    ),
    hints=("PRIVATE KEY",),
)
RULES: list[Rule] = [
    Rule("anthropic_api_key", re.compile(r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,}"), hints=("sk-ant-",)),
    Rule(
        "openai_api_key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}(?:T3BlbkFJ[A-Za-z0-9_\-]+)?"),
        hints=("sk-",),
    ),
    Rule("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    Rule(
        "aws_secret_access_key",
        re.compile(
            r"(?i)(aws_?secret_?(?:access_?)?key\\{0,3}[\"']?\s*[:=]\s*\\{0,3}[\"']?)"
            r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        2,
        lower=("secret",),
        local=True,
    ),
    Rule(
        "github_token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
        hints=("gh", "github_pat_"),
    ),
    Rule(
        "gitlab_token",
        re.compile(r"\bgl(?:pat|ptt|dt|rt|cbt|imt|agent|oas|ft|soat)-[A-Za-z0-9_\-]{20,}"),
        hints=("gl",),
    ),
    Rule("slack_token", re.compile(r"\b(?:xox[abposre]|xapp)-[A-Za-z0-9\-]{10,}"), hints=("xox", "xapp-")),
    Rule(
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
        hints=("hooks.slack.com",),
    ),
    Rule("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), hints=("_live_", "_test_")),
    Rule("stripe_webhook_secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}\b"), hints=("whsec_",)),
    Rule("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), hints=("AIza",)),
    Rule("google_oauth_token", re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), hints=("ya29.",)),
    Rule("google_client_secret", re.compile(r"\bGOCSPX-[0-9A-Za-z_\-]{20,}"), hints=("GOCSPX-",)),
    Rule("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), hints=("npm_",)),
    Rule("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), hints=("hf_",)),
    Rule("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), hints=("SG.",)),
    Rule("pypi_token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), hints=("pypi-",)),
    Rule("vault_token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_\-]{20,}"), hints=("hvs.", "hvb.", "hvr.")),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"), hints=("eyJ",)),
    # A Sentry DSN's key is the URL's user part (32 hex digits; the old form adds `:secret`).
    Rule("sentry_dsn", re.compile(r"(?i)(\bhttps?://)([0-9a-f]{32}(?::[0-9a-f]{32})?)(@)"), 2, hints=("://",)),
    # The user may be empty: `redis://:password@host`.
    Rule(
        "url_password",
        re.compile(r"\b([a-z][a-z0-9+.\-]{1,20}://[^\s/:@\[\]]{0,64}:)([^\s/@]{1,128})(@)"),
        2,
        hints=("://",),
    ),
    Rule(
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
    Rule(
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
    Rule(
        "azure_key",
        re.compile(r"(?i)(\b(?:AccountKey|SharedAccessKey|SharedAccessSignature)=)([^;\"'\s]{16,})"),
        2,
        lower=("accountkey", "sharedaccess"),
        local=True,
    ),
    # The signature of a signed URL: Azure SAS `sig=`, S3 `X-Amz-Signature=`, GCS `X-Goog-Signature=`.
    Rule(
        "signed_url",
        re.compile(r"(?i)(?<![\w\-])((?:x-amz-|x-goog-)?(?:sig|signature)=)([A-Za-z0-9%+/=_\-]{16,})"),
        2,
        lower=("sig",),
        local=True,
    ),
    # Docker's config.json: `"auth": "<base64 of user:password>"`, JSON-escaped or not.
    Rule(
        "docker_auth",
        re.compile(r"(?i)(\\{0,3}[\"']auth\\{0,3}[\"'][ \t]*:[ \t]*\\{0,3}[\"'])([A-Za-z0-9+/=]{8,})"),
        2,
        _not_stand_in,
        lower=("auth",),
        local=True,
    ),
    # .netrc: `machine HOST login USER password PASS` on one line, or one field a line below `machine`.
    Rule(
        "netrc_password",
        re.compile(r"(\b(?:machine[ \t]+[\w.\-]+|default)[ \t]+login[ \t]+\S+[ \t]+password[ \t]+)(\S+)"),
        2,
        _not_stand_in,
        hints=("password",),
        local=True,
    ),
    Rule(
        "netrc_password",
        re.compile(r"(?m)(" + _LINE_START + r"password[ \t]+)(\S+)[ \t]*$"),
        2,
        hints=("machine ",),
        local=True,
    ),
    # KEY=value lines of .env files and shell exports whose name says it holds a secret; the
    # line may carry a diff marker, a hunk header or a line number, which is how most reach Codex.
    Rule(
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
    Rule(
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
    Rule(
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
    Rule(
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
    Rule(
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
    Rule(
        "cli_secret",
        re.compile(r"(?<![\w\-])((?:-u|--user)[ \t]+[\"']?[^\s:\"'@]{1,64}:)([^\s\"'@]{3,})"),
        2,
        hints=("-u", "--user"),
    ),
    # A long base64 value under a name with "key" in it: `client-key-data: …`, `tls.key: …`, `"key": "…"`.
    Rule(
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


def replacer(rule: Rule, counts: Counter[str]) -> Callable[[re.Match[str]], str]:
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


def hinted(rule: Rule, text: str, lowered: str) -> bool:
    return not (rule.hints or rule.lower) or any(h in text for h in rule.hints) or any(h in lowered for h in rule.lower)


def apply(rule: Rule, text: str, lowered: str, counts: Counter[str]) -> str:
    return rule.pattern.sub(replacer(rule, counts), text) if hinted(rule, text, lowered) else text


_WORD = re.compile(r"(?i)secret|token|pass|pwd|key|credential|auth|sig")


def word_lines(text: str) -> list[tuple[int, int]]:
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


def apply_local(text: str, lowered: str, counts: Counter[str]) -> str:
    """``text`` with the ``local`` rules applied to the lines that hold a secret word (and the line after each)."""
    local = [(rule.pattern, replacer(rule, counts)) for rule in RULES if rule.local and hinted(rule, text, lowered)]
    spans = word_lines(text) if local else []
    if not spans:
        return text
    parts, pos = [], 0
    for start, end in spans:
        part = text[start:end]
        for pattern, replace in local:
            part = pattern.sub(replace, part)
        parts += [text[pos:start], part]
        pos = end
    return "".join(parts) + text[pos:]
