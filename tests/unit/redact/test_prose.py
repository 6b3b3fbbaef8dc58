"""Credentials said in words: a credential word, a few words, a connector, and a value-shaped word.

What a person or an agent writes in a message or a note ("the staging db password is …", "our analytics api key
is <32 hex>", "webhook secret: …"), and what only talks about a secret (a sentence, code, a type annotation) and
must stay. Values are made at run time.
"""

from __future__ import annotations

import random
import string

import pytest

from autopilot.redact import redact

RNG = random.Random(3537)


def draw(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


HEX32 = draw(32, "0123456789abcdef")
PW = "Hunter2" + draw(6) + "!"
SAID = {
    "the staging db password is …": (f"the staging db password is {PW}", PW),
    "our analytics api key is <32 hex>": (f"our analytics api key is {HEX32}.", HEX32),
    "webhook secret: …": (f"webhook secret: {draw(24)}", None),
    "the token for prod is …": (f"The token for prod is {draw(8)}7x", None),
    "a note's line with a name of several words": (f"Staging DB password: {PW}", PW),
    "a password said to be set": (f"I set the api key to {(KEY := draw(10) + '42')} earlier", KEY),
    "the password is: …": (f"The password is: {draw(6)}9", None),
    "a quoted value": (f'the passphrase is "{(PHRASE := draw(9) + "3 " + draw(4))}"', PHRASE),
    "an access key in a chat message": (f"ok the access key is now {draw(20, string.ascii_uppercase)}7", None),
    "credentials -> …": (f"prod credentials -> {draw(8)}9{draw(3)}", None),
}


@pytest.mark.parametrize("case", SAID.values(), ids=SAID.keys())
def test_a_credential_said_in_a_sentence_or_a_note_is_withheld(case):
    """The value after the credential word goes; the sentence around it stays."""
    text, secret = case
    value = secret or text.rsplit(" ", 1)[-1].strip('".')
    out, counts = redact(text)
    assert value not in out and counts, out
    assert out.split(" ")[0] == text.split(" ")[0]  # the sentence stays readable


ABOUT_A_SECRET = [
    "the token is valid for 3600s",
    "password is required",
    "if token is None:",
    "the secret is stored in ~/.aws/credentials",
    "api_key: Optional[str] = None",
    "the token is base64-encoded and sha256-hashed",
    "password must be at least 8 characters",
    "the secret key was rotated on 2024-01-15",
    "the api key is in the vault at secret/data/prod",
    "the password is user@example.com's to change",
    "token = tokens[0]",
    "tokens are 8 bytes long",
    "the API key is per-project and the token is short-lived",
    "set the token to None to disable it",
    "the secret is: don't commit it",
    "pin is 4821",
    "secret: ${{ secrets.API_TOKEN }}",
    "The token expires in 15m; the key is rotated every 90d.",
]


@pytest.mark.parametrize("text", ABOUT_A_SECRET)
def test_text_about_a_secret_is_kept(text):
    """A sentence about a secret, code, a type, an enum, a colour, a stand-in or a documentation URL has no value-
    shaped word where a credential would stand: nothing is withheld."""
    assert redact(text) == (text, {})
