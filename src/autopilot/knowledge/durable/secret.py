"""The approval passphrase: what only the person knows, and what every approval, revocation and supersession needs.

An agent's shell can do anything a person's can: unset its marker variables, get a pseudo-terminal from
``script``, pipe answers in, start its own dashboard. What it does not have is a secret it was never
shown. So deciding needs the person's approval passphrase, set once with ``codex-bridge durable secret``
(read twice from the controlling terminal, never from an argument, a variable or a file) and stored only
as a slow salted hash: ``$AUTOPILOT_HOME/durable/passphrase.json`` (mode 0600), scrypt with the cost
recorded beside it (:data:`COST`: 64 MiB and about a third of a second a try).

Wrong passphrases are rate-limited across every channel at once (``attempts.json``, under a lock, so
parallel requests are checked one at a time): after the n-th wrong one in a row no passphrase is even
checked for 2^(n-1) seconds (at most an hour); a right one clears the count.

What this cannot stop, and does not pretend to: a process running as the same user can read the hash
(and guess offline: hence the long passphrase and the slow hash), delete the files, or replace the
passphrase with its own. Such a change is noticed, unless that process rewrites ``seen.json`` too: the
person's next session starts with a line saying the passphrase was set or changed (``knowledge/durable/deliver.py``),
and the person's own passphrase no longer decides anything.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
from typing import TYPE_CHECKING, Any

from autopilot import clock
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write, held
from autopilot.knowledge.durable.view import PASSPHRASE, home

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Cost, PassphraseRecord

FILE = PASSPHRASE
ATTEMPTS = "attempts.json"
COST: Cost = {"n": 2**16, "r": 8, "p": 1}
MIN_N = 2**14  # the least cost `durable secret` writes (tests make cheaper records through write_record)
MIN_CHARS = 12
MAX_CHARS = 1024
MAX_WAIT_S = 3600
LOCK_TIMEOUT_S = 120.0


class WrongSecret(BridgeError):
    """The passphrase given is not the person's (nothing was decided)."""


class TooManyAttempts(BridgeError):
    """Wrong passphrases came too fast: none is checked until the wait is over (nothing was decided)."""


class NoSecret(BridgeError):
    """No approval passphrase is set yet: nothing can be decided until the person sets one."""


def path() -> Any:
    """Where the passphrase's hash is kept."""
    return home() / FILE


def record() -> PassphraseRecord | None:
    """The stored hash record, None when no passphrase is set; a damaged one is an error (never a blank slate)."""
    try:
        data = path().read_bytes()
    except FileNotFoundError:
        return None
    try:
        rec: PassphraseRecord = json.loads(data)
        if not _is_object(rec) or rec.get("kdf") != "scrypt":
            raise ValueError("not a passphrase record")
        int(rec["n"]), int(rec["r"]), int(rec["p"]), bytes.fromhex(rec["salt"]), bytes.fromhex(rec["hash"])
    except (ValueError, KeyError, TypeError):
        raise BridgeError(
            f"{path()} is damaged: no decision can be checked against it",
            hint="if you did not change it, something else did: remove it and set your passphrase again "
            "(codex-bridge durable secret)",
        ) from None
    return rec


def _is_object(value: object) -> bool:
    """Whether the file held a JSON object."""
    return isinstance(value, dict)


def fingerprint(rec: PassphraseRecord | None) -> str | None:
    """A short identity of a passphrase record (changes whenever the passphrase is set again), or None."""
    if rec is None:
        return None
    return sha256_hex(f"{rec.get('salt')}:{rec.get('hash')}".encode())[:16]


def _derive(secret: str, cost: Cost, salt: str) -> bytes:
    n, r, p = int(cost["n"]), int(cost["r"]), int(cost["p"])
    return hashlib.scrypt(
        secret.encode("utf-8"),
        salt=bytes.fromhex(salt),
        n=n,
        r=r,
        p=p,
        maxmem=2 * 128 * r * n + (1 << 20),
        dklen=32,
    )


def check_new(secret: str) -> str:
    """``secret`` when it can be a passphrase: 12 to 1024 characters, not all the same one, no control characters."""
    if not MIN_CHARS <= len(secret) <= MAX_CHARS:
        raise BridgeError(
            f"an approval passphrase needs {MIN_CHARS} to {MAX_CHARS} characters, not {len(secret)}",
            hint="a short sentence only you know is best: its hash can be read by any process of yours",
        )
    if len(set(secret)) < 4 or not secret.isprintable():
        raise BridgeError("the passphrase must be printable and not one or two characters repeated")
    return secret


def write_record(secret: str, *, cost: Cost | None = None) -> PassphraseRecord:
    """Store the hash of ``secret`` (a new salt) as the passphrase; return the record. Callers check who asks."""
    scrypt, salt = cost or COST, os.urandom(16).hex()
    rec: PassphraseRecord = {
        "v": 1,
        "kdf": "scrypt",
        **scrypt,
        "salt": salt,
        "hash": _derive(secret, scrypt, salt).hex(),
        "set": clock.now(),
    }
    home().mkdir(mode=0o700, parents=True, exist_ok=True)
    atomic_write(path(), json.dumps(rec, sort_keys=True) + "\n", mode=0o600)
    return rec


def set_passphrase(new: str, current: str | None) -> PassphraseRecord:
    """Set the passphrase (the first time), or change it: the current one is checked first, rate-limited."""
    check_new(new)
    if record() is not None:
        if current is None:
            raise BridgeError("an approval passphrase is already set: changing it needs the current one")
        verify(current)
    return write_record(new)


def verify(secret: Any) -> None:
    """Return when ``secret`` is the person's passphrase; raise (and count the failure) otherwise.

    One check at a time (a lock): parallel guesses queue and meet the wait the first wrong one started.
    """
    rec = record()
    if rec is None:
        raise NoSecret(
            "no approval passphrase is set, so nothing can be approved or revoked yet",
            hint="set one yourself, in your own terminal: codex-bridge durable secret",
        )
    home().mkdir(mode=0o700, parents=True, exist_ok=True)
    with held(home() / "attempts.lock", LOCK_TIMEOUT_S):
        state = _attempts()
        now = clock.unix()
        wait = float(state.get("until") or 0) - now
        if wait > 0:
            raise TooManyAttempts(
                f"too many wrong passphrases: none is checked for another {math.ceil(wait)} s (nothing was decided)",
                hint="wait, then type it carefully; if you did not try, something else did",
            )
        given = secret if isinstance(secret, str) else ""
        right = (
            bool(given)
            and len(given) <= MAX_CHARS
            and hmac.compare_digest(_derive(given, rec, rec["salt"]), bytes.fromhex(rec["hash"]))
        )
        if right:
            if state.get("failures"):
                _save_attempts({"failures": 0, "until": 0, "last": state.get("last")})
            return
        failures = int(state.get("failures") or 0) + 1
        until = now + min(2 ** (failures - 1), MAX_WAIT_S)
        _save_attempts({"failures": failures, "until": until, "last": now})
    raise WrongSecret(
        "that is not the approval passphrase: nothing was decided",
        hint=f"the next try is checked after {min(2 ** (failures - 1), MAX_WAIT_S)} s",
    )


def _attempts() -> dict[str, Any]:
    try:
        state = json.loads((home() / ATTEMPTS).read_bytes())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _save_attempts(state: dict[str, Any]) -> None:
    atomic_write(home() / ATTEMPTS, json.dumps(state) + "\n", mode=0o600, durable=False)
