"""Secret-bearing files: known by their path (templates and public keys are not), or a key file by its content."""

from __future__ import annotations

import pytest

from autopilot.redact import is_key_file_text, is_public_path, is_secret_path
from tests.support.secret_corpus import der_rsa, openssh_key, pem, ppk
from tests.unit.test_redact import CERT_DER


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
        ("keys/deploy.ppk", True),
        ("ops/kubeconfig", True),
        ("infra/terraform.tfstate", True),
        (".htpasswd", True),
        ("src/keyboard.py", False),
    ],
)
def test_secret_bearing_paths(path, secret):
    """Secret-bearing files are recognised by name and directory; templates and public keys are not."""
    assert is_secret_path(path) is secret


@pytest.mark.parametrize(
    ("text", "key_file"),
    [
        (pem("RSA PRIVATE KEY", der_rsa()), True),
        (ppk(), True),
        ("apiVersion: v1\nusers:\n- user:\n    client-key-data: LS0tLS1CRUdJTi\n", True),
        (openssh_key().split("\n", 1)[1], True),
        ('KEY = "-----BEGIN RSA PRIVATE KEY-----\\nMIIE..."\n', False),  # a test string
        ('PATTERN = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----"\n', False),  # a regex
        (pem("CERTIFICATE", CERT_DER), False),
    ],
)
def test_key_files_are_recognised_by_content(text, key_file):
    """A key file's telltale whole line marks it, whatever its name; code that mentions one does not."""
    assert is_key_file_text(text) is key_file


@pytest.mark.parametrize(
    ("path", "public"),
    [(".env.example", True), ("config/app.env.sample", True), ("settings.py.dist", True), ("id_rsa.pub", True)]
    + [(".env", False), ("settings.txt", False)],
)
def test_templates_and_public_keys_are_public_paths(path, public):
    """Templates and public keys hold no secret by design: content never withholds them."""
    assert is_public_path(path) is public


def test_counts_count_as_a_counter_does():
    """redact.Counts, the redactor's count by kind without collections: a kind not seen is 0 (and not added), += and
    update add, and it equals the Counter of the same counts; a Counter given to redact() is counted the same."""
    from collections import Counter

    from autopilot.redact import Counts, redact

    counts = Counts()
    assert counts["bare_token"] == 0 and "bare_token" not in counts
    counts["bare_token"] += 1
    counts.update(Counts(bare_token=2, prose_secret=1))
    counts.update(Counter(prose_secret=1))
    assert counts == Counter(bare_token=3, prose_secret=2) == {"bare_token": 3, "prose_secret": 2}
    text = "deploy with the api key sk-proj-" + "Ab3Cd4Ef5" * 5
    given: Counter[str] = Counter(openai_api_key=1)
    out, found = redact(text, given)
    assert found is given and given == Counter(openai_api_key=2) and redact(text)[1] == {"openai_api_key": 1}
    assert out == "deploy with the api key [REDACTED:openai_api_key]"
