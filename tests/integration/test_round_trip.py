"""The handover round trip twice (Claude -> Codex -> Claude -> Codex), with two imports and checkpoints holding
constraints: each packet carries the newest objective, next action and constraints, each claim labelled with the
agent and the pointer it came from.

Sessions are real row shapes (a Claude Code transcript, a Codex rollout written by codex 0.171); imports and
checkpoints go through the CLI as the person runs them. tests/e2e/test_round_trip_e2e.py drives the real clients.
"""

from __future__ import annotations

import json

from autopilot.handoff.packets import store
from tests.support.claude_rows import Transcript, text
from tests.support.handoff_env import (
    claude_session,
    codex_lines,
    codex_rollout,
    edited_parser_repo,
    run_json,
    thread_of,
    work_session,
)

CLAUDE_2 = "66666666-6666-4666-8666-666666666666"
CODEX_2 = "01a2ffff-0000-7000-8000-000000000002"
FIRST_CHECKPOINT = {
    "objective": "OBJ-2: make parse() accept empty input and None",
    "next_action": "NEXT-2: add the None case to tests/test_parser.py",
    "constraints": ["CONSTRAINT-2: keep the CSV output byte for byte unchanged"],
    "unresolved": ["the CLI still crashes on empty files"],
}
SECOND_CHECKPOINT = {
    "objective": "OBJ-3: release parse() with None support",
    "next_action": "NEXT-3: tag v1.2 and update the changelog",
    "constraints": ["CONSTRAINT-3: never push to main without a review"],
}


def packet(pid: str) -> dict:
    """A stored packet."""
    return json.loads(store.resolve(pid).read_bytes())


def export(bridge, repo, agent: str, session: str, to: str) -> tuple[str, dict]:
    """Export a session; (packet id, packet)."""
    code, out, err = run_json(bridge, "handoff", "export", "--from", agent, "--session", session, "--to", to, cwd=repo)
    assert code == 0, err
    return out["packet"], packet(out["packet"])


def imported(bridge, repo, pid: str, to: str, session: str, *new: str) -> dict:
    """Import a packet into a session; the answer."""
    code, answer, err = run_json(bridge, "handoff", "import", pid, "--to", to, "--session", session, *new, cwd=repo)
    assert code == 0, err
    return answer


def checkpoint(bridge, repo, agent: str, session: str, body: dict) -> None:
    """The person's checkpoint of a session."""
    code, _, err = bridge(
        "-C", str(repo), "handoff", "checkpoint", "--agent", agent, "--session", session, "--file", "-",
        stdin=json.dumps(body),
    )  # fmt: skip
    assert code == 0, err


def active(bridge, repo, agent: str, session: str) -> dict:
    """What `handoff active --json` says of a session."""
    code, out, err = run_json(bridge, "handoff", "active", "--agent", agent, "--session", session, "--json", cwd=repo)
    assert code == 0, err
    return out


def texts(claims: list[dict]) -> list[str]:
    return [c["text"] for c in claims]


def test_a_checkpoints_constraints_reach_the_packet_labelled_as_its_claim(bridge, git_repo):
    """Constraints a checkpoint states newer than the request are the packet's, as claims; the request's stay."""
    repo = edited_parser_repo(git_repo)
    t = work_session(Transcript())
    claude_session(t, repo)
    checkpoint(bridge, repo, "claude", t.session, FIRST_CHECKPOINT)
    _, p = export(bridge, repo, "claude", t.session, "codex")
    found = {c["text"]: c for c in p["constraints"]}
    assert set(found) == {"Never change the public API of parse().", FIRST_CHECKPOINT["constraints"][0]}
    claimed = found[FIRST_CHECKPOINT["constraints"][0]]
    assert claimed["basis"] == "claim" and claimed["claimedAt"] == p["activeMemory"]["checkpoint"]["at"]
    assert "checkpoint" in claimed["provenance"] and claimed["refs"] == []
    assert found["Never change the public API of parse()."]["basis"] == "evidence"
    assert p["activeMemory"]["constraints"] == [
        {"text": FIRST_CHECKPOINT["constraints"][0], "source": "checkpoint"},
    ]


def test_the_round_trip_twice_carries_the_newest_objective_next_action_and_constraints(bridge, git_repo):
    """Claude -> Codex (two imports) -> Claude (a checkpoint) -> Codex: each hop carries the newest claims."""
    repo = edited_parser_repo(git_repo)
    t = work_session(Transcript())
    claude_path = claude_session(t, repo)
    first, p1 = export(bridge, repo, "claude", t.session, "codex")
    checkpoint(bridge, repo, "claude", t.session, FIRST_CHECKPOINT)
    second, p1b = export(bridge, repo, "claude", t.session, "codex")
    assert p1b["objective"]["text"] == FIRST_CHECKPOINT["objective"]

    lines = codex_lines("exec_plain")
    codex_path = codex_rollout(lines, repo)
    codex = thread_of(lines)
    imported(bridge, repo, first, "codex", codex)
    imported(bridge, repo, second, "codex", codex)
    view = active(bridge, repo, "codex", codex)
    assert (view["objective"]["text"], view["nextAction"]["text"]) == (
        FIRST_CHECKPOINT["objective"],
        FIRST_CHECKPOINT["next_action"],
    )
    third, p2 = export(bridge, repo, "codex", codex, "claude")
    assert p2["objective"]["text"] == FIRST_CHECKPOINT["objective"]  # the newest import, not the first
    assert p2["objective"]["inheritedFrom"] == second
    assert p2["nextAction"]["text"] == FIRST_CHECKPOINT["next_action"]
    assert FIRST_CHECKPOINT["constraints"][0] in texts(p2["constraints"])
    assert "Never change the public API of parse()." in texts(p2["constraints"])
    assert p2["objective"]["agent"] == "claude"  # Claude's checkpoint said it; Codex carried it
    own = p2["objective"]["sessionObjective"]  # Codex's own first message, labelled Codex's, in its rollout
    assert (own["agent"], own["session"]) == ("codex", codex) and own["refs"]
    for ref in own["refs"]:
        item = next(e for e in p2["evidence"] if e["ref"] == ref)
        assert "packetId" not in item and p2["source"]["transcript"] == str(codex_path)

    c2 = Transcript(CLAUDE_2)
    c2.user("Carry on with the parser work from the Codex session.")
    c2.assistant(text("Picked it up."))
    claude_session(c2, repo)
    imported(bridge, repo, third, "claude", CLAUDE_2)
    checkpoint(bridge, repo, "claude", CLAUDE_2, SECOND_CHECKPOINT)
    fourth, p3 = export(bridge, repo, "claude", CLAUDE_2, "codex")
    assert (p3["objective"]["text"], p3["objective"]["basis"]) == (SECOND_CHECKPOINT["objective"], "claim")
    assert p3["nextAction"]["text"] == SECOND_CHECKPOINT["next_action"]
    assert SECOND_CHECKPOINT["constraints"][0] in texts(p3["constraints"])
    assert p3["objective"]["agent"] == "claude" and p3["objective"]["session"] == CLAUDE_2
    original = p3["objective"]["originalRequest"]
    assert original["text"] == FIRST_CHECKPOINT["objective"] and original["inheritedFrom"] == third
    assert (original["agent"], original["session"]) == ("claude", t.session)  # Claude's checkpoint, two hops back
    for ref in original["refs"]:
        assert ref.startswith("P1.")  # inherited claims point into the packet they came from, never at this session
        assert next(e for e in p3["evidence"] if e["ref"] == ref)["packetId"] == third
    mine = original["sessionObjective"]  # this Claude session's own first message, in its own transcript
    assert (mine["text"], mine["agent"], mine["session"]) == (
        "Carry on with the parser work from the Codex session.",
        "claude",
        CLAUDE_2,
    )
    assert mine["provenance"] == "the first message the user typed in this claude session"
    assert all("packetId" not in next(e for e in p3["evidence"] if e["ref"] == r) for r in mine["refs"])
    carried = next(c for c in p3["constraints"] if c["text"] == FIRST_CHECKPOINT["constraints"][0])
    assert (carried["agent"], carried["basis"], carried["inheritedFrom"]) == ("claude", "claim", third)

    imported(bridge, repo, fourth, "codex", CODEX_2, "--new-session")
    view = active(bridge, repo, "codex", CODEX_2)
    assert view["objective"]["text"] == SECOND_CHECKPOINT["objective"]
    assert view["nextAction"]["text"] == SECOND_CHECKPOINT["next_action"]
    assert SECOND_CHECKPOINT["constraints"][0] in texts(view["constraints"])
    assert str(claude_path) != str(codex_path)
