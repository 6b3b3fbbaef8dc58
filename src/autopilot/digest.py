"""SHA-256 in hex, importable from the hook hot path (no pathlib, no OpenSSL binding)."""


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    try:  # the builtin module is ~2 ms cheaper to import than hashlib's OpenSSL binding
        from _sha2 import sha256  # type: ignore[import-not-found]  # Python >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # Python 3.10, 3.11
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return str(sha256(data).hexdigest())
