"""Private keys and key material found by their body: behind comments, cut, in diff hunks, as DER, PuTTY, OpenSSH."""

from __future__ import annotations

import base64
import hashlib
import json
import textwrap

import pytest

from autopilot.redact import redact
from tests.support.secret_corpus import der_pkcs8, der_rsa, key_needles, openssh_key, pem, ppk
from tests.unit.test_redact import CERT_DER, PNG

BODY = pem("RSA PRIVATE KEY", der_rsa()).splitlines()[3:9]  # six middle lines: no BEGIN, no END


KEY_BODIES = {
    "hash comments": "\n".join("# " + line for line in BODY),
    "slash comments": "\n".join("// " + line for line in BODY),
    "a block comment": "/*\n" + "\n".join(" * " + line for line in BODY) + "\n */",
    "SQL comments": "\n".join("-- " + line for line in BODY),
    "a mail quote": "\n".join("> > " + line for line in BODY),
    "Python concatenation": "KEY = (\n" + "\n".join(f'    "{line}\\n"' for line in BODY) + "\n)",
    "JavaScript concatenation": "const k = " + " +\n".join(f'"{line}\\n"' for line in BODY) + ";",
    "JSON inside JSON": json.dumps(json.dumps({"data": "\n".join(BODY) + "\n"})),
    "a comment and a line number": "\n".join(f"{n:6d}→# {line}" for n, line in enumerate(BODY, 4)),
}


@pytest.mark.parametrize("text", KEY_BODIES.values(), ids=KEY_BODIES.keys())
def test_key_bodies_behind_a_prefix_are_key_material(text):
    """Body lines behind a comment or quote marker, in string concatenation or escaped twice are redacted."""
    out, counts = redact(text)
    assert counts["key_material"] == 1 and not [n for n in key_needles("\n".join(BODY)) if n in out], out


def test_a_commented_key_tail_goes_with_its_end_line():
    """`# ` before every line of a key's tail, its END line included: the run is a private key to its end."""
    lines = pem("PRIVATE KEY", der_pkcs8()).splitlines()[-5:]
    assert redact("\n".join("# " + line for line in lines)) == ("# [REDACTED:private_key]", {"private_key": 1})


@pytest.mark.parametrize(
    "text",
    [
        "\n".join("# " + hashlib.sha256(str(i).encode()).hexdigest() for i in range(4)),
        "\n".join("// " + line for line in textwrap.wrap(PNG, 76)),
        "# ThisIsAVeryLongCamelCaseIdentifierName123\n# AnotherVeryLongCamelCaseIdentifierNameXY",
        "\n".join("> " + line for line in pem("CERTIFICATE", CERT_DER).splitlines()),
    ],
    ids=["hex digests", "a picture", "identifiers", "a quoted certificate"],
)
def test_commented_base64_that_is_no_key_is_kept(text):
    """Digests, pictures, long names and certificates behind a comment marker stay as they are."""
    assert redact(text) == (text, {})


def test_the_end_of_a_key_without_its_begin_line_is_redacted():
    """`tail key.pem` output (base64 lines and the END line, no BEGIN) is still a private key."""
    body = "\n".join(["MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"] * 5)
    text, counts = redact(f"$ tail -6 server.pem\n{body}\n-----END PRIVATE KEY-----\n$ ls")
    assert text == "$ tail -6 server.pem\n[REDACTED:private_key]\n$ ls" and counts == {"private_key": 1}


def test_the_middle_of_a_key_in_a_diff_hunk_is_key_material():
    """A key file changed in the middle shows only body lines: a run of equal-width random base64 is redacted."""
    lines = pem("RSA PRIVATE KEY", der_rsa()).splitlines()
    hunk = "@@ -8,7 +8,7 @@\n" + "\n".join(" " + line for line in lines[6:9]) + f"\n-{lines[9]}\n+{lines[9][::-1]}\n"
    out, counts = redact(hunk + "\n".join(" " + line for line in lines[10:13]))
    assert out == "@@ -8,7 +8,7 @@\n [REDACTED:key_material]" and counts == {"key_material": 1}


def test_a_key_line_in_a_hunk_header_joins_the_body():
    """Git puts the line above a hunk in its header; a key body line there is redacted with the rest."""
    lines = pem("RSA PRIVATE KEY", der_rsa()).splitlines()
    out, _ = redact(f"@@ -5,7 +5,7 @@ {lines[4]}\n" + "\n".join(" " + line for line in lines[5:9]))
    assert out == "@@ -5,7 +5,7 @@ [REDACTED:key_material]"


def test_a_key_line_in_a_hunk_header_may_open_with_a_plus():
    """A body line in a hunk header that opens with `+` (a base64 character, not a diff marker there) is withheld
    whole: no character of it is kept (one random key in 64 opens that line so)."""
    lines = pem("RSA PRIVATE KEY", der_rsa()).splitlines()
    out, _ = redact(f"@@ -5,7 +5,7 @@ +{lines[4][1:]}\n" + "\n".join(" " + line for line in lines[5:9]))
    assert out == "@@ -5,7 +5,7 @@ [REDACTED:key_material]"


def test_a_key_read_with_line_numbers_is_redacted():
    """Body lines as Claude Code's Read shows them (`  12→…`), without BEGIN or END, are key material."""
    body = pem("PRIVATE KEY", der_pkcs8()).splitlines()[5:12]
    out, _ = redact("\n".join(f"{n:6d}→{line}" for n, line in enumerate(body, 6)))
    assert not [n for n in key_needles("\n".join(body)) if n in out]


def test_base64_wrapped_keys_are_private_keys():
    """kubeconfig's client-key-data and a Secret's tls.key (base64 of a PEM key) are recognised by content."""
    key = base64.b64encode(pem("RSA PRIVATE KEY", der_rsa()).encode()).decode()
    out, counts = redact(f"    client-key-data: {key}\n  tls.key: {key}\n")
    assert out == "    client-key-data: [REDACTED:private_key]\n  tls.key: [REDACTED:private_key]\n"
    assert counts == {"private_key": 2}


def test_a_der_key_on_one_line_is_recognised_by_its_structure():
    """Base64 DER that opens like a private key (SEQUENCE, version, key) is redacted wherever it stands."""
    der = base64.b64encode(der_pkcs8()).decode()
    assert redact(f"signing: {der}") == ("signing: [REDACTED:private_key]", {"private_key": 1})


def test_putty_private_lines_are_redacted_and_public_lines_kept():
    """A .ppk's Private-Lines go; its public lines, a public key, stay readable."""
    text = ppk()
    out, counts = redact(text)
    public, private = text.split("Private-Lines:")
    assert public.split("\n", 1)[1] in out and counts == {"private_key": 1}
    assert not [n for n in key_needles(private) if n in out]


def test_openssh_key_body_without_its_armour_is_redacted():
    """The first body line of an OpenSSH key (base64 of `openssh-key-v1`) marks the run as a private key."""
    body = "\n".join(openssh_key().splitlines()[1:-1])
    assert redact(body) == ("[REDACTED:private_key]", {"private_key": 1})


@pytest.mark.parametrize("opening", ["//", "+", "/+"])
def test_a_cut_key_whose_first_line_opens_like_a_marker_goes_whole(opening):
    """Base64 may open a line with "//" or "+": inside a string they are the key's, not a comment or diff marker."""
    lines = pem("PRIVATE KEY", der_pkcs8()).splitlines()
    first = opening + lines[-4][len(opening) :]
    text = '{"key": "' + "\\n".join([first, *lines[-3:]]) + '\\n"}'
    assert redact(text) == ('{"key": "[REDACTED:private_key]\\n"}', {"private_key": 1})


def test_a_cut_key_in_a_json_string_is_redacted_to_its_end_line():
    """A key cut out of a JSON string (literal \\n between lines, no BEGIN) goes with its END line."""
    lines = pem("PRIVATE KEY", der_pkcs8()).splitlines()
    text = '{"key": "' + "\\n".join(lines[-4:]) + '\\n"}'
    assert redact(text) == ('{"key": "[REDACTED:private_key]\\n"}', {"private_key": 1})
