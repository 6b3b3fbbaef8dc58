"""Credential redaction: every string that leaves the machine or lands in a packet passes here.

Each match is replaced by a typed placeholder ``[REDACTED:<kind>]`` and counted, so a
reader knows something was removed and of what kind. Redaction is idempotent: a
placeholder never matches a pattern. Pattern-based redaction is a strong filter, not a
guarantee; results of reads of secret-bearing files are dropped elsewhere (see
``is_secret_path``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from typing import Any, overload

PLACEHOLDER = "[REDACTED:{kind}]"

# A value that only names a secret (``$TOKEN``, ``${{ secrets.X }}``, ``<your-key>``,
# an earlier placeholder) is not itself a secret.
_REFERENCE = re.compile(r"^(\$|\{\{|<|\[REDACTED:|%\(|process\.env|os\.environ)")

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


# (kind, pattern, group to replace or 0 for the whole match). Order matters: specific
# token shapes first, so an Anthropic key is not reported as an OpenAI one.
_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    (
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
        ),
        0,
    ),
    ("anthropic_api_key", re.compile(r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,}"), 0),
    (
        "openai_api_key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}(?:T3BlbkFJ[A-Za-z0-9_\-]+)?"),
        0,
    ),
    ("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), 0),
    (
        "aws_secret_access_key",
        re.compile(r"(?i)(aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?)([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
        2,
    ),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), 0),
    (
        "gitlab_token",
        re.compile(r"\bgl(?:pat|ptt|dt|rt|cbt|imt|agent|oas|ft|soat)-[A-Za-z0-9_\-]{20,}"),
        0,
    ),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), 0),
    (
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9_/\-]{20,}"),
        0,
    ),
    ("stripe_key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), 0),
    ("stripe_webhook_secret", re.compile(r"\bwhsec_[A-Za-z0-9]{24,}\b"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"), 0),
    ("google_oauth_token", re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"), 0),
    ("google_client_secret", re.compile(r"\bGOCSPX-[0-9A-Za-z_\-]{20,}"), 0),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), 0),
    ("huggingface_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), 0),
    ("sendgrid_key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"), 0),
    ("pypi_token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}"), 0),
    (
        "jwt",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
        0,
    ),
    ("url_password", re.compile(r"\b([a-z][a-z0-9+.\-]{1,20}://[^\s/:@]{1,64}:)([^\s/@]{1,128})(@)"), 2),
    (
        "bearer_token",
        re.compile(
            r"(?i)(\bauthorization[\"']?\s*[:=]\s*[\"']?\s*(?:bearer|token|basic)\s+)([A-Za-z0-9._~+/=\-]{12,})"
        ),
        2,
    ),
    # KEY=value lines of .env files and shell exports whose name says it holds a secret; the
    # optional leading +, - or space is a unified diff's, which is how most of them reach Codex.
    (
        "env_secret",
        re.compile(
            r"(?m)^([+\- ]?\s*(?:export\s+)?" + _name(r"[A-Z0-9_]", _SECRET_WORDS.upper() + "|PASS") + r"\s*=\s*)"
            r"(?![\"']?\s*$)([\"']?)([^\s\"'#]{4,}[^\"'\n#]*?)\3(?=\s*(?:#.*)?$)"
        ),
        4,
    ),
    # Unquoted `db_password: s3cr3t` / `api_key = abc123` lines of YAML, TOML and INI files
    # (any case). Values that look like code (calls, indexing, references) are left alone.
    (
        "config_secret",
        re.compile(
            r"(?im)^([+\- ]?\s*" + _name(r"[\w.\-]", _SECRET_WORDS) + r"\s*[:=]\s*)"
            # not a quote or reference, not a number, not `obj.attr` code
            r"(?![\"'$<{\[])(?!\d+\s*(?:#.*)?$)(?![A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\s*(?:#.*)?$)"
            r"([^\s\"'#()\[\]{}<>,;]{6,})(?=\s*(?:#.*)?$)"
        ),
        3,
    ),
    # "api_key": "value" in JSON, YAML, TOML and code.
    (
        "secret_assignment",
        re.compile(
            # Start only at a token boundary: trying every offset inside a long word-like
            # run (base64, minified code) made this quadratic in the run's length.
            r"(?i)(?<![\w.\-])([\"']?" + _name(r"[\w.\-]", _SECRET_WORDS) + r"[\"']?\s*[:=]\s*)([\"'])([^\"'\s]{8,})\3"
        ),
        4,
    ),
]

# Cheap literal hints: a pattern whose hint is absent from the text is skipped.
_HINTS: dict[str, tuple[str, ...]] = {
    "private_key": ("PRIVATE KEY",),
    "anthropic_api_key": ("sk-ant-",),
    "openai_api_key": ("sk-",),
    "aws_secret_access_key": ("ecret",),
    "github_token": ("gh", "github_pat_"),
    "gitlab_token": ("gl",),
    "slack_token": ("xox",),
    "slack_webhook": ("hooks.slack.com",),
    "stripe_key": ("_live_", "_test_"),
    "stripe_webhook_secret": ("whsec_",),
    "google_api_key": ("AIza",),
    "google_oauth_token": ("ya29.",),
    "google_client_secret": ("GOCSPX-",),
    "npm_token": ("npm_",),
    "huggingface_token": ("hf_",),
    "sendgrid_key": ("SG.",),
    "pypi_token": ("pypi-",),
    "jwt": ("eyJ",),
    "url_password": ("://",),
}


def _replacer(kind: str, group: int, counts: Counter[str]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        value = match.group(group)
        if group and _REFERENCE.match(value):
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


def redact(text: str, counts: Counter[str] | None = None) -> tuple[str, Counter[str]]:
    """Return ``text`` with credentials replaced by typed placeholders, and the counts by kind."""
    counts = Counter() if counts is None else counts
    if not text:
        return text, counts
    lowered: str | None = None
    for kind, pattern, group in _PATTERNS:
        hints = _HINTS.get(kind)
        if hints is not None and not any(h in text for h in hints):
            if kind != "aws_secret_access_key":
                continue
            lowered = lowered if lowered is not None else text.lower()
            if "secret" not in lowered:
                continue
        text = pattern.sub(_replacer(kind, group, counts), text)
    if "PRIVATE KEY" in text:
        text = _key_tails(text, counts)
    return text, counts


_KEY_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]+")


def _key_tails(text: str, counts: Counter[str]) -> str:
    """Redact the end of a private key whose BEGIN line is not in ``text`` (``tail key.pem``, a cut string).

    Walks back from each END line over whole lines of base64, so it costs one pass, never a regex backtrack.
    """
    out, pos = [], 0
    for end in _KEY_END.finditer(text):
        start = end.start()
        while True:  # extend backwards over lines that are only base64
            line_start = text.rfind("\n", pos, max(pos, start - 1)) + 1
            line = text[max(line_start, pos) : start].strip()
            if start <= pos or not line or not _BASE64_LINE.fullmatch(line):
                break
            start = max(line_start, pos)
            if start == pos:
                break
        out.append(text[pos:start])
        out.append(PLACEHOLDER.format(kind="private_key"))
        counts["private_key"] += 1
        pos = end.end()
    out.append(text[pos:])
    return "".join(out)


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


_SECRET_NAMES = re.compile(
    r"(^|/)(\.env(\..+)?|\.envrc|\.netrc|_netrc|\.npmrc|\.pypirc|\.git-credentials|\.pgpass"
    r"|credentials(\.json|\.csv)?|secrets?(\.[a-z]+)?|id_(rsa|dsa|ecdsa|ed25519)"
    r"|.*\.(pem|key|p12|pfx|jks|keystore|asc|gpg|ovpn|kdbx))$",
    re.IGNORECASE,
)
_SECRET_DIRS = re.compile(r"(^|/)(\.ssh|\.gnupg|\.aws|\.docker|\.kube|\.config/gcloud)/", re.IGNORECASE)
_NOT_SECRET = re.compile(r"(^|/)\.env\.(example|sample|template|dist)$|\.pub$|(^|/)known_hosts$", re.IGNORECASE)


def is_secret_path(path: str) -> bool:
    """Whether a file path names a secret-bearing file whose contents must never be copied."""
    p = path.replace("\\", "/")
    if _NOT_SECRET.search(p):
        return False
    return bool(_SECRET_NAMES.search(p) or _SECRET_DIRS.search(p))
