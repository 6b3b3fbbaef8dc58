"""Benchmark codex/ratelimits.latest() (the status line calls it on every render) against bare python.

Builds a throwaway $CODEX_HOME with DAYS day folders of ROLLOUTS rollouts each (SIZE_KB of real-looking
lines, token_count events among them), in two shapes: a ChatGPT login (every token_count records the
windows) and an API-key login (every token_count records none, the worst case: latest() reads the tail
of MAX_FILES rollouts and finds nothing). Times, as whole processes against bare `python -I -c pass`,
a process that imports the module and calls latest(); and latest() in-process.

Usage: python bench/bench_ratelimits.py [--days 14] [--rollouts 20] [--size-kb 1024] [--repeat 30]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src"
sys.path.insert(0, str(SRC))

from bench_report import interleaved, timed_ms  # noqa: E402  (bench/ is the script's own folder on sys.path)

from autopilot.codex import ratelimits  # noqa: E402


def token_count(windows: bool, at: float) -> dict:
    """A token_count event as codex 0.171 writes it, with or without rate-limit windows."""
    limits: dict = {"limit_id": "codex", "limit_name": None, "primary": None, "secondary": None, "credits": None}
    if windows:
        limits["primary"] = {"used_percent": 42.5, "window_minutes": 300, "resets_at": int(at) + 3600}
        limits["secondary"] = {"used_percent": 17.0, "window_minutes": 10080, "resets_at": int(at) + 86400}
    usage = {"input_tokens": 1000, "cached_input_tokens": 0, "output_tokens": 20, "total_tokens": 1020}
    return {
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(at)),
        "type": "event_msg",
        "payload": {"type": "token_count", "info": {"total_token_usage": usage}, "rate_limits": limits},
    }


def build(home: Path, *, windows: bool, days: int, rollouts: int, size_kb: int) -> None:
    now = time.time()
    filler = {"type": "response_item", "payload": {"type": "function_call_output", "output": "x" * 2000}}
    for day in range(days):
        at = now - day * 86400
        folder = home / "sessions" / time.strftime("%Y/%m/%d", time.localtime(at))
        folder.mkdir(parents=True, exist_ok=True)
        for n in range(rollouts):
            lines = [json.dumps({"type": "session_meta", "payload": {"id": f"{day}-{n}"}})]
            while sum(len(x) for x in lines) < size_kb * 1024:
                lines += [json.dumps(filler)] * 20 + [json.dumps(token_count(windows, at))]
            path = folder / f"rollout-{day:02d}-{n:02d}.jsonl"
            path.write_text("\n".join(lines) + "\n")
            stamp = at - n * 60
            os.utime(path, (stamp, stamp))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--rollouts", type=int, default=20)
    parser.add_argument("--size-kb", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    py = sys.executable
    subprocess.run([py, "-m", "compileall", "-q", str(SRC / "autopilot")], check=True)
    probe = f"import sys; sys.path.insert(0, {str(SRC)!r}); from autopilot.codex.ratelimits import latest; latest()"
    with tempfile.TemporaryDirectory(prefix="bench-ratelimits-") as tmp:
        print(f"{args.days} day folders x {args.rollouts} rollouts of {args.size_kb} KB; median of {args.repeat}")
        shapes = {
            "ChatGPT login (newest rollout has windows)": Path(tmp) / "chatgpt",
            "API-key login (no windows anywhere)": Path(tmp) / "apikey",
        }
        commands = {"bare `python -I -c pass`": ([py, "-I", "-c", "pass"], dict(os.environ))}
        for shape, home in shapes.items():
            windows = "ChatGPT" in shape
            build(home, windows=windows, days=args.days, rollouts=args.rollouts, size_kb=args.size_kb)
            assert (ratelimits.latest(home) is not None) == windows
            env = {**os.environ, "CODEX_HOME": str(home), "PYTHONDONTWRITEBYTECODE": "1"}
            commands[f"import + latest(), whole process: {shape}"] = ([py, "-I", "-c", probe], env)
        medians = interleaved(
            {
                name: (lambda argv=argv, env=env: subprocess.run(argv, env=env, check=True))
                for name, (argv, env) in commands.items()
            },
            args.repeat,
        )
        bare = medians["bare `python -I -c pass`"]
        print(f"{'measure':<78}{'median':>11}{'ratio':>9}")
        for name, ms in medians.items():
            print(f"{name:<78}{ms:>8.2f} ms{ms / bare:>8.2f}x")
        for shape, home in shapes.items():
            inproc = timed_ms(lambda home=home: ratelimits.latest(home), args.repeat)
            print(f"{'latest() in-process: ' + shape:<78}{inproc:>8.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
