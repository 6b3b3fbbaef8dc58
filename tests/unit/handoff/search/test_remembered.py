"""Freshness's git answers remembered between searches: reused while nothing they depend on changed, never after."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time

import pytest

from autopilot import git
from autopilot.handoff.search import freshness, index, remembered

OLD = 60.0  # seconds back: older than remembered.RACY_S


def settle(*paths) -> None:
    """Date files back past the racy window, as files written a while ago are (each a second apart: distinct)."""
    for n, path in enumerate(paths):
        then = time.time() - OLD - n
        os.utime(path, (then, then))


def commit(repo, name: str, text: str) -> str:
    (repo / name).write_text(text)
    subprocess.run(["git", "-C", str(repo), "add", name], check=True)
    who = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", *who, "-C", str(repo), "commit", "-q", "-m", name], check=True)
    return subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def refresh(repo) -> None:
    """Let git record the files' new times in its index (as any git status does), then date the index back."""
    subprocess.run(["git", "-C", str(repo), "update-index", "-q", "--refresh"], check=False)
    settle(repo / ".git" / "index")


@pytest.fixture
def repo(git_repo, monkeypatch):
    """The repository with a.py committed, it and git's index dated back: (repo, the commit). The racy window is
    shortened to keep the tests quick (test_a_file_written_just_now_is_not_remembered keeps the real one)."""
    monkeypatch.setattr(remembered, "RACY_S", 0.3)
    head = commit(git_repo, "a.py", "x = 1\n")
    settle(git_repo / "a.py")
    refresh(git_repo)
    # ctime cannot be dated back: wait out the racy window once, for every test of this module
    time.sleep(max(0.0, remembered.RACY_S - (time.time() - os.stat(git_repo / "a.py").st_ctime)) + 0.05)
    return git_repo, head


@pytest.fixture
def git_calls(monkeypatch):
    """Every git command freshness runs (git still runs: this only counts)."""
    calls: list[tuple[str, ...]] = []
    real = git.run_git

    def counted(repo, *args, **kwargs):
        calls.append(args)
        return real(repo, *args, **kwargs)

    monkeypatch.setattr(git, "run_git", counted)
    return calls


def result(repo, head: str, files: list[str], dirty: dict[str, str] | None = None) -> dict:
    """A search result as freshness sees it: its files, the worktree and the commit its session saw."""
    return {"_data": {"files": files, "worktree": str(repo), "git": {"head": head, "dirty": dirty or {}}}}


def annotate(*results) -> list[dict]:
    with sqlite3.connect(":memory:") as db:
        freshness.annotate(list(results), db)
    return [r["freshness"]["state"] for r in results]


def test_a_second_search_asks_git_nothing_while_the_files_are_unchanged(repo, git_calls):
    """The first search asks git; the next one reuses its answer (no git process), with the same verdict."""
    worktree, head = repo
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    assert [c[0] for c in git_calls] == ["diff"]
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    assert [c[0] for c in git_calls] == ["diff"]
    assert os.path.exists(os.path.join(index.index_dir(), remembered.FILE))


def test_a_file_changed_since_is_asked_again_and_found_changed(repo, git_calls):
    """A remembered "as committed" never hides a later edit, even one dated back into the past."""
    worktree, head = repo
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    (worktree / "a.py").write_text("x = 2\n")
    settle(worktree / "a.py")  # dated back: only its size, ctime and inode tell
    time.sleep(remembered.RACY_S + 0.05)
    assert annotate(result(worktree, head, ["a.py"])) == ["changed"]
    assert [c[0] for c in git_calls] == ["diff", "diff"]


def test_same_size_same_mtime_rewrite_is_still_caught(repo):
    """An edit that keeps the size and the mtime (a tool restoring times) changes the ctime: asked again."""
    worktree, head = repo
    before = remembered.signature(str(worktree), ["a.py"])
    st = os.stat(worktree / "a.py")
    (worktree / "a.py").write_text("x = 3\n")
    os.utime(worktree / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    assert remembered.signature(str(worktree), ["a.py"]) != before


def test_a_file_written_just_now_is_not_remembered(git_repo, git_calls):
    """Within the racy window git is asked every time: a write in the same tick could leave the times unchanged."""
    head = commit(git_repo, "a.py", "x = 1\n")
    assert remembered.signature(str(git_repo), ["a.py"]) is None
    annotate(result(git_repo, head, ["a.py"]))
    annotate(result(git_repo, head, ["a.py"]))
    assert [c[0] for c in git_calls] == ["diff", "diff"]


def test_a_change_to_gits_index_asks_again(repo, git_calls):
    """`git rm --cached` changes what `git diff <commit>` says with no file touched: the index is part of the key."""
    worktree, head = repo
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    subprocess.run(["git", "-C", str(worktree), "rm", "-q", "--cached", "a.py"], check=True)
    refresh(worktree)
    time.sleep(remembered.RACY_S + 0.05)
    assert annotate(result(worktree, head, ["a.py"])) == ["changed"]
    assert [c[0] for c in git_calls] == ["diff", "diff"]


def test_dirty_files_hashes_are_remembered_and_checked(repo, git_calls):
    """A file dirty when the session ended is compared by content: hashed once, then reused until it changes."""
    worktree, head = repo
    (worktree / "a.py").write_text("x = 9\n")
    settle(worktree / "a.py")
    refresh(worktree)
    time.sleep(remembered.RACY_S + 0.05)
    blob = subprocess.run(
        ["git", "-C", str(worktree), "hash-object", "a.py"], capture_output=True, text=True
    ).stdout.strip()
    same = result(worktree, head, ["a.py"], {"a.py": f"git-blob:{blob}"})
    assert annotate(same) == ["current"]
    assert annotate(result(worktree, head, ["a.py"], {"a.py": f"git-blob:{blob}"})) == ["current"]
    assert [c[0] for c in git_calls] == ["hash-object"]
    (worktree / "a.py").write_text("x = 10\n")
    settle(worktree / "a.py")
    time.sleep(remembered.RACY_S + 0.05)
    assert annotate(result(worktree, head, ["a.py"], {"a.py": f"git-blob:{blob}"})) == ["changed"]
    assert [c[0] for c in git_calls] == ["hash-object", "hash-object"]


def test_a_commit_gone_is_never_remembered(repo, git_calls):
    """An answer that is a reason (the commit is not in the repository) is asked again every time."""
    worktree, _ = repo
    missing = "0" * 40
    assert annotate(result(worktree, missing, ["a.py"])) == ["changed"]
    assert annotate(result(worktree, missing, ["a.py"])) == ["changed"]
    assert [c[0] for c in git_calls] == ["diff", "diff"]


@pytest.mark.parametrize("content", [b"not json", b'{"version": 99, "answers": {}}', b"\xff\xfe", b'{"answers": 3}'])
def test_a_damaged_cache_is_ignored_and_replaced(repo, git_calls, content):
    """A cache that is not ours to read means git is asked, and the file is written anew."""
    worktree, head = repo
    os.makedirs(index.index_dir(), exist_ok=True)
    path = os.path.join(index.index_dir(), remembered.FILE)
    with open(path, "wb") as fh:
        fh.write(content)
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    assert annotate(result(worktree, head, ["a.py"])) == ["current"]
    assert [c[0] for c in git_calls] == ["diff"]
    assert remembered.Answers(str(index.index_dir())).known


def test_at_most_max_answers_are_kept_the_newest(repo, monkeypatch):
    """The file stays bounded: past MAX_ANSWERS the oldest answers go."""
    worktree, _ = repo
    monkeypatch.setattr(remembered, "MAX_ANSWERS", 3)
    folder = str(index.index_dir())
    os.makedirs(folder, exist_ok=True)
    answers = remembered.Answers(folder)
    sig = remembered.signature(str(worktree), ["a.py"])
    for n in range(5):
        answers.put(["diff", str(worktree), str(n)], str(worktree), ["a.py"], sig, [])
    answers.save()
    kept = remembered.Answers(folder).known
    assert [key for key in kept] == [f'["diff","{worktree}","{n}"]' for n in (2, 3, 4)]
    leftovers = [n for n in os.listdir(folder) if n.endswith(".tmp")]
    assert leftovers == []
