"""Many bridge processes on one run: every read-modify-write is one locked transaction."""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autopilot.fsutil import STALE_AFTER_S
from autopilot.loop.backends import Usage
from autopilot.loop.budget import add_usd, charge_budget
from autopilot.loop.state import Store, problem
from autopilot.scripted.responses_server import reply_json
from tests.support.loop import APPROVE, state_of
from tests.support.measured import unmeasured

N = 32
FLAT_BILL = {"input_tokens": 1000, "cached_tokens": 0, "output_tokens": 200}


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


def charges(bills: list[dict[str, int]], spent: float = 0.0) -> list[float]:
    """The running spend after each billed call (from ``spent``), as the run charges it."""
    running = []
    for bill in bills:
        usage = Usage(input=bill["input_tokens"], cached=bill["cached_tokens"], output=bill["output_tokens"])
        spent = add_usd(spent, charge_budget("gpt-6.2-sol", usage)[0])
        running.append(spent)
    return running


@pytest.mark.slow
def test_64_concurrent_reviews_stop_at_the_budget(planned, openai_env, bridge):
    """64 reviews at once on a budget that covers a few calls stop at the call that crosses it, and the run
    ends stopped_budget; each call is billed as a provider would (the conversation so far)."""
    (Path(planned) / "feature.py").write_text("x = 1\n")
    first = len(openai_env.bills)
    openai_env.push(reply_json(APPROVE))
    assert bridge("-C", str(planned), "review")[0] == 0
    one_review = charges(openai_env.bills[first:])[0]
    # calls start while the spend is under the cap: the call that crosses it is the last one made
    spent_before = state_of(bridge, planned)["budget_used_usd"]
    assert bridge("-C", str(planned), "budget", "set", str(spent_before + one_review * 4.5))[0] == 0
    before = len(openai_env.requests)
    openai_env.push(*[reply_json(APPROVE) for _ in range(64)])
    results = [p.communicate(timeout=600) + (p.returncode,) for p in spawn_reviews(planned, 64)]
    calls = len(openai_env.requests) - before
    s = state_of(bridge, planned)
    running = charges(openai_env.bills[before:], spent_before)
    crossing = next(n for n, spent in enumerate(running, 1) if spent >= s["budget_usd"])
    assert (calls, s["budget_used_usd"]) == (crossing, running[-1]), (s["token_usage"], running, s["budget_usd"])
    assert 2 <= calls < 64  # the race ran, and it stopped (caching makes later calls cheaper or dearer)
    assert s["status"] == "stopped_budget" and s["token_usage"]["review"]["calls"] == calls + 1
    assert sorted({r[2] for r in results}) == [0, 4]  # paid calls succeeded, the rest were refused for budget


KILLS = 200  # SIGKILLs that landed on a live process
PARALLEL = 6
STORM_S = 35.0  # the storm gives up here (it takes ~10-20 s on the 2-core box)
# What the storm runs, with weights: state transactions (one write each) and reviews (a paid call, an event
# line, an artifact and a transaction) against the instant scripted server.
STORM = (("budget", 4), ("stop", 3), ("review", 1))
# When a process is killed: at a random moment of its life; at a random moment while it holds the run's lock
# (mid-transaction: reading, validating, writing); or as soon as it is seen writing a temp file.
WHEN = ("any moment", "in the lock", "mid-write")


def storm_argv(repo: Path, kind: str, n: int) -> list[str]:
    args = {
        "budget": ["budget", "set", f"{50 + n % 50}.{n % 97:02d}"],
        "stop": ["stop", "--reason", f"stop {n}"],
        "review": ["review"],
    }[kind]
    return [sys.executable, "-m", "autopilot", "-C", str(repo), *args]


def leftovers(run_dir: Path) -> list[Path]:
    """What killed processes can leave in a run directory: temp files, write probes, temp index folders."""
    return sorted(
        p
        for p in run_dir.iterdir()
        if p.name.endswith(".tmp") or p.name.startswith((".write-probe-", "autopilot-index-"))
    )


def flock_holders(lock: Path) -> set[int]:
    """The processes holding a flock on ``lock`` right now (/proc/locks: pid, then device:inode)."""
    inode = os.stat(lock).st_ino
    holders = set()
    with open("/proc/locks") as fh:
        for line in fh:
            fields = line.split()
            if len(fields) > 5 and fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(inode):
                holders.add(int(fields[4]))
    return holders


def holds_temp(pid: int, run_dir: Path) -> bool:
    """Whether process ``pid`` has a temp file of ``run_dir`` open (it is writing one), as /proc shows it."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(run_dir)) and target.endswith(".tmp"):
            return True
    return False


@pytest.mark.slow
def test_sigkill_at_random_moments_never_leaves_an_unusable_run(planned, openai_env, bridge):
    """200+ bridge processes SIGKILLed at random moments, mid-transaction and mid-write: state.json always
    loads valid, what they left is swept by the next commands, and every charge is a whole logged call."""
    seed = random.randrange(1 << 32)
    rng = random.Random(seed)
    # one bill for every review, so the spend tells whole charges from partial ones
    openai_env.responder = lambda body: reply_json(APPROVE, usage=FLAT_BILL)
    (Path(planned) / "feature.py").write_text("x = 1\n")
    store = Store(planned)
    asked_before = len(openai_env.requests)
    took: dict[str, list[float]] = {kind: [] for kind, _ in STORM}
    for kind, _ in STORM:  # how long each command takes unkilled; then the storm's own survivors say
        started = time.monotonic()
        subprocess.run(storm_argv(planned, kind, 0), check=True, capture_output=True, env=unmeasured())
        took[kind].append(1.5 * (time.monotonic() - started))  # six at once on two cores run slower
    kills = {when: 0 for when in WHEN}
    review_kills = 0
    finished: list[tuple[str, int, bytes]] = []
    live: list[dict] = []
    seen: set[str] = set()
    n = 0
    give_up = time.monotonic() + STORM_S
    while sum(kills.values()) < KILLS and time.monotonic() < give_up:
        while len(live) < PARALLEL:
            n += 1
            kind = rng.choices([k for k, _ in STORM], [w for _, w in STORM])[0]
            proc = subprocess.Popen(
                storm_argv(planned, kind, n),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group: the kill takes its git children too
                # unmeasured (as its timing above): a kill during coverage's save at exit would leave a torn data
                # file, and the storm's pace (KILLS within STORM_S) is the bridge's own
                env=unmeasured(),
            )
            when = rng.choice(WHEN)
            # "any moment": mostly late in its life, where the writes are (the start is imports)
            after = rng.uniform(0.3, 1.15) * statistics.median(took[kind][-15:])
            if when == "in the lock":
                after = rng.uniform(0.0, 0.12)  # counted from when it is first seen holding the lock
            live.append({"proc": proc, "kind": kind, "when": when, "after": after, "since": time.monotonic()})
        time.sleep(0.001)
        now = time.monotonic()
        locked = flock_holders(store.lock_path)
        temps = {p.name for p in leftovers(store.dir)} - seen  # a write under way
        seen |= temps
        still = []
        for p in live:
            proc = p["proc"]
            if proc.poll() is None:
                if p["when"] == "in the lock" and p.get("locked") is None and proc.pid in locked:
                    p["locked"], p["since"] = True, now
                due = (p["when"] != "in the lock" or p.get("locked")) and now - p["since"] >= p["after"]
                if due or (p["when"] == "mid-write" and temps and holds_temp(proc.pid, store.dir)):
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
            if proc.returncode is None:
                still.append(p)
                continue
            if proc.returncode == -signal.SIGKILL:
                kills[p["when"]] += 1
                review_kills += p["kind"] == "review"
            else:
                if p["when"] == "any moment":  # a whole life, from its start
                    took[p["kind"]].append(now - p["since"])
                finished.append((p["kind"], proc.returncode, proc.stderr.read()))
            proc.stderr.close()
        live = still
    for p in live:  # the storm is over: whatever still runs is left to finish
        finished.append((p["kind"], p["proc"].wait(), p["proc"].stderr.read()))
        p["proc"].stderr.close()
    why = f"seed {seed}, {n} processes, kills {kills}, {len(seen)} temp files seen"
    assert sum(kills.values()) >= KILLS, why
    assert [(k, c, e[-300:]) for k, c, e in finished if c != 0] == [], why  # the survivors all succeeded

    # state.json loads with the bridge (exit 0) and is valid against the schema, never moved aside
    code, out, err = bridge("-C", str(planned), "state")
    assert code == 0, (err, why)
    assert problem(json.loads(store.path.read_bytes())) is None and store.load(repair=False)["run_id"], why
    assert not list(store.dir.glob("state.json.corrupt-*")), why

    # the next write sweeps a killed state writer's temp files at once; the next paid call, the stale rest
    left = leftovers(store.dir)
    assert bridge("-C", str(planned), "budget", "set", "100")[0] == 0
    assert [p.name for p in leftovers(store.dir) if p.name.startswith(".state.json.")] == [], why
    old = time.time() - 2 * STALE_AFTER_S
    for path in leftovers(store.dir):  # as if the next call came after STALE_AFTER_S
        os.utime(path, (old, old))
    (Path(planned) / "feature.py").write_text("x = 2\n")
    assert bridge("-C", str(planned), "review")[0] == 0
    assert leftovers(store.dir) == [], (why, f"{len(left)} left by the kills")

    # spend and calls: every charge is a whole logged call; an unrecorded one belongs to a killed review
    s = state_of(bridge, planned)
    review = s["token_usage"]["review"]
    calls = review["calls"]
    per_call, _ = charge_budget("gpt-6.2-sol", Usage(input=1000, output=200))
    spent = 0.0
    for _ in range(calls):
        spent = add_usd(spent, per_call)
    whole = {"input": 1000 * calls, "cached": 0, "output": 200 * calls, "calls": calls}
    assert (s["budget_used_usd"], review) == (spent, whole), why
    events = [json.loads(line) for line in (store.dir / "events.jsonl").read_text().splitlines() if line]
    logged = sum(1 for e in events if e["phase"] == "review" and e["outcome"] == "ok" and e["run_id"] == s["run_id"])
    asked = len(openai_env.requests) - asked_before
    assert calls <= logged <= asked and asked - calls <= review_kills, (calls, logged, asked, why)
    assert Path(s["last_review"]["review_path"]).is_file()
