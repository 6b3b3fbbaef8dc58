"""loop/snapshot.py writes the work tree as a tree object that sees every edit, through a private copy of the index."""

from __future__ import annotations

import time
from pathlib import Path

from autopilot.loop import snapshot
from tests.support.handoff_env import git


def racy_edits(root: Path) -> dict[Path, str | None]:
    """Repositories (one without a snapshot cache, one with) whose deploy.sh was added, then rewritten at the same size
    within the same second; retried from the start of another second when a busy machine makes the setup overrun."""
    for attempt in range(5):
        repos = {root / f"plain{attempt}": None, root / f"cached{attempt}": str(root / f"cache{attempt}" / "index")}
        for repo in repos:
            git(root, "init", "-q", str(repo))
        while time.time() % 1 > 0.3:  # the start of a second: what follows fits in it
            time.sleep(0.05)
        second = int(time.time())
        for repo, cache in repos.items():
            (repo / "deploy.sh").write_text("APP=web\n")
            git(repo, "add", "deploy.sh")
            if cache:
                snapshot.work_tree(str(repo), cache)
            (repo / "deploy.sh").write_text("APP=api\n")  # the same size, in the same second
        if int(time.time()) == second:
            time.sleep(second + 1.05 - time.time())  # the snapshots come a second later
            return repos
    raise AssertionError("five setups each took longer than a second")


def test_an_edit_of_the_same_size_within_the_indexs_second_is_seen(tmp_path):
    """A file rewritten at the same size in the second its index entry was written is hashed again (git calls it
    "racy"): a snapshot taken a second later still sees the edit, from the user's index or from its cache."""
    for repo, cache in racy_edits(tmp_path).items():
        tree = snapshot.work_tree(str(repo), cache)
        assert git(repo, "ls-tree", tree, "deploy.sh").split()[2] == git(repo, "hash-object", "deploy.sh").strip()
