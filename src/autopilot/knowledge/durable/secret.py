"""The approval passphrase: what only the person knows, and the key every approval, revocation and supersession is
signed with.

An agent's shell can do anything a person's can: unset its marker variables, get a pseudo-terminal from
``script``, pipe answers in, start its own dashboard. What it does not have is a secret it was never
shown. So deciding needs the person's approval passphrase, set once with ``codex-bridge durable secret``
(read twice from the controlling terminal, never from an argument, a variable or a file). scrypt turns it
(with a salt and the cost recorded beside it, :data:`COST`) into the seed of an Ed25519 key: every decision
is signed with that key, and ``$AUTOPILOT_HOME/durable/passphrase.json`` (mode 0600) keeps only the salt,
the cost and the *public* key (checking a passphrase is deriving its key and comparing). The keys that
count are the anchors (:mod:`.anchor`): the first one set, each one the one before signed (a change with
the current passphrase), and a key set without the one before (a reset) only once the person confirmed it.

Wrong passphrases are rate-limited across every channel at once (``attempts.json``, under a lock, so
parallel requests are checked one at a time): after the n-th wrong one in a row no passphrase is even
checked for 2^(n-1) seconds (at most an hour); a right one clears the count. The passphrase must be strong
(:func:`check_new`: zxcvbn's estimate, not only its length): anything that can read the record can guess
offline, each guess costing one scrypt at :data:`COST`.

What this cannot stop, and does not pretend to: a process running as the same user, outside the agents'
sandboxes, can replace these files. A passphrase it sets is a reset: its decisions are not delivered until
confirmed, and every session start says so (``knowledge/durable/deliver.py``); docs/threat-model.md says what
holds with the sandboxes on and what without.
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
from autopilot.knowledge.durable import anchor
from autopilot.knowledge.durable.view import PASSPHRASE, Entry, Reader, home

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from autopilot.knowledge.durable.shapes import AnchorEntry, Confirmed, Cost, PassphraseRecord

FILE = PASSPHRASE
ATTEMPTS = "attempts.json"
# 128 MiB and about half a second a try on a 2-core machine (docs/BENCHMARKS.md: an offline guesser gets ~2 guesses
# a second per core with this cost; bench/bench_passphrase.py measures it).
COST: Cost = {"n": 2**17, "r": 8, "p": 1}
MIN_N = 2**14  # the least cost `durable secret` writes (tests make cheaper records through write_record)
MIN_CHARS = 12
MAX_CHARS = 1024
ZXCVBN_CHARS = 72  # zxcvbn judges at most this many characters (and raises past them)
MIN_SCORE = 4  # zxcvbn's score (0-4): 4 is "very unguessable: strong protection from offline slow-hash scenario"
MAX_WAIT_S = 3600
LOCK_TIMEOUT_S = 120.0


class WrongSecret(BridgeError):
    """The passphrase given is not the person's (nothing was decided)."""


class TooManyAttempts(BridgeError):
    """Wrong passphrases came too fast: none is checked until the wait is over (nothing was decided)."""


class NoSecret(BridgeError):
    """No approval passphrase is set yet: nothing can be decided until the person sets one."""


def path() -> Any:
    """Where the passphrase's record (salt, cost, public key) is kept."""
    return home() / FILE


def record() -> PassphraseRecord | None:
    """The stored record, None when no passphrase is set; a damaged one is an error (never a blank slate).

    Version 1 records (before decisions were signed) hold a hash instead of a key; they still check the
    passphrase, and the next right one rewrites them as version 2 (:func:`verify`)."""
    try:
        data = path().read_bytes()
    except FileNotFoundError:
        return None
    try:
        rec: PassphraseRecord = json.loads(data)
        if not _is_object(rec) or rec.get("kdf") != "scrypt":
            raise ValueError("not a passphrase record")
        int(rec["n"]), int(rec["r"]), int(rec["p"]), bytes.fromhex(rec["salt"])
        bytes.fromhex(rec["key"] if rec.get("v") == 2 else rec["hash"])
    except (ValueError, KeyError, TypeError):
        raise BridgeError(
            f"{path()} is damaged: no decision can be checked against it",
            hint="if you did not change it, something else did: remove it and set your passphrase again "
            "(codex-bridge durable secret); decisions made with the new one wait for your confirmation",
        ) from None
    return rec


def _is_object(value: object) -> bool:
    """Whether the file held a JSON object."""
    return isinstance(value, dict)


def fingerprint(rec: PassphraseRecord | None) -> str | None:
    """A short identity of a passphrase record (changes whenever the passphrase is set again), or None."""
    if rec is None:
        return None
    return sha256_hex(f"{rec.get('salt')}:{rec.get('key') or rec.get('hash')}".encode())[:16]


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


def _key(seed: bytes) -> tuple[Ed25519PrivateKey, str]:
    """The Ed25519 key a derived seed makes, and its public half as hex."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = Ed25519PrivateKey.from_private_bytes(seed)
    return key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def strength(secret: str) -> tuple[int, str]:
    """zxcvbn's score of ``secret`` (0-4) and its advice, as a person reads it."""
    from zxcvbn import zxcvbn

    result = zxcvbn(secret[:ZXCVBN_CHARS])  # its own bound (it slows with length); far past any score 4
    feedback = result.get("feedback") or {}
    advice = " ".join([str(feedback.get("warning") or ""), *map(str, feedback.get("suggestions") or [])]).strip()
    return int(result["score"]), advice


def check_new(secret: str) -> str:
    """``secret`` when it can be a passphrase: 12 to 1024 printable characters that zxcvbn scores 4 of 4."""
    if not MIN_CHARS <= len(secret) <= MAX_CHARS:
        raise BridgeError(
            f"an approval passphrase needs {MIN_CHARS} to {MAX_CHARS} characters, not {len(secret)}",
            hint="a short sentence only you know is best: its record can be read by any process of yours",
        )
    if len(set(secret)) < 4 or not secret.isprintable():
        raise BridgeError("the passphrase must be printable and not one or two characters repeated")
    score, advice = strength(secret)
    if score < MIN_SCORE:
        raise BridgeError(
            f"that passphrase is too easy to guess (strength {score} of 4; 4 is needed): {advice or 'make it longer'}",
            hint="anything that reads its record can guess offline: use a sentence of five or more unusual words",
        )
    return secret


def write_record(secret: str, *, cost: Cost | None = None, how: str | None = None, previous: Any = None) -> Any:
    """Store the record of ``secret`` (a new salt) and add its key to the anchors (``how``: first, rotated (signed by
    ``previous``, the key it replaces) or reset; None: first when nothing was anchored, else reset); return the
    record. Callers check who asks."""
    scrypt, salt = cost or COST, os.urandom(16).hex()
    _, public = _key(_derive(secret, scrypt, salt))
    rec: PassphraseRecord = {
        "v": 2, "kdf": "scrypt", "n": scrypt["n"], "r": scrypt["r"], "p": scrypt["p"], "salt": salt, "key": public,
        "set": clock.now(),
    }  # fmt: skip
    home().mkdir(mode=0o700, parents=True, exist_ok=True)
    with Reader().locked():
        entries = anchor.read(home())
        if how is None:
            how = "first" if not entries and not anchor.exists(home()) and not _signed_keys() else "reset"
        entry: AnchorEntry = {"key": public, "how": how, "at": rec["set"]}
        if how == "rotated":
            old_public = _public(previous)
            entry["from"] = old_public
            entry["sig"] = previous.sign(anchor.statement("rotate", public, rec["set"], old_public)).hex()
        atomic_write(path(), json.dumps(rec, sort_keys=True) + "\n", mode=0o600)
        _save_anchors([*entries, entry])
    return rec


def _public(key: Ed25519PrivateKey) -> str:
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def _save_anchors(entries: list[AnchorEntry]) -> None:
    atomic_write(anchor.path(home()), json.dumps({"v": 1, "anchors": entries}, sort_keys=True) + "\n", mode=0o600)


def _signed_keys() -> set[str]:
    """The keys that signed a decision in the log (a log with some and no anchor file: the anchors were removed)."""
    found = set()
    for line in Reader().lines():
        if b'"sig"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("key"), str) and entry.get("sig"):
            found.add(entry["key"])
    return found


def set_passphrase(new: str, current: str | None) -> PassphraseRecord:
    """Set the passphrase (the first time), or change it: the current one is checked first, rate-limited, and signs
    the new key. Without a record (it was removed, or forgotten) the new key is a reset, to be confirmed."""
    check_new(new)
    if record() is not None:
        if current is None:
            raise BridgeError("an approval passphrase is already set: changing it needs the current one")
        old = verify(current)
        trusted = _public(old) in anchor.load(home())["trusted"]
        rec: PassphraseRecord = write_record(new, how="rotated" if trusted else "reset", previous=old)
        return rec
    rec = write_record(new)
    return rec


def confirm(secret: str) -> Confirmed:
    """Confirm the current key, set without the one before it (a reset), with its passphrase: decisions signed by it
    count from now on. What is confirmed is announced at the next session start."""
    key = verify(secret)
    public = _public(key)
    with Reader().locked():
        entries = anchor.read(home())
        judged = anchor.judge(entries)
        if public in judged["trusted"]:
            return {"key": anchor.fingerprint(public), "confirmed": False, "why": "this key is already trusted"}
        if public not in judged["pending"]:
            raise BridgeError(
                "this passphrase's key is not among the anchors: nothing to confirm",
                hint="set the passphrase again at your terminal: codex-bridge durable secret",
            )
        at = clock.now()
        for entry in entries:
            if entry.get("key") == public and entry.get("how") == "reset":
                entry["confirmed"] = {"at": at, "sig": key.sign(anchor.statement("confirm", public, at, None)).hex()}
        _save_anchors(entries)
    return {"key": anchor.fingerprint(public), "confirmed": True, "at": at}


def sign(key: Ed25519PrivateKey, entry: Entry) -> Entry:
    """``entry`` with its signer's public key and signature (:func:`anchor.signed_bytes`)."""
    signed = {**entry, "key": _public(key)}
    signed["sig"] = key.sign(anchor.signed_bytes(signed)).hex()
    return signed


def verify(secret: Any) -> Ed25519PrivateKey:
    """The person's signing key when ``secret`` is their passphrase; raise (and count the failure) otherwise.

    One check at a time (a lock): parallel guesses queue and meet the wait the first wrong one started. A version 1
    record (a hash, from before decisions were signed) is rewritten as version 2 with the same passphrase."""
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
        key = None
        if given and len(given) <= MAX_CHARS:
            seed = _derive(given, rec, rec["salt"])
            if rec.get("v") == 2:
                key, public = _key(seed)
                key = key if hmac.compare_digest(public.encode(), str(rec["key"]).encode()) else None
            elif hmac.compare_digest(seed, bytes.fromhex(str(rec.get("hash")))):
                key = _upgrade(given, rec)
        if key is not None:
            if state.get("failures"):
                _save_attempts({"failures": 0, "until": 0, "last": state.get("last")})
            return key
        failures = int(state.get("failures") or 0) + 1
        until = now + min(2 ** (failures - 1), MAX_WAIT_S)
        _save_attempts({"failures": failures, "until": until, "last": now})
    raise WrongSecret(
        "that is not the approval passphrase: nothing was decided",
        hint=f"the next try is checked after {min(2 ** (failures - 1), MAX_WAIT_S)} s",
    )


def _upgrade(secret: str, old: PassphraseRecord) -> Ed25519PrivateKey:
    """A version 1 record's passphrase, given right: its version 2 record and key (the first anchor when none is)."""
    cost: Cost = {"n": int(old["n"]), "r": int(old["r"]), "p": int(old["p"])}
    rec = write_record(secret, cost=cost)
    key, _ = _key(_derive(secret, rec, rec["salt"]))
    return key


def _attempts() -> dict[str, Any]:
    try:
        state = json.loads((home() / ATTEMPTS).read_bytes())
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def _save_attempts(state: dict[str, Any]) -> None:
    atomic_write(home() / ATTEMPTS, json.dumps(state) + "\n", mode=0o600, durable=False)
