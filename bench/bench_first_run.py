"""The README's first command on a newcomer's machine, and how fast a backend that cannot answer says so.

Whole processes, each case interleaved with its baseline so the machine's load hits both alike:

1. ``codex-bridge demo`` with a ``codex`` on PATH that is set up as the backend and hangs (it never answers),
   against the same command with no codex anywhere: the ratio says what having codex installed costs the demo
   (the demo never asks it).
2. ``codex-bridge demo --backend codex-cli`` with the pinned real codex (tests/agents, npm) whose provider is a
   port nobody listens on: the time until the demo exits saying why, against the time the same codex takes to
   print its own "Reconnecting... waiting for network" (after which it waits for ever): our part of the wait.

In-process: the codex-cli backend reading codex's events as they come (``codex_cli._exchange``) against
``Popen.communicate`` reading them at the end, on the events a real ``codex exec --json`` printed (the pinned codex
against the scripted Responses server), replayed by a stand-in process.

Usage: .venv/bin/python bench/bench_first_run.py [--runs N]   (prints Markdown)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CODEX = REPO / "tests" / "agents" / "node_modules" / ".bin" / "codex"
BRIDGE = str(Path(sys.executable).parent / "codex-bridge")
HUNG = f"#!{sys.executable}\nimport time\ntime.sleep(600)\n"
PROVIDER = """model = "gpt-6.2-sol"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "{url}"
env_key = "FAKE_OPENAI_KEY"
wire_api = "responses"
"""


def timed(argv: list[str], env: dict[str, str], until: bytes | None = None) -> float:
    """Seconds until ``argv`` exits (or prints a line holding ``until``; then it is killed)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    assert proc.stdout is not None
    if until is not None:
        for line in proc.stdout:
            if until in line:
                break
        took = time.perf_counter() - started
        os.killpg(proc.pid, signal.SIGKILL)  # codex's npm launcher and the native binary it runs
        proc.communicate()
        return took
    proc.communicate(timeout=300)
    return time.perf_counter() - started


def homes(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_"))}
    for name in ("AUTOPILOT_HOME", "CODEX_HOME", "HOME", "CLAUDE_CONFIG_DIR"):
        (root / name).mkdir(parents=True, exist_ok=True)
        env[name] = str(root / name)
    env["TMPDIR"] = str(root / "tmp")
    (root / "tmp").mkdir(exist_ok=True)
    return env


def first_command(root: Path, runs: int) -> tuple[float, float]:
    """Median seconds of `codex-bridge demo` with a hung codex set up as the backend, and with no codex."""
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "codex").write_text(HUNG)
    (bin_dir / "codex").chmod(0o755)
    env = homes(root / "with")
    Path(env["AUTOPILOT_HOME"], "config.yaml").write_text("backend: codex-cli\n")
    with_codex = {**env, "PATH": f"{bin_dir}:/usr/bin:/bin", "AUTOPILOT_BACKEND": "codex-cli"}
    without = {**homes(root / "without"), "PATH": "/usr/bin:/bin"}
    a, b = [], []
    for _ in range(runs):
        a.append(timed([BRIDGE, "demo"], with_codex))
        b.append(timed([BRIDGE, "demo"], without))
    return statistics.median(a), statistics.median(b)


def unreachable(root: Path, runs: int) -> tuple[float, float] | None:
    """Median seconds until `demo --backend codex-cli` gives up on a codex whose provider is not there, and until
    that codex itself says it is waiting for the network."""
    if not CODEX.exists():
        return None
    env = homes(root / "unreachable")
    Path(env["CODEX_HOME"], "config.toml").write_text(PROVIDER.format(url="http://127.0.0.1:9/v1"))
    env.update(PATH=f"{CODEX.parent}:/usr/bin:/bin", FAKE_OPENAI_KEY="not-a-key")
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed([BRIDGE, "demo", "--backend", "codex-cli"], env))
        probe = [str(CODEX), "exec", "--json", "--skip-git-repo-check", "-C", str(root), "hello"]
        theirs.append(timed(probe, env, until=b"waiting for network"))
    return statistics.median(ours), statistics.median(theirs)


def real_events(root: Path) -> bytes | None:
    """What a real `codex exec --json` printed for one answer of the scripted server (None without codex)."""
    if not CODEX.exists():
        return None
    sys.path.insert(0, str(REPO / "src"))
    from autopilot.scripted.responses_server import ResponsesServer, reply_json

    env = homes(root / "real")
    with ResponsesServer() as server:
        Path(env["CODEX_HOME"], "config.toml").write_text(PROVIDER.format(url=server.url))
        server.push(reply_json({"decision": "approve", "summary": "looks right " * 50, "issues": []}))
        proc = subprocess.run(
            [str(CODEX), "exec", "--json", "--skip-git-repo-check", "-C", str(root), "-"],
            input=b"review this",
            capture_output=True,
            env={**env, "FAKE_OPENAI_KEY": "not-a-key"},
            timeout=120,
        )
    return proc.stdout if proc.returncode == 0 else None


def reading(root: Path, events: bytes, runs: int) -> tuple[float, float]:
    """Median milliseconds to run a stand-in printing ``events`` and read them: streamed, and all at the end."""
    from autopilot.loop.backends import codex_cli

    replay = root / "replay.jsonl"
    replay.write_bytes(events * 20)  # a long turn: twenty answers' worth of events
    argv = [
        sys.executable,
        "-c",
        f"import sys; sys.stdin.read(); sys.stdout.buffer.write(open({str(replay)!r}, 'rb').read())",
    ]
    prompt = ("x" * 200_000).encode()  # a review's prompt: a diff as evidence

    def stream() -> int:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        return len(codex_cli._exchange(proc, prompt, 60)[0])

    def at_the_end() -> int:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, _ = proc.communicate(prompt, timeout=60)
        return len([json.loads(line) for line in out.splitlines() if line.strip()])

    times: dict[str, list[float]] = {"stream": [], "end": []}
    for n in range(max(runs * 5, 15)):  # alternating which goes first: the first of a pair pays for a cold cache
        for name, fn in (("stream", stream), ("end", at_the_end))[:: 1 if n % 2 else -1]:
            started = time.perf_counter()
            assert fn() > 0
            times[name].append((time.perf_counter() - started) * 1000)
    return statistics.median(times["stream"]), statistics.median(times["end"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-first-run-"))
    try:
        print("| case | ours | baseline | ratio |\n|---|---|---|---|")
        a, b = first_command(root, args.runs)
        print(
            f"| `demo`, a hung codex set up as the backend / no codex at all | {a:.2f} s | {b:.2f} s | {a / b:.2f}× |"
        )
        found = unreachable(root, args.runs)
        if found:
            ours, theirs = found
            print(
                f'| `demo --backend codex-cli` exits, provider unreachable / codex says "waiting for network" '
                f"| {ours:.2f} s | {theirs:.2f} s | {ours / theirs:.2f}× |"
            )
        events = real_events(root)
        if events:
            s, w = reading(root, events, args.runs)
            n = events.count(b"\n") * 20
            case = f"in-process: {n} real codex events read as they come / read at the end"
            print(f"| {case} | {s:.1f} ms | {w:.1f} ms | {s / w:.2f}× |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
