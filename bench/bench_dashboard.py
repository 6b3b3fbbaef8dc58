"""Dashboard latency: every summary API on a machine with 50 runs and 1,000 packets (p50/p95 per endpoint).

The data is synthetic from real shapes: one real run (plan, review, verdict through the openai
backend against the instant scripted Responses server) is copied to 50 workspaces with
events.jsonl grown to ~200 calls each; one real packet exported from a Claude work session is
re-stored 1,000 times with a different session and time (each a valid, sealed packet); 100
durable rules, half approved. The dashboard runs as a real `codex-bridge dashboard` process;
requests go over one keep-alive connection, as the page's do. The baseline, in the same run and
through the same server and guard, is a static file (`/static/style.css`). For contrast, the
same answers through whole CLI processes (`status --json --all`, `durable list`).

Usage: .venv/bin/python bench/bench_dashboard.py [--runs 50] [--packets 1000] [--requests 60]
Prints a Markdown table; asserts nothing (benchmarks are not tests).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

SUMMARIES = ["/api/overview", "/api/runs", "/api/run", "/api/packets", "/api/durable", "/api/memory/active"]


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.run(
        [sys.executable, "-m", "autopilot", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=b", "-c", "user.email=b@b"]
    subprocess.run(["git", "-C", str(repo), *ident, *args], check=True, capture_output=True)


def make_runs(root: Path, repo: Path, count: int) -> str:
    """One real run in ``repo``, copied to ``count - 1`` more workspaces; returns the real run's name."""
    from tests.support.loop import APPROVE, PLAN, continue_to

    from autopilot import paths
    from autopilot.scripted.responses_server import ResponsesServer, reply_json

    with ResponsesServer() as srv:
        os.environ.update(OPENAI_BASE_URL=srv.url, OPENAI_API_KEY="sk-bench", AUTOPILOT_BACKEND="openai")
        os.environ["AUTOPILOT_MODEL"] = "gpt-6.2-sol"
        srv.push(reply_json(PLAN))
        cli("-C", str(repo), "plan", "--goal", "Add a feature with a test", "--budget", "9")
        (repo / "feature.py").write_text("x = 1\n")
        srv.push(reply_json(APPROVE, {"input_tokens": 5200, "output_tokens": 900}))
        cli("-C", str(repo), "review")
        srv.push(reply_json(continue_to("T2"), {"input_tokens": 2600, "output_tokens": 300}))
        cli("-C", str(repo), "verdict", "--last-message", "feature added")
    real = paths.run_dir(str(repo.resolve()))
    lines = (real / "events.jsonl").read_text().splitlines()
    grown = [lines[i % len(lines)] for i in range(200)]
    (real / "events.jsonl").write_text("\n".join(grown) + "\n")
    for i in range(count - 1):
        ws = root / "workspaces" / f"ws-{i:03d}"
        ws.mkdir(parents=True)
        dest = paths.run_dir(str(ws))
        shutil.copytree(real, dest, ignore=shutil.ignore_patterns("*.lock", "work-index", "state.json.valid"))
        state = json.loads((dest / "state.json").read_text())
        state["workspace"] = str(ws)
        (dest / "state.json").write_text(json.dumps(state, indent=2))
    return real.name


def make_packets(repo: Path, count: int) -> None:
    """One real packet exported from a Claude work session, stored ``count`` times as distinct packets."""
    from tests.support.claude_rows import Transcript
    from tests.support.handoff_env import claude_session, work_session

    from autopilot.handoff.packets import store

    t = work_session(Transcript())
    claude_session(t, repo)
    out = cli("handoff", "export", "--from", "claude", "--session", t.session, "--to", "codex", cwd=repo).stdout
    pid, packet, evidence = store.load(json.loads(out)["packet"])
    for i in range(count - 1):
        copy = json.loads(json.dumps(packet))
        copy["createdAt"] = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00Z"
        copy["source"]["sessionId"] = f"{i:08x}-2222-4333-8444-555555555555"
        store.store(copy, evidence)


def make_rules(count: int) -> None:
    from autopilot.knowledge.durable.store import Log

    log = Log()
    for i in range(count):
        rid = log.propose("rule", f"Rule number {i}: keep the public API of module {i} stable.", by="b", channel="cli")
        if i % 2:
            log.decide("approve", rid["id"], person="Bench Person", confirm="Bench Person", channel="dashboard")


class Client:
    """One keep-alive connection to the dashboard, with its token."""

    def __init__(self, url: str) -> None:
        parsed = urlparse(url)
        self.port = parsed.port or 0
        self.token = parsed.query.removeprefix("token=")
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def get(self, path: str) -> tuple[float, int, int]:
        """(milliseconds, status, bytes) of one GET."""
        t0 = time.perf_counter()
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {self.token}"})
        resp = self.conn.getresponse()
        body = resp.read()
        return (time.perf_counter() - t0) * 1000, resp.status, len(body)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--packets", type=int, default=1000)
    parser.add_argument("--rules", type=int, default=100)
    parser.add_argument("--requests", type=int, default=60, help="warm requests per endpoint")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-dashboard-"))
    homes = (("AUTOPILOT_HOME", "ap"), ("CODEX_HOME", "codex"), ("CLAUDE_CONFIG_DIR", "claude"), ("HOME", "home"))
    for var, sub in homes:
        (root / sub).mkdir()
        os.environ[var] = str(root / sub)
    for var in ("CLAUDECODE", "CLAUDE_CODE_ENTRYPOINT"):
        os.environ.pop(var, None)
    repo = root / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text("# bench\n")
    (repo / "parser.py").write_text("def parse(s):\n    return s\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "init")
    t0 = time.perf_counter()
    run_name = make_runs(root, repo, args.runs)
    make_packets(repo, args.packets)
    make_rules(args.rules)
    print(f"setup: {args.runs} runs, {args.packets} packets, {args.rules} rules in {time.perf_counter() - t0:.1f} s")

    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "autopilot", "-C", str(repo), "dashboard", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        client = Client(proc.stdout.readline().strip())
        for _ in range(100):
            try:
                client.get("/static/style.css")
                break
            except OSError:
                time.sleep(0.05)
                client = Client(f"http://127.0.0.1:{client.port}/?token={client.token}")
        paths = {p: (f"/api/runs/{run_name}" if p == "/api/run" else p) for p in SUMMARIES}
        cold = {p: client.get(paths[p]) for p in SUMMARIES}
        samples: dict[str, list[float]] = {p: [] for p in ["/static/style.css", *SUMMARIES]}
        sizes: dict[str, int] = {}
        for _ in range(args.requests):  # interleaved, so load changes hit every endpoint alike
            for p in samples:
                ms, status, size = client.get(paths.get(p, p))
                assert status == 200, (p, status)
                samples[p].append(ms)
                sizes[p] = size
        base = statistics.median(samples["/static/style.css"])
        print()
        print("| endpoint | answer | cold (first) | p50 | p95 | p50 / baseline | target |")
        print("|---|---:|---:|---:|---:|---:|---|")
        for p, values in samples.items():
            first = "" if p not in cold else f"{cold[p][0]:.1f} ms"
            target = "baseline" if p.startswith("/static") else "p95 ≤ 100 ms"
            print(
                f"| `GET {paths.get(p, p)}` | {sizes[p] / 1024:.0f} KiB | {first} | {pct(values, 50):.1f} ms | "
                f"{pct(values, 95):.1f} ms | {pct(values, 50) / base:.1f}× | {target} |"
            )
        # the page's 15-second refresh: the six summaries at once, on six connections
        fan: list[float] = []
        for _ in range(10):
            clients = [Client(f"http://127.0.0.1:{client.port}/?token={client.token}") for _ in SUMMARIES]
            t = time.perf_counter()
            pairs = zip(clients, SUMMARIES, strict=True)
            threads = [threading.Thread(target=c.get, args=(paths[p],)) for c, p in pairs]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            fan.append((time.perf_counter() - t) * 1000)
        print(f"| the page's refresh: all six at once | | | {pct(fan, 50):.1f} ms | {pct(fan, 95):.1f} ms | | |")
        whole = []
        for args_ in (("status", "--json", "--all"), ("durable", "list")):
            times = []
            for _ in range(5):
                t = time.perf_counter()
                cli(*args_, cwd=repo)
                times.append((time.perf_counter() - t) * 1000)
            whole.append(f"`codex-bridge {' '.join(args_)}` {statistics.median(times):.0f} ms")
        print(f"\nthe same answers as whole CLI processes (median of 5): {'; '.join(whole)}")
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
