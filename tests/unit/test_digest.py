"""digest.py: SHA-256 in hex and canonical JSON, the form every content hash (packet ids, the durable log) is over."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from autopilot.digest import blake2b, canonical, sha256, sha256_hex
from tests.support.measured import unmeasured


@pytest.mark.parametrize("data", [b"", b"abc", "naïve ☃".encode(), bytes(range(256)) * 300])
def test_sha256_hex_is_hashlibs(data):
    """The builtin constructor gives the digest hashlib's OpenSSL binding gives, for any bytes."""
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_hash_object_fed_in_parts_equals_one_of_the_whole():
    """``sha256()`` started with a first part and updated with the rest hashes the whole."""
    h = sha256(b"first part, ")
    h.update(b"then the rest")
    assert h.hexdigest() == sha256_hex(b"first part, then the rest")


def test_canonical_json_sorts_keys_at_every_depth_and_is_compact():
    """Sorted keys (nested too), no spaces after separators: the same value always gives the same bytes."""
    value = {"b": [3, {"z": 1, "a": None}], "a": {"y": True, "x": 1.5}}
    assert canonical(value) == b'{"a":{"x":1.5,"y":true},"b":[3,{"a":null,"z":1}]}'
    assert canonical(dict(reversed(list(value.items())))) == canonical(value)


def test_canonical_json_keeps_non_ascii_as_itself_in_utf8():
    """Non-ASCII is written as UTF-8, not \\u escapes, and reads back to the same value."""
    value = {"name": "Zoë", "snow": "☃", "astral": "😀"}
    out = canonical(value)
    assert "Zoë".encode() in out and b"\\u" not in out and json.loads(out) == value


def test_blake2b_is_hashlibs_with_the_size_asked_for():
    """The builtin BLAKE2b gives hashlib's digest, ``digest_size`` bytes long."""
    assert blake2b(b"key material", 16).hexdigest() == hashlib.blake2b(b"key material", digest_size=16).hexdigest()
    assert len(blake2b(b"", 8).digest()) == 8


def test_importing_the_module_loads_no_hash_or_json_library():
    """A hook that only imports digest pays for neither hashlib, orjson nor json until it hashes."""
    code = "import sys, autopilot.digest; print(sorted(m for m in ('hashlib', 'orjson', 'json') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True, env=unmeasured()
    )
    assert out.stdout == "[]\n"
