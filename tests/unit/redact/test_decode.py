"""Decoding before matching: a credential written in escapes or cut across lines is judged as it reads.

JSON ``\\u`` escapes (once or escaped again), ``\\x`` escapes, HTML entities (numeric and named), URL encoding, a
shell's line continuation, a token cut after its ``=`` (the line break a wrapped value gets), base64 of an env
file (wrapped as ``base64`` wraps it) and of a key. And what must stay as written: ordinary escapes, printf formats,
percentages, entities in prose, continued lines that hide nothing.
"""

from __future__ import annotations

import base64
import random
import string
import textwrap

import pytest

from autopilot.redact import redact

RNG = random.Random(3536)
BASE62 = string.ascii_letters + string.digits


def draw(n: int) -> str:
    return "".join(RNG.choice(BASE62) for _ in range(n))


GHP = "ghp_" + draw(36)
PASSWORD = "Qx7" + draw(12) + "!"


def json_escaped(text: str, every: bool = False) -> str:
    return "".join(f"\\u{ord(c):04x}" if every or c in "_-=:" else c for c in text)


def entities(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


HIDDEN = {
    "a JSON \\u escape inside a token": (f'{{"token": "{json_escaped(GHP)}"}}', GHP[4:]),
    "a token escaped again in a JSON string": (
        '{"out": "{\\\\"t\\\\": \\\\"' + json_escaped(GHP).replace("\\", "\\\\") + '\\\\"}"}',
        GHP[4:],
    ),
    "a whole token in \\u escapes": (f'"k": "{json_escaped(GHP, every=True)}"', json_escaped(GHP[10:20], every=True)),
    "an HTML numeric entity inside a token": (f"<code>ghp&#95;{GHP[4:]}</code>", GHP[4:]),
    "an HTML hex entity inside a token": (f"<code>ghp&#x5F;{GHP[4:]}</code>", GHP[4:]),
    "an HTML named entity inside a token": (f"<td>ghp&lowbar;{GHP[4:]}</td>", GHP[4:]),
    "a whole token in entities": (f"<p>{entities(GHP)}</p>", entities(GHP[10:20])),
    "a password behind entities": (f"password&#61;{PASSWORD}", PASSWORD),
    "a password URL-encoded": (f"q=password%3D{PASSWORD.replace('!', '%21')}", PASSWORD[:-1]),
    "a token URL-encoded whole": ("".join(f"%{ord(c):02X}" for c in GHP), "".join(f"%{ord(c):02X}" for c in GHP[8:16])),
    "a shell line continuation inside a token": (f"export GH_TOKEN={GHP[:20]}\\\n{GHP[20:]}\n./deploy.sh", GHP[20:]),
    "a continuation inside a header value": (
        f'curl -H "Authorization: Bearer \\\n   {PASSWORD}{draw(12)}" https://x',
        PASSWORD,
    ),
    "a token cut after its =": ("ATATT3xFfGF0" + "Ab3Cd4Ef5Gh6" * 6 + "=\nABCD1234", "ABCD1234"),
}


@pytest.mark.parametrize("case", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_credential_hidden_by_how_it_is_written_is_withheld(case):
    """No part of the secret survives, escaped or plain."""
    text, secret = case
    out, counts = redact(text)
    assert secret not in out and sum(counts.values()) >= 1, out


def test_base64_of_an_env_file_wrapped_as_base64_wraps_it_is_withheld():
    """`base64 .env` output (76 characters a line): the block decodes to an env file with a password in it."""
    env = f"APP_ENV=production\nDB_HOST=db.internal\nDB_PASSWORD={PASSWORD}\nLOG_LEVEL=info\n" * 2
    wrapped = "\n".join(textwrap.wrap(base64.b64encode(env.encode()).decode(), 76))
    out, counts = redact(f"$ base64 .env\n{wrapped}\n")
    assert sum(counts.values()) >= 1
    assert not any(line in out for line in wrapped.split("\n")), out


def test_base64_of_a_key_file_is_withheld():
    """A PEM key, base64-encoded again (a Kubernetes secret's value), is withheld."""
    body = "\n".join(
        textwrap.wrap(base64.b64encode(bytes.fromhex("308204a40201000282010100") + RNG.randbytes(600)).decode(), 64)
    )
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    encoded = base64.b64encode(pem.encode()).decode()
    out, counts = redact(f"  tls.key: {encoded}\n")
    assert encoded[100:140] not in out and sum(counts.values()) >= 1


KEPT = [
    'print("caf\\u00e9 and na\\u00efve")',
    'log("\\x1b[31mred\\x1b[0m")',
    "printf('%02x %s %d', a, b, c) and 50% of 100%",
    "https://example.com/search?q=hello%20world&lang=en",
    "Fish &amp; chips &lt;b&gt;bold&lt;/b&gt; &copy; 2026",
    "cmd --flag \\\n  --other value \\\n  --last",
    "TOTAL=\n42",
    '<a href="/x?a=1&amp;b=2">link</a>',
]


@pytest.mark.parametrize("text", KEPT)
def test_escapes_and_continued_lines_that_hide_nothing_stay_as_written(text):
    """Decoding is a way to see, not a rewrite: a text whose decoded form holds no secret comes back unchanged."""
    assert redact(text) == (text, {})
