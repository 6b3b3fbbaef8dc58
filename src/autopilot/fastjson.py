"""``json.loads`` and ``json.dumps`` for the hot paths, without the json package (its decoder imports ``re``, ~4 ms).

The hooks, the status line and the rate-limit reader parse small JSON documents on every call, and
the active memory's recorder writes a line on every hook; this runs the C scanner and encoder the
json package itself uses, with its default settings. Where ``_json`` is missing it falls back to
the json package. Standard library only; nothing else is imported.
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


def dumps(obj: object) -> str:
    """``json.dumps(obj, separators=(",", ":"))``: compact, ASCII-only JSON on one line."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:
        import json

        return json.dumps(obj, separators=(",", ":"))
    encode = make_encoder(None, _unencodable, encode_basestring_ascii, None, ":", ",", False, False, True)
    return "".join(encode(obj, 0))


def _unencodable(obj: object) -> object:
    raise TypeError(f"{type(obj).__name__} is not JSON serializable")


class _ScanContext:
    """The settings json.JSONDecoder gives its scanner, as plain attributes."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = float  # NaN, Infinity, -Infinity
