"""`handoff search` as the plugin runs it (`python -I -S`): the lean path loads no `re`, `pathlib` or sqlite3 package,
and answers exactly what the in-process search answers."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig

import pytest

from tests.support.measured import unmeasured
from tests.support.repo import REPO
from tests.support.search_project import export, headers_repo

# What a search no longer loads (each measured with -X importtime on the 10,000-packet bench, docs/BENCHMARKS.md):
# re with enum (~7 ms: the tokenizer's patterns are kept _sre programs), pathlib with urllib.parse, ipaddress,
# fnmatch and warnings (~4.5 ms: the search's paths are strings), the sqlite3 package with datetime (~2.5 ms: its C
# module is used), contextlib, contextvars' wrapper, the json package, typing, argparse, and unicodedata (an ASCII
# query's words need no accents removed).
NOT_LOADED = (
    "re",
    "enum",
    "pathlib",
    "urllib.parse",
    "ipaddress",
    "fnmatch",
    "warnings",
    "sqlite3",
    "datetime",
    "contextlib",
    "contextvars",
    "json",
    "typing",
    "argparse",
    "unicodedata",
)
LAUNCH = (
    "import sys; sys.path[:0] = [sys.argv.pop(1), sys.argv.pop(1)]\n"
    "from autopilot.cli import main\n"
    "import io, os\n"
    "out = io.StringIO(); real, sys.stdout = sys.stdout, out\n"
    "rc = main(sys.argv[1:])\n"
    "sys.stdout = real\n"
    f"print(rc, [m for m in {NOT_LOADED!r} if m in sys.modules])\n"
    "print(out.getvalue(), end='')\n"
)


@pytest.fixture
def project(bridge, git_repo):
    """The headers repository with Claude's fix session exported."""
    repo = headers_repo(git_repo)
    export(bridge, "claude-fix", repo)
    return repo


def lean_search(repo, *args: str) -> tuple[str, str]:
    """``handoff search ARGS --json`` in a ``python -I -S`` process: (what it loaded of NOT_LOADED, its stdout)."""
    site = sysconfig.get_paths()["purelib"]
    argv = [sys.executable, "-I", "-S", "-c", LAUNCH, str(REPO / "src"), site, "-C", str(repo), "handoff", "search"]
    proc = subprocess.run([*argv, *args, "--json"], capture_output=True, text=True, env=unmeasured(), check=False)
    head, _, answer = proc.stdout.partition("\n")
    assert head.split(" ", 1)[0] == "0", proc.stderr
    return head.split(" ", 1)[1], answer


@pytest.mark.parametrize("query", ["parse_header", "ValueError: not enough values to unpack", "src/x.py", '"a b" c'])
def test_a_search_process_loads_only_the_lean_path(git_repo, query):
    """The second search (the first builds the index and keeps the tokenizer's compiled programs, as a user's first
    search does) tokenizes the query, opens and reads the index, the active memory and the approved rules, and
    answers, loading none of NOT_LOADED. (A result whose freshness git must be asked about loads subprocess, and
    with it some of them: that is the git process's cost, tests/integration/test_hot_path.py.)"""
    lean_search(git_repo, query)
    loaded, answer = lean_search(git_repo, query)
    assert loaded == "[]"
    assert json.loads(answer)["query"] == query


@pytest.mark.parametrize("query", ["parse_header", "ValueError: not enough values to unpack", "headers.py"])
def test_a_lean_search_answers_what_the_search_answers(bridge, project, query):
    """With packets to find, the lean process's answer is the in-process search's (every module loaded), byte for
    byte but for ``now``, the moment each was asked (a second apart when a clock tick falls between them)."""
    _, answer = lean_search(project, query)
    code, full, err = bridge("-C", str(project), "handoff", "search", query, "--json")
    assert code == 0, err
    asked = '  "now": '  # the answer's own line for the moment (--json prints one key a line at the top)
    assert [x for x in answer.splitlines() if not x.startswith(asked)] == [
        x for x in full.splitlines() if not x.startswith(asked)
    ]
    assert len(answer.splitlines()) == len(full.splitlines()) and json.loads(answer)["results"]


def test_an_archived_search_still_reads_the_archive(bridge, project):
    """`--archived` (the archive's folders, set for the search and put back after it) answers from the archive only:
    nothing there yet, then the pruned packet."""
    _, before = lean_search(project, "parse_header", "--archived")
    assert json.loads(before)["results"] == [] and json.loads(before)["archived"] is True
    code, _, err = bridge("handoff", "prune", "--older-than", "0", "--json", cwd=project)
    assert code == 0, err
    _, after = lean_search(project, "parse_header", "--archived")
    assert json.loads(after)["results"] and json.loads(after)["index"]["path"].endswith(
        "archive/index/evidence.sqlite3"
    )
    _, live = lean_search(project, "parse_header")
    assert json.loads(live)["results"] == []  # moved: the live index no longer holds it
