"""Redaction stays linear on long word-like strings (base64 blobs, minified code in tool output).

Each bound is on the CPU time the call takes (``time.process_time``), not the wall clock: a quadratic pattern
takes minutes on these inputs, a linear one milliseconds, and waiting for a CPU that other processes hold (the
parallel test loop, a busy machine) is neither.
"""

from __future__ import annotations

import time

import pytest

from autopilot.redact import redact
from tests.support.measured import untraced


@untraced
def test_long_word_like_run_is_redacted_quickly():
    """A 200 KB run of word characters is scanned in well under a second, not quadratically."""
    start = time.process_time()
    redact("A" * 200_000 + ' api_key = "abcdefgh12345678"')
    assert time.process_time() - start < 1.0


def test_assignment_after_a_long_run_is_still_redacted():
    """Starting matches only at token boundaries still finds a key right after a long token."""
    text, counts = redact("x" * 5000 + ' token: "s3cr3t-value-123"')
    assert text.endswith('token: "[REDACTED:secret_assignment]"') and counts["secret_assignment"] == 1


@untraced
def test_names_repeating_a_secret_word_stay_linear():
    """A 100 KB line made of secret words ("tokentoken…", "A_TOKEN_B…") is scanned in linear time."""
    for text in ("token" * 20_000, "TOKEN" * 20_000, "x_token_y" * 11_000, "+" + "API_TOKEN" * 11_000):
        start = time.process_time()
        redact(text)
        assert time.process_time() - start < 1.0, text[:20]


@untraced
def test_a_long_key_tail_is_found_in_linear_time():
    """Walking back from an END line over thousands of base64 lines is one pass."""
    text = "\n".join(["QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="] * 20_000) + "\n-----END PRIVATE KEY-----"
    start = time.process_time()
    out, _ = redact(text)
    assert out == "[REDACTED:private_key]" and time.process_time() - start < 2.0


def _random_base64_lines(n: int, width: int = 64) -> list[str]:
    import base64
    import random

    rng = random.Random(5)
    return [base64.b64encode(rng.randbytes(width * 3 // 4)).decode() for _ in range(n)]


# Inputs built to make each pattern the hardening added backtrack, ~200 KB each (a quadratic
# pattern takes minutes on these; a linear one, milliseconds).
ADVERSARIAL = {
    "password= repeated": "password=" * 25_000,
    "an env value that does not end as one": "API_TOKEN=" + "a" * 20_000 + " '",  # 7 s before its lookahead
    "an env value with spaces before a quote": "export SECRET_KEY=" + "a b " * 10_000 + "'",
    "password=a repeated": "password=a " * 20_000,
    "--password repeated": "--password " * 20_000,
    "netrc fields": "machine h login u " * 12_000 + "\n" + "password \n" * 20_000,
    "header names": "x-api-key: " * 20_000,
    "url users": "redis://:" * 25_000,
    "sentry-like url": "https://" + "0" * 200_000,
    "escaped json keys": '\\"password\\": \\"' * 12_000,
    "docker auth keys": '"auth": "' * 20_000,
    "key names": "key" * 70_000,
    "key= repeated": "key=" * 50_000,
    "a long key value": "client-key-data: " + "A" * 200_000,
    "hunk headers": "\n".join("@@ -1,2 +1,2 @@ " + "a" * 50 for _ in range(4_000)),
    "grep prefixes": "\n".join("a" * 199 + ":" for _ in range(1_000)),
    "numbered lines": "\n".join("     1→" + "x" * 40 for _ in range(4_000)),
    "sig= repeated": "&sig=" * 40_000,
    "Private-Lines repeated": "Private-Lines: 3\n" * 12_000,
    "END lines": "-----END PRIVATE KEY-----\n" * 8_000,
    "short base64 lines": "\n".join("abcdefgh" for _ in range(25_000)),
    "base64 lines joined by a literal \\n": "\\n".join(_random_base64_lines(3_000)),
    "DER-like tokens": " ".join("MIIE" + line for line in _random_base64_lines(3_000)),
    "AWS key ids and separators": ("AKIA" + "IOSFODNN7EXAMPLE" + '", "') * 8_000,
    "CSV-like lines near a key id": "AKIA\n" + "\n".join("a" * 63 + "," + "b" * 127 for _ in range(1_000)),
    "dotted tokens": ("M" + "a" * 26 + ".abcdef." + "b" * 39 + " ") * 2_500,
    "bot ids": "1234567890123456:A" * 11_000,
    "quoted names and commas": "'password', '" * 16_000,
    "defaults after names": "API_TOKEN || '" * 14_000,
    "shell defaults": "${API_TOKEN:-" * 15_000,
    "arrows and walruses": "'password' => :password := " * 7_000,
    "short words at a name's end": "db_pass_pw_hmac_signing" * 9_000,
    "key names and hex": "ENCRYPTION_KEY=" + "a" * 200_000,
    "YAML block keys": "password: |\n  a\n" * 12_000,
    "YAML list keys": "passwords:\n" * 20_000 + "- a\n" * 20_000,
    "a long YAML block": "token: >-\n" + "  abcdefgh\n" * 20_000,
    "Kubernetes names": "- name: DB_PASSWORD\n  value: " * 6_000,
    "command names": "mysql sshpass redis-cli mongo docker login " * 5_000,
    "set flags": "set -x -g -u " * 16_000,
    "header flags": "-H 'token: " * 18_000,
    "cookie headers": "Cookie: a=" * 20_000 + "Set-Cookie: a=" * 10_000,
    "commented base64 lines": "\n".join("# > // " + line for line in _random_base64_lines(2_500)),
    "base64 lines escaped twice": "\\\\n".join(_random_base64_lines(2_800)),
    "concatenated base64 lines": "\n".join(f'"{line}\\n" +' for line in _random_base64_lines(2_800)),
    "comment markers": "# // -- " * 25_000,
}


@untraced
@pytest.mark.slow
def test_new_patterns_stay_linear():
    """Inputs built to make the added patterns backtrack are each redacted in well under two seconds."""
    slow = {}
    for name, text in ADVERSARIAL.items():
        start = time.process_time()
        redact(text)
        took = time.process_time() - start
        if took > 2.0:
            slow[name] = round(took, 2)
    assert slow == {}


@untraced
def test_a_long_run_of_key_lines_is_found_in_linear_time():
    """Thousands of base64 body lines (a key's middle in a huge diff) are grouped in one pass."""
    text = "\n".join("+" + line for line in _random_base64_lines(20_000))
    start = time.process_time()
    out, counts = redact(text)
    assert out == "+[REDACTED:key_material]" and time.process_time() - start < 2.0
