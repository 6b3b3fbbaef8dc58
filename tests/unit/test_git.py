"""git.py reads the branch and the common git directory from the files, as git itself would answer, and runs git."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from autopilot import git

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def run(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, env=ENV, capture_output=True, text=True).stdout


def gits_answer(repo: Path) -> tuple[str | None, str]:
    """What git says: ``symbolic-ref --short HEAD`` (None when detached) and ``rev-parse --git-common-dir``."""
    short = subprocess.run(["git", "-C", str(repo), "symbolic-ref", "--quiet", "--short", "HEAD"], capture_output=True)
    common = run(repo, "rev-parse", "--git-common-dir").strip()
    return short.stdout.decode().strip() or None, os.path.realpath(os.path.join(repo, common))


def ours(repo: Path) -> tuple[str | None, str]:
    return git.branch(str(repo)), git.common_dir(str(repo))


def refuse_forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any git process started from now on fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"git was forked: {args[0] if args else kwargs}")

    monkeypatch.setattr(subprocess, "run", refuse)


@pytest.fixture
def no_fork(monkeypatch):
    """Any git process started from here fails the test."""
    refuse_forks(monkeypatch)


def test_a_branch_and_the_common_dir_come_from_the_files(git_repo, no_fork):
    """On a branch of the main worktree: git's answers, without forking git."""
    assert ours(git_repo) == ("main", os.path.realpath(git_repo / ".git"))


def test_every_plain_case_matches_git(git_repo, tmp_path):
    """A linked worktree, a branch with a slash, an unborn branch, a detached HEAD: the answers git gives."""
    linked = tmp_path / "linked"
    run(git_repo, "worktree", "add", "-q", "-b", "feature/x", str(linked))
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(fresh)], check=True, env=ENV)
    detached = tmp_path / "detached"
    run(git_repo, "worktree", "add", "-q", "--detach", str(detached))
    for repo in (git_repo, linked, fresh, detached):
        assert ours(repo) == gits_answer(repo), repo
    assert [ours(r)[0] for r in (linked, fresh, detached)] == ["feature/x", "trunk", None]
    assert ours(linked)[1] == os.path.realpath(git_repo / ".git")


@pytest.mark.parametrize("pack", [False, True])
def test_a_tag_of_the_branchs_name_is_left_to_git(git_repo, pack):
    """A tag named like the branch makes git print "heads/main": the files are not trusted to say that."""
    run(git_repo, "tag", "main")
    if pack:
        run(git_repo, "pack-refs", "--all")
    assert ours(git_repo) == gits_answer(git_repo) and ours(git_repo)[0] == "heads/main"


def test_git_dir_in_the_environment_is_left_to_git(git_repo, monkeypatch):
    """With GIT_DIR set the files of the work tree are not read: git answers."""
    monkeypatch.setenv("GIT_DIR", str(git_repo / ".git"))
    assert git.git_dir(str(git_repo)) is None
    assert ours(git_repo) == gits_answer(git_repo)


def gits_head(repo: Path) -> str | None:
    """What git says: ``rev-parse --verify --quiet HEAD^{commit}`` (None without commits)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], capture_output=True, text=True
    )
    return out.stdout.strip() or None


def test_head_comes_from_the_files(git_repo, monkeypatch):
    """On a branch with a loose commit: git's answer, without forking git."""
    answer = run(git_repo, "log", "-1", "--format=%H").strip()
    refuse_forks(monkeypatch)
    assert git.head_sha(str(git_repo)) == answer


def test_every_head_matches_git(git_repo, tmp_path):
    """A linked worktree, an unborn branch, a detached HEAD, packed refs, packed objects, a symbolic branch, an empty
    ref file, a HEAD naming a tree: the answer git gives (the files where they say it, git where they do not)."""
    (git_repo / "a.txt").write_text("a\n")
    run(git_repo, "add", "a.txt")
    run(git_repo, "commit", "-qm", "second")
    linked = tmp_path / "linked"
    run(git_repo, "worktree", "add", "-q", "-b", "feature/x", str(linked))
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "init", "-q", "-b", "trunk", str(fresh)], check=True, env=ENV)
    detached = tmp_path / "detached"
    run(git_repo, "worktree", "add", "-q", "--detach", str(detached), "HEAD~1")
    cases = [git_repo, linked, fresh, detached]
    for repo in cases:
        assert git.head_sha(str(repo)) == gits_head(repo), repo
    assert git.head_sha(str(fresh)) is None
    assert git.head_sha(str(detached)) == run(git_repo, "rev-parse", "HEAD~1").strip()

    run(git_repo, "pack-refs", "--all")  # the branch's ref now lives in packed-refs only
    assert not (git_repo / ".git" / "refs" / "heads" / "main").exists()
    assert git.head_sha(str(git_repo)) == gits_head(git_repo) is not None
    run(git_repo, "gc", "-q")  # the commits are packed: git is asked
    for repo in cases:
        assert git.head_sha(str(repo)) == gits_head(repo), repo

    run(git_repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    run(git_repo, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert git.head_sha(str(git_repo)) == gits_head(git_repo) is not None
    run(git_repo, "symbolic-ref", "HEAD", "refs/heads/main")

    tree = run(git_repo, "rev-parse", "HEAD^{tree}").strip()
    (git_repo / ".git" / "HEAD").write_text(tree + "\n")  # no commit: git says none
    assert git.head_sha(str(git_repo)) == gits_head(git_repo) is None


def test_an_empty_ref_file_is_left_to_git(git_repo):
    """A branch whose ref file is empty is not taken for an unborn one: git answers."""
    ref = git_repo / ".git" / "refs" / "heads" / "main"
    packed = git_repo / ".git" / "packed-refs"
    packed.write_text(f"{ref.read_text().strip()} refs/heads/main\n")
    ref.write_text("")
    assert git.head_sha(str(git_repo)) == gits_head(git_repo)


def alias(name: str, command: str) -> dict[str, str]:
    """The environment that gives git an alias ``name`` running the shell ``command``."""
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"alias.{name}", "GIT_CONFIG_VALUE_0": f"!{command}"}


def test_run_git_hands_git_its_input(git_repo):
    """``data`` reaches git's stdin: the blob id of "hello\\n", as every git computes it."""
    assert git.run_git(str(git_repo), "hash-object", "--stdin", data="hello\n").strip() == (
        "ce013625030ba8dba906f756967f9e9ca394464a"
    )


def test_run_git_bytes_gives_the_exit_code_and_bytes(git_repo):
    """A failing git is no error here: the caller reads its exit code and stderr, as bytes."""
    proc = git.run_git_bytes(str(git_repo), "cat-file", "-t", "0" * 40)
    said = b"fatal: git cat-file: could not get object info\n"
    assert (proc.returncode, proc.stdout, proc.stderr) == (128, b"", said)


def test_a_git_past_its_deadline_is_stopped(git_repo):
    """A git still running at its timeout is killed and named in a GitTimeout, long before it would end."""
    started = time.monotonic()
    with pytest.raises(git.GitTimeout, match=r"^git nap took longer than 0s in "):
        git.run_git_bytes(str(git_repo), "nap", env=alias("nap", "sleep 2"), timeout=0.3)
    assert time.monotonic() - started < 1.5


def test_git_asks_for_credentials_only_when_told_it_may(git_repo, monkeypatch):
    """GIT_TERMINAL_PROMPT=0 unless ``prompt``: then git inherits the person's own setting."""
    monkeypatch.delenv("GIT_TERMINAL_PROMPT", raising=False)
    show = alias("show-prompt", "echo ${GIT_TERMINAL_PROMPT-unset}")
    said = [git.run_git_bytes(str(git_repo), "show-prompt", env=show, prompt=p).stdout for p in (False, True)]
    assert said == [b"0\n", b"unset\n"]
