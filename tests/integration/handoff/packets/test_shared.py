"""Packets pulled from a teammate (handoff/packets/shared.py): found, listed, inspected, imported with their origin."""

from __future__ import annotations

import json
import socket

from tests.support.share import git


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


def test_escape_sequences_in_a_commits_author_reach_no_terminal(machines):
    """An author name and machine with escape sequences are shown as visible escapes in the origin label."""
    _, a, b = machines
    git(a.repo, "config", "user.name", "Ada\x1b]0;owned\x07")
    pid = a.packet()
    a.ok("share", "push", pid)
    b.ok("share", "pull")
    origin = b.ok("handoff", "packets")["packets"][0]["shared"]
    assert "\x1b" not in json.dumps(origin, ensure_ascii=False) and "\\x1b" in origin["by"]
