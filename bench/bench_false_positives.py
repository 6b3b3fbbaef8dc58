"""Redaction's false positives on ordinary code: placeholders per MB over the installed dependencies' sources.

Every file of the virtual environment's ``site-packages`` with a source suffix (``.py``, ``.pyi``,
``.js``, ``.json``, ``.toml``, ``.cfg``, ``.txt``, ``.md``) is passed through ``redact()`` as a review
would send it. Nothing there is a live credential (test fixtures and documentation examples aside), so
each placeholder is a false positive or a documented example: the figure is placeholders per MB by
kind, with a sample of what each kind hit, and the throughput, against the redactor of a baseline
commit loaded from git history in the same run (its figures on the same files).

Usage: .venv/bin/python bench/bench_false_positives.py [--site DIR] [--baseline COMMIT] [--samples N]
"""

from __future__ import annotations

import argparse
import json
import re
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
PLACEHOLDER = re.compile(r"\[REDACTED:(\w+)\]")

PROBE = r"""
import json, re, sys, time
from collections import Counter
sys.path.insert(0, sys.argv[1])
from autopilot.redact import redact
files = json.loads(sys.stdin.read())
counts, samples, size, spent = Counter(), {}, 0, 0.0
for path in files:
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        continue
    size += len(text)
    started = time.perf_counter()
    out, found = redact(text)
    spent += time.perf_counter() - started
    counts.update(found)
    if found:
        for m in re.finditer(r"\[REDACTED:(\w+)\]", out):
            kind = m.group(1)
            if len(samples.setdefault(kind, [])) < int(sys.argv[2]):
                line = out[out.rfind("\n", 0, m.start()) + 1 : out.find("\n", m.end()) % (len(out) + 1)]
                samples[kind].append([path.split("site-packages/")[-1], line.strip()[:160]])
print(json.dumps({"counts": counts, "samples": samples, "chars": size, "seconds": spent}))
"""


def sources(site: Path) -> list[str]:
    return sorted(str(p) for p in site.rglob("*") if p.suffix in SUFFIXES and p.is_file())


def measure(src: Path, files: list[str], samples: int) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(src), str(samples)],
        input=json.dumps(files),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout)


def baseline_src(commit: str, into: Path) -> Path | None:
    """The package at ``commit``, unpacked from git history (None in a clone without it)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", commit, "src/autopilot"], capture_output=True)
    if archive.returncode != 0:
        return None
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--site", type=Path, default=Path(sysconfig.get_paths()["purelib"]))
    parser.add_argument("--baseline", default="1aac137", help="commit whose redactor is the baseline")
    parser.add_argument("--samples", type=int, default=3, help="hits shown per kind")
    args = parser.parse_args()
    files = sources(args.site)
    with tempfile.TemporaryDirectory(prefix="bench-fp-") as tmp:
        base_src = baseline_src(args.baseline, Path(tmp))
        log = Path(tmp) / "git-log-p.txt"  # this repository's history: dense in secret-like test strings
        log.write_text(
            subprocess.run(
                ["git", "-C", str(REPO), "log", "-p", "--no-color", "-n", "200"],
                capture_output=True,
                text=True,
                errors="replace",
            ).stdout[: 2 << 20]
        )
        started = time.perf_counter()
        now = measure(REPO / "src", files, args.samples)
        before = measure(base_src, files, args.samples) if base_src else None
        speeds = []
        for _ in range(3):  # interleaved, so both see the same machine load
            speeds.append([measure(src, [str(log)], 0) for src in (REPO / "src", base_src) if src])
    mb = now["chars"] / 1e6
    print(f"## False positives: `redact()` over {len(files):,} files, {mb:.1f} MB of {args.site.name}\n")
    print("| redactor | placeholders | per MB | MB/s |")
    print("|---|---:|---:|---:|")
    for label, r in (("now", now), (f"baseline ({args.baseline})", before)):
        if r:
            total = sum(r["counts"].values())
            print(f"| {label} | {total:,} | {total / mb:.1f} | {r['chars'] / 1e6 / r['seconds']:.2f} |")
    print("\n| kind | now | baseline | a sample of what it hit |")
    print("|---|---:|---:|---|")
    kinds = sorted(now["counts"], key=lambda k: -now["counts"][k])
    for kind in kinds:
        hit = "; ".join(
            f"`{line.replace('|', '¦')[:90]}` ({path.split('/')[0]})" for path, line in now["samples"][kind]
        )
        base = before["counts"].get(kind, 0) if before else "-"
        print(f"| {kind} | {now['counts'][kind]} | {base} | {hit} |")
    if base_src:
        ratios = sorted(b["chars"] / b["seconds"] / (n["chars"] / n["seconds"]) for n, b in speeds)
        mbs = sorted(n["chars"] / 1e6 / n["seconds"] for n, _ in speeds)
        print(
            f"\n`redact()` on {speeds[0][0]['chars'] / 1e6:.1f} MB of `git log -p`, 3 interleaved runs: "
            f"{mbs[1]:.2f} MB/s now (median), {ratios[1]:.2f}x the baseline's time (median; "
            f"{ratios[0]:.2f}-{ratios[-1]:.2f})"
        )
    print(f"\n(measured in {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
