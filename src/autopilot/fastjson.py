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


def dumps(obj: object, *, ascii: bool = True) -> str:
    """``json.dumps(obj, separators=(",", ":"), ensure_ascii=ascii)``: compact JSON on one line."""
    try:
        from _json import encode_basestring, encode_basestring_ascii, make_encoder
    except ImportError:
        import json

        return json.dumps(obj, separators=(",", ":"), ensure_ascii=ascii)
    strings = encode_basestring_ascii if ascii else encode_basestring
    encode = make_encoder(None, _unencodable, strings, None, ":", ",", False, False, True)
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


def parse_json_line(raw: bytes) -> object:
    """``orjson.loads(raw)`` for one JSONL line, without importing orjson when it need not be.

    orjson costs ~15 ms to import (it loads dataclasses, inspect and uuid), more than a cached page
    of a transcript takes to read. The C scanner reads a line the way orjson does, except that it
    accepts NaN, Infinity, numbers too large for a double and lone surrogate escapes, which orjson
    refuses: those (and anything the scanner refuses) go to orjson, whose answer stands. Integers
    beyond 64 bits, which orjson reads as floats, stay exact here.
    """
    if b"\\ud" in raw or b"\\uD" in raw:
        return _orjson_loads(raw)
    try:
        from _json import make_scanner
    except ImportError:
        return _orjson_loads(raw)
    try:
        text = raw.decode("utf-8").strip(" \t\r\n")  # JSON's whitespace only, as orjson
        value, end = make_scanner(_LineContext())(text, 0)  # type: ignore[arg-type]
    except (ValueError, StopIteration, RecursionError):
        return _orjson_loads(raw)
    if end != len(text):
        return _orjson_loads(raw)
    return value


def _orjson_loads(raw: bytes) -> object:
    import orjson

    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ValueError(str(exc)) from None


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError("number out of range")
    return value


def _constant(text: str) -> float:
    raise ValueError(f"{text} is not JSON")


class _LineContext:
    """The scanner's settings for a line orjson would read: strict strings, no NaN or Infinity, no infinite numbers."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = staticmethod(_finite)
    parse_int = int
    parse_constant = staticmethod(_constant)
