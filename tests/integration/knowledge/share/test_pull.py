"""`codex-bridge share pull`: the remote is untrusted; a changed object, odd name, huge file or bad ref refuses it."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.support.share import REF, git


def test_an_object_changed_on_the_remote_is_refused_on_pull_and_nothing_local_changes(machines):
    """A packet whose bytes were swapped on the remote (name kept) is refused by name; Bob's stores are unchanged."""
    remote, a, b = machines
    first = a.packet("The first packet, pulled before the tampering.")
    a.ok("share", "push", first)
    b.ok("share", "pull")
    second = a.packet("The second packet, tampered on the remote.")
    a.ok("share", "push", second)
    _tamper(remote, second)
    before = _stores(b)
    code, _, err = b.bridge("share", "pull")
    assert code == 1 and f"packets/{second.removeprefix('sha256:')}.json" in err and "changed on the remote" in err
    assert _stores(b) == before


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
def test_odd_names_and_modes_on_the_remote_refuse_the_pull(machines, path, mode, why):
    """A name that is not a content address, or an entry that is not a plain file, refuses the whole pull."""
    remote, a, b = machines
    a.ok("share", "push", a.packet())
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=b"{}", capture_output=True)
        .stdout.decode()
        .strip()
    )
    _rewrite(remote, {path: blob}, mode=mode)
    before = _stores(b)
    code, _, err = b.bridge("share", "pull")
    assert code == 1 and why in err and "\x1b" not in err
    assert _stores(b) == before


def test_a_huge_object_on_the_remote_is_refused_before_it_is_read(machines):
    """A file over the size limit under a valid-looking name refuses the pull, naming its size."""
    remote, a, b = machines
    a.ok("share", "push", a.packet())
    big = b"x" * ((16 << 10) + 1)
    blob = (
        subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], input=big, capture_output=True)
        .stdout.decode()
        .strip()
    )
    _rewrite(remote, {"rules/" + "d" * 64 + ".json": blob})
    code, _, err = b.bridge("share", "pull")
    assert code == 1 and "over the limit" in err


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
