"""Redaction stays linear on long word-like strings (base64 blobs, minified code in tool output)."""

from __future__ import annotations

import time

from autopilot.redact import redact


def test_long_word_like_run_is_redacted_quickly():
    """A 200 KB run of word characters is scanned in well under a second, not quadratically."""
    start = time.perf_counter()
    redact("A" * 200_000 + ' api_key = "abcdefgh12345678"')
    assert time.perf_counter() - start < 1.0


def test_assignment_after_a_long_run_is_still_redacted():
    """Starting matches only at token boundaries still finds a key right after a long token."""
    text, counts = redact("x" * 5000 + ' token: "s3cr3t-value-123"')
    assert text.endswith('token: "[REDACTED:secret_assignment]"') and counts["secret_assignment"] == 1


def test_names_repeating_a_secret_word_stay_linear():
    """A 100 KB line made of secret words ("tokentoken…", "A_TOKEN_B…") is scanned in linear time."""
    for text in ("token" * 20_000, "TOKEN" * 20_000, "x_token_y" * 11_000, "+" + "API_TOKEN" * 11_000):
        start = time.perf_counter()
        redact(text)
        assert time.perf_counter() - start < 1.0, text[:20]


def test_a_long_key_tail_is_found_in_linear_time():
    """Walking back from an END line over thousands of base64 lines is one pass."""
    text = "\n".join(["QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo="] * 20_000) + "\n-----END PRIVATE KEY-----"
    start = time.perf_counter()
    out, _ = redact(text)
    assert out == "[REDACTED:private_key]" and time.perf_counter() - start < 2.0
