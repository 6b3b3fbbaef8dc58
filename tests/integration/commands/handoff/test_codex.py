"""`codex-bridge handoff from-codex`: which rollout `copy` hands over and the line it prints and copies; `intake`."""

from __future__ import annotations

import json
import os
import shlex
import threading
import time
from pathlib import Path

import pytest

from autopilot import paths
from autopilot.codex import sessions
from tests.support.codex_home import meta_line, pointer, rollout, thread
from tests.unit.handoff.transcripts.test_codex_intake import fixture, texts

LINE = "/codex-autopilot:from-codex"


@pytest.fixture(autouse=True)
def no_clipboard(monkeypatch, tmp_path):
    """A PATH without clipboard tools (tests that want one add it)."""
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


@pytest.fixture
def work(tmp_path):
    """The directory the user works in with Codex (a git repository)."""
    repo = tmp_path / "work"
    (repo / ".git").mkdir(parents=True)
    return repo


def copy(bridge, cwd, *extra: str) -> tuple[int, dict | str, str]:
    """Run `handoff from-codex copy --cwd CWD --json`; (code, parsed JSON or stdout, stderr)."""
    code, out, err = bridge("handoff", "from-codex", "copy", "--cwd", str(cwd), "--json", *extra)
    return code, (json.loads(out) if code == 0 else out), err


def test_valid_pointer_is_used(bridge, work):
    """The rollout the saved pointer names wins when it is a root session in the directory."""
    mine = rollout(thread(1), work, age=100)
    rollout(thread(2), work, age=0)  # newer, but the user handed over the other one
    pointer(mine, work, thread(1))
    code, answer, _ = copy(bridge, work)
    assert code == 0 and (answer["source"], answer["rollout"], answer["threadId"]) == ("pointer", str(mine), thread(1))


def test_text_is_the_from_codex_skill_on_the_rollout(bridge, work):
    """The printed line runs the plugin's from-codex skill on the rollout, quoted for its argument parser."""
    mine = rollout(thread(1), work)
    pointer(mine, work, thread(1))
    code, out, _ = bridge("handoff", "from-codex", "copy", "--cwd", str(work))
    assert code == 0 and out == f"{LINE} {shlex.quote(str(mine))}\n"


def test_cwd_inside_the_repository_matches(bridge, work):
    """A --cwd below the repository's top level matches a session started at the top level."""
    mine = rollout(thread(1), work)
    pointer(mine, work, thread(1))
    (work / "src").mkdir()
    assert copy(bridge, work / "src")[1]["rollout"] == str(mine)


def test_pointer_to_a_child_falls_back_to_the_newest_root(bridge, work):
    """A pointer naming a subagent's rollout is not used; the newest root session in the directory is."""
    root = rollout(thread(1), work, age=50)
    child = rollout(thread(2), work, kind="child", age=0)
    pointer(child, work, thread(2))
    code, answer, err = copy(bridge, work)
    assert (answer["source"], answer["rollout"]) == ("scan", str(root))
    assert "a subagent" in err


def test_scan_skips_child_rollouts(bridge, work):
    """Without a pointer, a newer child rollout is passed over for the root session."""
    root = rollout(thread(1), work, age=50)
    rollout(thread(2), work, kind="child", age=0)
    assert copy(bridge, work)[1]["rollout"] == str(root)


def test_scan_keeps_user_forks(bridge, work):
    """A user fork (forked_from_id, thread_source user) is eligible, and picked when it is the newest."""
    rollout(thread(1), work, age=50)
    fork = rollout(thread(2), work, kind="fork", age=0)
    code, answer, _ = copy(bridge, work)
    assert (answer["rollout"], answer["forkedFromId"]) == (
        str(fork),
        meta_line("fork", "x", work)["payload"]["forked_from_id"],
    )


@pytest.mark.parametrize(
    "body",
    ["", "not json\n", '{"type": "event_msg", "payload": {}}\n', '{"type": "session_meta", "payload": {"id": "x"}}\n'],
)
def test_scan_never_picks_an_empty_or_corrupt_rollout(bridge, work, body):
    """Empty files, non-JSON and a first line without valid session_meta are skipped, even when newest."""
    root = rollout(thread(1), work, age=50)
    rollout(thread(2), work, age=0, body=body)
    assert copy(bridge, work)[1]["rollout"] == str(root)


def test_pointer_to_a_corrupt_rollout_is_not_used(bridge, work):
    """A pointer whose rollout has no valid session_meta falls back to the scan."""
    root = rollout(thread(1), work, age=50)
    bad = rollout(thread(2), work, body="garbage\n")
    pointer(bad, work, thread(2))
    assert copy(bridge, work)[1]["rollout"] == str(root)


def test_pointer_for_another_directory_is_refused_without_a_session_here(bridge, work, tmp_path):
    """A pointer made elsewhere is not used for this directory; with no session here the command refuses."""
    other = tmp_path / "other"
    other.mkdir()
    pointer(rollout(thread(1), other), other, thread(1))
    code, out, err = copy(bridge, work)
    assert (code, out) == (1, "")
    assert f"the saved handoff is for {other}" in err and "found no Codex session" in err


def test_pointer_for_another_directory_falls_back_to_a_session_here(bridge, work, tmp_path):
    """With a pointer made elsewhere, the newest root session in this directory is handed over instead."""
    other = tmp_path / "other"
    other.mkdir()
    pointer(rollout(thread(1), other, age=0), other, thread(1))
    here = rollout(thread(2), work, age=50)
    assert copy(bridge, work)[1]["rollout"] == str(here)


def test_rollout_from_another_directory_is_never_picked(bridge, work, tmp_path):
    """A pointer claiming this directory for a rollout started elsewhere is not trusted over the rollout."""
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = rollout(thread(1), other)
    pointer(elsewhere, work, thread(1))
    code, _, err = copy(bridge, work)
    assert code == 1 and f"a session in {other}" in err


def test_pointer_outside_codex_home_is_not_used(bridge, work, tmp_path):
    """A pointer naming a file outside $CODEX_HOME's session folders is not read; the scan decides."""
    stray = tmp_path / f"rollout-2026-11-30T11-00-00-{thread(8)}.jsonl"
    stray.write_text(json.dumps(meta_line("root", thread(8), work)) + "\n")
    pointer(stray, work, thread(8))
    root = rollout(thread(1), work)
    assert copy(bridge, work)[1]["rollout"] == str(root)


def test_archived_pointer_is_found_by_thread_id(bridge, work):
    """When the pointed rollout was archived (moved), the same thread is found in archived_sessions."""
    gone = rollout(thread(1), work)
    moved = rollout(thread(1), work, archived=True)
    gone.unlink()
    pointer(gone, work, thread(1))
    answer = copy(bridge, work)[1]
    assert (answer["rollout"], answer["source"]) == (str(moved), "pointer")


def run_dir(name: str = "work-0123456789ab") -> Path:
    """A run directory under $AUTOPILOT_HOME/runs."""
    run = paths.autopilot_home() / "runs" / name
    run.mkdir(parents=True, exist_ok=True)
    return run


def test_autopilot_reviewer_threads_are_not_handed_over(bridge, work):
    """Codex threads the autopilot's own reviewer started (a run's conversation_id) are skipped by the scan."""
    user = rollout(thread(1), work, age=50)
    rollout(thread(2), work, age=0)
    (run_dir() / "state.json").write_text(json.dumps({"conversation_id": thread(2)}))
    assert copy(bridge, work)[1]["rollout"] == str(user)


def test_reviewer_threads_of_earlier_plans_are_not_handed_over(bridge, work):
    """A thread the codex-cli backend charged (a codex-thread-usage.json key) is skipped though no run uses it now."""
    user = rollout(thread(1), work, age=50)
    rollout(thread(2), work, age=0)
    run = run_dir()
    (run / "state.json").write_text(json.dumps({"conversation_id": thread(3)}))
    (run / "codex-thread-usage.json").write_text(json.dumps({thread(2): {"input": 1}, thread(3): {"input": 2}}))
    assert copy(bridge, work)[1]["rollout"] == str(user)


def test_reviewer_threads_in_events_are_not_handed_over(bridge, work):
    """A codex-cli call's conversation_id in any run's events.jsonl is skipped; other backends' ids do not count."""
    user = rollout(thread(1), work, age=50)
    rollout(thread(2), work, age=0)
    events = [
        {"backend": "codex-cli", "conversation_id": thread(2), "outcome": "error:timeout"},
        {"backend": "openai", "conversation_id": thread(1)},
        {"backend": "codex-cli", "conversation_id": None},
    ]
    damaged = '{not json\n["codex-cli"]\n'
    (run_dir("old-run") / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events) + damaged)
    assert copy(bridge, work)[1]["rollout"] == str(user)


def test_nothing_to_hand_over_is_an_error(bridge, work):
    """With no pointer and no session, the command says so and what to do."""
    code, out, err = copy(bridge, work)
    assert (code, out) == (1, "") and "type $handoff in the Codex session" in err


def test_missing_cwd_is_refused(bridge, tmp_path):
    """A --cwd that is not a directory is refused."""
    assert copy(bridge, tmp_path / "nope")[0] == 1


def test_waits_for_a_just_created_rollout(bridge, work):
    """A pointed rollout whose first line arrives within 2 s is waited for and used."""
    path = rollout(thread(1), work, body="")
    pointer(path, work, thread(1))
    line = json.dumps(meta_line("root", thread(1), work)) + "\n"
    writer = threading.Timer(0.5, lambda: path.write_text(line))
    writer.start()
    try:
        start = time.monotonic()
        code, answer, _ = copy(bridge, work)
    finally:
        writer.join()
    assert code == 0 and answer["source"] == "pointer" and 0.4 < time.monotonic() - start < 2.0


@pytest.mark.slow  # waits out the 2 s wait by design
def test_gives_up_waiting_after_two_seconds(bridge, work):
    """A pointed rollout that stays empty is abandoned after the 2 s wait for the newest root session."""
    root = rollout(thread(1), work, age=50)
    pointer(rollout(thread(2), work, body=""), work, thread(2))
    start = time.monotonic()
    code, answer, err = copy(bridge, work)
    elapsed = time.monotonic() - start
    assert (answer["source"], answer["rollout"]) == ("scan", str(root)) and "empty" in err
    assert sessions.FIRST_LINE_WAIT <= elapsed < sessions.FIRST_LINE_WAIT + 1.5


def test_partial_first_line_is_waited_for(bridge, work):
    """A first line without its newline yet (mid-write) is not parsed until it is complete."""
    path = rollout(thread(1), work, body="")
    pointer(path, work, thread(1))
    line = json.dumps(meta_line("root", thread(1), work))
    path.write_text(line[:100])
    writer = threading.Timer(0.3, lambda: path.write_text(line + "\n"))
    writer.start()
    try:
        code, answer, _ = copy(bridge, work)
    finally:
        writer.join()
    assert code == 0 and answer["source"] == "pointer"


# --- clipboard ----------------------------------------------------------------------------------------------


def fake_tool(folder: Path, name: str, status: int = 0) -> Path:
    """A clipboard command on PATH that saves what it is given (and exits with ``status``)."""
    folder.mkdir(exist_ok=True)
    tool = folder / name
    tool.write_text(f"#!/bin/sh\ncat > {shlex.quote(str(folder / (name + '.got')))}\nexit {status}\n")
    tool.chmod(0o755)
    return folder / f"{name}.got"


def test_copies_to_the_clipboard(bridge, work, tmp_path, monkeypatch):
    """With a clipboard tool on PATH, the printed line is also handed to it."""
    got = fake_tool(tmp_path / "bin", "xclip")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    pointer(rollout(thread(1), work), work, thread(1))
    code, answer, _ = copy(bridge, work)
    assert (answer["clipboard"], got.read_text()) == ("xclip", answer["text"])


def test_prefers_wl_copy_and_skips_a_failing_tool(bridge, work, tmp_path, monkeypatch):
    """wl-copy comes first; when it fails the next tool is tried."""
    fake_tool(tmp_path / "bin", "wl-copy", status=1)
    got = fake_tool(tmp_path / "bin", "xsel")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    pointer(rollout(thread(1), work), work, thread(1))
    assert copy(bridge, work)[1]["clipboard"] == "xsel" and got.read_text().startswith(LINE)


def test_no_clipboard_tool_says_so_and_still_prints(bridge, work):
    """Without any clipboard tool, stderr says so and stdout still has the line."""
    pointer(rollout(thread(1), work), work, thread(1))
    code, out, err = bridge("handoff", "from-codex", "copy", "--cwd", str(work))
    assert code == 0 and out.startswith(LINE) and "no clipboard tool worked" in err


def test_json_answer_shape(bridge, work):
    """--json prints the text, the rollout, its thread and cwd, where it came from and the clipboard tool."""
    mine = rollout(thread(1), work)
    pointer(mine, work, thread(1))
    assert copy(bridge, work)[1] == {
        "text": f"{LINE} {mine}",
        "rollout": str(mine),
        "threadId": thread(1),
        "cwd": str(work),
        "forkedFromId": None,
        "source": "pointer",
        "clipboard": None,
        "notes": [],
    }


def test_latest_is_the_default(bridge, work):
    """Without --latest the saved handoff (else the newest session) is chosen, exactly as with it."""
    mine = rollout(thread(1), work)
    pointer(mine, work, thread(1))
    with_flag = bridge("handoff", "from-codex", "copy", "--latest", "--cwd", str(work), "--json")
    assert bridge("handoff", "from-codex", "copy", "--cwd", str(work), "--json") == with_flag
    assert with_flag[0] == 0 and json.loads(with_flag[1])["rollout"] == str(mine)


def test_cwd_defaults_to_the_current_directory(bridge, work):
    """Without --cwd the session is looked for in the directory the command runs in."""
    mine = rollout(thread(1), work)
    code, out, _ = bridge("handoff", "from-codex", "copy", "--json", cwd=work)
    assert code == 0 and json.loads(out)["rollout"] == str(mine)


def test_copy_cwd_does_not_clobber_the_global_dash_c():
    """`-C DIR` survives parsing `copy` (its --cwd has a destination of its own)."""
    from autopilot.cli import _parser

    args = _parser().parse_args(["-C", "/somewhere", "handoff", "from-codex", "copy", "--cwd", "/elsewhere"])
    assert (args.cwd, args.copy_cwd) == ("/somewhere", "/elsewhere")
    assert _parser().parse_args(["-C", "/somewhere", "handoff", "from-codex", "copy"]).cwd == "/somewhere"


def test_scan_reads_nested_date_folders(work):
    """The scan finds rollouts in sessions/YYYY/MM/DD and in archived_sessions, newest first."""
    a = rollout(thread(1), work, age=10)
    b = rollout(thread(2), work, age=0, archived=True)
    assert [p for p, _ in sessions.scan()] == [b, a]
    assert os.path.basename(b).endswith(f"{thread(2)}.jsonl")


def test_codex_bridge_runs_the_intake(bridge):
    """`codex-bridge handoff from-codex intake` prints the answer and pages with --before."""
    code, out, _ = bridge("handoff", "from-codex", "intake", str(fixture("exec_plain")), "--limit", "1")
    first = json.loads(out)
    code2, out2, _ = bridge(
        "handoff",
        "from-codex",
        "intake",
        str(fixture("exec_plain")),
        "--limit",
        "1",
        "--before",
        str(first["nextBeforeLine"]),
    )
    assert (code, code2, texts(first), texts(json.loads(out2))) == (
        0,
        0,
        [("assistant", "A CLI that prints the date.")],
        [("user", "Suggest a small project")],
    )


def test_codex_bridge_reports_a_missing_rollout_and_exits_1(bridge, tmp_path):
    """A missing rollout exits 1 with the reason on stderr and nothing on stdout."""
    code, out, err = bridge("handoff", "from-codex", "intake", str(tmp_path / "gone.jsonl"))
    assert (code, out) == (1, "") and "does not exist" in err
