"""The full run's coverage in the processes a test starts, and the processes a test weighs, which run without it.

``tests/run`` measures every Python started below the test run (pyproject.toml, ``[tool.coverage.run] patch``):
coverage puts its settings in ``COVERAGE_PROCESS_CONFIG``, and the venv's ``a1_coverage.pth`` starts it in any
process that finds the variable. A measured process imports coverage's own modules (typing, threading, json,
pathlib, sqlite3, ~80 in all) before a line of the bridge runs, and runs slower: a test that weighs a process itself
(the modules it loads, the time it takes) runs it with :func:`unmeasured`.
"""

from __future__ import annotations

import os

VARIABLES = ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START")  # either starts coverage in a Python process


def unmeasured(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's environment when None) without the variables that start coverage in a child."""
    source = os.environ if env is None else env
    return {k: v for k, v in source.items() if k not in VARIABLES}
