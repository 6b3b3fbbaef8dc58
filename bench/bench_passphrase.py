"""What an offline guess at the approval passphrase costs: scrypt at the cost ``durable secret`` writes, here.

Anything that can read ``passphrase.json`` (its salt, its cost, its public key) can guess offline: each guess is one
scrypt at the recorded cost and one Ed25519 key derivation. This prints guesses per second, one process and one per
core, at :data:`autopilot.knowledge.durable.secret.COST` and at the cost before issue 34 (n=2^16), and how long the
guessing takes for a passphrase zxcvbn scores 4 (at least 10^10 guesses) and for the first 1,000 guesses of a list.

Usage: .venv/bin/python bench/bench_passphrase.py [--seconds S]   (prints a Markdown table)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from autopilot.knowledge.durable import secret  # noqa: E402

BEFORE = {"n": 2**16, "r": 8, "p": 1}  # the cost before issue 34
SALT = "00" * 16


def guesses(cost: dict[str, int], seconds: float) -> tuple[int, float]:
    """Guesses one process makes in about ``seconds`` (each: scrypt and the key it seeds)."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        secret._key(secret._derive(f"guess number {done}", cost, SALT))  # type: ignore[arg-type]
        done += 1
    return done, time.perf_counter() - start


def rate(cost: dict[str, int], seconds: float, workers: int) -> float:
    """Guesses per second over ``workers`` processes at once."""
    with ProcessPoolExecutor(workers) as pool:
        runs = list(pool.map(guesses, [cost] * workers, [seconds] * workers))
    return sum(n / t for n, t in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"| cost | MiB | guesses/s, 1 process | guesses/s, {cores} processes | 1,000 guesses | 10^10 guesses |")
    print("|---|---|---|---|---|---|")
    for label, cost in (("before (n=2^16, r=8, p=1)", BEFORE), ("now (n=2^17, r=8, p=1)", secret.COST)):
        one = rate(dict(cost), args.seconds, 1)
        all_ = rate(dict(cost), args.seconds, cores)
        mib = 128 * cost["r"] * cost["n"] // 2**20
        years = 1e10 / all_ / 3600 / 24 / 365
        print(f"| {label} | {mib} | {one:.2f} | {all_:.2f} | {1000 / all_ / 60:.1f} min | {years:,.0f} years |")


if __name__ == "__main__":
    main()
