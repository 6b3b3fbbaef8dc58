"""Two checkouts' whole ``handoff search`` processes over the same history, interleaved in one loop.

Usage: ``.venv/bin/python bench/bench_search_compare.py --home DIR --base-src SRC --base-home DIR [--rounds 15]``

``--home`` is a ``bench/bench_search.py --keep DIR`` folder (its ``repo``, and its ``autopilot`` home with the
packets and this checkout's index); ``--base-src`` another checkout's ``src`` (``git archive <commit> src | tar -x``);
``--base-home`` an ``AUTOPILOT_HOME`` for the base: an index of its own schema (a copy of this one at the base's
``user_version``, without the indexes the base does not know) and ``handoff/packets`` linked to the same packets.
Each round runs bare ``python -I -c pass`` and, for each of bench_search.py's five queries, the base and this
checkout as the plugin runs the bridge (``python -I -S``, bench/wholeprocess.py's ``plugin_argv``), in one loop so
all see the same load. Prints medians of CPU time (user + system, git's processes included: what a busy machine
inflates least) and wall time, and now / before.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from wholeprocess import plugin_argv  # bench/ is on the path

REPO = Path(__file__).resolve().parents[1]
QUERIES = [
    "parse_header_3254",
    "pkg4/headers_3254.py",
    "ValueError: no colon in header line",
    "test_empty_3254 fails",
    "strict about the colon",
]  # bench_search.py's five, for module 3254 (its --packets 10000 history)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="a bench_search.py --keep folder")
    parser.add_argument("--base-src", type=Path, required=True, help="the base checkout's src folder")
    parser.add_argument("--base-home", type=Path, required=True, help="the base's AUTOPILOT_HOME (its own index)")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    py = sys.executable
    src = REPO / "src"
    subprocess.run([py, "-m", "compileall", "-q", str(args.base_src), str(src / "autopilot")], check=True)

    def env(home: Path) -> dict[str, str]:
        homes = {"CODEX_HOME": "codex", "CLAUDE_CONFIG_DIR": "claude", "HOME": "home"}
        return {
            **os.environ,
            "AUTOPILOT_HOME": str(home),
            **{var: str(args.home / sub) for var, sub in homes.items()},
            "PYTHONDONTWRITEBYTECODE": "1",  # each runs from the bytecode compiled above, as an install does
        }

    def search(code: Path, q: str) -> list[str]:
        return plugin_argv(code, "handoff", "search", q, "--json")

    runs: dict[str, tuple[list[str], dict[str, str]]] = {
        "bare": ([py, "-I", "-c", "pass"], env(args.home / "autopilot"))
    }
    for n, q in enumerate(QUERIES):
        runs[f"base {n}"] = (search(args.base_src, q), env(args.base_home))
        runs[f"now {n}"] = (search(src, q), env(args.home / "autopilot"))
    cwd = args.home / "repo"
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    wall: dict[str, list[float]] = {k: [] for k in runs}
    for name, (argv, e) in runs.items():  # warm the page cache; a failure is shown, not timed
        proc = subprocess.run(argv, env=e, cwd=cwd, capture_output=True)
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed: {proc.stderr.decode()[-500:]}")
    for _ in range(args.rounds):
        for name, (argv, e) in runs.items():
            start = time.perf_counter()
            child = subprocess.Popen(argv, env=e, cwd=cwd, stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            if status != 0:
                raise SystemExit(f"{name} failed")
            wall[name].append((time.perf_counter() - start) * 1000)
            cpu[name].append((usage.ru_utime + usage.ru_stime) * 1000)  # git's too: its waited-for children count
    med = statistics.median
    print(f"{args.rounds} rounds, load {os.getloadavg()[0]:.1f} at the end; medians, CPU | wall, ms")
    print(f"bare python -I -c pass: {med(cpu['bare']):.1f} | {med(wall['bare']):.1f}")
    before_cpu, before_wall, now_cpu, now_wall = [], [], [], []
    for n, q in enumerate(QUERIES):
        before_cpu.append(med(cpu[f"base {n}"]))
        before_wall.append(med(wall[f"base {n}"]))
        now_cpu.append(med(cpu[f"now {n}"]))
        now_wall.append(med(wall[f"now {n}"]))
        print(
            f"{q[:36]:36} before {before_cpu[-1]:6.1f} | {before_wall[-1]:6.1f}   now {now_cpu[-1]:6.1f} | "
            f"{now_wall[-1]:6.1f}   now/before CPU {now_cpu[-1] / before_cpu[-1]:.2f}, "
            f"wall {now_wall[-1] / before_wall[-1]:.2f}"
        )
    print(
        f"median of the 5: before {med(before_cpu):.1f} | {med(before_wall):.1f}, now {med(now_cpu):.1f} | "
        f"{med(now_wall):.1f}: now/before CPU {med(now_cpu) / med(before_cpu):.2f}, wall "
        f"{med(now_wall) / med(before_wall):.2f}; worst now {max(now_cpu):.1f} | {max(now_wall):.1f}; goal <= 35 ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
