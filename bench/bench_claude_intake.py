"""Benchmark the Claude transcript intake on a ≥200 MB transcript built from real rows.

Usage: ``.venv/bin/python bench/bench_claude_intake.py [--mb 200] [--compact-every 10] [--keep]``

The transcript is one long session written by tests/fixtures/make_big_sessions.py from the rows
the pinned ``claude`` wrote in tests/fixtures/claude/ (fresh ids, real parent chains, a compaction
every ``--compact-every`` MB, rewinds, subagents, repeated texts); the append is the same session's
next megabyte. Every case runs in its own subprocess, which reports its wall time and peak RSS; the
naive baseline (``json.loads`` of every line) is measured in the same run. Prints figures and ratios;
asserts nothing (benchmarks are not tests). bench/bench_intake_scaling.py measures the same across
sizes, as whole processes in alternating pairs.
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
from tests.fixtures.make_big_sessions import Shape, claude_session  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "claude"
TINY = FIXTURES / "tools" / "49fa090f-34fe-47da-9cd9-cf59c6a193ff.jsonl"  # a real session, 58 kB

CHILD = r"""
import json, os, sys, time
case, path, arg = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
out = {}
if case == "naive":
    t1 = time.perf_counter()
    n = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            try:
                json.loads(line)
            except ValueError:
                pass
            n += 1
    out["lines"] = n
elif case == "walk":
    from autopilot.handoff.transcripts.claude_intake import intake
    t1 = time.perf_counter()
    seen, before, pages = [], None, 0
    while True:
        page = intake(path, before_line=before, limit=int(arg))
        seen.extend(e["line"] for e in page["entries"])
        pages += 1
        before = page["nextBeforeLine"]
        if before is None:
            break
    out.update(pages=pages, visited=len(seen), distinct=len(set(seen)), entries=page["counts"]["entries"],
               newest_first=all(a > b for a, b in zip(seen, seen[1:])))
else:
    from autopilot.handoff.transcripts.claude_intake import intake
    t1 = time.perf_counter()
    page = intake(path, before_line=int(arg) if arg != "-" else None)
    out.update(index=page["diagnostics"]["index"], scanned=page["diagnostics"]["scannedBytes"],
               entries=len(page["entries"]), next=page["nextBeforeLine"], lines=page["counts"]["lines"],
               oversize=page["diagnostics"]["oversizeLines"], json_bytes=len(json.dumps(page)))
out["seconds"] = time.perf_counter() - t1
out["import_seconds"] = t1 - t0
# VmHWM is this address space's peak; ru_maxrss would also count the parent's peak before exec.
with open("/proc/self/status") as status:
    out["peak_rss_mb"] = next(int(l.split()[1]) for l in status if l.startswith("VmHWM")) / 1024
print(json.dumps(out))
"""


def real_rows() -> list[bytes]:
    """The rows of every real main transcript fixture, in order."""
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    rows: list[bytes] = []
    for name in sorted(manifest):
        rows.extend((FIXTURES / manifest[name]["transcript"]).read_bytes().splitlines())
    return rows


def build(folder: Path, megabytes: int, compact_every: float) -> tuple[Path, bytes, dict[str, int]]:
    """A long session written from the real rows (tests/fixtures/make_big_sessions.py), cut at ``megabytes``: the
    transcript, the next megabyte of the same session (what an append adds) and what the session holds."""
    shape = Shape(megabytes + 1.5, compact_every=compact_every, marks=(float(megabytes), megabytes + 1.0))
    made = claude_session(folder / "made", shape)
    at, end = made.marks[float(megabytes)], made.marks[megabytes + 1.0]
    data = made.path.read_bytes()
    path = folder / "big.jsonl"
    path.write_bytes(data[:at])
    info = {"compactions": made.compactions, "rewinds": made.rewinds, "subagents": len(made.subagents)}
    shutil.rmtree(folder / "made")
    return path, data[at:end], info


def run(case: str, path: Path, arg: str, home: Path, setup=None, repeat: int = 3) -> dict:
    """Run one case ``repeat`` times, each in a fresh interpreter (after ``setup``); keep the fastest."""
    best = None
    for _ in range(repeat):
        if setup is not None:
            setup()
        env = {**os.environ, "AUTOPILOT_HOME": str(home)}
        start = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, case, str(path), arg], env=env, capture_output=True, text=True, check=True
        )
        result = json.loads(proc.stdout)
        result["process_seconds"] = time.perf_counter() - start
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    assert best is not None
    return best


def one_huge_line(path: Path) -> None:
    """A small transcript of real rows with a 20 MB tool result in the middle, its uuid mid-line."""
    rows = real_rows()
    huge = {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"tool_use_id": "toolu_huge", "type": "tool_result", "content": "HUGE"}],
        },
        "uuid": "99999999-0000-4000-8000-000000000000",
        "timestamp": "2026-11-30T12:00:00.000Z",
        "toolUseResult": {"stdout": "(the same 20 MB)", "stderr": ""},
    }
    head, tail = json.dumps(huge, separators=(",", ":")).encode().split(b"HUGE")
    with open(path, "wb") as out:
        out.write(b"\n".join(rows[: len(rows) // 2]) + b"\n")
        out.write(head)
        for _ in range(20):  # 20 MB written a megabyte at a time, so this process stays small
            out.write(b"L" * (1 << 20))
        out.write(tail + b"\n")
        out.write(b"\n".join(rows[len(rows) // 2 :]) + b"\n")


def _ratio(value: float, base: float) -> str:
    ratio = value / base
    return f"{ratio:.2f}x" if ratio >= 0.1 else f"1/{1 / ratio:.0f}"


def main(argv: list[str] | None = None) -> int:
    """Build the transcript, run every case, print the figures."""
    parser = argparse.ArgumentParser(description="Claude transcript intake benchmark")
    parser.add_argument("--mb", type=int, default=200, help="transcript size in MB (default 200)")
    parser.add_argument("--compact-every", type=float, default=10.0, help="MB between compactions (default 10)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary files")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-claude-intake-"))
    home = tmp / "home"
    try:
        t = time.perf_counter()
        path, tail, info = build(tmp, args.mb, args.compact_every)
        size = path.stat().st_size
        print(f"built {size / 1e6:.1f} MB of one session from the real rows ({info}) in {time.perf_counter() - t:.1f}s")
        run("naive", path, "-", home, repeat=1)  # warm the page cache so every case reads from memory
        naive = run("naive", path, "-", home)
        cache = home / "cache"
        first = run("intake", path, "-", home, setup=lambda: shutil.rmtree(cache, ignore_errors=True))
        later = run("intake", path, str(first["next"]), home)
        middle = run("intake", path, str(first["lines"] // 2), home)
        saved = path.stat().st_size

        def grow() -> None:  # back to the indexed size, index as it was, then append the session's next megabyte
            with open(path, "r+b") as fh:
                fh.truncate(saved)
            shutil.rmtree(cache, ignore_errors=True)
            run("intake", path, "-", home, repeat=1)
            with open(path, "ab") as fh:
                fh.write(tail)

        grown = run("intake", path, "-", home, setup=grow)
        # Whole processes, as a user or an agent waits for them: the naive parse against `codex-bridge handoff
        # intake` after a fresh +1 MB append (best of 3 each), and a cached intake of a small real session
        # against a bare interpreter (interleaved, medians).
        env = environment(home)
        naive_ms = best(naive_argv(path), env)
        cli_grown_ms = best(bridge("handoff", "intake", str(path)), env, setup=grow)
        small = interleaved({"bare": BARE, "intake": bridge("handoff", "intake", str(TINY))}, env, runs=20)
        walk = run("walk", path, "100", home, repeat=1)
        huge_path = tmp / "huge-line.jsonl"
        one_huge_line(huge_path)
        huge = run("intake", huge_path, "-", home, setup=lambda: shutil.rmtree(cache, ignore_errors=True))
        cases = [
            ("naive json.loads of every line", naive),
            ("first intake (no index)", first),
            ("next page (index reused)", later),
            ("page from the middle", middle),
            ("re-intake after +1 MB appended", grown),
        ]
        print(f"{'case':32} {'op s':>7} {'vs naive':>9} {'process s':>10} {'vs naive':>9} {'peak RSS MB':>12}")
        for label, r in cases:
            print(
                f"{label:32} {r['seconds']:7.3f} {_ratio(r['seconds'], naive['seconds']):>9} "
                f"{r['process_seconds']:10.3f} {_ratio(r['process_seconds'], naive['process_seconds']):>9} "
                f"{r['peak_rss_mb']:12.1f}"
            )
        print(
            f"(op s: the read inside the process; process s: a fresh interpreter, imports included; "
            f"best of 3; index states {first['index']}/{later['index']}/{grown['index']}, "
            f"+1 MB scanned {grown['scanned'] / 1e6:.2f} MB)"
        )
        print(
            f"whole processes: naive parse {naive_ms:.0f} ms; `codex-bridge handoff intake` after +1 MB "
            f"{cli_grown_ms:.1f} ms = {naive_ms / cli_grown_ms:.1f}x faster [target >= 20x]; a cached intake of a "
            f"{TINY.stat().st_size // 1000} kB session {small['intake']:.1f} ms against bare `python -I -c pass` "
            f"{small['bare']:.1f} ms = {small['intake'] / small['bare']:.2f}x [target <= 3.5x]"
        )
        print(
            f"walk newest->oldest, limit 100: {walk['pages']} pages, visited {walk['visited']} entries, "
            f"{walk['distinct']} distinct, index has {walk['entries']}, strictly newest first: "
            f"{walk['newest_first']}, {walk['seconds']:.1f}s, peak RSS {walk['peak_rss_mb']:.1f} MB"
        )
        print(
            f"one 20 MB line in {huge_path.stat().st_size / 1e6:.1f} MB: first intake {huge['seconds']:.3f}s, "
            f"oversize lines {huge['oversize']}, peak RSS {huge['peak_rss_mb']:.1f} MB"
        )
        print(
            json.dumps(
                {
                    "bytes": size,
                    "lines": naive["lines"],
                    "naive": naive,
                    "first": first,
                    "later": later,
                    "middle": middle,
                    "grown": grown,
                    "walk": walk,
                    "huge": huge,
                    "process_ms": {"naive": naive_ms, "cli_grown": cli_grown_ms, **small},
                }
            )
        )
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
