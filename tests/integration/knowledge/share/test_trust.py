"""Team trust from the default branch's history, not the checkout: what a teammate with push access tries.

Real ``ssh-keygen`` keys, git's own SSH signing, a real bare remote and two clones (``tests/support/share.py``).
Main's first allowed_signers lists Ada; a key is trusted only when the commit that added it on the default branch is
signed by a key already trusted, whatever branch is checked out, and a key's validity window is judged against when
this machine first saw the commit that carries the signature, not the date the commit claims.
"""

from __future__ import annotations

import os

import pytest

from tests.integration.knowledge.share.test_rules import RULE, approved_on, shared_rules
from tests.support.share import Machine, copied_team, git, key, signer_line, team

SIGNERS = ".codex-autopilot/allowed_signers"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    root = tmp_path_factory.mktemp("trust")
    ada, _ = key(root / "keys", "ada"), key(root / "keys", "eve")
    key(root / "keys", "ada2")
    _, a, _ = team(root, signer_line("ada@example.com", ada))
    a.sign_with(ada)
    return root


@pytest.fixture
def world(tmp_path, made):
    remote, a, b = copied_team(made, tmp_path)
    keys = tmp_path / "keys"
    return a, b, keys / "ada", keys / "eve", keys / "ada2"


def change_signers(machine: Machine, text: str, message: str, signed_by=None) -> None:
    """Commit ``text`` as allowed_signers on the machine's main (signed by ``signed_by``'s key, or unsigned)."""
    (machine.repo / SIGNERS).write_text(text)
    git(machine.repo, "add", SIGNERS)
    if signed_by is None:
        git(machine.repo, "-c", "commit.gpgsign=false", "commit", "-qm", message)
    else:
        machine.sign_with(signed_by)
        git(machine.repo, "commit", "-S", "-qm", message)


def pushed_by(machine: Machine, signer, text: str = RULE) -> None:
    """A rule approved on ``machine`` and pushed in a commit signed by ``signer``."""
    machine.sign_with(signer)
    approved_on(machine, text)
    machine.ok("share", "push", "--rules")


def test_a_listed_name_with_another_key_in_an_unsigned_commit_is_not_trusted(world):
    """Eve replaces Ada's key under Ada's name in an unsigned commit: a rule Eve signs stays a candidate, and the pull
    names the change."""
    a, b, ada, eve, _ = world
    change_signers(b, signer_line("ada@example.com", eve), "rotate Ada's key")
    pushed_by(a, eve)
    pulled = b.ok("share", "pull")
    assert [r["signature"] for r in pulled["rules"]["candidates"]] == ["unlisted"] and not pulled["rules"]["delivered"]
    assert any('added "ada@example.com"' in n and "not trusted" in n for n in pulled["notes"])
    assert RULE not in str(shared_rules(b)) or all(r["status"] == "candidate" for r in shared_rules(b).values())


def test_a_key_that_vouches_for_itself_later_is_still_not_trusted(world):
    """Eve adds her key unsigned, then signs a commit that only adds a comment: no trusted key ever signed her line."""
    a, b, ada, eve, _ = world
    lines = signer_line("ada@example.com", ada) + signer_line("eve@example.com", eve)
    change_signers(b, lines, "add Eve")
    change_signers(b, "# reviewed\n" + lines, "a comment", signed_by=eve)
    pushed_by(a, eve)
    pulled = b.ok("share", "pull")
    assert [r["signature"] for r in pulled["rules"]["candidates"]] == ["unlisted"] and not pulled["rules"]["delivered"]


def test_a_principals_new_key_signed_in_by_a_trusted_key_is_a_new_signer(world):
    """Ada's new key, added in a commit her listed key signed, delivers; `share list` names it as a new signer."""
    a, b, ada, _, ada2 = world
    change_signers(b, signer_line("ada@example.com", ada) + signer_line("ada@example.com", ada2), "Ada's new key", ada)
    pushed_by(a, ada2)
    pulled = b.ok("share", "pull")
    assert [r["signer"] for r in pulled["rules"]["delivered"]] == ["ada@example.com"]
    listed = b.ok("share", "list")
    [new] = listed["newSigners"]
    assert new["principal"] == "ada@example.com" and new["signer"] == "ada@example.com"
    assert any(n.startswith('a new signer: "ada@example.com" with key SHA256:') for n in listed["notes"])


def test_trust_comes_from_the_default_branch_whatever_is_checked_out(world):
    """A pull request's branch that lists Eve (checked out while pulling) trusts nobody new; back on main, neither."""
    a, b, ada, eve, _ = world
    git(b.repo, "checkout", "-q", "-b", "pr-add-eve")
    change_signers(b, signer_line("ada@example.com", ada) + signer_line("eve@example.com", eve), "add Eve", ada)
    pushed_by(a, eve)
    pulled = b.ok("share", "pull")
    assert [r["signature"] for r in pulled["rules"]["candidates"]] == ["unlisted"]
    git(b.repo, "checkout", "-q", "main")
    assert [r["signature"] for r in b.ok("share", "list")["rules"]] == ["unlisted"]


def test_a_retired_key_cannot_deliver_by_backdating_its_commit(world):
    """Ada's key retired with valid-before (in a commit she signed); a rule she pushes later in a commit dated before
    the retirement is judged by when this machine first saw it: expired, a candidate."""
    a, b, ada, _, _ = world
    retired = signer_line("ada@example.com", ada).replace(
        "ada@example.com ", 'ada@example.com valid-before="20200101" '
    )
    change_signers(b, retired, "retire Ada's key", ada)
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = "2019-06-01T12:00:00Z"
    try:
        pushed_by(a, ada)
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    pulled = b.ok("share", "pull")
    assert [r["signature"] for r in pulled["rules"]["candidates"]] == ["expired"] and not pulled["rules"]["delivered"]


def test_a_key_within_its_window_still_delivers(world):
    """The same key valid until 2099: the rule is delivered (the window check refuses only what it must)."""
    a, b, ada, _, _ = world
    valid = signer_line("ada@example.com", ada).replace("ada@example.com ", 'ada@example.com valid-before="20990101" ')
    change_signers(b, valid, "Ada's key until 2099", ada)
    pushed_by(a, ada)
    assert [r["signer"] for r in b.ok("share", "pull")["rules"]["delivered"]] == ["ada@example.com"]
