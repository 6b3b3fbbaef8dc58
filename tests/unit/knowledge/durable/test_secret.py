"""A passphrase worth its name: guessable ones refused by a maintained estimate, and an offline guess kept costly."""

from __future__ import annotations

import json

import pytest

from autopilot.errors import BridgeError
from autopilot.knowledge.durable import anchor, secret


@pytest.mark.parametrize(
    "guessable",
    [
        "password1234",
        "iloveyou2024",
        "qwertyuiop123",
        "letmeinplease",
        "Summer2024!!",
        "Password12345!",
        "hunter2hunter2",
    ],
)
def test_a_common_passphrase_of_twelve_characters_or_more_is_refused(guessable):
    """Long enough is not enough: a passphrase zxcvbn scores under 4 is refused with its advice; nothing is stored."""
    with pytest.raises(BridgeError, match=r"too easy to guess \(strength [0-3] of 4"):
        secret.set_passphrase(guessable, None)
    assert not secret.path().exists() and not anchor.path(secret.home()).exists()


def test_a_strong_passphrase_is_taken_at_the_full_cost():
    """A sentence zxcvbn scores 4 is stored at scrypt's full cost (n=2^17: 128 MiB a guess), as a public key."""
    rec = secret.set_passphrase("purple elephants juggle quietly at dawn", None)
    stored = json.loads(secret.path().read_text())
    assert stored == rec and (rec["v"], rec["n"], rec["r"], rec["p"]) == (2, 2**17, 8, 1)
    assert 128 * rec["r"] * rec["n"] >= 128 * 2**20 and "hash" not in rec


def test_the_estimate_never_sees_more_than_its_bound():
    """zxcvbn refuses input past 72 characters: a 1,000-character passphrase is judged on its first 72 and accepted."""
    long = " ".join(f"word{i} zebra{i * 7} kettle{i * 13}" for i in range(60))[:1000]
    assert secret.strength(long)[0] == 4 and secret.check_new(long) == long
