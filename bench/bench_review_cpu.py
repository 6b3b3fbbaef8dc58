"""CPU per review beyond Codex itself: the warm review worker against one process per review, as whole processes.

A project of real modules (this checkout's own ``src/autopilot/loop/*.py``, committed) gets a planned run (the openai
backend, the scripted Responses server, instant by default: Codex's own time is nil, so what is measured is the
bridge's). Then ``--edits`` times a module is edited (a real change: a docstring line added) and reviewed:

- base (``--base DIR``, e.g. a checkout of main): each review is its own ``codex-bridge review`` process, as the
  detached worker of the base's PostToolUse hook was; CPU is the process's and its git children's (rusage);
- new (this checkout): the PostToolUse hook (through the plugin's shim, a whole process, timed apart) notes the edit and
  the one warm worker reviews it; CPU is the worker's own and its git children's, read from /proc before and after
  each review (the worker's start, paid once per run, is printed apart), and the worker's own in-process account of
  each review (its log).

Prints per review: the median and range of CPU seconds, and new / base. Goal: the warm path's CPU per review <= 0.2 s.

With ``--codex-s S`` each review takes S seconds: the warm worker streams its reviews from the provider's background
mode and asks five times a second whether to leave them running, which this counts too.

Usage: .venv/bin/python bench/bench_review_cpu.py --base /tmp/base [--edits 10] [--codex-s 0]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

from bench.bench_compare import GIT_ENV, python_for  # noqa: E402

from autopilot.scripted.responses_server import ResponsesServer, delay, reply_json  # noqa: E402

PLAN = {
    "summary": "Tidy the loop's modules.",
    "tasks": [{"id": "T1", "title": "Document the loop", "description": "d", "acceptance": ["every module says why"]}],
}
REVIEW = {"decision": "approve", "summary": "The docstrings read well.", "issues": []}
TICK = os.sysconf("SC_CLK_TCK")


CODEX_S = 0.0  # --codex-s: how long a review takes (the worker's client polls a background review meanwhile)


def respond(body: dict) -> dict:
    schema = (((body.get("text") or {}).get("format") or {}).get("schema") or {}).get("properties") or {}
    return reply_json(PLAN) if "tasks" in schema else delay(reply_json(REVIEW), CODEX_S)


def project(root: Path) -> tuple[Path, list[Path]]:
    """A git repository holding real modules, committed; the modules."""
    repo = root / "repo"
    shutil.copytree(REPO / "src" / "autopilot" / "loop", repo / "loop", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    return repo, sorted((repo / "loop").glob("*.py"))


def edit(module: Path, n: int) -> None:
    """A real change to a module: one more line in its docstring."""
    text = module.read_text(encoding="utf-8")
    module.write_text(text.replace('"""', f'"""Edit {n}: kept short on purpose.\n', 1), encoding="utf-8")


def proc_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` and of its children it waited for (utime, stime, cutime, cstime)."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICK


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def setup(py: str, root: Path, url: str) -> tuple[dict[str, str], Path, list[Path]]:
    repo, modules = project(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_", "CLAUDE"))}
    env.update(
        AUTOPILOT_HOME=str(root / "home"),
        CODEX_HOME=str(root / "codex"),
        HOME=str(root),
        AUTOPILOT_PYTHON=py,
        OPENAI_BASE_URL=url,
        OPENAI_API_KEY="sk-bench-not-a-key",
        AUTOPILOT_BACKEND="openai",
        AUTOPILOT_MODEL="gpt-6.2-sol",
    )
    subprocess.run([py, "-m", "autopilot", "-C", str(repo), "plan", "--goal", "Document the loop"], env=env,
                   check=True, capture_output=True)  # fmt: skip
    return env, repo, modules


def reviews_of(py: str, env: dict[str, str], repo: Path) -> int:
    out = subprocess.run([py, "-m", "autopilot", "-C", str(repo), "state"], env=env, capture_output=True, check=True)
    return int(json.loads(out.stdout)["token_usage"]["review"]["calls"])


def cold(py: str, root: Path, url: str, edits: int) -> list[float]:
    """One `codex-bridge review` process per review: CPU seconds of each (with its git children)."""
    env, repo, modules = setup(py, root, url)
    spent = []
    for n in range(edits):
        edit(modules[n % len(modules)], n)
        before = children_cpu()
        subprocess.run([py, "-m", "autopilot", "-C", str(repo), "review"], env=env, check=True, capture_output=True)
        spent.append(children_cpu() - before)
    return spent


def warm(
    checkout: Path, py: str, root: Path, url: str, edits: int
) -> tuple[list[float], list[float], float, list[float]]:
    """The hook notes each edit and the warm worker reviews it: the worker's CPU per review from /proc, its own
    account (its log), its start, and the hook processes' CPU per edit."""
    env, repo, modules = setup(py, root, url)
    shim = str(checkout / "scripts" / "bridge")
    per_review, hooks = [], []
    pid, cpu, start = None, 0.0, 0.0
    run_dir = next((root / "home" / "runs").iterdir())
    for n in range(edits):
        module = modules[n % len(modules)]
        edit(module, n)
        payload = {"session_id": "bench", "cwd": str(repo), "hook_event_name": "PostToolUse", "tool_name": "Edit",
                   "tool_input": {"file_path": str(module)}, "transcript_path": "/tmp/bench.jsonl"}  # fmt: skip
        before = children_cpu()
        subprocess.run([shim, "hook", "PostToolUse"], input=json.dumps(payload), text=True, env=env, check=True,
                       capture_output=True)  # fmt: skip
        hooks.append(children_cpu() - before)
        deadline = time.monotonic() + 60
        while reviews_of(py, env, repo) < n + 1:
            if time.monotonic() > deadline:
                raise SystemExit(
                    "the worker did not review within 60 s: " + (run_dir / "review-worker.log").read_text()
                )
            time.sleep(0.05)
        if pid is None:
            pid = int((run_dir / "review-worker.pid").read_text().split()[0])
            start = proc_cpu(pid)  # the start and the first review
        else:
            now = proc_cpu(pid)
            per_review.append(now - cpu)
        cpu = proc_cpu(pid)
    log = (run_dir / "review-worker.log").read_text()
    own = [float(x) for x in re.findall(r"review \d+ used ([0-9.]+)s of CPU", log)]
    if pid is not None:
        os.kill(pid, 15)
    first_review = own[0] if own else 0.0
    return per_review, own[1:], start - first_review, hooks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="the checkout whose reviews are one process each")
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--codex-s", type=float, default=0.0, help="seconds Codex takes per review (default 0)")
    args = parser.parse_args()
    global CODEX_S
    CODEX_S = args.codex_s
    with tempfile.TemporaryDirectory(prefix="bench-review-cpu-") as tmp, ResponsesServer(responder=respond) as server:
        root = Path(tmp)
        base_py = python_for(args.base.resolve(), root / "venv-base")
        new_py = python_for(REPO, root / "venv-new")
        (root / "b").mkdir()
        (root / "n").mkdir()
        base = cold(base_py, root / "b", server.url, args.edits)
        whole, own, start, hooks = warm(REPO, new_py, root / "n", server.url, args.edits)
    med = statistics.median
    print(f"CPU seconds per review beyond Codex (it answers after {CODEX_S:g} s), {args.edits} edits\n")
    print("| path | per review (median) | range | new / base |")
    print("|---|---:|---:|---:|")
    print(f"| base: a `codex-bridge review` process per review | {med(base):.3f} | {min(base):.3f}-{max(base):.3f} | |")
    print(
        f"| new: the warm worker, whole process (/proc) | {med(whole):.3f} | {min(whole):.3f}-{max(whole):.3f} "
        f"| {med(whole) / med(base):.2f} |"
    )
    print(f"| new: the warm worker, its own account | {med(own):.3f} | {min(own):.3f}-{max(own):.3f} | |")
    hook = f"{med(hooks):.3f} | {min(hooks):.3f}-{max(hooks):.3f}"
    print(f"| new: the PostToolUse hook, per edit (whole process) | {hook} | |")
    print(f"\nThe worker's start, paid once per run: {start:.2f} s of CPU.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
