"""``json.loads`` and ``json.dumps`` for the hot paths, without the json package (its decoder imports ``re``, ~4 ms).

The hooks, the status line and the rate-limit reader parse small JSON documents on every call, and
the active memory's recorder writes a line on every hook, and every command prints its answer
(:func:`pretty`); this runs the C scanner, encoder and quoter the json package itself uses, with its
default settings. Where ``_json`` is missing it falls back to the json package. Standard library
only; nothing else is imported.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType


_SCANNER: list[Callable[[str, int], tuple[object, int]]] = []  # made on first use, then reused (as json.loads does)


def parse_json(raw: str) -> object:
    """``json.loads(raw)``: the one JSON value in ``raw`` (surrounding whitespace allowed), else ValueError."""
    if not _SCANNER:
        try:
            from _json import make_scanner
        except ImportError:
            import json

            return json.loads(raw)
        _SCANNER.append(make_scanner(_ScanContext()))  # type: ignore[arg-type]
    text = raw.strip()
    try:
        value, end = _SCANNER[0](text, 0)
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


def pretty(obj: object) -> str:
    """``json.dumps(obj, indent=2)``: what the bridge prints (``output.emit``), without the json package.

    The json package pretty-prints in Python anyway (its C encoder does no indentation before 3.13); this is
    the same walk, with the C string quoter, so a command that prints a page spares the package's import.
    """
    try:
        from _json import encode_basestring_ascii as quote
    except ImportError:
        import json

        return json.dumps(obj, indent=2)
    out: list[str] = []
    _pretty(obj, quote, out, "\n")
    return "".join(out)


def _pretty(obj: object, quote: Callable[[str], str], out: list[str], newline: str) -> None:
    """Append ``obj`` as json.dumps(indent=2) writes it at the depth whose line break and indent is ``newline``."""
    if isinstance(obj, str):
        out.append(quote(obj))
    elif obj is None:
        out.append("null")
    elif obj is True:
        out.append("true")
    elif obj is False:
        out.append("false")
    elif isinstance(obj, int):
        out.append(int.__repr__(obj))
    elif isinstance(obj, float):
        out.append(_float_text(obj))
    elif isinstance(obj, (list, tuple)):
        if not obj:
            out.append("[]")
            return
        inner = newline + "  "
        out.append("[")
        for n, value in enumerate(obj):
            out.append(inner if n == 0 else "," + inner)
            _pretty(value, quote, out, inner)
        out.append(newline + "]")
    elif isinstance(obj, dict):
        if not obj:
            out.append("{}")
            return
        inner = newline + "  "
        out.append("{")
        for n, (key, value) in enumerate(obj.items()):
            out.append(inner if n == 0 else "," + inner)
            out.append(quote(_key_text(key)) + ": ")
            _pretty(value, quote, out, inner)
        out.append(newline + "}")
    else:
        raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def _float_text(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _key_text(key: object) -> str:
    """A dict key as json writes it: strings as they are, numbers, booleans and None as their JSON text."""
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float_text(key)
    if key is True or key is False or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


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
    scan = _LINE_SCANNER or _line_scanner()
    if scan is None:
        return _orjson_loads(raw)
    try:
        text = raw.decode("utf-8").strip(" \t\r\n")  # JSON's whitespace only, as orjson
        value, end = scan(text, 0)
    except (ValueError, StopIteration, RecursionError, SystemError):
        # SystemError: on an unterminated string or container the C scanner reports its error through
        # json.decoder's JSONDecodeError, and where json.decoder was never imported (a fresh process) it returns
        # NULL with no error set. A crash-truncated row in an appended stretch made the intake exit 70.
        return _orjson_loads(raw)
    if end != len(text):
        return _orjson_loads(raw)
    return value


_LINE_SCANNER: Callable[[str, int], tuple[object, int]] | None = None


def _line_scanner() -> Callable[[str, int], tuple[object, int]] | None:
    """The C scanner with :class:`_LineContext`'s settings, made once (it clears its memo after each call, as the
    json package's decoder, which also keeps one, relies on), or None without ``_json``."""
    global _LINE_SCANNER
    try:
        from _json import make_scanner
    except ImportError:
        return None
    _LINE_SCANNER = make_scanner(_LineContext())  # type: ignore[arg-type]
    return _LINE_SCANNER


# orjson releases whose module init was read and tried with the stand-ins below (tests/integration/test_fastjson.py
# runs it): it looks up ``uuid.UUID`` and ``dataclasses._FIELD`` from each module's dict and dereferences what it got,
# so a release that looked up another name would crash the process. Any other release is imported as it is.
LEAN_ORJSON = ("3.13.0",)


def lean_orjson() -> ModuleType:
    """orjson, imported without the ~25 ms of modules its start-up loads only to recognise what it may serialise.

    orjson's module init imports ``dataclasses`` (which loads ``inspect``, ``ast``, ``dis``, ``tokenize``), ``uuid``
    (which loads ``platform``), ``datetime``, ``enum`` and ``json`` (which load ``re`` and ``functools``), and keeps
    one object of each: ``dataclasses._FIELD``, ``uuid.UUID``, the datetime C API, ``enum.EnumMeta``,
    ``json.JSONDecodeError`` (the base of its own). A reader that parses lines needs none of them, and they are
    nearly all of orjson's import (measured: 26 ms of CPU, 0.9 ms without them). For a release in
    :data:`LEAN_ORJSON`, those not yet imported are stood in for while orjson starts, then taken out of
    ``sys.modules``, so the rest of the process imports the real ones:

    - ``datetime`` by ``_datetime``, which holds the very C API ``datetime`` re-exports: no difference at all;
    - ``json.JSONDecodeError`` by :class:`JSONDecodeError`, the same class (arguments, message, attributes), so
      ``orjson.JSONDecodeError`` is still a ValueError with json's message, but not a ``json.JSONDecodeError``:
      catch it as ``orjson.JSONDecodeError`` or ValueError, as the bridge does;
    - ``uuid.UUID``, ``enum.EnumMeta`` and ``dataclasses._FIELD`` by private types that no value is of:
      ``orjson.dumps`` of a ``uuid.UUID`` or of a plain Enum member raises TypeError instead of writing its hex or
      value, an IntEnum or StrEnum member is written as the int or str it is (as before), and a dataclass with
      ``__slots__`` is written ``{}`` (one without, its fields, as before). The bridge gives ``orjson.dumps`` JSON
      values only (``digest.canonical`` and the stores write dicts, lists and scalars).
    """
    import sys

    found = sys.modules.get("orjson")
    if found is not None:
        return found
    stand_ins: dict[str, ModuleType] = {}
    if _lean_release(sys.path):
        module = type(sys)
        if "datetime" not in sys.modules:
            try:
                import _datetime
            except ImportError:
                pass
            else:
                stand_ins["datetime"] = _datetime
        wanted: dict[str, dict[str, object]] = {
            "uuid": {"UUID": _NotUUID},
            "dataclasses": {"_FIELD": _NotField()},
            "enum": {"EnumMeta": _NotEnumMeta},
        }
        if "json" not in sys.modules and "json.decoder" not in sys.modules:
            wanted["json"] = wanted["json.decoder"] = {"JSONDecodeError": JSONDecodeError}
        for name, attributes in wanted.items():
            if name not in sys.modules:
                stand_ins[name] = module(name)
                stand_ins[name].__dict__.update(attributes)
    sys.modules.update(stand_ins)
    try:
        import orjson
    finally:
        for name, stood in stand_ins.items():
            if sys.modules.get(name) is stood:
                del sys.modules[name]
    return orjson


def _lean_release(path: list[str]) -> bool:
    """Whether the orjson an import would find (the first entry of ``path`` holding it) is one of LEAN_ORJSON."""
    import os

    for entry in path:
        if os.path.isdir(os.path.join(entry or ".", "orjson")):
            return any(os.path.isdir(os.path.join(entry or ".", f"orjson-{v}.dist-info")) for v in LEAN_ORJSON)
    return False


class JSONDecodeError(ValueError):
    """``json.JSONDecodeError``, as orjson's base when imported by :func:`lean_orjson` (the json package loads re)."""

    def __init__(self, msg: str, doc: str, pos: int) -> None:
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - doc.rfind("\n", 0, pos)
        ValueError.__init__(self, f"{msg}: line {lineno} column {colno} (char {pos})")
        self.msg, self.doc, self.pos, self.lineno, self.colno = msg, doc, pos, lineno, colno

    def __reduce__(self) -> tuple[type[JSONDecodeError], tuple[str, str, int]]:
        return self.__class__, (self.msg, self.doc, self.pos)


class _NotEnumMeta(type):
    """What orjson takes for ``enum.EnumMeta`` when imported by :func:`lean_orjson` (no class is of it)."""


class _NotUUID:
    """What orjson takes for ``uuid.UUID`` when imported by :func:`lean_orjson` (no value is of this type)."""


class _NotField:
    """What orjson compares a dataclass field's kind with when imported by :func:`lean_orjson`."""


def _orjson_loads(raw: bytes) -> object:
    orjson = lean_orjson()

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
