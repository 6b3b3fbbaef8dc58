"""SHA-256 in hex, importable from the hook hot path (no pathlib, no OpenSSL binding)."""

_sha256 = None  # the constructor found on first use (a failed import is not cached by Python: look once)


def sha256_hex(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    global _sha256
    if _sha256 is None:
        try:  # the builtin module is ~2 ms cheaper to import than hashlib's OpenSSL binding
            from _sha2 import sha256  # type: ignore[import-not-found]  # Python >= 3.12
        except ImportError:
            try:
                from _sha256 import sha256  # type: ignore[import-not-found,no-redef]  # Python 3.10, 3.11
            except ImportError:
                from hashlib import sha256  # type: ignore[assignment]
        _sha256 = sha256
    return str(_sha256(data).hexdigest())
