"""JSON Schema (2020-12) for the bridge's own fixed schemas, answered without importing jsonschema.

jsonschema costs 60-100 ms to import, more than the rest of a review's own work; yet the schemas a run
checks on every call are ours and small: Codex's answers (``loop/schemas/*.json``) and state.json
(``loop/state_schema.json``). A :class:`Schema` (:func:`load` reads and compiles one once per process)
checks the keywords those schemas use: ``type``, ``enum``, ``const``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``minItems``/``maxItems``, ``minLength``/``maxLength``,
``minimum``/``maximum`` and their exclusive forms, ``oneOf``/``anyOf``/``allOf``, local ``$ref``, and the
annotations (``$defs``, ``description``, ``format``, which jsonschema does not assert either).

Only a valid document is answered here (:meth:`Schema.first_error`). An invalid one, or any document of
a schema using a keyword outside that list, is handed to jsonschema itself, whose verdict and words (the
first error by path) stand: a document is never refused here that jsonschema would take, and the messages
Codex and the user read are jsonschema's. ``tests/unit/loop/test_schema_subset.py`` checks that both accept exactly
the same documents, over each schema's valid documents and thousands of mutations of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    Check = Callable[[object], bool]

# Keywords that assert nothing (jsonschema's default validator does not check formats either).
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "definitions", "$comment", "title", "description", "default", "examples", "format"}
    | {"deprecated", "readOnly", "writeOnly"}
)


class Unsupported(Exception):
    """The schema uses a keyword this module does not check: jsonschema answers instead."""


class Schema:
    """One schema document, compiled once into a check of the subset (None when it uses more)."""

    def __init__(self, document: Mapping[str, object]) -> None:
        self.document = document
        try:
            self.check: Check | None = _Compiler(document).compile(document)
        except Unsupported:
            self.check = None

    def first_error(self, instance: object) -> str | None:
        """None when ``instance`` is valid; else jsonschema's first error by path, as ``where: what``."""
        if self.check is not None and self.check(instance):
            return None
        import jsonschema  # heavy (60-100 ms): only an invalid document, or a schema outside the subset, pays for it

        validator = jsonschema.Draft202012Validator(self.document)
        errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.path))
        if not errors:
            return None
        where = "/".join(str(p) for p in errors[0].path) or "(top level)"
        return f"{where}: {errors[0].message}"


_loaded: dict[str, Schema] = {}


def load(path: str) -> Schema:
    """The schema in the JSON file ``path`` (one of the package's own), read and compiled once per process."""
    found = _loaded.get(path)
    if found is None:
        from autopilot.fastjson import parse_json

        with open(path, encoding="utf-8") as fh:
            document = parse_json(fh.read())
        if not isinstance(document, dict):
            raise ValueError(f"{path} is not a JSON Schema object")
        found = _loaded[path] = Schema(document)
    return found


def _is_integer(value: object) -> bool:
    if value is True or value is False:
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: object) -> bool:
    return value is not True and value is not False and isinstance(value, (int, float))


_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: v is True or v is False,
    "null": lambda v: v is None,
}


def _equal(one: object, two: object) -> bool:
    """jsonschema's equality for enum and const: booleans are not numbers, containers compare item by item."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    if isinstance(one, (list, tuple)) and isinstance(two, (list, tuple)):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(_equal(one[k], two[k]) for k in one)
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    return one == two


class _Compiler:
    """Turns a schema into one function of the instance; ``$ref`` targets are compiled once, late (recursion)."""

    def __init__(self, root: Mapping[str, object]) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def ref(self, pointer: object) -> Check:
        """The check of a local ``$ref`` (``#/$defs/name``), compiled on first use."""
        if not isinstance(pointer, str) or not pointer.startswith("#/"):
            raise Unsupported(f"$ref {pointer!r}")
        found = self.refs.get(pointer)
        if found is not None:
            return found
        target: object = self.root
        for part in pointer[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, dict) or part not in target:
                raise Unsupported(f"$ref {pointer!r} does not resolve")
            target = target[part]
        slot: list[Check] = []

        def late(value: object) -> bool:  # a schema that refers to itself meets this before it is compiled
            return slot[0](value)

        self.refs[pointer] = late
        slot.append(self.compile(target))
        return slot[0]

    def compile(self, schema: object) -> Check:
        """One check for ``schema``: every keyword's, all of which must hold."""
        if schema is True or schema is False:
            return _always(schema)
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        checks = [self.keyword(schema, key, arg) for key, arg in schema.items() if key not in _ANNOTATIONS]
        return _all(checks)

    def keyword(self, schema: Mapping[str, object], key: str, arg: object) -> Check:  # noqa: C901 - one per keyword
        """The check of one keyword of ``schema``."""
        if key == "type":
            names = [arg] if isinstance(arg, str) else arg
            if not isinstance(names, list) or not names or not all(n in _TYPES for n in names):
                raise Unsupported(f"type {arg!r}")
            return _any([_TYPES[n] for n in names])
        if key == "enum":
            if not isinstance(arg, list):
                raise Unsupported("enum")
            return _among(arg)
        if key == "const":
            return _among([arg])
        if key in _BOUNDS:
            if not _is_number(arg):
                raise Unsupported(key)
            return _BOUNDS[key](arg)  # type: ignore[arg-type]
        if key in _SIZES:
            if not _is_integer(arg):
                raise Unsupported(key)
            return _SIZES[key](int(arg))  # type: ignore[call-overload]
        if key == "required":
            if not isinstance(arg, list):
                raise Unsupported("required")
            return _required(arg)
        if key == "properties":
            if not isinstance(arg, dict):
                raise Unsupported("properties")
            return _properties({name: self.compile(sub) for name, sub in arg.items()})
        if key == "additionalProperties":
            named = schema.get("properties", {})
            if "patternProperties" in schema or not isinstance(named, dict):
                raise Unsupported("additionalProperties beside patternProperties")
            return _additional(frozenset(named), self.compile(arg))
        if key == "items":
            if "prefixItems" in schema:
                raise Unsupported("items beside prefixItems")
            return _items(self.compile(arg))
        if key in ("oneOf", "anyOf", "allOf"):
            if not isinstance(arg, list) or not arg:
                raise Unsupported(key)
            subs = [self.compile(sub) for sub in arg]
            return _one(subs) if key == "oneOf" else _any(subs) if key == "anyOf" else _all(subs)
        if key == "$ref":
            return self.ref(arg)
        raise Unsupported(key)


def _always(verdict: bool) -> Check:
    def check(value: object) -> bool:
        return verdict

    return check


def _all(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(value: object) -> bool:
        return all(f(value) for f in checks)

    return check


def _any(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]

    def check(value: object) -> bool:
        return any(f(value) for f in checks)

    return check


def _one(checks: list[Check]) -> Check:
    def check(value: object) -> bool:
        return sum(1 for f in checks if f(value)) == 1

    return check


def _among(allowed: list[object]) -> Check:
    def check(value: object) -> bool:
        return any(_equal(value, each) for each in allowed)

    return check


def _required(names: list[object]) -> Check:
    def check(value: object) -> bool:
        return not isinstance(value, dict) or all(name in value for name in names)

    return check


def _properties(props: dict[str, Check]) -> Check:
    def check(value: object) -> bool:
        return not isinstance(value, dict) or all(f(value[name]) for name, f in props.items() if name in value)

    return check


def _additional(named: frozenset[str], extra: Check) -> Check:
    def check(value: object) -> bool:
        return not isinstance(value, dict) or all(extra(v) for k, v in value.items() if k not in named)

    return check


def _items(each: Check) -> Check:
    def check(value: object) -> bool:
        return not isinstance(value, list) or all(each(item) for item in value)

    return check


def _minimum(limit: float) -> Check:
    return lambda value: not _is_number(value) or not value < limit  # type: ignore[operator]


def _maximum(limit: float) -> Check:
    return lambda value: not _is_number(value) or not value > limit  # type: ignore[operator]


def _exclusive_minimum(limit: float) -> Check:
    return lambda value: not _is_number(value) or not value <= limit  # type: ignore[operator]


def _exclusive_maximum(limit: float) -> Check:
    return lambda value: not _is_number(value) or not value >= limit  # type: ignore[operator]


def _min_length(limit: int) -> Check:
    return lambda value: not isinstance(value, str) or len(value) >= limit


def _max_length(limit: int) -> Check:
    return lambda value: not isinstance(value, str) or len(value) <= limit


def _min_items(limit: int) -> Check:
    return lambda value: not isinstance(value, list) or len(value) >= limit


def _max_items(limit: int) -> Check:
    return lambda value: not isinstance(value, list) or len(value) <= limit


_BOUNDS: dict[str, Callable[[float], Check]] = {
    "minimum": _minimum,
    "maximum": _maximum,
    "exclusiveMinimum": _exclusive_minimum,
    "exclusiveMaximum": _exclusive_maximum,
}
_SIZES: dict[str, Callable[[int], Check]] = {
    "minLength": _min_length,
    "maxLength": _max_length,
    "minItems": _min_items,
    "maxItems": _max_items,
}
