"""Whether a value the code returned has a TypedDict's keys: the check the shapes' tests share.

A shape (``*/shapes.py``) is for the type checker only; nothing at run time holds a value to it. These tests
hold what the real code returns to the shape it is annotated with: every required key present, no key the
shape does not declare (types inside are the type checker's business).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def keys(shape: type) -> set[str]:
    """Every key a TypedDict declares, required or not (its bases' included)."""
    return set(shape.__required_keys__) | set(shape.__optional_keys__)  # type: ignore[attr-defined]


def required(shape: type) -> set[str]:
    """The keys a TypedDict requires. Its ``__required_keys__`` is not enough: the shapes import ``NotRequired``
    for the type checker only, so at run time ``NotRequired[str]`` is a string Python cannot read as optional."""
    optional = {
        name
        for cls in shape.__mro__
        for name, annotation in vars(cls).get("__annotations__", {}).items()
        if str(getattr(annotation, "__forward_arg__", annotation)).startswith("NotRequired[")
    }
    return set(shape.__required_keys__) - optional  # type: ignore[attr-defined]


def mismatches(value: Mapping[str, Any], shape: type) -> list[str]:
    """What keeps ``value`` from being a ``shape``: each required key it lacks, each key the shape does not know."""
    missing = sorted(required(shape) - set(value))
    unknown = sorted(set(value) - keys(shape))
    return [f"missing {k}" for k in missing] + [f"unknown {k}" for k in unknown]
