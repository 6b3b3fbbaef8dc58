"""The approval passphrase: kept only as a slow salted hash, needed to change it, and rate-limited when wrong."""

from __future__ import annotations

import json
import stat

import pytest
from freezegun import freeze_time

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.knowledge.durable import secret

GOOD = "a sentence only Ada knows"
MOMENT = "2001-09-09T01:46:40Z"  # Unix 1e9: whole seconds add up exactly


def test_the_passphrase_is_stored_only_as_a_slow_salted_hash():
    """passphrase.json (mode 0600) holds scrypt's salt and hash at the full cost, never the passphrase."""
    secret.set_passphrase(GOOD, None)
    raw = secret.path().read_text()
    rec = json.loads(raw)
    assert GOOD not in raw and GOOD.encode().hex() not in raw
    assert (rec["kdf"], rec["n"], rec["r"], len(rec["salt"]), len(rec["hash"])) == ("scrypt", 2**16, 8, 32, 64)
    assert stat.S_IMODE(secret.path().stat().st_mode) == 0o600


def test_two_settings_of_the_same_passphrase_differ():
    """Each setting draws a new salt: the same passphrase never gives the same record."""
    first = secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    second = secret.write_record(GOOD, cost={"n": 2**10, "r": 8, "p": 1})
    assert first["salt"] != second["salt"] and first["hash"] != second["hash"]


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
