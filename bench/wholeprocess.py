"""Whole-process timing the benchmarks share: a command's wall time as a user waits for it.

``interleaved`` runs each command in turn, round after round, so every one sees the same machine
load, and gives each command's median; ``best`` keeps the fastest of a few runs of one command
(each after an optional setup). Nothing here asserts anything.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BARE = [sys.executable, "-I", "-c", "pass"]
NAIVE = """
import json, sys
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        try:
            json.loads(line)
        except ValueError:
            pass
"""


def bridge(*args: str) -> list[str]:
    """The command line of a `codex-bridge` process (the package from this checkout)."""
    return [sys.executable, "-m", "autopilot", *args]


def naive_argv(path: Path) -> list[str]:
    """A process that json.loads every line of ``path`` (the baseline a reader is compared with)."""
    return [sys.executable, "-c", NAIVE, str(path)]


def environment(home: Path) -> dict[str, str]:
    """The environment of a measured process: this checkout's package, its own AUTOPILOT_HOME."""
    return {**os.environ, "AUTOPILOT_HOME": str(home), "PYTHONPATH": str(REPO / "src")}


def run_ms(argv: list[str], env: dict[str, str]) -> float:
    """Wall milliseconds of one process, start to exit (it must succeed)."""
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return (time.perf_counter() - start) * 1000


def interleaved(cases: dict[str, list[str]], env: dict[str, str], runs: int) -> dict[str, float]:
    """Each command's median wall milliseconds over ``runs`` rounds of all of them in turn (after one warm round)."""
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for argv in cases.values():
        run_ms(argv, env)
    for _ in range(runs):
        for name, argv in cases.items():
            samples[name].append(run_ms(argv, env))
    return {name: statistics.median(values) for name, values in samples.items()}


def best(argv: list[str], env: dict[str, str], repeat: int = 3, setup: Callable[[], None] | None = None) -> float:
    """The fastest wall milliseconds of ``repeat`` runs of one command, each after ``setup``."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        times.append(run_ms(argv, env))
    return min(times)
