"""The project a session belongs to: a removed Claude worktree is a sibling, a nested repository another project."""

from __future__ import annotations

from autopilot.handoff.sources.project import Project
from tests.support.handoff_env import git


def test_deleted_claude_worktree_is_not_this_worktree(git_repo):
    """A session from `.claude/worktrees/x` inside the checkout (since removed) is a sibling, not this one."""
    project = Project(str(git_repo))
    assert project.classify(str(git_repo / ".claude" / "worktrees" / "fix-1" / "src")) == "sibling-worktree"
    assert project.classify(str(git_repo / "src")) == "this-worktree"


def test_nested_repository_is_another_project(git_repo):
    """A repository nested inside the checkout is another project."""
    nested = git_repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    assert Project(str(git_repo)).classify(str(nested)) == "other-project"
