"""Sharing packets through the project's git remote: two machines (homes and clones of their own), a bare remote.

Real git end to end: ``share push`` on Ada's machine, ``share pull`` on Bob's, the packet found there by
``handoff packets``, ``handoff search`` and ``handoff import`` with its origin; what leaves and what never does;
the remote as untrusted input (a changed object, odd names, a huge file, a ref that is not a commit).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess

import pytest

from autopilot.handoff.packets import store
from autopilot.knowledge.share import gitops
from tests.support.share import PRIVATE, REF, copied_team, git, remote_ref, team


@pytest.fixture(scope="module")
def made_team(tmp_path_factory):
    """The team's bare remote and two machines with clones of it, made once for the module (``machines`` copies)."""
    root = tmp_path_factory.mktemp("team")
    team(root)
    return root


@pytest.fixture
def machines(tmp_path, made_team):
    """The team's bare remote and two machines with clones of it: (remote, Ada's, Bob's)."""
    return copied_team(made_team, tmp_path)


def test_a_packet_pushed_from_a_is_found_by_search_on_b_with_its_origin(machines):
    """A packet Ada pushes is pulled on Bob's machine and found by `handoff search` there, labelled with its origin."""
    _, a, b = machines
    pid = a.packet("Make the zanzibar parser accept an empty header.")
    a.ok("share", "push", pid)
    pulled = b.ok("share", "pull")
    assert [(p["packet"], p["status"]) for p in pulled["packets"]] == [(pid, "new")]
    found = b.ok("handoff", "search", "zanzibar parser", "--json")
    hit = next(r for r in found["results"] if r["pointer"]["packet"] == pid)
    assert (hit["scope"], hit["shared"]["by"], hit["shared"]["machine"]) == (
        "shared",
        "Ada <a@example.com>",
        socket.gethostname(),
    )
    assert hit["freshness"]["state"] == "unavailable" and "another machine" in hit["freshness"]["reasons"][0]


def test_pulled_packets_are_listed_with_their_origin(machines):
    """`handoff packets` on Bob's machine lists Ada's packet with who shared it, from where and in which commit."""
    _, a, b = machines
    pid = a.packet()
    pushed = a.ok("share", "push", pid)
    b.ok("share", "pull")
    rows = b.ok("handoff", "packets")["packets"]
    assert [r["packet"] for r in rows] == [pid]
    origin = rows[0]["shared"]
    assert (origin["by"], origin["commit"], origin["remote"]) == ("Ada <a@example.com>", pushed["commit"], "origin")


def test_a_pulled_packet_imports_into_a_b_session_saying_its_source_is_not_here(machines):
    """Importing Ada's packet into one of Bob's sessions succeeds and says its source bytes are not on this machine."""
    _, a, b = machines
    pid = a.packet()
    a.ok("share", "push", pid)
    b.ok("share", "pull")
    receiving = b.session("Pick up the parser work.")
    answer = b.ok("handoff", "import", pid, "--to", "codex", "--session", receiving, "--new-session")
    checks = answer["verified"]
    assert (checks["sourceAvailable"], checks["sourceHash"], checks["shared"]["by"]) == (
        False,
        None,
        "Ada <a@example.com>",
    )
    assert "SHARED FROM ANOTHER MACHINE, SOURCE NOT HERE" in answer["context"]
    assert sum(len(v) for v in answer["unavailableClaims"].values()) > 0


def test_inspect_on_b_says_the_packet_is_importable_but_its_source_is_elsewhere(machines):
    """`handoff inspect` verifies a pulled packet and says where it came from and that its source is not here."""
    _, a, b = machines
    pid = a.packet()
    a.ok("share", "push", pid)
    b.ok("share", "pull")
    shown = b.ok("handoff", "inspect", pid)
    assert shown["importable"] is True and "its source transcript is on that machine" in shown["importNote"]


def test_share_list_says_who_shared_what_from_where_and_when(machines):
    """`share list` on Bob's machine names Ada's packet, her name, machine and commit, its time, and that it is here."""
    _, a, b = machines
    pid = a.packet()
    pushed = a.ok("share", "push", pid)
    b.ok("share", "pull")
    rows = b.ok("share", "list")["packets"]
    assert [(r["packet"], r["by"], r["machine"], r["commit"], r["here"], r["onRemote"]) for r in rows] == [
        (pid, "Ada <a@example.com>", socket.gethostname(), pushed["commit"], "pulled", True)
    ]
    assert rows[0]["at"].endswith("Z")


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


def test_an_object_changed_on_the_remote_is_refused_on_pull_by_name_and_never_stored(machines):
    """A packet whose bytes were swapped on the remote (name kept) is refused by name, and Bob never stores it."""
    remote, a, b = machines
    first = a.packet("The first packet, pulled before the tampering.")
    a.ok("share", "push", first)
    b.ok("share", "pull")
    second = a.packet("The second packet, tampered on the remote.")
    a.ok("share", "push", second)
    _tamper(remote, second)
    code, answer, err = b.bridge("share", "pull")
    assert code == 0 and f"packets/{second.removeprefix('sha256:')}.json" in err and "changed on the remote" in err
    assert [r["kind"] for r in answer["refused"]] == ["tampered", "tampered"]  # the packet and its evidence index
    with b.on():
        assert not (store.packets_dir() / f"{second.removeprefix('sha256:')}.json").exists()


def _tamper(remote, pid):
    """Rewrite the remote's share ref: the packet's file keeps its name and gets other bytes."""
    hexid = pid.removeprefix("sha256:")
    data = git(remote, "cat-file", "blob", f"{REF}:packets/{hexid}.json").replace("tampered", "trusted!")
    blob = subprocess.run(
        ["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=data, capture_output=True, text=True
    ).stdout.strip()
    _rewrite(remote, {f"packets/{hexid}.json": blob})


def _rewrite(remote, changes, mode="100644"):
    """A new commit on the remote's share ref with ``changes`` (path -> blob) in its tree: a forged push, its trees
    made with ``git mktree``, which takes names git's own commands would refuse (``..``)."""
    entries = {}
    for line in git(remote, "ls-tree", "-r", REF).splitlines():
        meta, path = line.split("\t", 1)
        m, _, oid = meta.split()
        entries[path] = (m, oid)
    entries.update({path: (mode, blob) for path, blob in changes.items()})
    commit = subprocess.run(
        ["git", "-C", str(remote), "commit-tree", _mktree(remote, entries), "-p", REF, "-m", "forged"],
        capture_output=True,
        text=True,
        env={**os.environ, "GIT_AUTHOR_NAME": "M", "GIT_AUTHOR_EMAIL": "m@x", "GIT_COMMITTER_NAME": "M",
             "GIT_COMMITTER_EMAIL": "m@x"},
    ).stdout.strip()  # fmt: skip
    git(remote, "update-ref", REF, commit)


def _mktree(remote, entries):
    """A tree of ``entries`` (path -> (mode, blob)), nested by ``/``."""
    here, below = {}, {}
    for path, (mode, oid) in entries.items():
        head, sep, rest = path.partition("/")
        if sep:
            below.setdefault(head, {})[rest] = (mode, oid)
        else:
            here[head] = (mode, "blob", oid)
    for name, sub in below.items():
        here[name] = ("040000", "tree", _mktree(remote, sub))
    listing = "".join(f"{m} {t} {o}\t{n}\n" for n, (m, t, o) in sorted(here.items()))
    out = subprocess.run(["git", "-C", str(remote), "mktree"], input=listing, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def _stores(machine) -> dict[str, bytes]:
    """Every file of a machine's autopilot home and its clone's refs (what a refused pull must leave as it was)."""
    out = {}
    for root in (machine.homes["AUTOPILOT_HOME"], machine.repo / ".git" / "refs"):
        for folder, _, files in os.walk(root):
            for name in files:
                if name.endswith(".lock"):
                    continue
                path = os.path.join(folder, name)
                with open(path, "rb") as fh:
                    out[path] = fh.read()
    out["packed-refs"] = (machine.repo / ".git" / "packed-refs").read_bytes()
    return out


@pytest.mark.parametrize(
    ("path", "mode", "why"),
    [
        ("packets/../../etc/passwd.json", "100644", "not a content address"),
        ("packets/" + "a" * 64 + "/x.json", "100644", "not a content address"),
        ("rules/\x1b[31mred.json", "100644", "not a content address"),
        ("rules/" + "b" * 64 + ".json", "120000", "not a plain file"),
        ("packets/" + "c" * 64 + ".json", "100755", "not a plain file"),
    ],
    ids=["climbing", "nested", "escape", "symlink", "executable"],
)
def test_odd_names_and_modes_on_the_remote_are_refused_by_name(machines, path, mode, why):
    """A name that is not a content address, or an entry that is not a plain file, is refused and named; the
    packet beside it still arrives."""
    remote, a, b = machines
    a.ok("share", "push", a.packet())
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=b"{}", capture_output=True)
        .stdout.decode()
        .strip()
    )
    _rewrite(remote, {path: blob}, mode=mode)
    code, answer, err = b.bridge("share", "pull")
    assert code == 0 and why in err and "\x1b" not in err
    assert [p["status"] for p in answer["packets"]] == ["new"] and len(answer["refused"]) == 1


def test_a_huge_object_on_the_remote_is_refused_before_it_is_read(machines):
    """A file over the size limit under a valid-looking name is refused unread, naming its size."""
    remote, a, b = machines
    a.ok("share", "push", a.packet())
    big = b"x" * ((16 << 10) + 1)
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=big, capture_output=True)
        .stdout.decode()
        .strip()
    )
    _rewrite(remote, {"rules/" + "d" * 64 + ".json": blob})
    code, answer, err = b.bridge("share", "pull")
    assert code == 0 and "over the limit" in err and answer["refused"][0]["oid"] == blob


def test_a_share_ref_that_is_not_a_commit_is_refused(machines):
    """A remote whose share ref names a blob is refused on pull, plainly."""
    remote, a, b = machines
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=b"hello", capture_output=True)
        .stdout.decode()
        .strip()
    )
    git(remote, "update-ref", REF, blob)
    code, _, err = b.bridge("share", "pull")
    assert code == 1 and ("not a commit" in err or "blob" in err)


def test_escape_sequences_in_a_commits_author_reach_no_terminal(machines):
    """An author name and machine with escape sequences are shown as visible escapes in the origin label."""
    _, a, b = machines
    git(a.repo, "config", "user.name", "Ada\x1b]0;owned\x07")
    pid = a.packet()
    a.ok("share", "push", pid)
    b.ok("share", "pull")
    origin = b.ok("handoff", "packets")["packets"][0]["shared"]
    assert "\x1b" not in json.dumps(origin, ensure_ascii=False) and "\\x1b" in origin["by"]


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


def test_pull_from_a_remote_with_nothing_shared_says_so(machines):
    """A first pull before anyone pushed exits 0 and says that nothing is shared yet."""
    _, _, b = machines
    answer = b.ok("share", "pull")
    assert answer["packets"] == [] and "nothing shared" in answer["notes"][0]


def test_pulling_twice_adds_nothing_the_second_time(machines):
    """A second pull of the same remote stores nothing new and reports no new packet."""
    _, a, b = machines
    a.ok("share", "push", a.packet())
    b.ok("share", "pull")
    assert b.ok("share", "pull")["packets"] == []


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


def test_more_rule_records_than_the_bound_refuse_the_pull(machines):
    """A remote tree with more rule records than a pull takes in is refused before any is read."""
    remote, a, b = machines
    a.ok("share", "push", a.packet())
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=b"{}", capture_output=True)
        .stdout.decode()
        .strip()
    )
    _rewrite(remote, {f"rules/{n:064x}.json": blob for n in range(2001)})
    code, _, err = b.bridge("share", "pull")
    assert code == 1 and "more than 2,000" in err


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
