"""The approval passphrase: kept only as a slow salted hash, needed to change it, and rate-limited when wrong."""

from __future__ import annotations

import json
import stat

import pytest
from freezegun import freeze_time

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.knowledge.durable import anchor, secret

GOOD = "a sentence only Ada knows"
MOMENT = "2001-09-09T01:46:40Z"  # Unix 1e9: whole seconds add up exactly


def test_the_passphrase_is_stored_only_as_a_slow_salted_hash():
    """passphrase.json (mode 0600) holds scrypt's salt and cost and the derived public key, never the passphrase."""
    secret.set_passphrase(GOOD, None)
    raw = secret.path().read_text()
    rec = json.loads(raw)
    assert GOOD not in raw and GOOD.encode().hex() not in raw
    assert (rec["kdf"], rec["n"], rec["r"], len(rec["salt"]), len(rec["key"])) == ("scrypt", 2**17, 8, 32, 64)
    assert stat.S_IMODE(secret.path().stat().st_mode) == 0o600


def test_two_settings_of_the_same_passphrase_differ():
    """Each setting draws a new salt: the same passphrase never gives the same record."""
    first = secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    second = secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    assert first["salt"] != second["salt"] and first["key"] != second["key"]


@pytest.mark.parametrize("weak", ["short", "aaaaaaaaaaaaaaaa", "abababababababab", "tab\there is bad1"])
def test_a_weak_passphrase_is_refused(weak):
    """Short, repetitive or unprintable passphrases are refused and nothing is stored."""
    with pytest.raises(BridgeError):
        secret.set_passphrase(weak, None)
    assert not secret.path().exists()


def test_changing_the_passphrase_needs_the_current_one():
    """With a passphrase set, a new one without the current (or with a wrong one) changes nothing."""
    secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    before = secret.path().read_bytes()
    with pytest.raises(BridgeError, match="needs the current one"):
        secret.set_passphrase("mallory's own passphrase", None)
    with pytest.raises(secret.WrongSecret):
        secret.set_passphrase("mallory's own passphrase", "a guess at the old one")
    assert secret.path().read_bytes() == before


def test_a_wrong_passphrase_makes_even_the_right_one_wait():
    """After a wrong try, no passphrase is checked until the wait is over, not even the right one."""
    secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    with freeze_time(MOMENT) as frozen:
        with pytest.raises(secret.WrongSecret):
            secret.verify("a wrong guess here")
        with pytest.raises(secret.TooManyAttempts, match="none is checked for another 1 s"):
            secret.verify(GOOD)
        frozen.tick(1.5)
        secret.verify(GOOD)


def test_the_wait_doubles_with_each_wrong_try_and_a_right_one_clears_it():
    """Waits of 1, 2, 4, 8 s follow four wrong tries in a row; the right passphrase starts the count again."""
    secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    waits = []
    with freeze_time(MOMENT) as frozen:
        for _ in range(4):
            with pytest.raises(secret.WrongSecret):
                secret.verify("a wrong guess here")
            state = json.loads((secret.home() / secret.ATTEMPTS).read_text())
            waits.append(state["until"] - clock.unix())
            frozen.tick(waits[-1])
        assert waits == [1, 2, 4, 8]
        secret.verify(GOOD)
    assert json.loads((secret.home() / secret.ATTEMPTS).read_text())["failures"] == 0


@pytest.mark.parametrize("given", [None, "", 12345, ["a sentence only Ada knows"], "x" * 5000])
def test_anything_but_the_passphrase_string_is_wrong(given):
    """Missing, empty, non-string or oversized answers are wrong passphrases (and counted), never accepted."""
    secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    with pytest.raises(secret.WrongSecret):
        secret.verify(given)


def test_a_damaged_passphrase_file_decides_nothing():
    """A passphrase file that is not a record is an error naming it, not an absent passphrase anyone may set."""
    secret.home().mkdir(parents=True, exist_ok=True)
    secret.path().write_text('{"kdf": "plain", "passphrase": "x"}')
    with pytest.raises(BridgeError, match="is damaged"):
        secret.verify("x")
    with pytest.raises(BridgeError, match="is damaged"):
        secret.set_passphrase("mallory's own passphrase", None)


# --- A passphrase worth its name: guessable ones refused by a maintained estimate, and an offline guess kept costly.
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
