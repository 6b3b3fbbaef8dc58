"""A red-team pass over redaction: 45 more providers' formats, unknown prefixed tokens, secrets split across string
literals and secrets encoded (base64, hex, escapes) are withheld; transcript ids, digests and prose are kept."""

from __future__ import annotations

import base64
import time

import pytest

from autopilot.handoff.memory import observe
from autopilot.redact import redact
from tests.support.measured import untraced
from tests.support.secret_corpus import alnum, placed_in, redteamed

SHAPES = redteamed()
TOKENS = [s for s in SHAPES if s.token]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.name for s in SHAPES])
def test_each_shape_is_withheld_alone_and_in_a_file(shape):
    """The shape as written, and placed in a file, keeps none of its secret parts."""
    for text in (shape.text, placed_in(shape)):
        out, counts = redact(text)
        assert sum(counts.values()) >= 1 and not [n for n in shape.needles if n in out], out


@pytest.mark.parametrize("shape", TOKENS, ids=[s.name for s in TOKENS])
def test_each_token_is_withheld_in_a_query_string_and_a_log_line(shape):
    """A provider's token needs no credential name next to it: in a URL's query or a log line it goes too."""
    for text in (f"GET https://api.example.com/v1?key={shape.token}&page=2", f"INFO created {shape.token}"):
        assert shape.token not in redact(text)[0]


@pytest.mark.parametrize(
    "text",
    [
        "toolu_01A09q90qw90lq917835lq9AbCdEf12345",  # Anthropic's tool-use id
        "call_AbCdEf1234567890XyZaBcDeFgHiJ12abc",  # OpenAI's tool-call id
        "msg_01XFDUDYJgAACzvnptvVoYEL8a3bCdEfGh",
        "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        '"integrity": "sha512-Zk9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUpL"',
        "application-5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592.css",  # an asset digest
    ],
)
def test_ids_digests_and_file_names_are_kept(text):
    """Ids that transcripts are full of, digests and hashed file names are not tokens."""
    assert redact(text)[0] == text


def test_an_unknown_vendors_prefixed_token_is_withheld():
    """A short prefix, a separator and a long generated body: withheld whatever the vendor."""
    token = "zq_live_" + alnum(40)
    assert redact(f"use {token} for staging")[0] == "use zq_live_[REDACTED:prefixed_token] for staging"


@pytest.mark.parametrize(
    "text",
    [
        'msg = "hello " + name + " and welcome to our site, we are glad"',
        "url = 'https://' + host + '/api/v1/items/' + str(item_id)",
        'parts = ("first sentence of a long message, "\n         "and the second one")',
    ],
)
def test_joined_literals_that_hold_no_secret_are_kept(text):
    """Concatenated prose and paths stay as written."""
    assert redact(text)[0] == text


def test_base64_of_ordinary_text_and_of_binary_is_kept():
    """An encoded run is withheld only when its decoded text holds a secret."""
    plain = base64.b64encode(b"just a perfectly ordinary sentence, nothing else").decode()
    binary = base64.b64encode(bytes(range(256))).decode()
    assert redact(f"a {plain} b {binary}")[0] == f"a {plain} b {binary}"


def test_escaped_bytes_of_a_token_are_withheld_too():
    """`\\xNN` escapes of a token are decoded and judged like `\\u00NN` ones."""
    token = "ghp_" + alnum(36)
    escaped = "".join(f"\\x{ord(c):02x}" for c in token)
    assert redact(f'key = b"{escaped}"')[0] == 'key = b"[REDACTED:encoded_github_token]"'


def test_the_at_rest_screen_sends_escaped_text_to_the_redactor():
    """The hooks' cheap screen lets no escaped secret through to the stores."""
    escaped = "".join(f"\\u{ord(c):04x}" for c in "ghp_" + alnum(36))
    assert observe.needs_redaction(escaped) and redact(escaped)[0] != escaped


@untraced
@pytest.mark.parametrize(
    "text",
    [
        '"a" + ' * 20_000,
        "'" + "x" * 100_000 + "'",
        "QUJD" * 50_000,
        "\\u0041" * 50_000,
        "ab_" + "Ab1" * 50_000,
    ],
)
def test_each_new_pattern_is_linear(text):
    """Long hostile inputs to the joined-literal, encoded-run and prefixed-token rules are redacted quickly."""
    start = time.process_time()
    redact(text)
    assert time.process_time() - start < 2.0
