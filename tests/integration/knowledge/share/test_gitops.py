"""The remote a share command uses: the only one, or the one named; none, or an unknown one, is refused with a hint."""

from __future__ import annotations

from tests.support.share import git


def test_the_remote_is_chosen_plainly_or_asked_for(machines):
    """No remote is an error saying to add one; two remotes need --remote; an unknown --remote is refused."""
    remote, a, _ = machines
    git(a.repo, "remote", "rename", "origin", "team")
    git(a.repo, "remote", "add", "mirror", str(remote))
    assert a.ok("share", "list")["remote"] == "team"  # the branch's upstream remote
    git(a.repo, "branch", "--unset-upstream")
    code, _, err = a.bridge("share", "list")
    assert code == 1 and "several remotes" in err and "--remote" in err
    code, _, err = a.bridge("share", "list", "--remote", "--upload-pack=touch /tmp/x")
    assert code == 1 and "is not a git remote of this repository" in err
    assert a.ok("share", "list", "--remote", "team")["remote"] == "team"
    git(a.repo, "remote", "remove", "team")
    git(a.repo, "remote", "remove", "mirror")
    code, _, err = a.bridge("share", "pull")
    assert code == 1 and "no git remote" in err
