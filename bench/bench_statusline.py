"""The status line's whole process, as Claude Code pays it on every render, against bare `python -I -c pass`.

Three cases, interleaved with the baseline so machine load hits them alike: a repository without a run,
one with a running run, and one with a running codex-cli run and 30 recent Codex rollouts to scan for
rate limits. Each figure is the median of --runs runs of
`python -I -c 'from autopilot.cli import entry; entry()' statusline` with Claude Code's status-line
JSON on stdin (the command setup --statusline installs).

Usage: .venv/bin/python bench/bench_statusline.py [--runs N]   (prints a Markdown table)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PLAN = {"summary": "bench", "tasks": [{"id": "T1", "title": "Bench", "description": "d", "acceptance": ["a"]}]}


def timed(argv: list[str], stdin: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=True)
    return (time.perf_counter() - started) * 1000


def git_repo(root: Path, name: str) -> Path:
    repo = root / name
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def running_run(repo: Path, home: Path, backend: str) -> None:
    """A running run in ``repo`` written through the bridge's own store (no model call)."""
    env = {**os.environ, "AUTOPILOT_HOME": str(home)}
    code = (
        "import sys, json; from autopilot.loop.state import Store; s = Store(sys.argv[1]);\n"
        "with s.transaction() as st:\n"
        f"    st.update(status='running', plan={json.dumps(PLAN)}, current_task={json.dumps(PLAN['tasks'][0])},"
        f" backend='{backend}', run_id='bench', goal='bench', plan_path='p.md', iteration=2, budget_used_usd=0.4)\n"
    )
    subprocess.run([sys.executable, "-c", code, str(repo)], env=env, check=True)


def rollouts(codex_home: Path, count: int) -> None:
    day = codex_home / "sessions" / time.strftime("%Y/%m/%d")
    day.mkdir(parents=True)
    line = json.dumps({"type": "event_msg", "payload": {"type": "agent_message", "message": "x" * 2000}}) + "\n"
    limits = {"primary": {"used_percent": 40.0, "window_minutes": 300, "resets_at": int(time.time()) + 3600}}
    last = json.dumps({"type": "event_msg", "payload": {"type": "token_count", "rate_limits": limits}}) + "\n"
    for n in range(count):
        (day / f"rollout-2026-12-01T00-00-{n:02d}-01a2300a-0000-7000-8000-{n:012d}.jsonl").write_text(line * 50 + last)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home, codex_home = root / "ap", root / "codex"
        idle, openai_run, codex_run = git_repo(root, "idle"), git_repo(root, "run"), git_repo(root, "codex-run")
        running_run(openai_run, home, "openai")
        running_run(codex_run, home, "codex-cli")
        rollouts(codex_home, 30)
        env = {**os.environ, "AUTOPILOT_HOME": str(home), "CODEX_HOME": str(codex_home)}
        bare = [sys.executable, "-I", "-c", "pass"]
        line = [sys.executable, "-I", "-c", "from autopilot.cli import entry; entry()", "statusline"]
        cases = {
            "no run": json.dumps({"workspace": {"current_dir": str(idle)}}),
            "a running run (openai)": json.dumps({"workspace": {"current_dir": str(openai_run)}}),
            "a running codex-cli run, 30 rollouts scanned": json.dumps({"workspace": {"current_dir": str(codex_run)}}),
        }
        for stdin in cases.values():  # warm the bytecode and the file cache
            timed(line, stdin, env)
        results: dict[str, list[float]] = {"bare": [], **{k: [] for k in cases}}
        for _ in range(args.runs):
            results["bare"].append(timed(bare, "", env))
            for name, stdin in cases.items():
                results[name].append(timed(line, stdin, env))
        base = statistics.median(results["bare"])
        print("| path | median | ratio |\n|---|---:|---:|")
        print(f"| bare `python -I -c pass` | {base:.1f} ms | 1× |")
        for name in cases:
            med = statistics.median(results[name])
            print(f"| `codex-bridge statusline`, {name} | {med:.1f} ms | **{med / base:.2f}×** |")


if __name__ == "__main__":
    main()
