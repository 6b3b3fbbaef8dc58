"""120-turn sessions with compactions, crashes and restarts, from real row shapes, exported with a small window."""

from __future__ import annotations

import json

import pytest

from autopilot.handoff.packets.store import resolve
from tests.support.claude_rows import Transcript, text, tool_use
from tests.support.handoff_env import CLAUDE_CWD, claude_session, codex_lines, codex_rollout, run_json, thread_of

OBJECTIVE = "Port the CLI to click. Keep the --json flag working."
TURNS = 120
COMPACT_AT = (40, 80)
RESTART_AT = (30, 70, 100)


def claude_long_session() -> Transcript:
    """120 turns: edits to 7 files, two compactions, three crashes (half rows) each followed by a newer version."""
    t = Transcript()
    t.user(OBJECTIVE)
    version = 332
    for k in range(TURNS):
        if k in COMPACT_AT:
            t.compact(f"Summary at turn {k}: commands 0..{k - 1} ported; next port command {k}.")
        if k in RESTART_AT:
            t.raw(b'{"parentUuid":"00000000-dead","isSidechain":false,"type":"assistant","message":{"con')
            version += 1
        t.user(f"continue with step {k}")
        t.assistant(
            tool_use(
                "Edit",
                {"file_path": f"{CLAUDE_CWD}/cli/cmd{k % 7}.py", "old_string": "x", "new_string": f"y{k}"},
                f"toolu_e{k}",
            )
        )
        t.result(f"toolu_e{k}", "The file has been updated successfully.")
        t.assistant(text(f"step {k} done"))
        for row in t.rows[-4:]:
            row["version"] = f"2.1.{version}"
    t.user("run the tests")
    t.assistant(tool_use("Bash", {"command": "pytest -q"}, "toolu_last"))  # killed before its result
    t.rows[-1]["version"] = f"2.1.{version}"
    return t


def codex_long_rollout() -> list[str]:
    """120 real exec turns (resumes append to one file), two compactions, one interrupted turn, a pending call."""
    plain = codex_lines("exec_plain")
    head, first_turn, turn = plain[0], plain[1:18], plain[18:28]
    old_turn = json.loads(turn[1])["payload"]["turn_id"]
    compacted = next(line for line in codex_lines("app_legacy_parent") if '"type":"compacted"' in line)
    aborted = next(line for line in codex_lines("exec_aborted") if '"type":"turn_aborted"' in line)
    pending = next(line for line in codex_lines("exec_tools") if "call_patch_bad" in line)
    out = [head, *[line.replace("Say hello", OBJECTIVE) for line in first_turn]]
    for k in range(TURNS):
        if k in COMPACT_AT:
            c = json.loads(compacted)
            c["payload"]["message"] = c["payload"]["message"].rsplit("\n", 1)[0] + f"\nSummary at turn {k}."
            out.append(json.dumps(c))
        new_turn = f"{old_turn[:24]}{k:012x}"
        out += [
            line.replace(old_turn, new_turn)
            .replace("Suggest a small project", f"continue with step {k}")
            .replace("A CLI that prints the date.", f"step {k} done")
            for line in turn
        ]
        if k == 99:
            out.append(aborted)  # a turn killed mid-way; the next exec resume carries on
    out.append(pending)
    return out


@pytest.fixture
def small_window(monkeypatch):
    """A 200-event window, so the 120 turns overflow it."""
    monkeypatch.setenv("AUTOPILOT_HANDOFF_WINDOW_EVENTS", "200")


def export(bridge, repo, agent, session):
    """Export a session for the other agent and return the stored packet."""
    code, answer, err = run_json(
        bridge,
        "handoff",
        "export",
        "--from",
        agent,
        "--session",
        session,
        "--to",
        "codex" if agent == "claude" else "claude",
        cwd=repo,
    )
    assert code == 0, err
    return json.loads(resolve(answer["packet"]).read_bytes())


def test_claude_120_turns_keep_objective_newest_summary_and_pending_work(bridge, git_repo, small_window):
    """The first objective survives the window, the newest summary is the checkpoint, the killed call is pending."""
    t = claude_long_session()
    claude_session(t, git_repo)
    packet = export(bridge, git_repo, "claude", t.session)
    assert packet["objective"]["text"] == OBJECTIVE
    assert packet["constraints"][0]["text"] == "Keep the --json flag working."
    summaries = packet["compactionSummaries"]
    assert len(summaries) == 2 and "Summary at turn 80" in summaries[0]["text"] and summaries[1]["text"] is None
    assert [p["input"] for p in packet["unresolved"]["pendingCommands"]] == ["pytest -q"]
    assert packet["nextAction"]["text"].startswith("Decide whether the pending Bash call")
    files = [f["path"] for f in packet["completedWork"]["filesChanged"]]
    assert sorted(files) == [f"cli/cmd{n}.py" for n in range(7)]
    kinds = {g["kind"]: g for g in packet["coverage"]["gaps"]}
    assert kinds["event_window"]["omittedEvents"] == packet["source"]["eventRange"]["totalEvents"] - 200
    assert kinds["malformed_lines"]["counts"] == {"invalid_json": 3}
    assert packet["source"]["agentVersion"] == "2.1.335"


def test_claude_120_turns_replay_to_the_same_packet(bridge, git_repo, small_window):
    """Exporting the long session twice at the same moment gives the same packet id."""
    from freezegun import freeze_time

    t = claude_long_session()
    claude_session(t, git_repo)
    with freeze_time("2026-12-01 10:00:00"):
        ids = [
            run_json(
                bridge,
                "handoff",
                "export",
                "--from",
                "claude",
                "--session",
                t.session,
                "--to",
                "codex",
                "--preview",
                cwd=git_repo,
            )[1]["packet"]
            for _ in range(2)
        ]
    assert ids[0] == ids[1]


def test_codex_120_turns_keep_objective_checkpoint_and_pending_call(bridge, git_repo, small_window):
    """A 120-turn rollout keeps the first objective, the newest compaction text and its unfinished call."""
    lines = codex_long_rollout()
    codex_rollout(lines, git_repo)
    packet = export(bridge, git_repo, "codex", thread_of(lines))
    assert packet["objective"]["text"] == OBJECTIVE
    assert "Summary at turn 80." in packet["compactionSummaries"][0]["text"]
    assert [p["tool"] for p in packet["unresolved"]["pendingCommands"]] == ["apply_patch"]
    messages = [m["text"] for m in packet["latestMessages"]]
    assert messages[0] == "step 119 done" and len(set(messages)) == len(messages)
    assert any(b["kind"] == "turn_aborted" for b in packet["unresolved"]["blockers"])
    assert "event_window" in [g["kind"] for g in packet["coverage"]["gaps"]]
