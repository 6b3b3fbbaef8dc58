"""The active memory's costs: recording in a hook, reducing a long log, and what injection sends.

Three figures, each against a baseline measured in the same run:

- recording an observation, as Claude Code pays it: the plugin's real entry point
  (``scripts/bridge hook <Event>``, AUTOPILOT_PYTHON set to this interpreter) in a git repository
  without an autopilot run, against a bare ``python -I -c pass`` interleaved with it (goal: at most
  2x); and the Codex hook script (``memory_hook.py``, what ``install codex`` runs) the same way;
- reducing 100,000 observations in-process (goal: at most 1 s), and parsing them from the log first;
- for the 100-turn fixtures (tests/fixtures/long/): the bytes injected over the whole session
  against the transcript's raw bytes;
- with 20 approved rules in force (``--rules``): a prompt in a session that already has them (the
  fast path's stat of the durable log), and a new session's start that delivers them all.

Usage: .venv/bin/python bench/bench_memory.py [--runs N]   (prints a Markdown table)
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
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHIM = REPO / "scripts" / "bridge"
CODEX_HOOK = REPO / "src" / "autopilot" / "codex" / "assets" / "handoff" / "scripts" / "memory_hook.py"
SESSION = "bench-0000-4000-8000-000000000000"
LONG = REPO / "tests" / "fixtures" / "long"


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed: {proc.stderr}")
    return elapsed


def git_repo(root: Path) -> Path:
    repo = root / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    return repo


def hook_input(event: str, cwd: str, **fields: object) -> str:
    return json.dumps(
        {"session_id": SESSION, "transcript_path": "/tmp/bench.jsonl", "cwd": cwd, "hook_event_name": event, **fields}
    )


MODULE = REPO / "src" / "autopilot" / "handoff" / "search" / "retrieval.py"  # a real module of the size edits meet
SOURCE = MODULE.read_text(encoding="utf-8")
OLD = "\n".join(SOURCE.split("\n")[200:204]) + "\n"  # four lines inside a function
NEW = OLD.replace("(", "( ", 1)
PATCH = f"*** Begin Patch\n*** Update File: {MODULE.name}\n@@\n" + "".join(f" {x}\n" for x in OLD.split("\n")[:2])
PATCH += "".join(f"-{x}\n" for x in OLD.split("\n")[2:3]) + "".join(f"+{x}\n" for x in NEW.split("\n")[2:3])
PATCH += "*** End Patch\n"

EVENTS = [
    ("SessionStart (startup)", "SessionStart", {"source": "startup"}),
    ("UserPromptSubmit (request)", "UserPromptSubmit", {"prompt": "add a --json flag"}),
    (  # the recorder loads the redactor for this one (a secret word): what a redacted prompt costs
        "UserPromptSubmit (request with a credential)",
        "UserPromptSubmit",
        {"prompt": "deploy with the api key sk-proj-" + "Ab3Cd4Ef5" * 5},
    ),
    (  # the names it changed: its old and new text, the definitions around it in the file before (a 30 KB module)
        "PostToolUse (edit)",
        "PostToolUse",
        {
            "tool_name": "Edit",
            "tool_input": {"file_path": f"/w/{MODULE.name}", "old_string": OLD, "new_string": NEW},
            "tool_response": {"filePath": f"/w/{MODULE.name}", "originalFile": SOURCE, "structuredPatch": []},
        },
    ),
    (  # the whole module written: its first 20,000 characters read for names
        "PostToolUse (write of a 30 KB module)",
        "PostToolUse",
        {"tool_name": "Write", "tool_input": {"file_path": f"/w/{MODULE.name}", "content": SOURCE}},
    ),
    (  # Codex's patch: the patched file read from disk to place it
        "PostToolUse (apply_patch of the module)",
        "PostToolUse",
        {"tool_name": "apply_patch", "tool_input": {"command": PATCH}, "tool_response": "Success."},
    ),
    (
        "PostToolUse (test run)",
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "pytest -q"}, "tool_response": {"stdout": "3 passed"}},
    ),
    (
        "PostToolUse (other command: nothing kept)",
        "PostToolUse",
        {"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}},
    ),
    ("Stop (turn end)", "Stop", {"stop_hook_active": False}),
]


def recording(runs: int) -> list[tuple[str, float, float]]:
    """Median wall times of recording each event (Claude's shim, Codex's script) and of bare python."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        root = Path(tmp)
        repo = git_repo(root)
        (repo / MODULE.name).write_text(SOURCE, encoding="utf-8")  # what the patch event's hook reads
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_"))}
        env.update(AUTOPILOT_PYTHON=sys.executable, AUTOPILOT_HOME=str(root / "home"), HOME=str(root))
        bare = [sys.executable, "-I", "-c", "pass"]
        for who, argv_of in (
            ("Claude hook", lambda event: [str(SHIM), "hook", event]),
            ("Codex hook script", lambda event: [sys.executable, "-I", str(CODEX_HOOK)]),
        ):
            for label, event, fields in EVENTS:
                stdin = hook_input(event, str(repo), **fields)
                base, samples = [], []
                for _ in range(runs):  # interleaved, so both see the same machine state
                    base.append(timed(bare, "", env, str(repo)))
                    samples.append(timed(argv_of(event), stdin, env, str(repo)))
                rows.append((f"{who}: {label}", statistics.median(samples) * 1000, statistics.median(base) * 1000))
        log = Path(root / "home" / "handoff" / "active").glob("*/*/observations.jsonl")
        kept = sum(len(p.read_text().splitlines()) for p in log)
        print(f"(observations written during the recording runs: {kept})", file=sys.stderr)
    return rows


def with_rules(runs: int, count: int = 20) -> list[tuple[str, float, float]]:
    """Median wall times, with ``count`` approved rules in force, of a prompt in a session that has them and of a
    new session's start that delivers them (Claude's shim), each against bare python interleaved."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-rules-") as tmp:
        root = Path(tmp)
        repo = git_repo(root)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_"))}
        env.update(AUTOPILOT_PYTHON=sys.executable, AUTOPILOT_HOME=str(root / "home"), HOME=str(root))
        approve = (
            "import sys; sys.path.insert(0, sys.argv[1]);"
            "from autopilot.knowledge.durable import secret;"
            "from autopilot.knowledge.durable.store import Log, project_scope;"
            "secret.write_record('a bench passphrase here', cost={'n': 1024, 'r': 8, 'p': 1}); log = Log();"
            f"[log.decide('approve', log.propose('rule', f'Rule {{n}}: keep this in mind when editing.', by='bench',"
            f" channel='cli', project=project_scope(sys.argv[2]))['id'], person='Bench', secret='a bench passphrase "
            f"here', channel='terminal') for n in range({count})]"
        )
        subprocess.run([sys.executable, "-c", approve, str(REPO / "src"), str(repo)], check=True, env=env)
        bare = [sys.executable, "-I", "-c", "pass"]
        shim = [str(SHIM), "hook", "UserPromptSubmit"]
        timed(
            [str(SHIM), "hook", "SessionStart"], hook_input("SessionStart", str(repo), source="startup"), env, str(repo)
        )
        cases = [
            ("Claude hook: UserPromptSubmit, 20 rules in force, none changed", lambda n: (shim, hook_input(
                "UserPromptSubmit", str(repo), prompt="go on"))),
            ("Claude hook: SessionStart of a new session, delivering 20 rules", lambda n: (
                [str(SHIM), "hook", "SessionStart"],
                json.dumps({"session_id": f"bench-new-{n:04d}", "transcript_path": "/tmp/b.jsonl", "cwd": str(repo),
                            "hook_event_name": "SessionStart", "source": "startup"}))),
        ]  # fmt: skip
        for label, case in cases:
            base, samples = [], []
            for n in range(runs):
                argv, stdin = case(n)
                base.append(timed(bare, "", env, str(repo)))
                samples.append(timed(argv, stdin, env, str(repo)))
            rows.append((label, statistics.median(samples) * 1000, statistics.median(base) * 1000))
    return rows


def synthetic(n: int) -> list[dict]:
    """``n`` observations in a realistic mix: turns, requests, edits, test runs with outputs, compactions, models."""
    rng = random.Random(7)
    out = []
    for i in range(n):
        at = f"2026-12-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
        base = {"v": 1, "at": at, "agent": "claude", "event": "x", "via": "hook"}
        roll = rng.random()
        if roll < 0.3:
            out.append(
                {
                    **base,
                    "kind": "edit",
                    "path": f"/w/src/mod_{rng.randrange(300)}.py",
                    "tool": "Edit",
                    "result": "ok",
                    "id": f"t{i}",
                }
            )
        elif roll < 0.5:
            failed = rng.random() < 0.3
            output = ("." * 60 + "\n") * 10 + ("1 failed, 40 passed in 1.2s" if failed else "41 passed in 1.1s")
            command = rng.choice(["pytest -q", "ruff check src", "mypy src", "pytest -q tests/unit || true"])
            out.append(
                {**base, "kind": "run", "command": command, "exit": 1 if failed else 0, "output": output, "id": f"r{i}"}
            )
        elif roll < 0.7:
            out.append({**base, "kind": "turn"})
        elif roll < 0.9:
            out.append({**base, "kind": "request", "prompt": f"turn {i}: keep going", "id": f"p{i}"})
        elif roll < 0.95:
            out.append(
                {
                    **base,
                    "kind": "session",
                    "source": rng.choice(["resume", "compact", "startup"]),
                    "model": rng.choice(["m1", "m2"]),
                }
            )
        else:
            out.append({**base, "kind": "compact", "phase": rng.choice(["pre", "post"]), "trigger": "auto"})
    return out


def reducing(n: int, repeat: int) -> list[tuple[str, float, float]]:
    """Median in-process times: reduce() over ``n`` observations, and parsing them from a log file first."""
    sys.path.insert(0, str(REPO / "src"))
    from autopilot import fastjson
    from autopilot.handoff.memory import observe
    from autopilot.handoff.memory.reduce import reduce
    from autopilot.handoff.memory.store import SessionStore

    observations = synthetic(n)
    cps = [
        {
            "at": f"2026-12-01T{h:02d}:00:00.000Z",
            "checkpoint": {
                "objective": "o",
                "constraints": [],
                "next_action": f"n{h}",
                "unresolved": [f"u{h}"],
                "completed": [f"u{h - 1}"],
            },
        }
        for h in range(1, 24)
    ]
    rows = []
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        reduce(observations, cps)
        times.append(time.perf_counter() - started)
    rows.append((f"reduce {n:,} observations (in-process)", statistics.median(times) * 1000, 1000.0))
    with tempfile.TemporaryDirectory(prefix="bench-reduce-") as tmp:
        os.environ["AUTOPILOT_HOME"] = tmp
        store = SessionStore("claude", "bench-session", tmp)
        store.ensure()
        (store.dir / observe.LOG).write_text("".join(fastjson.dumps(o) + "\n" for o in observations))
        size = (store.dir / observe.LOG).stat().st_size
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            reduce(store.observations().records, cps)
            times.append(time.perf_counter() - started)
        rows.append(
            (f"read + reduce {n:,} observations ({size / 1e6:.1f} MB log)", statistics.median(times) * 1000, 1000.0)
        )
    return rows


def injected() -> list[tuple[str, int, int]]:
    """For the long fixtures: bytes injected over the session against the transcript's raw bytes."""
    rows = []
    for agent, transcript in (("claude", "transcript.jsonl"), ("codex", "rollout.jsonl")):
        folder = LONG / agent
        if not (folder / transcript).exists():
            continue
        records = [json.loads(line) for line in (folder / "memory" / "injections.jsonl").read_text().splitlines()]
        sent = sum(r.get("bytes", 0) for r in records)
        count = sum(1 for r in records if r.get("bytes"))
        rows.append((f"{agent}: {count} injections over 100 turns", sent, (folder / transcript).stat().st_size))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31, help="repetitions per recording figure (default 31)")
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--rules", action="store_true", help="only the figures with approved rules in force")
    args = parser.parse_args()
    print("| recording an observation (median of whole processes) | ms | bare `python -I -c pass` ms | ratio |")
    print("|---|---:|---:|---:|")
    for label, ms, base in with_rules(args.runs) if args.rules else recording(args.runs) + with_rules(args.runs):
        print(f"| {label} | {ms:.1f} | {base:.1f} | {ms / base:.2f}x |")
    if args.rules:
        return 0
    print()
    print("| reducing | ms | goal ms | of the goal |")
    print("|---|---:|---:|---:|")
    for label, ms, goal in reducing(args.observations, 5):
        print(f"| {label} | {ms:.0f} | {goal:.0f} | {ms / goal:.0%} |")
    print()
    print("| injection over a 100-turn session | bytes injected | raw transcript bytes | share |")
    print("|---|---:|---:|---:|")
    for label, sent, raw in injected():
        print(f"| {label} | {sent:,} | {raw:,} | {sent / raw:.2%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
