"""Many bridge processes on one run: every read-modify-write is one locked transaction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.backends import Usage
from autopilot.run.budget import add_usd, charge_budget
from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, state_of

N = 32


@pytest.mark.slow
def test_32_concurrent_reviews_count_every_call_and_sum_the_budget_exactly(planned, openai_env, bridge):
    """32 `codex-bridge review` processes at once end with 32 review calls and the exact summed spend."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    usage = {"input_tokens": 1234, "cached_tokens": 200, "output_tokens": 321}
    openai_env.push(*[reply_json(APPROVE, usage=usage) for _ in range(N)])
    env = {**os.environ}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "autopilot", "-C", str(planned), "review"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(N)
    ]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * N, [r[1][-300:] for r in results if r[2]]
    s = state_of(bridge, planned)
    per_call, _ = charge_budget("gpt-6.2-sol", Usage(input=1234, cached=200, output=321))
    expected = 0.0
    for _ in range(N):
        expected = add_usd(expected, per_call)
    assert s["token_usage"]["review"] == {"input": 1234 * N, "cached": 200 * N, "output": 321 * N, "calls": N}
    assert s["budget_used_usd"] == expected
    run_dir = Path(s["run_dir"])
    assert len(list(run_dir.glob("review-*.json"))) == N
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    assert sum(1 for e in events if e["phase"] == "review" and e["outcome"] == "ok") == N


def spawn_reviews(repo: Path, n: int) -> list[subprocess.Popen[bytes]]:
    return [
        subprocess.Popen(
            [sys.executable, "-m", "autopilot", "-C", str(repo), "review"],
            env={**os.environ},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(n)
    ]


@pytest.mark.slow
def test_64_concurrent_reviews_stop_at_the_budget(planned, openai_env, bridge):
    """64 reviews at once on a budget that covers 5 calls make 5 calls, and the run ends stopped_budget."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    per_call, _ = charge_budget("gpt-6.2-sol", Usage(input=1000, output=200))
    # calls start while the spend is under the cap: after 4 calls (4x) the 5th starts, after it (5x) none does
    assert bridge("-C", str(planned), "budget", "set", str(per_call * 4.5))[0] == 0
    before = len(openai_env.requests)
    openai_env.push(*[reply_json(APPROVE) for _ in range(64)])
    results = [p.communicate(timeout=600) + (p.returncode,) for p in spawn_reviews(planned, 64)]
    calls = len(openai_env.requests) - before
    s = state_of(bridge, planned)
    assert calls == 5, (
        f"{calls} calls against a cap of 5",
        s["token_usage"],
        s["budget_used_usd"],
        s["budget_usd"],
        per_call,
    )
    assert s["status"] == "stopped_budget" and s["token_usage"]["review"]["calls"] == 5
    assert sorted({r[2] for r in results}) == [0, 4]  # paid calls succeeded, the rest were refused for budget
