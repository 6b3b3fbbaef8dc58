"""Retrieval quality: the labelled benchmark (56 sessions, 209 queries), the engine against grep and plain bm25.

Usage: .venv/bin/python bench/eval_retrieval.py [--keep DIR] [--misses] [--fusion sum|rrf] [--ranked FILE]

Runs :mod:`tests.support.retrieval_bench` in a scratch home (nothing of yours is read or written) and
prints the figures per query kind as a Markdown table; ``--misses`` also lists, per query the
engine missed, what each method ranked first; ``--ranked FILE`` writes the engine's ranked labels for every
query (JSON: query id -> each result's labels, in rank order), so two trees' answers can be compared entry by entry
(``cmp A B``: a speed change must leave them identical). The same benchmark runs in the test suite
(``tests/integration/test_retrieval_quality.py``), where its thresholds are asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "src")]

from tests.support import retrieval_bench as bench  # noqa: E402
from tests.support.bridge import run_bridge  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="build in this directory and leave it (default: a temp dir)")
    parser.add_argument("--misses", action="store_true", help="list the queries the engine missed")
    parser.add_argument(
        "--fusion", choices=("sum", "rrf"), default="sum", help="fuse the field scores by their sum or by rank (RRF)"
    )
    parser.add_argument("--ranked", type=Path, metavar="FILE", help="write the engine's ranked labels per query (JSON)")
    args = parser.parse_args(argv)
    from autopilot.handoff.search import retrieval

    retrieval.FUSION = args.fusion == "rrf"
    root = args.keep or Path(tempfile.mkdtemp(prefix="eval-retrieval-"))
    root.mkdir(parents=True, exist_ok=True)
    for var, sub in (
        ("AUTOPILOT_HOME", "autopilot"),
        ("CODEX_HOME", "codex"),
        ("CLAUDE_CONFIG_DIR", "claude"),
        ("HOME", "home"),
    ):
        (root / sub).mkdir(exist_ok=True)
        os.environ[var] = str(root / sub)
    started = time.perf_counter()
    work = bench.work_root()
    try:
        installed, scored = bench.run(work, run_bridge)
        figures = bench.summary(scored)
        print(bench.table(figures))
        print(
            f"\n({len(installed.manifest['sessions'])} sessions, {installed.exported} packets, "
            f"{len({s.query['id'] for s in scored})} queries; {time.perf_counter() - started:.0f} s)"
        )
        if args.ranked:
            ranked = {f"{s.query['id']} {s.query['query']}": s.found for s in scored if s.method == "engine"}
            args.ranked.write_text(json.dumps(ranked, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            print(f"(the engine's ranked labels of {len(ranked)} queries are in {args.ranked})")
        if args.keep:
            print(f"(the project is in {work})")
        if args.misses:
            for s in scored:
                if (
                    s.method != "engine"
                    or (s.query["relevant"] and s.recall5 >= 1)
                    or (not s.query["relevant"] and s.empty)
                ):
                    continue
                print(f"\n{s.query['id']} {s.query['query']!r} wants {s.query['relevant']}")
                for other in scored:
                    if other.query is s.query:
                        print(f"  {other.method:6} R@5 {other.recall5:.2f}  first: {other.found[:5]}")
                print(f"  notes: {s.extra.get('notes')}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
