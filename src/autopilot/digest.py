"""SHA-256 in hex, and the canonical JSON every content hash is taken over; importable from the hook hot path.

Importing this module loads nothing (no pathlib, no OpenSSL binding, no JSON library): the SHA-256
constructor is found on first use, orjson loads the first time something is canonicalised.
Canonical JSON is a contract (packet ids, checkpoint and injection hashes, the durable log's lines,
Codex's hook-trust identity): sorted keys, compact separators, UTF-8, non-ASCII as itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from hashlib import _Hash
    from hashlib import blake2b as _blake2b

# The constructor, found on first use (a failed import is not cached by Python: look once).
_constructor: Callable[[bytes], _Hash] | None = None


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return sha256(data).hexdigest()


def sha256(data: bytes = b"") -> _Hash:
    """A SHA-256 hash object (``update``, ``hexdigest``), started with ``data``."""
    global _constructor
    if _constructor is None:
        try:  # the builtin module is ~2 ms cheaper to import than hashlib's OpenSSL binding
            from _sha2 import sha256 as found  # type: ignore[import-not-found]  # Python >= 3.12
        except ImportError:
            try:
                from _sha256 import sha256 as found  # type: ignore[import-not-found,no-redef]  # Python 3.10, 3.11
            except ImportError:
                from hashlib import sha256 as found
        _constructor = found
    return _constructor(data)


def canonical(value: object) -> bytes:
    """``value`` as canonical JSON: sorted keys, compact separators, UTF-8 (the form every hash is taken over)."""
    import orjson  # ~15 ms (it loads dataclasses and uuid): only what canonicalises pays for it

    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def blake2b(data: bytes, digest_size: int) -> _blake2b:
    """A BLAKE2b hash of ``data`` with ``digest_size`` bytes, from the builtin module (hashlib loads OpenSSL)."""
    try:
        from _blake2 import blake2b as found
    except ImportError:  # a Python built without it: hashlib has one or fails as it would anyway
        from hashlib import blake2b as found
    return found(data, digest_size=digest_size)
