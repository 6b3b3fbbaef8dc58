"""A bare token inside an armoured block that is public (a certificate, a public key) is kept; outside it is withheld.

The armour is looked up in the text's BEGIN and END lines, found once per text: these put tokens before, inside,
between and after blocks of several kinds, and tokens in a long text redacted line by line must come out the same.
"""

from __future__ import annotations

import random
import string

from autopilot.redact import redact

RNG = random.Random(3537)
BASE62 = string.ascii_letters + string.digits


def token() -> str:
    return "".join(RNG.choice(BASE62) for _ in range(40))


def block(kind: str, body: str) -> str:
    return f"-----BEGIN {kind}-----\n{body}\n-----END {kind}-----"


def test_a_token_is_kept_inside_public_armour_and_withheld_everywhere_else():
    inside_cert, inside_pub, inside_key, before, between, after = (token() for _ in range(6))
    text = "\n".join(
        [
            f"before {before}",
            block("CERTIFICATE", f"comment {inside_cert}"),
            f"between {between}",
            block("PUBLIC KEY", f"comment {inside_pub}"),
            block("RSA PRIVATE KEY", f"Proc-Type: x {inside_key}"),
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
            pieces.append(block("CERTIFICATE", f"kept {token()}"))
        else:
            pieces.append(f"an ordinary line {n} of words and a_name_of_some_length_{n}")
    whole = redact("\n".join(pieces))[0]
    assert whole == "\n".join(redact(piece)[0] for piece in pieces)
    assert whole.count("[REDACTED:bare_token]") == sum(1 for n in range(120) if n % 7 == 0)
