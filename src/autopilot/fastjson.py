"""``json.loads`` for the hot paths, without importing the json package (its decoder imports ``re``, ~4 ms).

The hooks, the status line and the rate-limit reader parse small JSON documents on every call; this
runs the C scanner the json package itself uses, with the json decoder's settings. Where ``_json``
is missing it falls back to ``json.loads``. Standard library only; nothing else is imported.
"""

from __future__ import annotations


def parse_json(raw: str) -> object:
    """``json.loads(raw)``: the one JSON value in ``raw`` (surrounding whitespace allowed), else ValueError."""
    try:
        from _json import make_scanner
    except ImportError:
        import json

        return json.loads(raw)
    text = raw.strip()
    try:
        value, end = make_scanner(_ScanContext())(text, 0)  # type: ignore[arg-type]
    except StopIteration:
        raise ValueError("not JSON") from None
    if end != len(text):
        raise ValueError("extra data after the JSON value")
    return value


class _ScanContext:
    """The settings json.JSONDecoder gives its scanner, as plain attributes."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity
