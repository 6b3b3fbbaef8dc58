"""The trust anchor: the public keys whose signatures make a decision the person's, and which of them hold.

Every approval, revocation and supersession in the durable log carries an Ed25519 signature (``sig``) by the
person's approval key (``key``): a key derived from their approval passphrase with scrypt
(:mod:`.secret` signs; nothing here can). A decision counts only when its signature verifies *and* its key is a
trusted anchor, so a line appended to the log (by hand, by an agent's shell, by anything without the passphrase)
cannot pass for the person's, whatever channel or name it claims, and neither can a passphrase record replaced
by one whose passphrase the writer knows: its key is not an anchor.

``anchor.json`` (beside the log) lists the anchors in the order they were set:

- ``first``: the first key ever set, trusted as it is (trust on first use), unless the log already holds
  decisions signed by another key (then the anchors were removed, and the key is taken as a ``reset``);
- ``rotated``: a key the previous trusted key signed (``durable secret`` with the current passphrase): trusted;
- ``reset``: a key set without the previous passphrase (forgotten, or replaced by something else). It is
  *unconfirmed* until the person confirms it at their terminal (``durable confirm``): until then decisions
  signed by it are not applied (``pending``: shown, never delivered) and every session start says so.

What this file holds is read by the hooks that deliver rules (through :mod:`.view`): it only verifies.
``cryptography`` is imported when a signature is checked, never to read a log without decisions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot.digest import canonical, sha256_hex

if TYPE_CHECKING:
    from collections.abc import Mapping

    from autopilot.knowledge.durable.shapes import AnchorEntry, Anchors

FILE = "anchor.json"
PURPOSE = "codex-autopilot durable decision"  # what a decision's signature is over, besides the entry
ANCHOR_PURPOSE = "codex-autopilot approval anchor"  # what a rotation's or a confirmation's signature is over
UNSIGNED = (
    "sig",
    "seq",
    "prev",
)  # the fields a decision's signature does not cover (the log's chain adds the last two)
HOWS = ("first", "rotated", "reset")


def fingerprint(key: str | None) -> str:
    """A short name of a public key for people: ``ed25519:`` and 16 hex digits of its hash ("none" without one)."""
    return "ed25519:" + sha256_hex(bytes.fromhex(key))[:16] if key and _hex(key, 32) else "none"


def _hex(value: Any, size: int) -> bool:
    try:
        return isinstance(value, str) and len(bytes.fromhex(value)) == size
    except ValueError:
        return False


def signed_bytes(entry: Mapping[str, object]) -> bytes:
    """What a decision's signature covers: its canonical JSON without the signature and the chain, and the purpose."""
    return canonical({"purpose": PURPOSE, "entry": {k: v for k, v in entry.items() if k not in UNSIGNED}})


def statement(kind: str, key: str, at: str, previous: str | None) -> bytes:
    """What a rotation (signed by the previous key) or a confirmation (by the key itself) signs."""
    return canonical({"purpose": ANCHOR_PURPOSE, "kind": kind, "key": key, "at": at, "from": previous})


def good_signature(key: str, sig: Any, data: bytes) -> bool:
    """Whether ``sig`` (hex) is ``key``'s (hex Ed25519 public key) Ed25519 signature of ``data``."""
    if not (_hex(key, 32) and _hex(sig, 64)):
        return False
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key)).verify(bytes.fromhex(sig), data)
    except (InvalidSignature, ValueError):
        return False
    return True


def path(folder: Path) -> Path:
    """Where the anchors of the durable directory ``folder`` are kept."""
    return folder / FILE


def read(folder: Path) -> list[AnchorEntry]:
    """The anchors as stored (a damaged file reads as none: :func:`judge` then trusts nothing new silently)."""
    try:
        doc = json.loads(path(folder).read_bytes())
    except (OSError, ValueError):
        return []
    found = doc.get("anchors") if isinstance(doc, dict) else None
    return [_entry(a) for a in found if isinstance(a, dict)] if isinstance(found, list) else []


def _entry(value: dict[str, object]) -> AnchorEntry:
    """An anchor entry as stored (its fields are checked by :func:`judge` before anything believes them)."""
    return value  # type: ignore[return-value]


def exists(folder: Path) -> bool:
    """Whether an anchor file is there at all (even a damaged one)."""
    return path(folder).exists()


def judge(entries: list[AnchorEntry]) -> Anchors:
    """Which anchors hold: ``trusted`` keys, ``pending`` ones (a reset not confirmed: key -> when it was set),
    ``current`` (the last key set), ``confirmedResets`` (key -> when) and ``problems`` (entries that hold nothing)."""
    out: Anchors = {"trusted": [], "pending": {}, "current": None, "confirmedResets": {}, "problems": []}
    for n, a in enumerate(entries, 1):
        key, how, at = a.get("key"), a.get("how"), str(a.get("at") or "")
        if not _hex(key, 32) or how not in HOWS:
            out["problems"].append(f"anchor {n} is not a key")
            continue
        assert isinstance(key, str)
        if how == "first":
            if n == 1:
                out["trusted"].append(key)
            else:
                out["problems"].append(f"anchor {n} claims to be the first")
                continue
        elif how == "rotated":
            previous = a.get("from")
            if previous in out["trusted"] and good_signature(
                str(previous), a.get("sig"), statement("rotate", key, at, str(previous))
            ):
                out["trusted"].append(key)
            else:
                out["problems"].append(f"anchor {n} ({fingerprint(key)}) is not signed by the key before it")
                continue
        else:
            confirmed = a.get("confirmed")
            if isinstance(confirmed, dict) and good_signature(
                key, confirmed.get("sig"), statement("confirm", key, str(confirmed.get("at") or ""), None)
            ):
                out["trusted"].append(key)
                out["confirmedResets"][key] = str(confirmed.get("at") or "")
            else:
                out["pending"][key] = at
        out["current"] = key
    return out


def load(folder: Path) -> Anchors:
    """The anchors of the durable directory ``folder``, judged."""
    return judge(read(folder))
