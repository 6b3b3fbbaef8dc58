"""Where a re-read's floor is: the parts of a whole `from-codex intake` / `intake` process, each as its own process.

Usage::

    .venv/bin/python bench/bench_intake_floor.py AGENT FILE APPENDED [--rounds 15]

AGENT is ``claude`` or ``codex``; FILE a session whose index is in place (a page was read of it); APPENDED a file
holding the bytes last appended to it (a re-read's new bytes). Interleaved rounds, CPU (user + system, ``os.wait4``)
medians, of processes run as the plugin runs the bridge (``python -I -S``, bench/wholeprocess.py):

- ``naive``: ``json.loads`` of every line of FILE (what a re-read is compared with; 20x faster is this / 20);
- ``bare -I -S``: the interpreter alone;
- ``imports``: the interpreter and the modules a page of AGENT loads (reader, fold, redactor, printer), nothing run;
- ``lean parse``: the interpreter, orjson imported lean (``fastjson.lean_orjson``) and every line of APPENDED parsed:
  the least any process that parses the new bytes can cost;
- ``json parse``: the naive process over APPENDED alone (the bench_intake_scaling floor);
- ``cached page``: the bridge's page of FILE with nothing new (what every read of it costs at least).

A re-read after an append costs at least the cached page; the ratio naive / part bounds what each part allows.
Prints figures; asserts nothing; the page's index is kept in a temporary home, deleted at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from wholeprocess import NAIVE, REPO, SITE_PACKAGES, measure, plugin_argv  # bench/ is on the path

COMMAND = {"claude": ["handoff", "intake"], "codex": ["handoff", "from-codex", "intake"]}
MODULES = {  # what a page of each agent loads of the package before it reads (python -X importtime of a page)
    "claude": "autopilot.commands.handoff.intake autopilot.handoff.transcripts.claude_intake",
    "codex": "autopilot.commands.handoff.codex autopilot.handoff.transcripts.codex_intake",
}
REDACTOR = "autopilot.redact.bare autopilot.redact.decode autopilot.redact.tokens autopilot.redact.material"
LEAN_PARSE = """
from autopilot.fastjson import lean_orjson
loads = lean_orjson().loads
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        loads(line)
"""


def cases(agent: str, path: Path, appended: Path) -> dict[str, list[str]]:
    src = str(REPO / "src")
    python = sys.executable
    head = f"import sys; sys.path.insert(0, {src!r}); sys.path.append({SITE_PACKAGES!r})\n"
    imports = " ".join(["autopilot.cli", *MODULES[agent].split(), "autopilot.output", *REDACTOR.split()])
    return {
        "naive": [python, "-c", NAIVE, str(path)],
        "bare -I -S": [python, "-I", "-S", "-c", "pass"],
        "imports": [python, "-I", "-S", "-c", head + "import " + ", ".join(imports.split())],
        "lean parse": [python, "-I", "-S", "-c", head + LEAN_PARSE, str(appended)],
        "json parse": [python, "-c", NAIVE, str(appended)],
        "cached page": plugin_argv(src, *COMMAND[agent], str(path)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agent", choices=sorted(COMMAND))
    parser.add_argument("file", type=Path)
    parser.add_argument("appended", type=Path)
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    args = parser.parse_args(argv)
    home = tempfile.mkdtemp(prefix="bench-intake-floor-")  # the page's index lives here, deleted at the end
    env = {**os.environ, "AUTOPILOT_HOME": home}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    runs = cases(args.agent, args.file, args.appended)
    samples: dict[str, list[float]] = {name: [] for name in runs}
    try:
        for argv_ in runs.values():  # one warm round (bytecode, the page's index and kept patterns in place)
            measure(argv_, env)
        for _ in range(args.rounds):
            for name, argv_ in runs.items():
                samples[name].append(measure(argv_, env)["cpu_ms"])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    naive = statistics.median(samples["naive"])
    print(f"{args.agent} {args.file.stat().st_size / (1 << 20):.0f} MB, appended {args.appended.stat().st_size} bytes")
    print(f"| part | CPU ms (median of {args.rounds}) | naive / part |")
    print("|---|---:|---:|")
    for name, values in samples.items():
        cpu = statistics.median(values)
        print(f"| {name} | {cpu:.1f} | {naive / cpu:.1f}x |")
    print(f"(20x naive is {naive / 20:.1f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
