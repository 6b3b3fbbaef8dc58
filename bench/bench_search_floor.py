"""Where the floor of a whole ``handoff search`` process is, over a ``bench_search.py --keep`` history.

Usage: ``.venv/bin/python bench/bench_search_floor.py --home DIR [--rounds 15] [--query parse_header_3254]``

Runs, interleaved round after round (every one sees the same load), each as a whole ``python -I -S`` process with
this checkout's ``src`` and this venv's site-packages on ``sys.path``, as the plugin's launcher starts the bridge
(bench/wholeprocess.py's ``plugin_argv``):

- ``bare``: ``-c pass``, the interpreter alone;
- ``floor``: the interpreter, the C modules no search can do without (``_sqlite3``, PyStemmer, ``_json``), the index
  opened and the query's own SQL (the FTS5 match ranked by bm25, the best 100 read whole and their data parsed):
  what any Python search of this index pays, with none of the package's code;
- ``imports``: the modules ``handoff search`` loads, and nothing run;
- ``search``: ``handoff search QUERY --json`` itself.

Prints the median CPU time (user + system) and wall time of each (bench/wholeprocess.py's ``measure``: GNU time's
~1 ms is in every row alike), and each one's share above the one before.
Asserts nothing (benchmarks are not tests).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from wholeprocess import SITE_PACKAGES, measure, plugin_argv  # bench/ is on the path

REPO = Path(__file__).resolve().parents[1]
FLOOR = """
import _sqlite3, Stemmer, _json, sys
stem = Stemmer.Stemmer("english").stemWord
scan = _json.make_scanner(type("C", (), {"strict": True, "object_hook": None, "object_pairs_hook": None,
    "parse_float": float, "parse_int": int, "parse_constant": float, "memo": {}})())
db = _sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA user_version").fetchone()
word = sys.argv[2].lower()
best = db.execute(
    "SELECT d.id, bm25(docs_fts, 1.0, 2.0, 2.0) AS r FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid "
    "WHERE docs_fts MATCH ? ORDER BY r LIMIT 100", ['"' + word + '"']).fetchall()
ids = [i for i, _ in best]
rows = db.execute(f"SELECT id, text, data FROM docs WHERE id IN ({','.join('?' * len(ids))})", ids).fetchall()
print(len(rows), sum(len(scan(r[2], 0)[0]) for r in rows if r[2]))
"""
IMPORTS = (
    "import autopilot.cli, autopilot.commands.handoff.search, autopilot.handoff.search.retrieval, "
    "autopilot.knowledge.durable.feed, autopilot.output"
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, required=True, help="a bench_search.py --keep folder")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--query", default="parse_header_3254")
    args = parser.parse_args()
    src = REPO / "src"
    lean = [sys.executable, "-I", "-S", "-c"]
    path = f"import sys; sys.path.insert(0, {str(src)!r}); sys.path.append({SITE_PACKAGES!r})\n"
    env = {
        **os.environ,
        **{var: str(args.home / sub) for var, sub in (("AUTOPILOT_HOME", "autopilot"), ("CODEX_HOME", "codex"))},
        **{var: str(args.home / sub) for var, sub in (("CLAUDE_CONFIG_DIR", "claude"), ("HOME", "home"))},
    }
    index = str(args.home / "autopilot" / "handoff" / "index" / "evidence.sqlite3")
    runs = {
        "bare": [*lean, "pass"],
        "floor": [*lean, path + FLOOR, index, args.query],
        "imports": [*lean, path + IMPORTS],
        "search": plugin_argv(src, "handoff", "search", args.query, "--json"),
    }
    cwd = args.home / "repo"
    for name, argv in runs.items():  # warm the page cache and the bytecode; a failure is shown, not timed
        proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True)
        if proc.returncode != 0:
            raise SystemExit(f"{name} failed: {proc.stderr.decode()[-500:]}")
    cpu: dict[str, list[float]] = {k: [] for k in runs}
    wall: dict[str, list[float]] = {k: [] for k in runs}
    os.chdir(cwd)  # the search's project
    for _ in range(args.rounds):
        for name, argv in runs.items():
            one = measure(argv, env)
            wall[name].append(one["wall_ms"])
            cpu[name].append(one["cpu_ms"])
    print(f"load average {os.getloadavg()[0]:.2f} (2 cores); {args.rounds} rounds; query {args.query!r}")
    print(f"{'process':10} {'CPU ms':>8} {'wall ms':>8}")
    for name in runs:
        print(f"{name:10} {statistics.median(cpu[name]):8.1f} {statistics.median(wall[name]):8.1f}")
    bare, floor = statistics.median(cpu["bare"]), statistics.median(cpu["floor"])
    imports, search = statistics.median(cpu["imports"]), statistics.median(cpu["search"])
    print(
        f"CPU: interpreter {bare:.1f}; the C modules, the open and the query's SQL {floor - bare:.1f}; "
        f"the package's imports {imports - bare:.1f}; the search after its imports {search - imports:.1f} "
        f"(the goal is 35 ms; the floor is {floor:.1f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
