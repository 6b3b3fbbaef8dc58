"""Bare tokens: a generated-looking token is withheld wherever it stands, whatever its prefix, or with none.

Formats from providers' documentation that no provider rule lists (container registries, fintech and cloud-storage
keys, cloud session tokens, runner registration tokens, service tokens with an environment segment), in prose, a
file name and a branch name; and what must stay: ids, digests, UUIDs, versions, names, paths, URLs, alphabets,
base64 of text, pictures, certificates and public keys. Values are made at run time.
"""

from __future__ import annotations

import base64
import random
import string
import textwrap
import time

import pytest

from autopilot.redact import redact
from tests.support.measured import untraced

RNG = random.Random(3535)
BASE62 = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
URLSAFE = BASE62 + "-_"


def draw(n: int, alphabet: str = BASE62) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def b64(nbytes: int) -> str:
    return base64.b64encode(RNG.randbytes(nbytes)).decode()


WITHHELD = {
    "a Doppler service token, its environment between prefix and body": "dp.st.prd." + draw(43),
    "a GitLab runner registration token": "GR1348941" + draw(20, URLSAFE),
    "an AWS session token": "IQoJb3JpZ2luX2VjE" + b64(600),
    "an Azure storage account key": b64(64),
    "a Quay robot token": draw(64, UPPER),
    "a Google Cloud Storage HMAC access id": "GOOG1E" + draw(55, UPPER),
    "a Backblaze B2 application key": "K005" + draw(27),
    "a Cloudflare API token": draw(40, URLSAFE),
    "a DigitalOcean Spaces secret": b64(32).rstrip("="),
    "a Scaleway secret, lower case and digits": draw(36, string.ascii_lowercase + string.digits),
    "an Adyen-like API key": "AQE" + draw(8) + "+" + b64(90),
    "a Braintree access token": "access_token$production$"
    + draw(16, string.ascii_lowercase + string.digits)
    + "$"
    + draw(32, "0123456789abcdef"),
}


@pytest.mark.parametrize("token", WITHHELD.values(), ids=WITHHELD.keys())
def test_a_generated_token_of_a_format_nobody_listed_is_withheld_wherever_it_stands(token):
    """In a sentence, a log line, a JSON value, a file name in a path and a branch name: not one character stays."""
    for text in (
        f"they pasted {token} into the channel",
        f"2026-12-07 INFO using {token} for staging",
        f'{{"value": "{token}"}}',
        f"git add notes/{token}.md",
        f"On branch feature/{token}",
    ):
        out, counts = redact(text)
        assert token not in out and sum(counts.values()) >= 1, (text, out)
        assert not any(piece in out for piece in token.split("$")[2:]), out


def test_ninety_seven_in_a_hundred_random_tokens_are_withheld():
    """Of 2,000 random base62 tokens of 20-64 characters with both cases and a digit, standing alone, 97% or more are
    withheld (a random run that happens to read like a name is the rest)."""
    rng = random.Random(35)
    tokens = []
    while len(tokens) < 2000:
        t = "".join(rng.choice(BASE62) for _ in range(rng.randint(20, 64)))
        if any(c.isupper() for c in t) and any(c.islower() for c in t) and any(c.isdigit() for c in t):
            tokens.append(t)
    withheld = sum(redact(f"see {t} here")[0] == "see [REDACTED:bare_token] here" for t in tokens)
    assert withheld >= 0.97 * len(tokens)


KEPT = [
    "toolu_01A09q90qw90lq917835lq9 msg_01XFDUDYJgAACzvnptvVoYEL8a3bCdEfGh call_wKayJlcYV12NiadiZuJXxcfx",
    "req_011CX7aBcDeFgHiJkLmN chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT file-6QkaLDmpCamPX4aV4mCqEM",
    "integrity sha512-9z17t4bbUJ9UCIb49O4PoA+ki+45q3rd8nZ8PeH6sYnlKkBld/Xpo/OS3h3Ti954+foshX4o7k5TCU8N7zzqQA==",
    "550e8400-e29b-41d4-a716-446655440000 and 3f2a9b1c4d5e6f708192a3b4c5d6e7f8a9b0c1d2",
    "numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "rollout-2026-12-01T06-13-56-01a2303d-0c6c-7a82-b836-48d9fd80443d.jsonl",
    "Linux-5.10.81-android12-9-00001-geba40aecb3b7-ab8534902-aarch64-with-libc",
    "20261201T043731.098765Z-a1b2c3 and v2.14.0-rc.3+build.5678",
    "CPyList_GetItemInt64Borrow MCC_GetSlowCompTauX20Enable windll.shell32.SHGetFolderPathW",
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 abcdefghijklmnopqrstuvwxyz0123456789",
    "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",  # bech32's character set: every character once
    "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
    "usr/lib/python3.11/site-packages/foo/bar and src/Autopilot/Redact/Bare2024/Generic",
    "https://docs.google.com/document/d/12HVmFxYj5Jc-eJr5OmWsa2bqTJsbgGLKI6ZIyx0_wpA/edit",
    base64.b64encode(b"just a perfectly ordinary sentence, nothing else at all").decode(),
    base64.b64encode(bytes(range(256))).decode(),
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + draw(43) + " user@host",
]


@pytest.mark.parametrize("text", KEPT)
def test_ids_digests_names_paths_urls_alphabets_and_text_are_kept(text):
    """What only looks generated (an id, a digest, a UUID, a version, a name, a path, a URL, an alphabet, base64 of
    text or of a byte table, a public key) is no token."""
    assert redact(text) == (text, {})


def test_a_wrapped_picture_or_certificate_is_data_every_line_of_it():
    """A base64 block whose first line opens a PNG, or a certificate's body in its armour, keeps every line."""
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + RNG.randbytes(600)).decode()
    picture = "\n".join(textwrap.wrap(png, 76))
    cert = "-----BEGIN CERTIFICATE-----\n" + "\n".join(textwrap.wrap(b64(700), 64)) + "\n-----END CERTIFICATE-----"
    for text in (picture, "\n".join("// " + line for line in picture.split("\n")), cert):
        assert redact(text)[0] == text


@untraced
@pytest.mark.parametrize(
    "text",
    [
        "Zq9" * 70_000,  # one 210 KB run of token characters
        ("Ab1/" * 50_000) + "x",  # a 200 KB base64-like run of slashes
        "a-" * 100_000 + "+",  # separators, then a character that refuses the end
        ("Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0." * 8000) + "=",
        "x" + "+=" * 100_000,
    ],
    ids=["a long run", "slashes", "separators", "dotted", "padding"],
)
def test_the_rule_stays_linear_on_long_runs(text):
    """200 KB runs built to make the two patterns backtrack are judged in well under two seconds of CPU."""
    start = time.process_time()
    redact(text)
    assert time.process_time() - start < 2.0


# -- a bare token inside public armour (a certificate, a public key) is kept; outside it is withheld -----------------
# The armour is looked up in the text's BEGIN and END lines, found once per text: these put tokens before, inside,
# between and after blocks of several kinds, and tokens in a long text redacted whole must come out as line by line.


def token() -> str:
    return draw(40)


def armoured(kind: str, body: str) -> str:
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def test_a_token_is_kept_inside_public_armour_and_withheld_everywhere_else():
    inside_cert, inside_pub, inside_key, before, between, after = (token() for _ in range(6))
    text = "\n".join(
        [
            f"before {before}",
            armoured("CERTIFICATE", f"comment {inside_cert}"),
            f"between {between}",
            armoured("PUBLIC KEY", f"comment {inside_pub}"),
            armoured("RSA PRIVATE KEY", f"Proc-Type: x {inside_key}"),
            f"after {after}",
        ]
    )
    out = redact(text)[0]
    assert inside_cert in out and inside_pub in out
    for withheld in (before, between, inside_key, after):
        assert withheld not in out, withheld


def test_an_unclosed_public_block_keeps_what_follows_and_a_begin_inside_the_token_line_does_not_count():
    kept, withheld = token(), token()
    assert kept in redact(f"-----BEGIN CERTIFICATE-----\nx {kept}")[0]
    # BEGIN's literal must end before the run: a run right after `-----BEGIN ` is outside any block
    assert withheld not in redact(f"x -----END CERTIFICATE----- y {withheld}")[0]


def test_a_long_text_is_redacted_as_its_lines_are_one_by_one():
    """Tokens among many lines of ordinary text and armoured blocks: the text redacted whole withholds what its
    lines (and blocks) redacted apart withhold, at the same places."""
    pieces = []
    for n in range(120):
        choice = n % 7
        if choice == 0:
            pieces.append(f"line {n} holds {token()} in it")
        elif choice == 3:
            pieces.append(armoured("CERTIFICATE", f"kept {token()}"))
        else:
            pieces.append(f"an ordinary line {n} of words and a_name_of_some_length_{n}")
    whole = redact("\n".join(pieces))[0]
    assert whole == "\n".join(redact(piece)[0] for piece in pieces)
    assert whole.count("[REDACTED:bare_token]") == sum(1 for n in range(120) if n % 7 == 0)
