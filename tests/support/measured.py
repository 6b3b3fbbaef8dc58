"""The full run's coverage in the processes a test starts, and the processes a test weighs, which run without it.

``tests/run`` measures every Python started below the test run (pyproject.toml, ``[tool.coverage.run] patch``):
coverage puts its settings in ``COVERAGE_PROCESS_CONFIG``, and the venv's ``a1_coverage.pth`` starts it in any
process that finds the variable. A measured process imports coverage's own modules (typing, threading, json,
pathlib, sqlite3, ~80 in all) before a line of the bridge runs, and runs slower: a test that weighs a process itself
(the modules it loads, the time it takes) runs it with :func:`unmeasured`; a test that bounds CPU time in its own
process runs :func:`untraced`.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")  # either starts coverage in a Python process


def unmeasured(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's environment when None) without the variables that start coverage in a child."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if k not in VARIABLES}


def untraced(test: Callable[..., T]) -> Callable[..., T]:
    """``test`` run without the coverage tracer (``sys.settrace``): a test that bounds the CPU time of code in this
    process (a pattern that must stay linear) measures that code, not the tracer, which makes a pure-Python loop
    several times slower under the full run's branch coverage. What it runs is covered by the other tests."""

    @functools.wraps(test)
    def run(*args: object, **kwargs: object) -> T:
        tracer = sys.gettrace()
        sys.settrace(None)
        try:
            return test(*args, **kwargs)
        finally:
            sys.settrace(tracer)

    return run
