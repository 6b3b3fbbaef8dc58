"""Regular expressions compiled on first use: the redactor's, and the transcript readers' that a page may skip.

``re`` compiles in Python: the redactor's ~100 patterns and the transcript readers' cost ~15 ms,
more than the rest of a cached `handoff intake` page, which needs a dozen of them (a rule runs
only on text holding its hints). :func:`lazy` takes a pattern as ``re.compile`` does and
compiles it when it is first used; after that each method is the compiled pattern's own.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AnyStr


def lazy(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """The pattern ``re.compile(source, flags)``, compiled on first use."""
    return _Lazy(source, flags)  # type: ignore[return-value]  # it answers every attribute the compiled one has


class _Lazy:
    """Stands in for a compiled pattern: the first attribute asked for compiles it, and is kept on the instance."""

    def __init__(self, source: str | bytes, flags: int) -> None:
        self.pattern = source
        self.flags_given = flags

    def __getattr__(self, name: str) -> object:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(self.pattern, self.flags_given)
        value = getattr(compiled, name)
        setattr(self, name, value)  # found on the instance from now on, without __getattr__
        return value
