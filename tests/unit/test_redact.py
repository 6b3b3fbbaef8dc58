"""Redaction: credentials become typed placeholders and are counted; ordinary text is left alone."""

from __future__ import annotations

import pytest

from autopilot.redact import Redactor, is_secret_path, redact

# Fake credentials assembled at run time so no scanner mistakes this file for a leak.
A = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"

SECRETS = [
    ("openai_api_key", f"OPENAI key sk-{A[:32]}"),
    ("openai_api_key", f"sk-proj-{A}_{A[:10]}"),
    ("openai_api_key", f"sk-svcacct-{A}"),
    ("openai_api_key", f"sk-admin-{A}"),
    ("anthropic_api_key", f"sk-ant-api03-{A}{A}"),
    ("anthropic_api_key", f"token sk-ant-admin01-{A}"),
    ("aws_access_key_id", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "ASIA" + "Y34FZKBOKMUTVV7A"),
    ("aws_secret_access_key", "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("github_token", "ghp_" + A[:36]),
    ("github_token", "gho_" + A[:36]),
    ("github_token", "github_pat_11ABCDEFG0" + A + "_" + A[:20]),
    ("gitlab_token", "glpat-" + A[:20]),
    ("slack_token", "xoxb-1234567890123-" + A[:24]),
    ("slack_webhook", "https://hooks.slack.com/services/T00000000/B00000000/" + A[:24]),
    ("stripe_key", "sk_live_" + A[:24]),
    ("stripe_key", "rk_test_" + A[:24]),
    ("stripe_webhook_secret", "whsec_" + A[:32]),
    ("google_api_key", "AIza" + "SyA-" + A[:31]),
    ("google_oauth_token", "ya29." + A),
    ("google_client_secret", "GOCSPX-" + A[:28]),
    ("npm_token", "npm_" + A[:36]),
    ("huggingface_token", "hf_" + A[:34]),
    ("sendgrid_key", "SG." + A[:22] + "." + (A + A)[:43]),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----"),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"),
    ("private_key", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC (truncated, no end line"),
    ("url_password", "postgres://app:hunter2hunter2@db.internal:5432/prod"),
    ("url_password", "https://user:p4ssw0rd@git.example.com/repo.git"),
    ("bearer_token", "Authorization: Bearer " + A),
    ("env_secret", "DATABASE_PASSWORD=correct-horse-battery"),
    ("env_secret", 'export STRIPE_SECRET="not-a-known-shape-1234"'),
    ("env_secret", "MY_SERVICE_API_KEY=abcdef123456"),
    ("env_secret", "+API_KEY=abcd1234efgh5678"),  # an added .env line in a unified diff
    ("env_secret", " DB_PASS=hunter2hunter2"),  # a context line
    ("config_secret", "+db_password: s3cr3t-pass"),
    ("config_secret", "client_secret = 8f9a7b6c5d4e"),
    ("secret_assignment", '{"client_secret": "abcdefgh12345678"}'),
    ("secret_assignment", "password: 'swordfish-1234'"),
    ("pypi_token", "pypi-AgEIcHlwaS5vcmc" + A + A),
]

NOT_SECRETS = [
    "task-list and risk-assessment are ordinary words",
    "commit 0123456789abcdef0123456789abcdef01234567 fixed it",
    "uuid 01a22c42-d7e9-7a81-a69d-62548f13c3f0",
    "TOKEN=${GITHUB_TOKEN}",
    "API_KEY=",
    "password = get_password()",
    'api_key = os.environ["OPENAI_API_KEY"]',
    "https://example.com/path?q=1",
    "ssh://git@github.com/org/repo.git",
    "The token count was 1234 tokens.",
    "eyJ is how base64 JSON starts",
    "AKIA is the prefix of AWS access key ids",
    "sk-short",
    "SECRET_KEY=<your-secret-here>",
    "+    password = self.config.password",
    "token_count = 12345678",
    "max_tokens: 4096",
    "secret_key = settings.SECRET",
    "tokenizer = Tokenizer()",
]


@pytest.mark.parametrize(("kind", "text"), SECRETS, ids=[f"{k}-{n}" for n, (k, _) in enumerate(SECRETS)])
def test_secret_shapes_are_replaced_by_typed_placeholders(kind, text):
    """Each credential shape is replaced by a placeholder naming its kind, and counted."""
    out, counts = redact(text)
    assert f"[REDACTED:{kind}]" in out
    assert counts[kind] >= 1
    assert A[:20] not in out and "hunter2" not in out and "swordfish" not in out


def test_corpus_has_at_least_25_shapes():
    """The corpus the issue asks for covers at least 25 credential shapes."""
    assert len(SECRETS) >= 25


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_untouched(text):
    """Text that only looks near a secret is returned unchanged with no counts."""
    assert redact(text) == (text, {})


def test_redaction_is_idempotent():
    """Redacting already-redacted text changes nothing and counts nothing."""
    once, _ = redact("\n".join(t for _, t in SECRETS))
    twice, counts = redact(once)
    assert twice == once
    assert sum(counts.values()) == 0


def test_env_assignment_keeps_name_and_comment():
    """A .env line keeps its variable name and trailing comment; only the value goes."""
    assert redact("SECRET_KEY=abcd1234 # rotate monthly")[0] == "SECRET_KEY=[REDACTED:env_secret] # rotate monthly"


def test_redactor_accumulates_counts_across_strings_and_structures():
    """One Redactor walks nested JSON and keeps one running count by kind."""
    r = Redactor()
    out = r.walk({"a": ["ghp_" + A[:36], {"b": "AKIA" + "IOSFODNN7EXAMPLE"}], "c": 3})
    assert out == {"a": ["[REDACTED:github_token]", {"b": "[REDACTED:aws_access_key_id]"}], "c": 3}
    assert r.summary() == {"total": 2, "by_kind": {"aws_access_key_id": 1, "github_token": 1}}


@pytest.mark.parametrize(
    ("path", "secret"),
    [
        (".env", True),
        ("app/.env.production", True),
        (".env.example", False),
        ("/home/u/.ssh/id_ed25519", True),
        ("id_rsa.pub", False),
        ("certs/server.pem", True),
        ("/home/u/.aws/credentials", True),
        (".npmrc", True),
        ("src/tokens.py", False),
        ("README.md", False),
        ("config/secrets.yaml", True),
        (".git-credentials", True),
    ],
)
def test_secret_bearing_paths(path, secret):
    """Secret-bearing files are recognised by name and directory; templates and public keys are not."""
    assert is_secret_path(path) is secret


def test_the_end_of_a_key_without_its_begin_line_is_redacted():
    """`tail key.pem` output (base64 lines and the END line, no BEGIN) is still a private key."""
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"] * 5)
    text, counts = redact(f"$ tail -6 server.pem\n{body}\n-----END PRIVATE KEY-----\n$ ls")
    assert text == "$ tail -6 server.pem\n[REDACTED:private_key]\n$ ls" and counts == {"private_key": 1}
