"""Whole-process timing the benchmarks share: a command's wall time as a user waits for it.

``interleaved`` runs each command in turn, round after round, so every one sees the same machine
load, and gives each command's median; ``best`` keeps the fastest of a few runs of one command
(each after an optional setup); ``measure`` gives one run's wall and CPU time and peak RSS. Nothing here
asserts anything.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


SITE_PACKAGES = sysconfig.get_paths()["purelib"]  # this venv's: the dependencies (the package is the checkout's)


def plugin_argv(src: Path | str, *args: str, python: str = sys.executable) -> list[str]:
    """A bridge process as the plugin runs it from the venv bootstrap.py built (scripts/bridge): ``python -I -S``,
    the venv's site-packages given on the command line, no site module and no .pth read; ``src`` (a checkout's
    package folder) first on the path, so that two checkouts can be measured alike."""
    line = f"import sys; sys.path.insert(0, {str(src)!r}); sys.path.append(sys.argv.pop(1)); "
    return [python, "-I", "-S", "-c", line + "from autopilot.cli import entry; entry()", SITE_PACKAGES, *args]


def bridge(*args: str) -> list[str]:
    """The command line of a `codex-bridge` process (the package from this checkout)."""
    return [sys.executable, "-m", "autopilot", *args]


def naive_argv(path: Path) -> list[str]:
    """A process that json.loads every line of ``path`` (the baseline a reader is compared with)."""
    return [sys.executable, "-c", NAIVE, str(path)]


def environment(home: Path) -> dict[str, str]:
    """The environment of a measured process: this checkout's package, its own AUTOPILOT_HOME."""
    env = {**os.environ, "AUTOPILOT_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # from its bytecode, as an installed bridge runs
    return env


TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time: the measured process's own peak RSS (%M)


def measure(argv: list[str], env: dict[str, str], *, capture: bool = False) -> dict[str, Any]:
    """One process run to its end (it must succeed): wall and CPU milliseconds (user + system, read for this child
    with ``os.wait4``: waiting for a busy core does not count) and its peak RSS in MB; its stdout if asked.

    The peak is GNU time's ``%M`` of the process it starts: a process forked from this one starts its high-water mark
    at this process's size (a benchmark that wrote a big file holds a lot), one forked from ``time`` at time's. Its
    CPU (a millisecond) is counted with the process's. Without GNU time the peak is the child's ``ru_maxrss``.
    """
    report = None
    if TIME is not None:
        fd, report = tempfile.mkstemp(prefix="measure-", suffix=".rss")
        os.close(fd)
        argv = [TIME, "-f", "%M", "-o", report, *argv]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE if capture else subprocess.DEVNULL)
    out = proc.stdout.read() if proc.stdout is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - start) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    peak_kb = float(usage.ru_maxrss)
    if report is not None:
        with open(report) as fh:
            text = fh.read().split()
        os.unlink(report)
        peak_kb = float(text[-1]) if text else peak_kb
    if proc.returncode != 0:
        raise RuntimeError(f"{argv[:6]} exited {proc.returncode}")
    result: dict[str, Any] = {
        "wall_ms": wall,
        "cpu_ms": (usage.ru_utime + usage.ru_stime) * 1000,
        "peak_mb": peak_kb / 1024,
    }
    if capture:
        result["stdout"] = out.decode()
    return result


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
