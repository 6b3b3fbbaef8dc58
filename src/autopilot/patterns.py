"""Regular expressions compiled on first use, and compiled once per machine: the redactor's, the readers' and
the search's tokenizer's.

``re`` compiles in Python: the redactor's ~100 patterns and the transcript readers' cost ~15 ms,
more than the rest of a cached `handoff intake` page, which needs a dozen of them (a rule runs
only on text holding its hints). :func:`lazy` takes a pattern as ``re.compile`` does and
compiles it when it is first used; after that each method is the compiled pattern's own.

Even a dozen cost a page ~15-25 ms of its ~100 (a page after an append compiles ~55: its new text wakes more rules),
so a process keeps what ``re`` made of each pattern (:func:`keep_compiled`): the parsed program that ``_sre``
runs, stored in a cache file tagged with the exact interpreter, and handed to ``_sre.compile`` as ``re`` itself
does. A program is stored only after the pattern built from it compared equal to ``re.compile``'s (the same
source, flags and program), so a cached pattern is the compiled one; a file of another interpreter, a damaged file,
a damaged program (each has its CRC-32) or one ``_sre`` refuses is compiled afresh. A program is decoded when its
pattern is first used: a process reads the whole file (~290 KB, 0.3 ms, when it holds every pattern) but decodes a
handful. :func:`compiled_cache` gives what to write back (the caller owns the file: ``cli.py``). A process reads the
file beside this module's bytecode (:func:`kept_path`) unless told otherwise.

This module does not import ``re`` (enum, functools and the parser with it: ~8 ms of a process): a pattern whose
program is kept is built by ``_sre`` alone, so a process whose patterns are all kept (the prompt hook redacting a
credential) never loads it; a pattern that is not kept loads ``re`` and compiles as always. The redactor's modules
keep to that: flags are this module's (:data:`IGNORECASE`, :data:`MULTILINE`), literal text is escaped by
:func:`escape`, and no rule calls a function of ``re`` (tests/integration/test_patterns.py).
"""

from __future__ import annotations

import _sre  # the engine `re` hands its programs to, loaded here without `re` itself
import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any, AnyStr

CACHE_FORMAT = 3  # 3: each program marshalled on its own and followed by its CRC-32
CACHE_ENTRIES = 2048  # patterns kept at most (the package declares ~280; a pattern built from data is not kept past it)

# re's flags as the plain numbers they are (re.IGNORECASE is an enum: importing it imports re)
IGNORECASE = 2
MULTILINE = 8
DOTALL = 16
# What re.escape escapes (Python 3.7 and later): the same text, so an escaped pattern's kept program is found.
_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: str) -> str:
    """``re.escape(text)``, without importing ``re``."""
    return text.translate(_SPECIAL)


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
            compiled = self.__dict__["_compiled"] = compile_pattern(self.pattern, self.flags_given)
        value = getattr(compiled, name)
        setattr(self, name, value)  # found on the instance from now on, without __getattr__
        return value


class _Cache:
    """The compiled programs this process may reuse: where they are kept, and whether it added any."""

    path: str | None = ""  # "": the file beside this module's bytecode (kept_path), found on the first compile
    entries: dict[tuple[str | bytes, int], bytes] | None = None  # read on the first compile; programs as _stored
    added = False


def keep_compiled(path: str | None) -> None:
    """Reuse the programs kept in ``path`` for the patterns compiled from now on (the file is read on the first
    compile: a process that compiles none reads nothing), and remember the ones it lacks; None: compile as ``re``
    does, keeping nothing. A process that never asks keeps them in :func:`kept_path`."""
    _Cache.path, _Cache.entries, _Cache.added = path, None, False


def kept_path() -> str:
    """The kept programs' file: beside the package's bytecode (``autopilot/__pycache__``), never in the bridge's home.
    A kept program is run as the redactor itself, so it must be as hard to change as the code: with ``setup
    --sandbox`` an agent's shell may write the home (its caches and packets) but not the installed code, and one that
    planted a program there would decide what the redactor lets through."""
    here = os.path.join(os.path.dirname(__file__), "__pycache__")
    return os.path.join(here, f"regex-{sys.implementation.cache_tag}.marshal")


def kept_in() -> str | None:
    """The file this process keeps its programs in (None: it keeps none)."""
    return kept_path() if _Cache.path == "" else _Cache.path


def compiled_cache() -> bytes | None:
    """The cache file's new contents when this process compiled a pattern it did not hold, else None."""
    if not _Cache.added or _Cache.entries is None:
        return None
    _Cache.added = False
    return marshal.dumps((_tag(), _Cache.entries))


def compile_pattern(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(source, flags)``, from the kept program when there is one (see :func:`keep_compiled`)."""
    path = kept_in()
    if path is None:
        import re  # noqa: PLC0415 - only a pattern that is not kept loads re

        return re.compile(source, flags)
    if _Cache.entries is None:
        _Cache.entries = _load(path)
    flags = int(flags)
    key = (source, flags)
    stored = _Cache.entries.get(key)
    if stored is not None:
        try:
            return _sre.compile(source, *_program_of(stored))  # type: ignore[no-any-return]
        except Exception:  # noqa: BLE001 - a damaged entry (its CRC, or _sre validates a program): compiled afresh
            del _Cache.entries[key]
    import re  # noqa: PLC0415 - only a pattern that is not kept loads re

    pattern = re.compile(source, flags)
    if len(_Cache.entries) < CACHE_ENTRIES:
        parts = program(source, flags, pattern)
        if parts is not None:
            _Cache.entries[key] = stored_program(parts)
            _Cache.added = True
    return pattern


def program(source: str | bytes, flags: int, pattern: re.Pattern[Any]) -> tuple[Any, ...] | None:
    """What ``re.compile`` hands ``_sre.compile`` for ``source`` (as ``re``'s own compiler makes it), or None when
    this interpreter's ``re`` builds it otherwise: the pattern built from it must equal ``pattern``."""
    try:
        if sys.version_info >= (3, 11):
            from re import _compiler, _parser  # type: ignore[attr-defined]  # noqa: PLC0415 - on a first compile only
        else:  # pragma: no cover - 3.10's names
            import sre_compile as _compiler  # noqa: PLC0415
            import sre_parse as _parser  # noqa: PLC0415
        parsed = _parser.parse(source, flags)
        code = _compiler._code(parsed, flags)
        state = parsed.state
        indexgroup: list[str | None] = [None] * state.groups
        for name, number in state.groupdict.items():
            indexgroup[number] = name
        # plain ints: the opcodes are named int subclasses, which marshal does not store
        code = [int(c) for c in code]
        parts = (int(flags | state.flags), code, state.groups - 1, dict(state.groupdict), tuple(indexgroup))
        return parts if _sre.compile(source, *parts) == pattern else None
    except Exception:  # noqa: BLE001 - a `re` whose internals differ: the pattern is compiled every time
        return None


def stored_program(parts: tuple[Any, ...]) -> bytes:
    """A program as the file keeps it: marshalled, then its CRC-32 (damage in a kept program must cost a compile,
    never a pattern that matches otherwise: ``_sre`` validates a program's shape, not which characters it matches)."""
    data = marshal.dumps(parts)
    return data + _crc(data)


def _program_of(stored: bytes) -> tuple[Any, ...]:
    """The program ``stored`` holds (ValueError: damaged)."""
    data = stored[:-4]
    if _crc(data) != stored[-4:]:
        raise ValueError("a damaged program")
    parts = marshal.loads(data)
    if not isinstance(parts, tuple):
        raise ValueError("not a program")
    return parts


def _crc(data: bytes) -> bytes:
    import binascii  # noqa: PLC0415 - loaded with the first kept program (the redactor's decoding loads it too)

    return binascii.crc32(data).to_bytes(4, "big")


def _tag() -> tuple[Any, ...]:
    """What a kept program is valid for: this format and this exact interpreter and regular-expression engine."""
    engine: Any = _sre
    maxrepeat = int(engine.MAXREPEAT)
    return (CACHE_FORMAT, sys.version, sys.implementation.cache_tag, engine.MAGIC, engine.CODESIZE, maxrepeat)


def _load(path: str) -> dict[tuple[str | bytes, int], bytes]:
    """The programs kept in ``path`` for this interpreter ({} when there is none, another's, or a damaged file)."""
    try:
        with open(path, "rb") as fh:
            tag, entries = marshal.loads(fh.read())
    except (OSError, ValueError, EOFError, TypeError):
        return {}
    if tag != _tag() or not isinstance(entries, dict):
        return {}
    return entries
