"""Benchmark the bridge's hot paths against a baseline measured in the same run.

1. The no-run path: `codex-bridge state` in a repo without a run, and the hook entry point the
   plugin uses, each against bare `python -I -c pass` (goal: <= 2.5x).
2. Review overhead: a whole `codex-bridge review` process against the instant scripted server,
   minus the backend call itself as events.jsonl records it (goal: <= 150 ms).

Prints a table and ratios; writes nothing outside a temp dir.  Usage: python bench/bench_bridge.py [--runs N]
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from autopilot.scripted.responses_server import ResponsesServer, reply_json  # noqa: E402

PLAN = {"summary": "s", "tasks": [{"id": "T1", "title": "t", "description": "d", "acceptance": ["a"]}]}
REVIEW = {"decision": "approve", "summary": "ok", "issues": []}


def timed(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, input=stdin, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 4):
        raise SystemExit(f"{argv} failed: {proc.stderr.decode()[-500:]}")
    return elapsed


def median_ms(argv: list[str], env: dict[str, str], runs: int, stdin: bytes = b"") -> float:
    timed(argv, env, stdin)  # warm the page cache
    return statistics.median(timed(argv, env, stdin) for _ in range(runs)) * 1000


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for n in range(200):  # a small real project: 200 tracked files
        (repo / f"mod_{n}.py").write_text(f"def f{n}():\n    return {n}\n" * 20)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    py = sys.executable
    # Measure what users run: installed packages carry compiled bytecode (pip compiles on install).
    subprocess.run([py, "-m", "compileall", "-q", str(REPO / "src" / "autopilot")], check=True)
    with tempfile.TemporaryDirectory(prefix="bench-bridge-") as tmp:
        root = Path(tmp)
        repo = make_repo(root)
        env = {**os.environ, "AUTOPILOT_HOME": str(root / "home"), "PYTHONDONTWRITEBYTECODE": "1"}
        for key in ("AUTOPILOT_BACKEND", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CLAUDE_CODE_SESSION_ID"):
            env.pop(key, None)
        rows: list[tuple[str, float, float | None]] = []
        bare = median_ms([py, "-I", "-c", "pass"], env, args.runs)
        rows.append(("bare `python -I -c pass`", bare, None))
        state_ms = median_ms([py, "-m", "autopilot", "-C", str(repo), "state"], env, args.runs)
        rows.append(("`codex-bridge state`, no run", state_ms, state_ms / bare))
        script = Path(py).with_name("codex-bridge")
        if script.exists():
            ms = median_ms([str(script), "-C", str(repo), "state"], env, args.runs)
            rows.append(("`codex-bridge state` (console script), no run", ms, ms / bare))
        hook_input = json.dumps(
            {
                "session_id": "s",
                "transcript_path": "/dev/null",
                "cwd": str(repo),
                "hook_event_name": "UserPromptSubmit",
                "prompt": "hi",
            }
        ).encode()
        try:
            import autopilot.hooks  # noqa: F401

            ms = median_ms(
                [py, "-m", "autopilot", "hook", "UserPromptSubmit"], {**env, "PWD": str(repo)}, args.runs, hook_input
            )
            rows.append(("`codex-bridge hook UserPromptSubmit`, no run", ms, ms / bare))
        except ImportError:
            rows.append(("hook entry point (autopilot.hooks not built yet)", float("nan"), None))
        heavy = subprocess.run(
            [
                py,
                "-c",
                "import sys; from autopilot.cli import main; main(['-C', sys.argv[1], 'state']); "
                "print(','.join(m for m in ('openai', 'jsonschema', 'yaml') if m in sys.modules) or 'none',"
                " file=sys.stderr)",
                str(repo),
            ],
            env=env,
            capture_output=True,
            text=True,
        ).stderr.strip()

        with ResponsesServer(responder=lambda body: reply_json(REVIEW)) as srv:
            renv = {
                **env,
                "OPENAI_BASE_URL": srv.url,
                "OPENAI_API_KEY": "bench",
                "AUTOPILOT_BACKEND": "openai",
                "AUTOPILOT_MODEL": "gpt-6.2-sol",
            }
            srv.push(reply_json(PLAN))
            subprocess.run(
                [py, "-m", "autopilot", "-C", str(repo), "plan", "--goal", "bench"],
                env=renv,
                check=True,
                capture_output=True,
            )
            (repo / "mod_0.py").write_text("def f0():\n    return 'changed'\n")
            totals, calls = [], []
            events = next((root / "home" / "runs").iterdir()) / "events.jsonl"
            for _ in range(max(5, args.runs // 3)):
                totals.append(timed([py, "-m", "autopilot", "-C", str(repo), "review"], renv) * 1000)
                calls.append(json.loads(events.read_text().splitlines()[-1])["latency_ms"])
            overhead = [t - c for t, c in zip(totals, calls, strict=True)]
        print(f"\nbridge hot paths ({args.runs} runs each, median; python {sys.version.split()[0]})\n")
        print(f"{'path':<52} {'ms':>8} {'x bare':>8}")
        for name, ms, ratio in rows:
            print(f"{name:<52} {ms:8.1f} {f'{ratio:.2f}x' if ratio else '':>8}")
        print(f"heavy modules imported on the no-run path: {heavy}")
        print(
            f"\nreview process total (median of {len(totals)}): {statistics.median(totals):.1f} ms; "
            f"backend call as logged: {statistics.median(calls):.1f} ms"
        )
        print(f"review overhead excluding the backend call: {statistics.median(overhead):.1f} ms (goal <= 150 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
