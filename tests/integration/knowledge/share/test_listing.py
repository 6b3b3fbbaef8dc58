"""`codex-bridge share list`: who shared which packet, from which machine and commit, when, and whether it is here."""

from __future__ import annotations

import socket


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
