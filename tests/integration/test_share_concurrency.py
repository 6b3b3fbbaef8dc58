"""Two people pushing at once lose nothing: ten `share push` processes from two machines, every packet arrives."""

from __future__ import annotations

from tests.support.share import REF, git, team


def test_ten_pushes_at_once_from_two_machines_all_arrive(tmp_path):
    """Five pushes from Ada's machine and five from Bob's, started together: each exits 0, both pulls hold all ten."""
    remote, a, b = team(tmp_path)
    mine = {
        a: [a.packet(f"Ada's task number {n}.") for n in range(5)],
        b: [b.packet(f"Bob's task {n}.") for n in range(5)],
    }
    procs = [m.process("share", "push", pid) for m, pids in mine.items() for pid in pids]
    errs = [p.communicate(timeout=300)[1] for p in procs]  # communicate, not wait: the pipes are read and closed
    results = [(p.returncode, err) for p, err in zip(procs, errs, strict=True)]
    assert [code for code, _ in results] == [0] * 10, results
    every = {pid for pids in mine.values() for pid in pids}
    on_remote = {
        "sha256:" + name.removeprefix("packets/").removesuffix(".json")
        for name in git(remote, "ls-tree", "-r", "--name-only", REF).split()
        if not name.endswith(".evidence.json")
    }
    assert on_remote == every
    for m, own in mine.items():
        pulled = m.ok("share", "pull")
        assert {p["packet"] for p in pulled["packets"] if p["status"] == "new"} == every - set(own)
        assert {r["packet"] for r in m.ok("handoff", "packets", "--limit", "50")["packets"]} == every
