"""Hook wall time, as Claude Code pays it, against bare `python -I -c pass` measured in the same run.

Every figure is the median of many runs of the plugin's real entry point
(``scripts/bridge hook <Event>`` with the event's JSON on stdin, AUTOPILOT_PYTHON set to this
interpreter, as in a developer install). Scenarios:

- no run: a git repository without a run, with an empty $AUTOPILOT_HOME and with 50 other
  runs on the machine (the fast path must not read them);
- with a run: a planned run on the openai backend against the instant scripted Responses
  server, so the figures are the bridge's own cost (imports, git, state, the review worker),
  not a model's.

Usage: .venv/bin/python bench/bench_hooks.py [--runs N]   (prints a Markdown table)
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

REPO = Path(__file__).resolve().parents[1]
SHIM = REPO / "scripts" / "bridge"
SESSION = "bench-0000-4000-8000-000000000000"
PLAN = {
    "summary": "bench",
    "tasks": [
        {"id": "T1", "title": "Bench", "description": "keep editing bench.txt", "acceptance": ["bench.txt exists"]}
    ],
}
APPROVE = {"decision": "approve", "summary": "fine", "issues": []}
CONTINUE = {"decision": "continue", "reason": "again", "next_task_id": "T1", "progressed": True, "criteria": []}


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: str) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr}")
    return elapsed, proc.stdout


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def hook_input(event: str, cwd: str, **fields: object) -> str:
    return json.dumps(
        {"session_id": SESSION, "transcript_path": "/tmp/bench.jsonl", "cwd": cwd, "hook_event_name": event, **fields}
    )


def git_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@b",
    }
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "README.md").write_text("# bench\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    return repo


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=41, help="repetitions per no-run figure (default 41)")
    parser.add_argument("--run-runs", type=int, default=15, help="repetitions per with-run figure (default 15)")
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "src"))
    from autopilot.scripted.responses_server import ResponsesServer, reply_json

    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-hooks-") as tmp:
        root = Path(tmp)
        repo = git_repo(root)
        empty_home, busy_home = root / "empty-home", root / "busy-home"
        empty_home.mkdir()
        for n in range(50):
            run = busy_home / "runs" / f"elsewhere-{n:012x}"
            run.mkdir(parents=True)
            (run / "state.json").write_text("{}")
        base_env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_"))}
        base_env.update(AUTOPILOT_PYTHON=sys.executable, CODEX_HOME=str(root / "codex"), HOME=str(root))
        bare = [sys.executable, "-I", "-c", "pass"]

        def measure(label: str, argv: list[str], stdin: str, env: dict[str, str], runs: int, before=None) -> None:  # type: ignore[no-untyped-def]
            baseline, samples = [], []
            for n in range(runs):  # interleaved, so both see the same machine state
                baseline.append(timed(bare, "", env, str(repo))[0])
                if before:
                    before(n)
                samples.append(timed(argv, stdin, env, str(repo))[0])
            rows.append((label, median_ms(samples), median_ms(baseline)))  # type: ignore[arg-type]

        for home_label, home in (("empty home", empty_home), ("50 other runs", busy_home)):
            env = {**base_env, "AUTOPILOT_HOME": str(home)}
            for event, extra in (
                ("SessionStart", {"source": "startup"}),
                ("UserPromptSubmit", {"prompt": "hi"}),
                ("PostToolUse", {"tool_name": "Bash"}),
                ("Stop", {"stop_hook_active": False}),
                ("SessionEnd", {"reason": "other"}),
            ):
                measure(
                    f"no run ({home_label}): {event}",
                    [str(SHIM), "hook", event],
                    hook_input(event, str(repo), **extra),
                    env,
                    args.runs,
                )
        env = {**base_env, "AUTOPILOT_HOME": str(empty_home)}
        measure(
            "no run: `python -I -m autopilot hook Stop` (no shim)",
            [sys.executable, "-I", "-m", "autopilot", "hook", "Stop"],
            hook_input("Stop", str(repo)),
            env,
            args.runs,
        )

        def answer(body: dict) -> dict:
            name = (((body.get("text") or {}).get("format")) or {}).get("name", "")
            return reply_json(PLAN if name.endswith("plan") else APPROVE if name.endswith("review") else CONTINUE)

        with ResponsesServer(responder=answer) as server:
            env = {
                **base_env,
                "AUTOPILOT_HOME": str(root / "run-home"),
                "OPENAI_BASE_URL": server.url,
                "OPENAI_API_KEY": "bench",
                "AUTOPILOT_BACKEND": "openai",
                "AUTOPILOT_MODEL": "gpt-6.2-sol",
                "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "100000",
            }
            subprocess.run(
                [
                    sys.executable,
                    "-I",
                    "-m",
                    "autopilot",
                    "-C",
                    str(repo),
                    "plan",
                    "--goal",
                    "bench",
                    "--max-iterations",
                    "100000",
                    "--no-progress-threshold",
                    "100000",
                    "--budget",
                    "1000",
                    "--session-id",
                    SESSION,
                ],
                env=env,
                check=True,
                capture_output=True,
            )
            counter = iter(range(10**9))

            def edit(_n: int) -> None:
                (repo / "bench.txt").write_text(f"edit {next(counter)}\n")

            measure(
                "run: UserPromptSubmit (budget guard + task line)",
                [str(SHIM), "hook", "UserPromptSubmit"],
                hook_input("UserPromptSubmit", str(repo), prompt="go on"),
                env,
                args.runs,
            )
            measure(
                "run: PostToolUse, Read (not an editing tool)",
                [str(SHIM), "hook", "PostToolUse"],
                hook_input("PostToolUse", str(repo), tool_name="Read"),
                env,
                args.runs,
            )
            measure(
                "run: PostToolUse after an edit (review by the worker)",
                [str(SHIM), "hook", "PostToolUse"],
                hook_input("PostToolUse", str(repo), tool_name="Write"),
                env,
                args.run_runs,
                before=edit,
            )
            measure(
                "run: PostToolUse, work tree as last reviewed (skipped)",
                [str(SHIM), "hook", "PostToolUse"],
                hook_input("PostToolUse", str(repo), tool_name="Bash"),
                env,
                args.run_runs,
            )
            measure(
                "run: Stop (verdict: continue -> block)",
                [str(SHIM), "hook", "Stop"],
                hook_input("Stop", str(repo), stop_hook_active=True, last_assistant_message="done"),
                env,
                args.run_runs,
                before=edit,
            )
            measure(
                "run: SessionStart (current task as context)",
                [str(SHIM), "hook", "SessionStart"],
                hook_input("SessionStart", str(repo), source="startup"),
                env,
                args.runs,
            )

    print(
        f"Python {sys.version.split()[0]} ({sys.executable}), {os.cpu_count()} CPUs; medians of "
        f"{args.runs} runs (no run) / {args.run_runs} (review, verdict), each against bare "
        "`python -I -c pass` interleaved in the same loop.\n"
    )
    print("| hook | median ms | bare python ms | ratio |")
    print("|---|---:|---:|---:|")
    for label, ms, base in rows:  # type: ignore[misc]
        print(f"| {label} | {ms:.1f} | {base:.1f} | {ms / base:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
