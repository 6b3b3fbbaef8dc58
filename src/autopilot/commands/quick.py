"""Command lines read without argparse, exactly as argparse reads them, for the commands agents run often.

argparse, its help formatter and the other handoff actions' parsers cost ~12 ms of a process that
answers in 30; `handoff search`, `intake`, `from-codex intake` and `read` declare their options here
too (a :class:`Spec` next to their ``add_parser``) and cli.py reads the usual command lines itself.
Anything unusual (``--help``, an abbreviation, a missing or bad value, a value starting with ``-``,
an unknown option, a missing or extra positional) reads as None and goes to argparse, so usage,
errors and exit codes stay argparse's. ``tests/unit/commands/test_quick.py`` compares the two readings.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs ~2 ms to import; these command lines are read on every agent call
if TYPE_CHECKING:
    from typing import Any


class Spec:
    """The options of one command as its argparse parser declares them (``add_parser`` stays the truth)."""

    def __init__(
        self,
        *,
        flags: dict[str, str] | None = None,
        values: dict[str, str] | None = None,
        ints: tuple[str, ...] = (),
        choices: dict[str, tuple[str, ...]] | None = None,
        positionals: tuple[str, ...] = (),
        required: tuple[str, ...] = (),
        defaults: dict[str, Any] | None = None,
    ) -> None:
        self.flags = flags or {}  # option -> dest (store_true)
        self.values = values or {}  # option -> dest (one value each)
        self.ints = frozenset(ints)  # dests converted with int()
        self.choices = choices or {}  # dest -> the values it allows
        self.positionals = positionals  # dests, each required, in order
        self.required = required  # dests of options that must be given
        self.defaults = defaults or {}


def read(spec: Spec, argv: list[str]) -> dict[str, Any] | None:
    """The options in ``argv`` as argparse would parse them, or None when only argparse may say."""
    out: dict[str, Any] = {dest: None for dest in (*spec.values.values(), *spec.positionals)}
    out.update({dest: False for dest in spec.flags.values()})
    out.update(spec.defaults)
    given: set[str] = set()
    positional = iter(spec.positionals)
    rest = iter(argv)
    only_positional = False
    for arg in rest:
        if arg == "--" and not only_positional:
            only_positional = True
            continue
        if only_positional or not arg.startswith("-"):
            dest = next(positional, None)
            if dest is None or arg == "--":
                return None
            out[dest] = arg
            given.add(dest)
            continue
        if arg in spec.flags:
            out[spec.flags[arg]] = True
            continue
        name, eq, value = arg.partition("=")
        if name not in spec.values:
            return None
        if not eq:
            value = next(rest, "-")
            if value.startswith("-"):
                return None
        dest = spec.values[name]
        if dest in spec.ints:
            try:
                out[dest] = int(value)
            except ValueError:
                return None
        elif dest in spec.choices and value not in spec.choices[dest]:
            return None
        else:
            out[dest] = value
        given.add(dest)
    if any(dest not in given for dest in (*spec.positionals, *spec.required)):
        return None
    return out
