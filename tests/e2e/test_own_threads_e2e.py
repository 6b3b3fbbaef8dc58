"""After a run with the codex-cli backend, the bridge's own Codex threads are no one's session to hand over.

The real codex (npm, pinned) plans, reviews and judges against the scripted server, with the Codex side set up and
its memory hooks trusted, as the README's setup leaves them; a thread the person started themselves stays listed.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from autopilot.dashboard.api import Api
from autopilot.handoff.memory.store import active_root
from autopilot.loop.threads import own_threads
from autopilot.scripted.responses_server import reply_json, reply_text
from tests.support.agents import agent_bin
from tests.support.loop import APPROVE, PLAN, continue_to

pytestmark = pytest.mark.e2e


def listed(bridge, repo, *extra: str) -> dict:
    code, out, err = bridge("-C", str(repo), "handoff", "list", "--from", "codex", *extra)
    assert code == 0, err
    return json.loads(out)


def test_the_bridges_own_threads_are_hidden_from_listing_dashboard_search_and_memory(codex_server, git_repo, bridge):
    """One plan, review and verdict through the real codex: `handoff list --from codex` (app server and local), the
    dashboard's Handover view, search and the active memory show none of the reviewer's threads, and the listing
    says how many it hid; the person's own `codex exec` thread is still listed."""
    assert bridge("setup", "--trust")[0] == 0  # memory hooks installed and trusted, as after the README's setup
    codex_server.push(reply_json(PLAN))
    assert bridge("-C", str(git_repo), "plan", "--goal", "Add a feature")[0] == 0
    (git_repo / "feature.py").write_text("def feature():\n    return 42\n")
    codex_server.push(reply_json(APPROVE))
    assert bridge("-C", str(git_repo), "review")[0] == 0
    codex_server.push(reply_json(continue_to("T2")))
    assert bridge("-C", str(git_repo), "verdict")[0] == 0
    ours = own_threads()
    assert ours
    codex_server.push(reply_text("Hello from the person's own session."))
    mine = subprocess.run(
        [str(agent_bin("codex")), "exec", "--json", "--skip-git-repo-check", "-C", str(git_repo), "-"],
        input="say hello",
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ,
    )
    assert mine.returncode == 0, mine.stderr
    person = json.loads(mine.stdout.splitlines()[0])["thread_id"]
    for answer in (listed(bridge, git_repo), listed(bridge, git_repo, "--source", "local")):
        threads = [row["threadId"] for row in answer["sessions"] + answer["otherWorktrees"]]
        assert threads == [person], answer.get("sourceUsed")
        assert answer["hidden"]["count"] == len(ours) and "reviewer" in answer["hidden"]["why"]
    board = Api(str(git_repo)).sources("codex")
    assert [row["threadId"] for row in board["sessions"]] == [person] and board["hidden"]["count"] == len(ours)
    code, out, _ = bridge("-C", str(git_repo), "handoff", "search", "--json", "feature")
    assert code == 0 and not any(thread in out for thread in ours)
    recorded = {p.name for p in active_root().rglob("*") if p.is_dir()}
    assert not recorded & ours
