"""Credentials known by their own shape: provider prefixes and fixed formats, whatever they are called.

A token rule needs no name next to it (``ghp_…`` is a GitHub token wherever it stands), so none
is ``local``: each runs over the whole text, skipped when its literal hints are absent.
"""

from __future__ import annotations

import re

from autopilot.redact.rules import Rule

# Order matters: specific token shapes first, so an Anthropic key is not reported as an OpenAI one.
PRIVATE_KEY = Rule(
    "private_key",
    re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
    ),
    hints=("PRIVATE KEY",),
)
TOKENS: list[Rule] = [
    Rule("anthropic_api_key", re.compile(r"\bsk-ant-[a-z]{2,8}\d{2}-[A-Za-z0-9_\-]{20,}"), hints=("sk-ant-",)),
    Rule(
        "openai_api_key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}(?:T3BlbkFJ[A-Za-z0-9_\-]+)?"),
        hints=("sk-",),
    ),
    Rule("aws_access_key_id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
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
]
