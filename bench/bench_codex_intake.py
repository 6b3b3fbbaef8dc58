"""Benchmark the Codex rollout intake against a naive json.loads-every-line reader (prints figures).

    .venv/bin/python bench/bench_codex_intake.py [--mb 200] [--compact-every 4] [--keep]

Writes one long thread of ``--mb`` megabytes under /tmp with tests/fixtures/make_big_sessions.py,
from the lines the pinned codex wrote in tests/fixtures/codex (fresh ids, a context compaction every
``--compact-every`` MB, roll-backs, repeated texts); the append is the same thread's next megabyte.
Then measures in one run:

- naive: ``json.loads`` on every line (the baseline);
- first intake: no cached index (target: at most 1.0x naive);
- later pages: ``--before`` cursors against the cached index (target: 20x faster than naive);
- re-intake after appending 1 MB of real lines (target: 20x faster than naive);
- peak RSS of a subprocess doing a first intake and a page (target: 64 MB);
- whole processes: `codex-bridge handoff from-codex intake` after a fresh 1 MB append against a process
  doing the naive parse (target: 20x faster), and a cached intake of a small real rollout against a bare
  `python -I -c pass` (target: within 3.5x);
- exactly-once paging: every entry visited once walking all pages.

Not a test: it prints numbers and ratios, and exits 1 only if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from wholeprocess import BARE, REPO, best, bridge, environment, interleaved, naive_argv  # bench/ is on the path

sys.path[:0] = [str(REPO)]
from tests.fixtures.make_big_sessions import Shape, codex_rollout  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "codex"
TINY = FIXTURES / "exec_tools.jsonl"  # a real rollout


def build(folder: Path, megabytes: float, compact_every: float) -> tuple[Path, bytes, dict[str, int]]:
    """A long rollout written from the real lines (tests/fixtures/make_big_sessions.py), cut at ``megabytes``: the
    rollout, the next megabyte of the same thread (what an append adds) and what the thread holds."""
    shape = Shape(megabytes + 1.5, compact_every=compact_every, marks=(float(megabytes), megabytes + 1.0))
    made = codex_rollout(folder / "made", shape)
    at, end = made.marks[float(megabytes)], made.marks[megabytes + 1.0]
    data = made.path.read_bytes()
    path = folder / made.path.name
    path.write_bytes(data[:at])
    info = {"compactions": made.compactions, "rewinds": made.rewinds, "turns": made.turns}
    shutil.rmtree(folder / "made")
    return path, data[at:end], info


def naive(path: Path) -> tuple[float, int]:
    """Seconds to json.loads every line, and the lines that parsed."""
    t0 = time.perf_counter()
    ok = 0
    with open(path, "rb") as fh:
        for line in fh:
            try:
                json.loads(line)
                ok += 1
            except ValueError:
                pass
    return time.perf_counter() - t0, ok


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """(seconds, result) of one call."""
    t0 = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - t0, result


PEAK_SCRIPT = """
import json, sys
from autopilot.handoff.transcripts.codex_intake import intake
a = intake(sys.argv[1])
intake(sys.argv[1], before_line=a["nextBeforeLine"])
# VmHWM is this address space's peak; ru_maxrss would also count the parent's size when it forked this process.
with open("/proc/self/status") as status:
    peak = next(int(l.split()[1]) for l in status if l.startswith("VmHWM"))
print(json.dumps({"maxrss_kb": peak, "entries": a["counts"]["entries"]}))
"""


def peak_rss(path: Path, home: Path) -> dict:
    """Peak RSS (MB) of a fresh process running a first intake plus one older page."""
    env = {**os.environ, "AUTOPILOT_HOME": str(home), "PYTHONPATH": str(REPO / "src")}
    out = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, str(path)], env=env, check=True, capture_output=True, text=True
    ).stdout
    data = json.loads(out)
    return {"peak_rss_mb": round(data["maxrss_kb"] / 1024, 1), "entries": data["entries"]}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description="Codex rollout intake benchmark")
    parser.add_argument("--mb", type=float, default=200.0, help="rollout size to build (default 200)")
    parser.add_argument("--compact-every", type=float, default=4.0, help="MB between compactions (default 4)")
    parser.add_argument("--keep", action="store_true", help="keep the temp directory")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-codex-"))
    os.environ["AUTOPILOT_HOME"] = str(work / "home")
    sys.path.insert(0, str(REPO / "src"))
    from autopilot.handoff.transcripts.codex_intake import intake

    try:
        rollout, extra, info = build(work, args.mb, args.compact_every)
        size_mb = rollout.stat().st_size / 1e6
        print(f"rollout: {size_mb:.1f} MB of one thread written from the real lines ({info})")

        t_naive, parsed = naive(rollout)
        print(f"naive json.loads reader: {t_naive:.2f} s ({parsed} lines)")

        t_first, first = timed(intake, rollout)
        print(
            f"first intake (no index):  {t_first:.2f} s = {t_first / t_naive:.2f}x naive "
            f"[target <= 1.0x]; {first['counts']['entries']} entries, index {first['diagnostics']['index']}"
        )

        cursor = first["nextBeforeLine"]
        page_times = []
        for _ in range(10):
            t_page, page = timed(intake, rollout, before_line=cursor)
            page_times.append(t_page)
            cursor = page["nextBeforeLine"]
        t_page = sorted(page_times)[len(page_times) // 2]
        print(
            f"later page (cached):      {t_page * 1000:.1f} ms median of 10 = {t_naive / t_page:.0f}x faster "
            "than naive [target >= 20x]"
        )

        with open(rollout, "ab") as out:
            out.write(extra)
        t_append, grown = timed(intake, rollout)
        d = grown["diagnostics"]
        print(
            f"re-intake after +{d['scannedBytes'] / 1e6:.2f} MB: {t_append * 1000:.1f} ms = "
            f"{t_naive / t_append:.0f}x faster than naive [target >= 20x]; index {d['index']}"
        )

        t_walk0 = time.perf_counter()
        seen: list[int] = []
        before, pages = None, 0
        while True:
            answer = intake(rollout, before_line=before, limit=100)
            seen += [e["line"] for e in answer["entries"]]
            pages += 1
            before = answer["nextBeforeLine"]
            if before is None:
                break
        once = seen == sorted(set(seen), reverse=True) and len(seen) == grown["counts"]["entries"]
        print(
            f"paging: {pages} pages of 100 in {time.perf_counter() - t_walk0:.1f} s, {len(seen)} entries, "
            f"exactly once: {once}"
        )

        # Whole processes, as an agent waits for them (wholeprocess.py): the naive parse against the command
        # after a fresh +1 MB append (best of 3, each on an index of the file as it was), and a cached intake of
        # a small real rollout against a bare interpreter (interleaved, medians).
        env = environment(work / "home")
        saved = rollout.stat().st_size

        def regrow() -> None:
            with open(rollout, "r+b") as fh:
                fh.truncate(saved - len(extra))
            intake(rollout)  # the index as it was before the append
            with open(rollout, "ab") as out:
                out.write(extra)

        naive_ms = best(naive_argv(rollout), env)
        cli_ms = best(bridge("handoff", "from-codex", "intake", str(rollout)), env, setup=regrow)
        small = interleaved({"bare": BARE, "intake": bridge("handoff", "from-codex", "intake", str(TINY))}, env, 20)
        print(
            f"whole processes: naive parse {naive_ms:.0f} ms; `handoff from-codex intake` after +1 MB {cli_ms:.1f} ms "
            f"= {naive_ms / cli_ms:.1f}x faster [target >= 20x]; cached intake of a {TINY.stat().st_size // 1000} kB "
            f"rollout {small['intake']:.1f} ms against bare {small['bare']:.1f} ms = "
            f"{small['intake'] / small['bare']:.2f}x [target <= 3.5x]"
        )

        peak = peak_rss(rollout, work / "home-peak")
        print(f"peak RSS, first intake + one page in a fresh process: {peak['peak_rss_mb']} MB [target <= 64 MB]")

        results = {
            "rollout_mb": round(size_mb, 1),
            "naive_s": round(t_naive, 2),
            "first_s": round(t_first, 2),
            "first_vs_naive": round(t_first / t_naive, 2),
            "page_ms": round(t_page * 1000, 1),
            "page_speedup": round(t_naive / t_page),
            "append_ms": round(t_append * 1000, 1),
            "append_speedup": round(t_naive / t_append),
            "peak_rss_mb": peak["peak_rss_mb"],
            "process_naive_ms": round(naive_ms, 1),
            "process_append_ms": round(cli_ms, 1),
            "process_append_speedup": round(naive_ms / cli_ms, 1),
            "process_cached_ms": round(small["intake"], 1),
            "process_bare_ms": round(small["bare"], 1),
            "process_cached_vs_bare": round(small["intake"] / small["bare"], 2),
            "exactly_once": once,
            "entries": len(seen),
        }
        print(json.dumps(results))
        ok = (
            results["first_vs_naive"] <= 1.0
            and results["page_speedup"] >= 20
            and results["append_speedup"] >= 20
            and results["peak_rss_mb"] <= 64
            and results["process_append_speedup"] >= 20
            and results["process_cached_vs_bare"] <= 3.5
            and once
        )
        print("all targets met" if ok else "TARGET MISSED")
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
