"""Benchmark `codex-bridge report` over many runs against a baseline measured in the same run.

Builds a throwaway $AUTOPILOT_HOME with RUNS run directories, each holding an events.jsonl of EVENTS
model calls as loop/reviewer.py writes them (a tenth from an earlier, re-planned run) and a state.json
whose totals equal its current run's calls. Then times, as whole processes against bare
`python -I -c pass`: `codex-bridge report --json` (by day) and `--by run`; and in-process: report()
against a naive loop that `json.loads` every line and adds it up. Fails if any run's check does not
match (the report must equal the runs' totals).

Usage: python bench/bench_report.py [--runs-dirs 50] [--events 1000] [--repeat 10]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autopilot.loop.budget import add_usd  # noqa: E402
from autopilot.loop.migrations import CURRENT_VERSION  # noqa: E402

PHASES = ("plan", "review", "verdict")
MODELS = ("gpt-6.2-sol", "gpt-5.5", "gpt-5.5-mini")


def build_home(home: Path, runs: int, events: int, rng: random.Random) -> None:
    """``runs`` run directories of ``events`` calls each, with state.json totals equal to the current run's calls."""
    for n in range(runs):
        run_dir = home / "runs" / f"project-{n:03d}-{n:012x}"
        run_dir.mkdir(parents=True)
        earlier, current = uuid.uuid4().hex, uuid.uuid4().hex
        usage = {p: {"input": 0, "cached": 0, "output": 0, "calls": 0} for p in PHASES}
        spent = {"plan": 0.0, "rest": 0.0}
        lines = []
        for k in range(events):
            run_id = earlier if k < events // 10 else current
            phase = "plan" if k in (0, events // 10) else rng.choice(("review", "verdict"))
            inp = rng.randint(2_000, 60_000)
            cached = rng.randint(0, inp)
            out = rng.randint(50, 3_000)
            usd = round((inp - cached) * 1.25e-6 + cached * 1.25e-7 + out * 1e-5, 10)
            failed = rng.random() < 0.03
            event = {
                "ts": f"2026-11-{1 + k * 29 // events:02d}T{k % 24:02d}:00:00.000000Z",
                "phase": phase,
                "backend": "openai",
                "effort": rng.choice((None, "low", "high")),
                "run_id": run_id,
                "model": rng.choice(MODELS),
                "attempt": 1,
                "latency_ms": rng.randint(500, 9000),
                "tokens": {"input": inp, "cached": cached, "output": out, "cache_write": 0},
                "usd": usd,
                "outcome": "error:timeout" if failed else "ok",
                "conversation_id": f"resp_{k}",
            }
            lines.append(json.dumps(event, sort_keys=True))
            if run_id == current:
                bucket = usage[phase]
                bucket["input"] += inp
                bucket["cached"] += cached
                bucket["output"] += out
                bucket["calls"] += 1
                key = "plan" if phase == "plan" else "rest"
                spent[key] = add_usd(spent[key], usd)
        (run_dir / "events.jsonl").write_text("\n".join(lines) + "\n")
        state = {
            "schema_version": CURRENT_VERSION,
            "run_id": current,
            "workspace": f"/work/project-{n:03d}",
            "goal": f"goal {n}",
            "status": "running",
            "iteration": 10,
            "no_progress_streak": 0,
            "token_usage": usage,
            "plan_usd": spent["plan"],
            "budget_used_usd": spent["rest"],
            "budget_usd": 1000.0,
        }
        (run_dir / "state.json").write_text(json.dumps(state, indent=2, sort_keys=True))


def naive(home: Path) -> float:
    """The baseline: json.loads every line of every events.jsonl and add its tokens and USD."""
    total = 0.0
    for events in (home / "runs").glob("*/events.jsonl"):
        with open(events, encoding="utf-8") as fh:
            for line in fh:
                event = json.loads(line)
                total += event["usd"] + sum(event["tokens"].values())
    return total


def timed_ms(call, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """The median of ``repeat`` runs of ``call()`` in milliseconds, after one that warms caches."""
    return interleaved({"call": call}, repeat)["call"]


def interleaved(calls: dict, repeat: int) -> dict[str, float]:  # type: ignore[type-arg]
    """The median milliseconds of each of ``calls``, run in turn ``repeat`` times (after one warming round),
    so the machine's load falls on each alike."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for round_ in range(repeat + 1):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            if round_:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(samples) * 1000 for name, samples in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-dirs", type=int, default=50)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    py = sys.executable
    subprocess.run([py, "-m", "compileall", "-q", str(REPO / "src" / "autopilot")], check=True)
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        home = Path(tmp) / "home"
        build_home(home, args.run_dirs, args.events, random.Random(15))
        env = {**os.environ, "AUTOPILOT_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
        env["PYTHONPATH"] = str(REPO / "src")

        def process(*argv: str):  # type: ignore[no-untyped-def]
            return lambda: subprocess.run([py, *argv], env=env, capture_output=True, check=True)

        check = json.loads(process("-m", "autopilot", "report", "--json")().stdout)
        runs, lines = check["runs"], check["lines"]
        if runs["matching"] != args.run_dirs or runs["mismatches"]:
            raise SystemExit(f"the report does not equal the runs' totals: {runs}")
        os.environ["AUTOPILOT_HOME"] = str(home)
        from autopilot.loop.report import report

        whole = interleaved(
            {
                "bare": process("-I", "-c", "pass"),
                "day": process("-m", "autopilot", "report", "--json"),
                "run": process("-m", "autopilot", "report", "--by", "run"),
            },
            args.repeat,
        )
        inside = interleaved({"naive": lambda: naive(home), "report": lambda: report(by="day")}, args.repeat)
        bare, by_day, by_run = whole["bare"], whole["day"], whole["run"]
        baseline, inproc = inside["naive"], inside["report"]
        print(f"{args.run_dirs} runs x {args.events} events = {lines['calls']:,} calls ({lines['files']} files)")
        print(f"check: {runs['matching']} of {runs['checked']} runs equal their state.json totals")
        print(f"{'measure':<52}{'median':>11}{'ratio':>9}")
        rows = [
            ("bare `python -I -c pass`", bare, 1.0),
            ("`codex-bridge report --json` (by day), whole process", by_day, by_day / bare),
            ("`codex-bridge report --by run` (table), whole process", by_run, by_run / bare),
            ("naive json.loads of every line, in-process", baseline, 1.0),
            ("report(by='day'), in-process", inproc, inproc / baseline),
        ]
        for name, ms, ratio in rows:
            print(f"{name:<52}{ms:>9.1f} ms{ratio:>8.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
