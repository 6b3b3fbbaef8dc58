"""How long the person waits for Codex: the real claude with this plugin, against a base checkout, in the same run.

A scripted Claude (every main turn answered after ``--claude-s``, 1 s by default) makes 10 edits in 2 tasks: five
new modules for T1, then, once the Stop hook hands it T2, five test modules (without a run it makes all ten in one
turn). A scripted Codex (the openai backend, or the real ``codex`` with ``--backend codex-cli``) answers a review
after R seconds and a verdict after V seconds (``--latency R,V``, repeatable; default 8,6 and 30,20), billed as a
provider bills (scripted/billing.py). The first review asks for changes, with a finding that carries a marker; the
others approve. The first verdict continues to T2, the next ones say done. The run is planned before claude starts.

For each checkout (``--base DIR``: a checkout of the code to compare with, e.g. ``git worktree add --detach
/tmp/base main``; this one) and each latency it prints: claude's wall time without a run and with one, the overhead
(with less without) as a ratio of the two verdicts' own latency (2 x V: what the loop has to wait for), the Codex
calls made per phase, whether every ``request_changes`` finding reached Claude (searched in every request the
scripted Claude server received), the dollars the server billed against what the run recorded, and the processes of
the run still alive when claude exited and how long they took to go. A review left running at the provider when
claude exited is finished by the server (and billed), and the next session's start (its SessionStart hook, run here)
fetches and charges it: "recorded" is what the run had counted at exit, the figure in brackets after that.
Rounds alternate base and new.

Usage: .venv/bin/python bench/bench_person_wait.py --base /tmp/base [--latency 8,6] [--rounds 2] [--backend openai]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

from bench.bench_compare import git_repo, python_for  # noqa: E402
from tests.support.messages_server import MessagesServer, text, tool_use  # noqa: E402

from autopilot.loop.backends import Usage  # noqa: E402
from autopilot.loop.budget import charge_budget  # noqa: E402
from autopilot.scripted.responses_server import ResponsesServer, delay, reply_json  # noqa: E402

MODEL = "gpt-6.2-sol"
PLAN = {
    "summary": "A small statistics package and its tests.",
    "tasks": [
        {
            "id": "T1",
            "title": "Add the statistics modules",
            "description": "Add stats/mean.py, median.py, mode.py, spread.py and scale.py, each with one function.",
            "acceptance": ["each module defines its function with a docstring", "no module imports another"],
        },
        {
            "id": "T2",
            "title": "Test them",
            "description": "Add one pytest module per statistics module under tests/.",
            "acceptance": ["every function has a test", "the tests pass"],
        },
    ],
}
NAMES = ("mean", "median", "mode", "spread", "scale")
EDITS_PER_TASK = len(NAMES)
MARK = "FINDING-"
CLAUDE_BIN = REPO / "tests" / "agents" / "node_modules" / ".bin" / "claude"
CODEX_BIN = REPO / "tests" / "agents" / "node_modules" / ".bin" / "codex"


def module(name: str) -> str:
    """A realistic small module Claude writes for T1."""
    return (
        f'"""The {name} of a sequence of numbers."""\n\nfrom __future__ import annotations\n\n'
        "from collections.abc import Sequence\n\n\n"
        f"def {name}(values: Sequence[float]) -> float:\n"
        f'    """The {name} of ``values``; ValueError when it is empty."""\n'
        "    if not values:\n"
        f'        raise ValueError("{name} of an empty sequence")\n'
        "    ordered = sorted(values)\n"
        "    middle = len(ordered) // 2\n"
        "    return float(sum(ordered) / len(ordered) if middle % 2 else ordered[middle])\n"
    )


def test_module(name: str) -> str:
    """A realistic pytest module Claude writes for T2."""
    return (
        f'"""Tests for stats.{name}."""\n\nimport pytest\n\nfrom stats.{name} import {name}\n\n\n'
        f"def test_{name}_of_one_value():\n    assert {name}([2.0]) == 2.0\n\n\n"
        f"def test_{name}_of_nothing_is_an_error():\n    with pytest.raises(ValueError):\n        {name}([])\n"
    )


def _texts(messages: list[dict[str, Any]], role: str) -> str:
    return json.dumps([m.get("content") for m in messages if m.get("role") == role])


def claude_policy(repo: Path, one_turn: bool) -> Any:
    """The scripted Claude: read where the conversation stands and take the next step (an edit or a last word)."""

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        edits = sum(
            1
            for m in messages
            if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_use"
        )
        second = one_turn or "Task T2" in _texts(messages, "user")
        wanted = 2 * EDITS_PER_TASK if second else EDITS_PER_TASK
        if edits < wanted:
            n = edits % EDITS_PER_TASK
            if edits < EDITS_PER_TASK:
                path, content = repo / "stats" / f"{NAMES[n]}.py", module(NAMES[n])
            else:
                path, content = repo / "tests" / f"test_{NAMES[n]}.py", test_module(NAMES[n])
            return tool_use("Write", {"file_path": str(path), "content": content})
        last = messages[-1] if messages else {}
        after_tool = isinstance(last.get("content"), list) and any(
            isinstance(b, dict) and b.get("type") == "tool_result" for b in last["content"]
        )
        if after_tool:
            return text(f"T{2 if second else 1} is done: its files are written and follow the acceptance criteria.")
        return text("I checked what the hook said against the files; the task is done.")

    return respond


class Codex:
    """The scripted Codex: a latency per phase, marked findings on the first review, continue then done."""

    def __init__(self, review_s: float, verdict_s: float) -> None:
        self.review_s, self.verdict_s = review_s, verdict_s
        self.asked: list[tuple[str, float]] = []
        self.marks: list[str] = []  # the marker of every request_changes answer given
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        schema = (((body.get("text") or {}).get("format") or {}).get("schema") or {}).get("properties") or {}
        phase = "plan" if "tasks" in schema else "review" if "issues" in schema else "verdict"
        with self._lock:
            self.asked.append((phase, time.monotonic()))
            count = sum(1 for p, _ in self.asked if p == phase)
        if phase == "plan":
            return reply_json(PLAN)
        if phase == "review":
            if count == 1:
                mark = f"{MARK}{len(self.marks) + 1}"
                self.marks.append(mark)
                answer = {
                    "decision": "request_changes",
                    "summary": "stats/mean.py computes a median, not a mean.",
                    "issues": [
                        {
                            "severity": "major",
                            "file": "stats/mean.py",
                            "line": 12,
                            "message": f"{mark}: mean() returns the middle value; return sum(values) / len(values).",
                        }
                    ],
                }
            else:
                answer = {"decision": "approve", "summary": "On track for the task.", "issues": []}
            return delay(reply_json(answer), self.review_s)
        if count == 1:
            verdict = {"decision": "continue", "reason": "T1 is met; now T2.", "next_task_id": "T2", "criteria": []}
        else:
            met = [{"criterion": c, "met": True, "evidence": "tests/ has them"} for c in PLAN["tasks"][1]["acceptance"]]
            verdict = {"decision": "done", "reason": "Both tasks are met.", "next_task_id": None, "criteria": met}
        return delay(reply_json({**verdict, "progressed": True}), self.verdict_s)

    def count(self, phase: str) -> int:
        return sum(1 for p, _ in self.asked if p == phase)


def ours(home: Path) -> list[int]:
    """Processes whose environment names this trial's AUTOPILOT_HOME (the hooks, workers and codex it started)."""
    needle = f"AUTOPILOT_HOME={home}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read().split(b"\0")
        except OSError:
            continue
        if needle in env:
            found.append(int(entry))
    return found


def what_is(pid: int) -> str:
    """A process's command line, shortened (for the record of what was left at exit)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode("utf-8", "replace")[:160]
    except OSError:
        return f"{pid} (gone)"


def trial(
    checkout: Path, py: str, root: Path, latency: tuple[float, float], args: argparse.Namespace, run: bool, mode: str
):
    """One claude session; what it cost the person and what Codex did (``mode``: AUTOPILOT_REVIEW_MODE, "" unset)."""
    home = root / "autopilot"
    repo = git_repo(root / "repo")
    (repo / "stats").mkdir()
    (repo / "tests").mkdir()
    codex = Codex(*latency)
    claude_home = root / "claude-home"
    claude_home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_", "CLAUDE", "ANTHROPIC"))}
    env.update(AUTOPILOT_HOME=str(home), CODEX_HOME=str(root / "codex"), AUTOPILOT_PYTHON=py, AUTOPILOT_NOTIFY="off")
    if mode:
        env["AUTOPILOT_REVIEW_MODE"] = mode
    with ResponsesServer(responder=codex) as server:
        if args.backend == "openai":
            env.update(OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-bench-not-a-key", AUTOPILOT_BACKEND="openai")
        else:
            from tests.support.agents import write_codex_config

            write_codex_config(root / "codex", server.url)
            env.update(AUTOPILOT_BACKEND="codex-cli", AUTOPILOT_CODEX_BIN=str(CODEX_BIN), FAKE_OPENAI_KEY="bench")
        env["AUTOPILOT_MODEL"] = MODEL
        if run:
            goal = "Add a small statistics package (mean, median, mode, spread, scale) with tests"
            subprocess.run(
                [py, "-m", "autopilot", "-C", str(repo), "plan", "--goal", goal],
                env=env,
                check=True,
                capture_output=True,
            )
        prompt = "Work on the autopilot task." if run else "Add the statistics modules and their tests."
        claude = MessagesServer(responder=lambda body: {**claude_policy(repo, not run)(body), "delay": args.claude_s})
        with claude:
            cenv = {**env, **claude.env(home=str(claude_home))}
            argv = [str(CLAUDE_BIN), "-p", prompt, "--output-format", "json", "--allowedTools", "Write,Edit,Read,Bash"]
            argv += ["--plugin-dir", str(checkout)]
            started, started_at = time.monotonic(), time.time()
            proc = subprocess.run(
                argv, cwd=repo, env=cenv, capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL
            )
            wall = time.monotonic() - started
            left = ours(home)
            left_what = [what_is(pid) for pid in left]  # now: once gone, a pid's command line reads empty
            linger = 0.0
            while ours(home) and linger < 600:
                time.sleep(0.2)
                linger = time.monotonic() - started - wall
            said = "\n".join(json.dumps(b.get("messages")) for b in claude.main_requests())
            timeline = sorted(
                [(round(r.at - started_at, 1), "claude") for r in claude.log if r.route == "main"]
                + [(round(at - started, 1), f"codex {phase}") for phase, at in codex.asked if at >= started]
            )
        if proc.returncode != 0:
            raise SystemExit(f"claude failed ({proc.returncode}): {proc.stderr[-1500:]}")
        state: dict[str, Any] = {}
        later: dict[str, Any] = {}
        if run:
            state = run_state(py, repo, env)
            # A review left running at the provider when claude exited: the provider finishes (and bills) it, and
            # the next session's start fetches and charges it. Both are waited for here, then counted.
            while server.working():
                time.sleep(0.1)
            if list(home.glob("runs/*/review-left.json")):
                start = {"session_id": "bench-next", "cwd": str(repo), "hook_event_name": "SessionStart"}
                subprocess.run(
                    [py, "-I", "-c", "from autopilot.cli import entry; entry()", "hook", "SessionStart"],
                    input=json.dumps({**start, "source": "startup"}),
                    env=env,
                    cwd=repo,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                time.sleep(0.5)
                while ours(home):
                    time.sleep(0.1)
                later = run_state(py, repo, env)
        billed = sum(
            charge_budget(MODEL, Usage(b["input_tokens"], b["cached_tokens"], b["output_tokens"]))[0]
            for b in server.bills
        )
    return {
        "wall": wall,
        "reviews": codex.count("review"),
        "verdicts": codex.count("verdict"),
        "turns": len(claude.main_requests()),
        "marks": codex.marks,
        "delivered": [m for m in codex.marks if m in said],
        "billed": billed,
        "recorded": spent(state),
        "recorded_next": spent(later or state),  # after the next session's start fetched what was left running
        "status": state.get("status"),
        "left": len(left),
        "linger": linger if left else 0.0,
        "left_what": left_what,
        "timeline": timeline,
        "stop_s": stop_hook_seconds(timeline, args.claude_s),
    }


def run_state(py: str, repo: Path, env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run([py, "-m", "autopilot", "-C", str(repo), "state"], env=env, capture_output=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def spent(state: dict[str, Any]) -> float:
    """What a run recorded as spent: its calls and its plan."""
    return float(state.get("budget_used_usd") or 0) + float(state.get("plan_usd") or 0)


def stop_hook_seconds(timeline: list[tuple[float, str]], claude_s: float) -> list[float]:
    """For each verdict: how long after Claude's last answer (its last request, plus the turn's scripted latency) the
    Stop hook asked Codex, i.e. the hook's own work before the call the person waits for."""
    gaps, answered = [], None
    for at, who in timeline:
        if who == "claude":
            answered = at + claude_s
        elif who == "codex verdict" and answered is not None:
            gaps.append(round(at - answered, 2))
    return gaps


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="the checkout to compare with (omit to measure this one only)")
    parser.add_argument("--latency", action="append", help="R,V: seconds a review and a verdict take (repeatable)")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--claude-s", type=float, default=1.0, help="seconds each Claude turn takes (default 1)")
    parser.add_argument("--backend", choices=("openai", "codex-cli"), default="openai")
    parser.add_argument("--json", action="store_true", help="print every trial as a JSON line too")
    parser.add_argument(
        "--mode", action="append", choices=("edit", "stop", "off"), help="this checkout's review modes (default edit)"
    )
    args = parser.parse_args()
    latencies = [tuple(float(x) for x in item.split(",")) for item in (args.latency or ["8,6", "30,20"])]
    if not CLAUDE_BIN.exists():
        raise SystemExit(f"{CLAUDE_BIN} is missing: npm ci --prefix tests/agents")
    modes = args.mode or ["edit"]
    sides = [(f"new ({mode})" if len(modes) > 1 else "new", REPO, mode if len(modes) > 1 else "") for mode in modes]
    if args.base:
        base = args.base.resolve()
        if not (base / "src" / "autopilot").is_dir():
            raise SystemExit(f"{base} is not a checkout of codex-autopilot (no src/autopilot)")
        sides.insert(0, ("base", base, ""))
    results: dict[tuple[str, tuple[float, float], bool], list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-wait-") as tmp:
        pythons = {checkout: python_for(checkout, Path(tmp) / f"venv-{n}") for n, (_, checkout, _) in enumerate(sides)}
        n = 0
        for _round in range(args.rounds):
            for latency in latencies:
                for run in (False, True):
                    for side, checkout, mode in sides:
                        if not run and mode not in ("", modes[0]):
                            continue  # without a run the mode changes nothing: measured once
                        n += 1
                        root = Path(tmp) / f"t{n}"
                        root.mkdir()
                        got = trial(checkout, pythons[checkout], root, latency, args, run, mode)
                        results.setdefault((side, latency, run), []).append(got)
                        print(
                            f"# {side} {latency[0]:g}/{latency[1]:g}s {'run' if run else 'no run'}: "
                            f"{got['wall']:.1f}s, {got['reviews']} reviews, {got['verdicts']} verdicts, "
                            f"{got['turns']} Claude turns, Stop hook before each verdict {got['stop_s']}s, "
                            f"findings {len(got['delivered'])}/{len(got['marks'])} "
                            f"delivered, {got['left']} processes left ({got['linger']:.1f}s)",
                            file=sys.stderr,
                            flush=True,
                        )
                        if args.json:
                            print(json.dumps({"side": side, "latency": latency, "run": run, **got}))
    print(f"Claude {args.claude_s:g} s a turn, 10 edits in 2 tasks, backend {args.backend}, {args.rounds} round(s)\n")
    print(
        "| checkout | review / verdict | no run (s) | with a run (s) | overhead (s) | ÷ 2 verdicts | reviews | "
        "verdicts | Stop hook before a verdict (s) | findings delivered | billed / recorded ($) | "
        "left at exit (gone after) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for latency in latencies:
        for side, _, mode in sides:
            bare = [
                r["wall"] for r in results[(side if mode in ("", modes[0]) else sides[-len(modes)][0], latency, False)]
            ]
            runs = results[(side, latency, True)]
            walls = [r["wall"] for r in runs]
            overheads = [w - statistics.median(bare) for w in walls]
            ratios = [o / (2 * latency[1]) for o in overheads]
            delivered = sum(len(r["delivered"]) for r in runs)
            marks = sum(len(r["marks"]) for r in runs)
            print(
                f"| {side} | {latency[0]:g} / {latency[1]:g} s | {spread(bare)} | {spread(walls)} | "
                f"{spread(overheads)} | {spread(ratios, 'x', 2)} | {spread([r['reviews'] for r in runs], '', 0)} | "
                f"{spread([r['verdicts'] for r in runs], '', 0)} | "
                f"{spread([g for r in runs for g in r['stop_s']], '', 2)} | {delivered}/{marks} | "
                f"{spread([r['billed'] for r in runs], '', 3)} / {spread([r['recorded'] for r in runs], '', 3)} "
                f"({spread([r['recorded_next'] for r in runs], '', 3)} after the next start) | "
                f"{spread([r['left'] for r in runs], '', 0)} ({spread([r['linger'] for r in runs], 's')}) |"
            )
    return 0


def spread(values: list[float], unit: str = "", digits: int = 1) -> str:
    """The value, or the range of values, as a table cell (a dash for none)."""
    if not values:
        return "–"
    low, high = min(values), max(values)
    if round(low, digits) == round(high, digits):
        return f"{low:.{digits}f}{unit}"
    return f"{low:.{digits}f}–{high:.{digits}f}{unit}"


if __name__ == "__main__":
    raise SystemExit(main())
