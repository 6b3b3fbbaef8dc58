"""Benchmark the budget under concurrency: many `codex-bridge review` processes at once on a small cap.

Plans a run against the instant scripted Responses server, sets its budget to about CAP more calls (CAP + 0.5
times what the baseline review cost), then starts REVIEWS `codex-bridge review` processes at once. The server
bills each call as a provider would (the conversation so far, the repeated prefix cached), so calls differ in
price: the cap is the number of calls whose running spend first reaches the budget (calls start while the
spend is under it, so the call that crosses it is the last). Prints the calls Codex got against that cap
(goal: exactly the cap, 1.00x), the run's final status, how the processes exited, and the wall time of the
burst against one review process measured in the same run (the baseline). Fails if the calls are not the cap.

Writes nothing outside a temp dir.  Usage: python bench/bench_budget_race.py [--reviews 64] [--cap 5] [--rounds 3]
"""

from __future__ import annotations

import argparse
import collections
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

from autopilot.loop.backends import Usage  # noqa: E402
from autopilot.loop.budget import add_usd, charge_budget  # noqa: E402
from autopilot.scripted.responses_server import ResponsesServer, reply_json  # noqa: E402

PLAN = {"summary": "s", "tasks": [{"id": "T1", "title": "t", "description": "d", "acceptance": ["a"]}]}
REVIEW = {"decision": "approve", "summary": "ok", "issues": []}
MODEL = "gpt-6.2-sol"


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b"}
    env.update(GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("# bench\n")
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "init"], check=True, env=env)
    return repo


def bridge(repo: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "autopilot", "-C", str(repo), *args]


def price(bill: dict[str, int]) -> float:
    """What the run is charged for one call the server billed."""
    usage = Usage(input=bill["input_tokens"], cached=bill["cached_tokens"], output=bill["output_tokens"])
    return charge_budget(MODEL, usage)[0]


def one_round(root: Path, reviews: int, cap: int) -> dict[str, object]:
    """One fresh run: plan, cap, one review alone (the baseline), then ``reviews`` at once on a fresh cap."""
    repo = make_repo(root)
    with ResponsesServer(responder=lambda body: reply_json(REVIEW)) as srv:
        env = {
            **os.environ,
            "AUTOPILOT_HOME": str(root / "home"),
            "OPENAI_BASE_URL": srv.url,
            "OPENAI_API_KEY": "bench",
            "AUTOPILOT_BACKEND": "openai",
            "AUTOPILOT_MODEL": MODEL,
        }
        env.pop("CLAUDE_CODE_SESSION_ID", None)
        srv.push(reply_json(PLAN))
        subprocess.run(bridge(repo, "plan", "--goal", "bench"), env=env, check=True, capture_output=True)
        (repo / "feature.py").write_text("x = 1\n")
        started = time.perf_counter()
        subprocess.run(bridge(repo, "review"), env=env, check=True, capture_output=True)
        alone = time.perf_counter() - started
        spent = price(srv.bills[-1])
        # the baseline's call is spent; about `cap` more start while the spend is under the cap
        budget = spent + price(srv.bills[-1]) * (cap + 0.5)
        subprocess.run(bridge(repo, "budget", "set", repr(budget)), env=env, check=True, capture_output=True)
        before = len(srv.requests)
        started = time.perf_counter()
        procs = [
            subprocess.Popen(bridge(repo, "review"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            for _ in range(reviews)
        ]
        codes = collections.Counter(p.wait() for p in procs)
        burst = time.perf_counter() - started
        for p in procs:
            assert p.stderr is not None
            p.stderr.close()
        calls = len(srv.requests) - before
        state = json.loads(subprocess.run(bridge(repo, "state"), env=env, check=True, capture_output=True).stdout)
        paid_for = 0  # the calls whose running spend first reaches the budget
        for bill in srv.bills[before:]:
            paid_for += 1
            spent = add_usd(spent, price(bill))
            if spent >= state["budget_usd"]:
                break
    return {
        "calls": calls,
        "cap": paid_for,
        "recorded": state["token_usage"]["review"]["calls"] - 1,  # less the baseline's
        "status": state["status"],
        "codes": dict(sorted(codes.items())),
        "alone_s": alone,
        "burst_s": burst,
        "spent": state["budget_used_usd"],
        "budget": state["budget_usd"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reviews", type=int, default=64)
    parser.add_argument("--cap", type=int, default=5, help="calls the budget covers at the baseline's price")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for n in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="bench-budget-race-") as tmp:
            rows.append(one_round(Path(tmp), args.reviews, args.cap))
        r = rows[-1]
        print(
            f"round {n + 1}: {r['calls']} calls made vs a cap of {r['cap']} ({r['calls'] / r['cap']:.2f}x), "
            f"{r['recorded']} recorded; final status {r['status']}; exit codes {r['codes']}; "
            f"spent ${r['spent']:.6f} of ${r['budget']:.6f}; {args.reviews} at once took {r['burst_s']:.1f} s, "
            f"one alone {r['alone_s']:.2f} s ({r['burst_s'] / r['alone_s']:.1f}x)"
        )
    bursts = [float(r["burst_s"]) for r in rows]  # type: ignore[arg-type]
    alones = [float(r["alone_s"]) for r in rows]  # type: ignore[arg-type]
    print(
        f"\n{args.reviews} concurrent reviews, budget of {args.cap + 0.5} baseline reviews' price, "
        f"{args.rounds} rounds "
        f"(python {sys.version.split()[0]}, {os.cpu_count()} CPUs):"
    )
    made = sorted({f"{r['calls']}/{r['cap']}" for r in rows})
    print(f"  calls made / the budget's cap: {made} (goal: exactly the cap)")
    print(f"  final status: {sorted({str(r['status']) for r in rows})}")
    print(
        f"  wall time of the burst: median {statistics.median(bursts):.1f} s, one review alone "
        f"{statistics.median(alones):.2f} s ({statistics.median(bursts) / statistics.median(alones):.1f}x)"
    )
    bad = [r for r in rows if r["calls"] != r["cap"] or r["recorded"] != r["cap"] or r["status"] != "stopped_budget"]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
