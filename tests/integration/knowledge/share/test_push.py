"""`codex-bridge share push`: a ref of its own, only content-addressed packets, nothing private; offline and merged.

Real git end to end: two machines (homes and clones of their own) and a bare remote (``machines``)."""

from __future__ import annotations

import os

from autopilot.handoff.packets import store
from autopilot.knowledge.share import gitops
from tests.support.share import PRIVATE, REF, git, remote_ref


def test_push_uses_a_ref_of_its_own_never_a_branch_or_the_work_tree(machines):
    """After a push the remote's branches are as they were, and Ada's work tree, index and HEAD are untouched."""
    remote, a, _ = machines
    branches = git(remote, "for-each-ref", "refs/heads")
    before = (git(a.repo, "status", "--porcelain", "--untracked-files=all"), git(a.repo, "rev-parse", "HEAD"))
    a.ok("share", "push", a.packet())
    assert git(remote, "for-each-ref", "refs/heads") == branches
    assert remote_ref(remote) is not None
    assert (git(a.repo, "status", "--porcelain", "--untracked-files=all"), git(a.repo, "rev-parse", "HEAD")) == before


def test_the_shared_tree_holds_only_content_addressed_packets(machines):
    """The pushed tree is the packet and its evidence index, each named by its hash, and nothing else."""
    remote, a, _ = machines
    pid = a.packet()
    a.ok("share", "push", pid)
    hexid = pid.removeprefix("sha256:")
    names = git(remote, "ls-tree", "-r", "--name-only", REF).split()
    assert names == [f"packets/{hexid}.evidence.json", f"packets/{hexid}.json"]
    with a.on():
        assert (
            git(remote, "cat-file", "blob", f"{REF}:packets/{hexid}.json").encode() == store.resolve(pid).read_bytes()
        )


def test_a_transcripts_private_text_never_leaves_the_machine(machines):
    """No object on the remote holds the session's private reasoning or the transcript's raw rows."""
    remote, a, _ = machines
    a.ok("share", "push", a.packet())
    objects = git(remote, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").split()
    contents = "".join(git(remote, "cat-file", "-p", o) for o in objects)
    assert PRIVATE not in contents and '"parentUuid"' not in contents


def test_dry_run_shows_what_would_leave_and_sends_nothing(machines):
    """`--dry-run` prints the packet and the remote, and the remote has no share ref afterwards."""
    remote, a, _ = machines
    pid = a.packet()
    answer = a.ok("share", "push", pid, "--dry-run")
    assert (answer["sent"], [p["packet"] for p in answer["packets"]], answer["newFiles"]) == (False, [pid], 2)
    assert remote_ref(remote) is None and gitops.resolve(str(a.repo), gitops.REF) is None


def test_a_credential_planted_after_export_is_refused_by_push(machines):
    """A packet re-sealed with a credential inside (a valid hash, a planted token) is refused, and nothing is pushed."""
    remote, a, _ = machines
    pid = a.packet()
    with a.on():
        _, packet, evidence = store.load(pid)
        packet["objective"]["text"] += " token ghp_" + "x7Kq2" * 8
        planted, _ = store.store(packet, evidence)
    code, _, err = a.bridge("share", "push", planted)
    assert code == 1 and "still holds what looks like a credential" in err and "nothing was pushed" in err
    assert remote_ref(remote) is None and gitops.resolve(str(a.repo), gitops.REF) is None


def test_a_packet_changed_after_export_is_refused_by_push(machines):
    """A packet file edited in place no longer hashes to its id: push refuses it as tampered."""
    remote, a, _ = machines
    pid = a.packet()
    with a.on():
        path = store.resolve(pid)
        os.chmod(path, 0o644)
        path.write_bytes(path.read_bytes().replace(b"empty header", b"empty HEADER"))
    code, _, err = a.bridge("share", "push", pid)
    assert code == 1 and "changed after export" in err
    assert remote_ref(remote) is None


def test_a_push_offline_is_kept_and_sent_by_the_next_push(machines):
    """With the remote unreachable the push says so and keeps the commit; the next push sends it."""
    remote, a, b = machines
    pid = a.packet()
    moved = remote.with_name("remote-away.git")
    remote.rename(moved)
    code, _, err = a.bridge("share", "push", pid)
    assert code == 3 and "kept as commit" in err
    kept = gitops.resolve(str(a.repo), gitops.REF)
    moved.rename(remote)
    sent = a.ok("share", "push")
    assert sent["commit"] == kept and remote_ref(remote) == kept
    assert [p["packet"] for p in b.ok("share", "pull")["packets"]] == [pid]


def test_both_machines_push_and_each_gets_the_others_packet(machines):
    """Ada and Bob each push (Bob's push merges Ada's first); each pull brings the other's packet, own ones skipped."""
    _, a, b = machines
    pa, pb = a.packet("Ada's work on the lexer."), b.packet("Bob's work on the printer.")
    a.ok("share", "push", pa)
    sent = b.ok("share", "push", pb)
    assert sent["merges"] == 1
    assert [p["packet"] for p in a.ok("share", "pull")["packets"] if p["status"] == "new"] == [pb]
    assert [p["packet"] for p in b.ok("share", "pull")["packets"] if p["status"] == "new"] == [pa]


def test_a_packet_of_another_project_is_never_pushed_here(machines):
    """A packet exported in another repository of Ada's is refused by this project's push, naming where it was made."""
    remote, a, _ = machines
    other = a.root / "other"
    git(a.root, "init", "-q", "-b", "main", str(other))
    git(other, "-c", "user.name=A", "-c", "user.email=a@x", "commit", "-q", "--allow-empty", "-m", "start")
    session = a.session("Private work in another project.", cwd=other)
    pid = a.ok("-C", str(other), "handoff", "export", "--from", "claude", "--session", session, "--to", "codex")[
        "packet"
    ]
    code, _, err = a.bridge("share", "push", pid)
    assert code == 1 and "not this project's to share" in err and str(other) in err
    assert remote_ref(remote) is None
