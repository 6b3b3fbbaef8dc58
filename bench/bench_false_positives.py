"""Redaction's false positives on ordinary text, per MB and per kind, and its throughput, against a baseline.

Three sources where nothing is a live credential: every source file of the virtual environment's ``site-packages``
(``.py``, ``.pyi``, ``.js``, ``.json``, ``.toml``, ``.cfg``, ``.txt``, ``.md``), this repository's own history
(``git log -p`` of the baseline commit: dense in the tests' fake credentials) and the transcript fixtures (the real
clients' sessions and rollouts in ``tests/fixtures``). Each file goes through ``redact()`` as a review would send it;
each placeholder is a false positive or a documented example. The redactor of a baseline commit, loaded from git
history, runs on the same files in the same run, interleaved, each in its own process; speed is CPU time of
``redact()`` alone (``time.process_time``: a busy machine's waiting does not count).

Prints, per source and redactor: placeholders, per MB, by kind, and MB/s; the ratio of CPU time (new / baseline, the
median of ``--rounds`` interleaved rounds); with ``--hits FILE``, every placeholder (source, file, kind, the line as
written) of both redactors as JSON lines, to read what each kind hit.

Usage: .venv/bin/python bench/bench_false_positives.py [--baseline COMMIT] [--rounds N] [--hits FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUFFIXES = {".py", ".pyi", ".js", ".json", ".toml", ".cfg", ".txt", ".md"}
FIXTURE_SUFFIXES = {".jsonl", ".json", ".py", ".txt", ".md"}

PROBE = r"""
import json, re, sys, time
from collections import Counter
sys.path.insert(0, sys.argv[1])
from autopilot.redact import redact
files, hits = json.loads(sys.stdin.read()), sys.argv[2] == "hits"
counts, found, size, spent = Counter(), [], 0, 0.0
placeholder = re.compile(r"\[REDACTED:(\w+)\]")
for path in files:
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        continue
    size += len(text)
    started = time.process_time()
    out, kinds = redact(text)
    spent += time.process_time() - started
    counts.update(kinds)
    if hits and kinds:
        before, after = text.split("\n"), out.split("\n")
        pairs = zip(before, after) if len(before) == len(after) else ((None, line) for line in after)
        for old, new in pairs:
            for m in placeholder.finditer(new):
                found.append([path, m.group(1), (old if old is not None else new).strip()[:240]])
print(json.dumps({"counts": counts, "chars": size, "seconds": spent, "hits": found}))
"""


def site_files(site: Path) -> list[str]:
    return sorted(str(p) for p in site.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def fixture_files() -> list[str]:
    root = REPO / "tests" / "fixtures"
    return sorted(str(p) for p in root.rglob("*") if p.is_file() and p.suffix in FIXTURE_SUFFIXES)


def git_log(commit: str, into: Path) -> list[str]:
    """``git log -p`` of ``commit``, in files of about 1 MB cut at line ends (as a long diff would be sent)."""
    log = subprocess.run(
        ["git", "-C", str(REPO), "log", "-p", "--no-color", commit], capture_output=True, text=True, errors="replace"
    ).stdout
    paths, start, n = [], 0, 0
    while start < len(log):
        end = log.find("\n", start + (1 << 20))
        end = len(log) if end < 0 else end + 1
        path = into / f"git-log-{n:03d}.txt"
        path.write_text(log[start:end], encoding="utf-8")
        paths.append(str(path))
        start, n = end, n + 1
    return paths


def measure(src: Path, files: list[str], hits: bool) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(src), "hits" if hits else "-"],
        input=json.dumps(files),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout)


def baseline_src(commit: str, into: Path) -> Path:
    """The package at ``commit``, unpacked from git history."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "src/autopilot"], capture_output=True, check=True
    )
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--baseline", default="main", help="commit whose redactor is the baseline (default: main)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds for the speed ratio (default 3)")
    parser.add_argument("--hits", type=Path, help="write every placeholder of both redactors here (JSON lines)")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-fp-") as tmp:
        base_src = baseline_src(args.baseline, Path(tmp) / "base")
        new_src = Path(tmp) / "new" / "src"  # a copy: edits made while the bench runs do not reach it
        shutil.copytree(REPO / "src" / "autopilot", new_src / "autopilot", ignore=shutil.ignore_patterns("__pycache__"))
        (Path(tmp) / "log").mkdir()
        sources = {
            "site-packages": site_files(args.site),
            "git log -p": git_log(args.baseline, Path(tmp) / "log"),
            "transcript fixtures": fixture_files(),
        }
        sides = {"new": new_src, "baseline": base_src}
        results: dict[str, dict[str, list[dict]]] = {name: {side: [] for side in sides} for name in sources}
        for round_ in range(args.rounds):
            for name, files in sources.items():
                order = list(sides.items()) if round_ % 2 == 0 else list(reversed(sides.items()))
                for side, src in order:
                    results[name][side].append(measure(src, files, hits=round_ == 0 and args.hits is not None))
        if args.hits:
            with args.hits.open("w", encoding="utf-8") as fh:
                for name in sources:
                    for side in sides:
                        for path, kind, line in results[name][side][0]["hits"]:
                            short = path.split("site-packages/")[-1].split("/fixtures/")[-1].split(tmp)[-1]
                            fh.write(json.dumps([side, name, short, kind, line]) + "\n")
    print(f"## `redact()` over ordinary text: false positives and speed, against {args.baseline}\n")
    print("| source | MB | redactor | placeholders | per MB | MB/s (CPU) | time, new / baseline |")
    print("|---|---:|---|---:|---:|---:|---:|")
    total = {side: 0 for side in sides}
    total_mb = 0.0
    for name in sources:
        first = results[name]["new"][0]
        mb = first["chars"] / 1e6
        total_mb += mb
        pairs = zip(results[name]["new"], results[name]["baseline"], strict=True)
        ratios = [n["seconds"] / b["seconds"] for n, b in pairs]
        for side in sides:
            runs = results[name][side]
            spans = sum(runs[0]["counts"].values())
            total[side] += spans
            speed = statistics.median(mb / r["seconds"] for r in runs)
            ratio = f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f})" if side == "new" else ""
            print(f"| {name} | {mb:.1f} | {side} | {spans:,} | {spans / mb:.2f} | {speed:.2f} | {ratio} |")
    for side in sides:
        print(f"| all | {total_mb:.1f} | {side} | {total[side]:,} | {total[side] / total_mb:.2f} | | |")
    for name in sources:
        new, base = results[name]["new"][0]["counts"], results[name]["baseline"][0]["counts"]
        mb = results[name]["new"][0]["chars"] / 1e6
        kinds = sorted(set(new) | set(base), key=lambda k: -(new.get(k, 0) + base.get(k, 0)))
        listed = ", ".join(f"{kind} {new.get(kind, 0)} / {base.get(kind, 0)}" for kind in kinds)
        print(f"\n{name} ({mb:.1f} MB), placeholders by kind, new / baseline: {listed or 'none'}")
    print(f"\n(measured in {time.perf_counter() - started:.0f} s; {args.rounds} rounds)")


if __name__ == "__main__":
    main()
