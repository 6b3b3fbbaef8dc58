"""A tampered file on the team's shared ref: refused and told, the rest flowing, then mended, then clean again.

Three machines (Ada, Bob, Cy), each with a clone of one real bare remote; a forged commit changes a packet's bytes
on the remote as someone with write access to it could.
"""

from __future__ import annotations

import pytest

from autopilot.handoff.packets import store
from tests.support.share import Machine, copied_team, forge, git, team


@pytest.fixture(scope="module")
def made_team(tmp_path_factory):
    """The remote and three clones, made once for the module (each test gets a copy)."""
    root = tmp_path_factory.mktemp("team3")
    remote, _, _ = team(root)
    Machine(root, "c", remote, "Cy")
    return root


@pytest.fixture
def machines(tmp_path, made_team):
    """(remote, Ada's, Bob's, Cy's)."""
    remote, a, b = copied_team(made_team, tmp_path)
    return remote, a, b, Machine(tmp_path, "c", None)


def path_of(pid: str) -> str:
    return f"packets/{pid.removeprefix('sha256:')}.json"


def tamper(remote, pid: str) -> None:
    """Change the packet's bytes on the remote, its name kept."""
    data = git(remote, "cat-file", "blob", f"refs/codex-autopilot/share:{path_of(pid)}")
    forge(remote, {path_of(pid): data.replace("Make", "Break").encode()})


def has(machine: Machine, pid: str) -> bool:
    with machine.on():
        return (store.packets_dir() / f"{pid.removeprefix('sha256:')}.json").exists()


def test_a_tampered_packet_is_refused_the_rest_flows_and_the_authors_push_mends_it(machines):
    """Ada's packet is changed on the remote: Cy's push still goes through and Bob's pull still brings Cy's packet,
    both told what was refused and why; Ada pushing her packet again replaces the bad copy (the push the error asks
    for), and Bob's next pull brings it, with nothing refused."""
    remote, a, b, c = machines
    good = a.packet("Make the parser accept an empty header.")
    a.ok("share", "push", good)
    tamper(remote, good)
    cys = c.packet("Make the lexer keep comments.")
    code, pushed, err = c.bridge("share", "push", cys)
    assert code == 0 and pushed["sent"], err
    assert path_of(good) in err and "changed on the remote" in err and "share repair" in err
    code, pulled, err = b.bridge("share", "pull")
    assert code == 0, err
    assert [p["packet"] for p in pulled["packets"] if p["status"] == "new"] == [cys]
    assert {r["path"] for r in pulled["refused"]} == {path_of(good), path_of(good).replace(".json", ".evidence.json")}
    assert all(r["kind"] == "tampered" or "other half" in r["why"] for r in pulled["refused"])
    assert path_of(good) in err and "was refused" in err and not has(b, good)
    code, pushed, err = a.bridge("share", "push", good)
    assert code == 0 and pushed["replaced"] == [path_of(good)], err
    assert "replaced" in err
    code, pulled, err = b.bridge("share", "pull")
    assert code == 0 and pulled["refused"] == [] and has(b, good), err
    assert [p["packet"] for p in pulled["packets"] if p["status"] == "new"] == [good]


def test_share_repair_replaces_with_a_good_copy_or_leaves_out_and_sharing_is_clean_again(machines):
    """After a tamper, `share repair` on Bob (who pulled the packet before) puts his good copy back; junk no one has a
    copy of is left out by Cy's repair; every clone then pulls with nothing refused."""
    remote, a, b, c = machines
    good = a.packet("Make the parser accept an empty header.")
    a.ok("share", "push", good)
    b.ok("share", "pull")
    assert has(b, good)
    tamper(remote, good)
    code, mended, err = b.bridge("share", "repair")
    assert code == 0 and mended["replaced"] == [path_of(good)] and mended["sent"], err
    assert "replaced by the good copy here" in err
    junk = "packets/" + "e" * 64 + ".json"
    forge(remote, {junk: b'{"not": "a packet"}'})
    code, mended, err = c.bridge("share", "repair")
    assert code == 0 and mended["removed"] == [junk] and mended["replaced"] == [], err
    for machine in (a, b, c):
        code, pulled, err = machine.bridge("share", "pull")
        assert code == 0 and pulled["refused"] == [], err
    assert has(c, good)
    code, mended, err = c.bridge("share", "repair")
    assert code == 0 and mended["refused"] == [] and mended["commit"] is None and "nothing to repair" in err
