"""Two checkouts of the bridge side by side: the hot paths of each, interleaved in one loop, against bare python.

``bench_hooks.py`` and ``bench_bridge.py`` give one checkout's ratios; on a shared machine two runs of them minutes
apart differ by more than most changes do. This script times a base checkout (``--base``: another work tree, e.g.
``git worktree add --detach /tmp/base main``) and this one in the same rounds, the order shuffled each round, and
prints for each path the median wall time and the median CPU time (user + system of the process, which waiting for a
busy CPU does not inflate) with their ratios to bare ``python -I -c pass`` and new / base.

Paths: the no-run hooks through the plugin's shim (UserPromptSubmit, Stop, and PostToolUse for an Edit of a 30 KB
module, which records the names the edit changed), the Codex memory hook script on an ``apply_patch`` of it and on an
ordinary prompt, ``codex-bridge state`` with no run, a cached page of ``handoff intake`` and ``handoff from-codex
intake`` (a real 58 kB session, a real rollout), and with a planned run (openai backend against the instant scripted
Responses server) UserPromptSubmit, a Stop whose verdict is ``continue`` and ``codex-bridge review`` (an edit before
each, so there is work to judge). For the review it also prints bench_bridge.py's own figure, the review overhead: the
whole process less the call as events.jsonl logs it. ``--only TEXT`` keeps the paths whose name holds TEXT.

Each side runs this interpreter through a throwaway venv whose only site entries are its checkout's ``src`` and
this interpreter's packages: the same dependencies and the same start-up (no ``.pth`` hooks), only the code differs.

Usage: .venv/bin/python bench/bench_compare.py --base /tmp/base [--runs 31]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import site
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from autopilot.scripted.responses_server import ResponsesServer, reply_json  # noqa: E402

SESSION = "bench-0000-4000-8000-000000000000"
PLAN = {"summary": "b", "tasks": [{"id": "T1", "title": "B", "description": "d", "acceptance": ["a"]}]}
CONTINUE = {"decision": "continue", "reason": "again", "next_task_id": "T1", "progressed": True, "criteria": []}
REVIEW = {"decision": "approve", "summary": "ok", "issues": []}
FIXTURES = REPO / "tests" / "fixtures"
CLAUDE_SESSION = FIXTURES / "claude" / "tools" / "49fa090f-34fe-47da-9cd9-cf59c6a193ff.jsonl"  # what the intake
CODEX_ROLLOUT = FIXTURES / "codex" / "exec_tools.jsonl"  # benches time as "a cached intake of a small session"
GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, the process and its waited-for children) of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr[-400:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def git_repo(path: Path) -> Path:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, env=env)
    (path / "README.md").write_text("# bench\n")
    subprocess.run(["git", "-C", str(path), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "commit", "-qm", "init"], check=True, env=env)
    return path


def python_for(checkout: Path, where: Path) -> str:
    """An interpreter that imports ``checkout``'s bridge with this interpreter's dependencies."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    py = where / "bin" / "python"
    target = subprocess.run(
        [str(py), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    # Read in name order: the checkout's src first, so an editable install among the dependencies cannot win.
    Path(target, "a_checkout.pth").write_text(f"{checkout / 'src'}\n")
    Path(target, "b_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    return str(py)


def editor(repo: Path) -> Callable[[], None]:
    """A change to ``repo``'s work tree each time it is called, so every Stop has new work to judge."""
    counter = iter(range(10**9))

    def edit() -> None:
        (repo / "bench.txt").write_text(f"edit {next(counter)}\n")

    return edit


def hook_input(event: str, cwd: Path, **fields: object) -> str:
    return json.dumps(
        {"session_id": SESSION, "transcript_path": "/tmp/bench.jsonl", "cwd": str(cwd), "hook_event_name": event}
        | fields
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout (a git work tree)")
    parser.add_argument("--runs", type=int, default=31, help="rounds (default 31)")
    parser.add_argument("--only", default="", help="time only the paths whose name holds this text")
    args = parser.parse_args()
    base = args.base.resolve()
    if not (base / "src" / "autopilot").is_dir():
        raise SystemExit(f"{base} is not a checkout of codex-autopilot (no src/autopilot)")

    def respond(body: dict[str, Any]) -> Any:  # the scripted server's reply
        name = (((body.get("text") or {}).get("format")) or {}).get("name", "")
        return reply_json(PLAN if name.endswith("plan") else REVIEW if name.endswith("review") else CONTINUE)

    with tempfile.TemporaryDirectory(prefix="bench-compare-") as tmp, ResponsesServer(responder=respond) as server:
        root = Path(tmp)
        env0 = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_", "CLAUDE_"))}
        env0.update(CODEX_HOME=str(root / "codex"), HOME=str(root))
        idle = git_repo(root / "idle")
        cases: dict[str, tuple[list[str], str, dict[str, str], Path, Callable[[], None] | None]] = {}
        events: dict[str, Path] = {}  # a review's events.jsonl: its last line times the call
        for side, checkout in (("base", base), ("new", REPO)):
            py = python_for(checkout, root / f"venv-{side}")  # both alike: only the checkout differs
            subprocess.run([py, "-m", "compileall", "-q", str(checkout / "src" / "autopilot")], check=True)
            shim = str(checkout / "scripts" / "bridge")
            # Each side's hooks keep their session's memory in a home of their own: one side never reads what
            # the other wrote (a shared home made each side pay for the other's observations and formats).
            env = {**env0, "AUTOPILOT_PYTHON": py, "AUTOPILOT_HOME": str(root / f"hook-home-{side}")}
            cases[f"{side}|no run: hook UserPromptSubmit"] = (
                [shim, "hook", "UserPromptSubmit"],
                hook_input("UserPromptSubmit", idle, prompt="hi"),
                env,
                idle,
                None,
            )
            # The recorder redacts a prompt that holds a credential before it is kept (the redactor's import and the
            # first compiles of its patterns): bench_memory.py's case, in a home of its own, so what it costs is not
            # mixed with what the other hooks' observations make the next prompt do (a memory to reduce and inject).
            cases[f"{side}|no run: hook UserPromptSubmit, a credential in the prompt"] = (
                [shim, "hook", "UserPromptSubmit"],
                hook_input("UserPromptSubmit", idle, prompt="deploy with the api key sk-proj-" + "Ab3Cd4Ef5" * 5),
                {**env, "AUTOPILOT_HOME": str(root / f"credential-home-{side}")},
                idle,
                None,
            )
            cases[f"{side}|no run: hook Stop"] = ([shim, "hook", "Stop"], hook_input("Stop", idle), env, idle, None)
            module = REPO / "src" / "autopilot" / "handoff" / "search" / "retrieval.py"  # a real 30 KB module
            source = module.read_text(encoding="utf-8")
            old = "\n".join(source.split("\n")[200:204]) + "\n"
            edit = {"file_path": str(idle / module.name), "old_string": old, "new_string": old.replace("(", "( ", 1)}
            cases[f"{side}|no run: hook PostToolUse (Edit of a 30 KB module)"] = (
                [shim, "hook", "PostToolUse"],
                hook_input(
                    "PostToolUse", idle, tool_name="Edit", tool_input=edit, tool_response={"originalFile": source}
                ),
                env,
                idle,
                None,
            )
            patch = f"*** Begin Patch\n*** Update File: {module.name}\n@@\n" + "".join(
                f" {x}\n" for x in old.split("\n")[:3]
            )
            patch += "+    pass\n*** End Patch\n"
            (idle / module.name).write_text(source, encoding="utf-8")  # what the Codex hook reads to place the patch
            codex_hook = str(
                checkout / "src" / "autopilot" / "codex" / "assets" / "handoff" / "scripts" / "memory_hook.py"
            )
            cases[f"{side}|no run: Codex memory hook, apply_patch of it"] = (
                [py, "-I", codex_hook],
                hook_input(
                    "PostToolUse", idle, tool_name="apply_patch", tool_input={"command": patch}, tool_response="ok"
                ),
                env,
                idle,
                None,
            )
            cases[f"{side}|no run: Codex memory hook, UserPromptSubmit"] = (
                [py, "-I", codex_hook],
                hook_input("UserPromptSubmit", idle, prompt="add a --json flag"),
                env,
                idle,
                None,
            )
            cases[f"{side}|no run: `codex-bridge state`"] = (
                [py, "-m", "autopilot", "-C", str(idle), "state"],
                "",
                env,
                idle,
                None,
            )
            intake_env = {**env, "AUTOPILOT_HOME": str(root / f"intake-home-{side}")}  # its own cached indexes
            cases[f"{side}|no run: `handoff intake`, cached page of a 58 kB session"] = (
                [py, "-m", "autopilot", "handoff", "intake", str(CLAUDE_SESSION)],
                "",
                intake_env,
                idle,
                None,
            )
            cases[f"{side}|no run: `handoff from-codex intake`, cached page of a rollout"] = (
                [py, "-m", "autopilot", "handoff", "from-codex", "intake", str(CODEX_ROLLOUT)],
                "",
                intake_env,
                idle,
                None,
            )
            repo = git_repo(root / f"run-{side}")
            run_env = {
                **env,
                "AUTOPILOT_HOME": str(root / f"home-{side}"),
                "OPENAI_BASE_URL": server.url,
                "OPENAI_API_KEY": "bench",
                "AUTOPILOT_BACKEND": "openai",
                "AUTOPILOT_MODEL": "gpt-6.2-sol",
                "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": "100000",
            }
            plan = [py, "-I", "-m", "autopilot", "-C", str(repo), "plan", "--goal", "bench", "--budget", "1000"]
            plan += ["--max-iterations", "100000", "--no-progress-threshold", "100000", "--session-id", SESSION]
            subprocess.run(plan, env=run_env, check=True, capture_output=True)
            cases[f"{side}|run: hook UserPromptSubmit"] = (
                [shim, "hook", "UserPromptSubmit"],
                hook_input("UserPromptSubmit", repo, prompt="go on"),
                run_env,
                repo,
                None,
            )
            cases[f"{side}|run: hook Stop (verdict continue -> block)"] = (
                [shim, "hook", "Stop"],
                hook_input("Stop", repo, stop_hook_active=True, last_assistant_message="done"),
                run_env,
                repo,
                editor(repo),
            )
            # The review in bench_bridge.py's project (200 tracked files), with a run of its own.
            project = git_repo(root / f"review-{side}")
            for n in range(200):
                (project / f"mod_{n}.py").write_text(f"def f{n}():\n    return {n}\n" * 20)
            for git in (["add", "."], ["commit", "-qm", "mods"]):
                subprocess.run(["git", "-C", str(project), *git], check=True, env={**os.environ, **GIT_ENV})
            review_env = {**run_env, "AUTOPILOT_HOME": str(root / f"review-home-{side}")}
            plan[plan.index(str(repo))] = str(project)
            subprocess.run(plan, env=review_env, check=True, capture_output=True)
            review = f"{side}|run: `codex-bridge review` (200 tracked files)"
            argv = [py, "-m", "autopilot", "-C", str(project), "review"]
            cases[review] = (argv, "", review_env, project, editor(project))
            events[review] = next((root / f"review-home-{side}" / "runs").iterdir()) / "events.jsonl"
        cases = {key: case for key, case in cases.items() if args.only in key}
        for argv, stdin, env, cwd, _before in cases.values():  # a first run builds what later ones reuse (indexes)
            subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
        wall: dict[str, list[float]] = {key: [] for key in [*cases, "bare"]}
        overhead: dict[str, list[float]] = {key: [] for key in events if key in cases}
        cpu: dict[str, list[float]] = {key: [] for key in [*cases, "bare"]}
        order = list(cases)
        for _ in range(args.runs):
            random.shuffle(order)
            for key in ["bare", *order]:
                if key == "bare":
                    w, c = timed([sys.executable, "-I", "-c", "pass"], "", env0, idle)
                else:
                    argv, stdin, env, cwd, before = cases[key]
                    if before:
                        before()
                    w, c = timed(argv, stdin, env, cwd)
                    if key in overhead:  # bench_bridge.py's figure: the process less the call as events.jsonl logs it
                        last = json.loads(events[key].read_text(encoding="utf-8").splitlines()[-1])
                        overhead[key].append(w * 1000 - last["latency_ms"])
                wall[key].append(w)
                cpu[key].append(c)
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f} at the end; medians of "
        f"{args.runs} shuffled rounds. base: {base}; new: {REPO}.\n"
    )
    for title, samples in (("CPU time (user + system)", cpu), ("wall time", wall)):
        bare = statistics.median(samples["bare"]) * 1000
        print(f"{title}; bare `python -I -c pass` {bare:.1f} ms\n")
        print("| path | base ms | base × bare | new ms | new × bare | new / base |")
        print("|---|---:|---:|---:|---:|---:|")
        for key in cases:
            side, label = key.split("|", 1)
            if side != "base":
                continue
            old, new = (statistics.median(samples[f"{s}|{label}"]) * 1000 for s in ("base", "new"))
            print(f"| {label} | {old:.1f} | {old / bare:.2f}× | {new:.1f} | {new / bare:.2f}× | {new / old:.3f} |")
        print()
    for key, samples_ms in overhead.items():
        side, label = key.split("|", 1)
        if side == "base":
            old, new = statistics.median(samples_ms), statistics.median(overhead[f"new|{label}"])
            print(
                f"review overhead excluding the backend call (bench_bridge.py's figure, wall, median): base {old:.1f} "
                f"ms, new {new:.1f} ms (goal <= 150 ms)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
