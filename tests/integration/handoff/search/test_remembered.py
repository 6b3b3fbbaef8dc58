"""A whole `handoff search` process reuses freshness's git answers: no git, no subprocess, until a file changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from autopilot.handoff.search import remembered
from tests.support.measured import unmeasured
from tests.support.search_project import export, headers_repo

PROBE = (
    "import sys, io, json, contextlib; from autopilot.cli import main\n"
    "out = io.StringIO()\n"
    "with contextlib.redirect_stdout(out):\n"
    "    rc = main(['-C', sys.argv[1], 'handoff', 'search', 'parse_header', '--json'])\n"
    "answer = json.loads(out.getvalue())\n"
    "print(json.dumps([rc, 'subprocess' in sys.modules, "
    "[(r['pointer']['ref'], r['freshness']['state'], r['freshness']['checked']) for r in answer['results']]]))"
)


def searched(repo) -> tuple[int, bool, list[list]]:
    """One search process in ``repo``: (exit code, whether it loaded subprocess, each result's ref, state, checks)."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo)], capture_output=True, text=True, check=True, env=unmeasured()
    )
    rc, forked, results = json.loads(proc.stdout.strip().splitlines()[-1])
    return rc, forked, results


def aged(repo) -> None:
    """The repository's files and git's index as a while after the session: older than the racy window."""
    subprocess.run(["git", "-C", str(repo), "update-index", "-q", "--refresh"], check=False)
    then = time.time() - 60
    for path in [*(repo / name for name in os.listdir(repo) if name != ".git"), repo / ".git" / "index"]:
        if path.is_file():
            os.utime(path, (then, then))
    time.sleep(remembered.RACY_S + 0.1)  # the ctimes the dating back just set age too


def test_a_repeated_search_asks_git_nothing_and_a_later_edit_is_still_seen(bridge, git_repo):
    """The second search process loads no subprocess and gives the same verdicts; after headers.py is edited (and
    dated back, as a tool restoring times would), the next one asks git again and calls Claude's edit changed."""
    repo = headers_repo(git_repo)
    export(bridge, "claude-fix", repo)
    aged(repo)
    rc, forked, first = searched(repo)
    assert rc == 0 and forked  # git was asked: nothing remembered yet
    assert any("files" in checked for _, _, checked in first) and {s for _, s, _ in first} == {"current"}
    rc, forked, second = searched(repo)
    assert (rc, forked, second) == (0, False, first)  # the same answer, without a git process
    (repo / "headers.py").write_text((repo / "headers.py").read_text() + "\n# edited later\n")
    aged(repo)
    rc, forked, third = searched(repo)
    assert rc == 0 and forked
    changed = {ref for ref, state, checked in third if "files" in checked and state == "changed"}
    assert changed and changed == {ref for ref, _, checked in first if "files" in checked}
