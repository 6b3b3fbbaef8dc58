"""The Codex rollout intake: whitelist fold, dedupe, pairing, fork replay, paging and redaction."""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from autopilot.commands.handoff import codex as handoff_codex
from autopilot.handoff.transcripts.codex_intake import intake
from tests.support.repo import FIXTURES

FIX = FIXTURES / "codex"


def fixture(name: str) -> Path:
    """The path of a committed rollout fixture."""
    return FIX / f"{name}.jsonl"


def entries(answer: dict) -> list[dict]:
    """The page's entries."""
    return answer["entries"]


def texts(answer: dict) -> list[tuple[str, str]]:
    """(kind, text) of every message entry on the page, newest first."""
    return [(e["kind"], e["text"]) for e in entries(answer) if e["kind"] in ("user", "assistant")]


def lines_of(name: str) -> list[str]:
    """The raw lines of a fixture."""
    return fixture(name).read_text(encoding="utf-8").splitlines()


def write_lines(path: Path, lines: list[str]) -> Path:
    """Write JSONL lines to ``path``."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def long_rollout(path: Path, copies: int) -> Path:
    """exec_tools' real lines with the body repeated ``copies`` times under fresh call ids."""
    head, *body = lines_of("exec_tools")
    out = [head]
    for k in range(copies):
        out += [re.sub(r':"(call_\w+)"', rf':"\1_{k}"', line) for line in body]
    return write_lines(path, out)


def cli(*args: str) -> tuple[int, dict]:
    """Run ``handoff from-codex ...`` through this module's parser; return (code, parsed stdout)."""
    parser = argparse.ArgumentParser(prog="codex-bridge handoff")
    handoff_codex.add_parser(parser.add_subparsers(dest="handoff_command", required=True))
    parsed = parser.parse_args(list(args))
    out = io.StringIO()
    with redirect_stdout(out):
        code = parsed.func(parsed)
    return code, json.loads(out.getvalue())


# --- session metadata and turn state -------------------------------------------------------


def test_session_metadata_comes_from_session_meta():
    """The session block carries the whitelisted session_meta fields of a real exec rollout."""
    session = intake(fixture("exec_tools"))["session"]
    assert {
        k: session[k]
        for k in (
            "cwd",
            "originator",
            "cliVersion",
            "source",
            "threadSource",
            "modelProvider",
            "historyMode",
            "model",
            "isSubagent",
        )
    } == {
        "cwd": "/home/user/proj",
        "originator": "codex_exec",
        "cliVersion": "0.171.0",
        "source": "exec",
        "threadSource": "user",
        "modelProvider": "fake",
        "historyMode": "paginated",
        "model": "gpt-6.2-sol",
        "isSubagent": False,
    }
    assert session["id"] == session["sessionId"] == json.loads(lines_of("exec_tools")[0])["payload"]["id"]


def test_legacy_session_reports_git_info():
    """A 2025-style session_meta yields its git commit, branch and remote."""
    session = intake(fixture("legacy_classic"))["session"]
    assert (session["source"], session["git"]) == (
        "cli",
        {"commitHash": "4f2a9c1", "branch": "main", "repositoryUrl": "git@example.invalid:acme/proj.git"},
    )


def test_finished_turn_is_complete():
    """A rollout whose last turn ended with task_complete reports the turn complete."""
    assert intake(fixture("exec_plain"))["turn"]["state"] == "complete"


def test_interrupted_turn_is_aborted():
    """A turn interrupted with SIGINT reports aborted with Codex's reason."""
    turn = intake(fixture("exec_aborted"))["turn"]
    assert (turn["state"], turn["reason"]) == ("aborted", "interrupted")


def test_killed_turn_is_still_running():
    """A turn whose process died without a closing event reports running."""
    assert intake(fixture("exec_running"))["turn"]["state"] == "running"


def test_rolled_back_turns_are_marked():
    """thread_rolled_back marks the dropped turn's entries and sets the state to rolled_back."""
    answer = intake(fixture("legacy_classic"))
    marked = [(e["kind"], e.get("text")) for e in entries(answer) if e.get("rolledBack")]
    assert answer["turn"]["state"] == "rolled_back"
    assert marked == [
        ("turn_aborted", None),
        ("assistant", "Updating docs/config.md now."),
        ("user", "Also update the docs"),
    ]


def test_revert_window_is_rolled_back():
    """A paginated window opened by thread/revert reports rolled_back and its history base."""
    answer = intake(fixture("app_revert_window"))
    assert answer["turn"]["state"] == "rolled_back"
    assert answer["fork"]["historyBase"]["threadId"] == answer["session"]["id"]


# --- messages -------------------------------------------------------------------------------


def test_paginated_messages_appear_once():
    """item_completed and response_item copies of each message give one entry, newest first."""
    assert texts(intake(fixture("exec_plain"))) == [
        ("assistant", "A CLI that prints the date."),
        ("user", "Suggest a small project"),
        ("assistant", "Hello! What should we build?"),
        ("user", "Say hello"),
    ]


def test_legacy_events_and_response_items_appear_once():
    """user_message/agent_message events and response_item copies give one entry each."""
    assert texts(intake(fixture("app_legacy_parent"))) == [
        ("assistant", "Fixed bug-1 in parser.py."),
        ("user", "Fix bug-1"),
        ("assistant", "Both bugs reproduce."),
        ("user", "Reproduce them"),
        ("assistant", "The tracker lists two open bugs."),
        ("user", "Which bugs are open?"),
    ]


def test_identical_messages_in_one_turn_are_both_kept(tmp_path):
    """Two genuinely repeated assistant messages stay two entries while their copies are dropped."""
    head, *body = lines_of("exec_plain")
    said = [line for line in body if "Hello! What should we build?" in line and "task_complete" not in line]
    assert len(said) == 2  # the item_completed and the response_item copy
    at = body.index(said[-1]) + 1
    rollout = write_lines(tmp_path / "r.jsonl", [head, *body[:at], *said, *body[at:]])
    assert [t for t in texts(intake(rollout)) if t[0] == "assistant"][-2:] == [
        ("assistant", "Hello! What should we build?"),
        ("assistant", "Hello! What should we build?"),
    ]


def test_harness_messages_are_not_prompts():
    """Environment context, goal notes and developer messages never become user entries."""
    answer = intake(fixture("app_legacy_parent"))
    assert not [t for k, t in texts(answer) if t.lstrip().startswith("<")]
    assert answer["diagnostics"]["omitted"]["harnessMessages"] >= 2


def test_prompt_images_are_listed_as_paths():
    """An image attached with -i is reported by its local path, never as image data."""
    first = [e for e in entries(intake(fixture("exec_tools"))) if e["kind"] == "user"][-1]
    assert (first["text"], first["images"]) == ("Add a greeting file", ["/home/user/proj/shot.png"])


def test_last_prompt_is_the_newest_human_prompt():
    """last_prompt is the latest thing the human typed."""
    assert intake(fixture("exec_tools"))["lastPrompt"] == "Check the environment"


# --- tools ----------------------------------------------------------------------------------


def test_tool_call_is_paired_with_its_result():
    """A function call carries its output, found by call_id, and the exit code."""
    call = next(e for e in entries(intake(fixture("exec_tools"))) if e.get("callId") == "call_cmd1")
    assert {k: call[k] for k in ("name", "input", "status")} == {
        "name": "exec_command",
        "input": "echo hi-from-tool",
        "status": "completed",
    }
    assert call["result"]["text"].endswith("Output:\nhi-from-tool\n") and call["result"]["exitCode"] == 0


def test_call_without_result_is_unfinished():
    """A call that never got an output is shown as unfinished work and listed as such."""
    answer = intake(fixture("exec_tools"))
    call = next(e for e in entries(answer) if e.get("callId") == "call_patch_bad")
    assert call["status"] == "unfinished"
    assert [c["callId"] for c in answer["unfinishedCalls"]] == ["call_patch_bad"]


def test_result_without_call_is_its_own_entry(tmp_path):
    """An output whose call is not in the file is shown alone, labelled as such."""
    head, *body = lines_of("exec_tools")
    rollout = write_lines(
        tmp_path / "r.jsonl",
        [head] + [line for line in body if '"call_cmd1","name"' not in line and '"function_call","status"' not in line],
    )
    orphans = [e for e in entries(intake(rollout, limit=50)) if e["kind"] == "tool_result"]
    assert [o["callId"] for o in orphans] == ["call_cmd2", "call_cmd1"]


def test_custom_patch_tool_records_the_edited_file():
    """An apply_patch custom tool call yields the edited path (applied), from its FileChange item."""
    assert intake(fixture("exec_tools"))["editedFiles"] == [
        {"path": "/home/user/proj/greeting.txt", "change": "add", "status": "applied", "line": 21}
    ]


def test_legacy_patch_apply_end_records_the_edited_file():
    """A 2025 patch_apply_end event yields the edited path."""
    files = intake(fixture("legacy_classic"))["editedFiles"]
    assert [(f["path"], f["change"], f["status"]) for f in files] == [
        ("/home/user/proj/src/config.py", "update", "applied")
    ]


def test_web_search_is_shown_as_its_query():
    """A web search call is evidence of what was searched, nothing more."""
    search = next(e for e in entries(intake(fixture("exec_tools"))) if e["kind"] == "web_search")
    assert {k: search[k] for k in ("action", "query", "status")} == {
        "action": "search",
        "query": "codex rollout format",
        "status": "completed",
    }


def test_generated_image_shows_its_prompt_not_its_bytes():
    """An image-generation call from the real binary shows the revised prompt; the base64 result never."""
    answer = intake(fixture("exec_image"))
    image = next(e for e in entries(answer) if e["kind"] == "image_generation")
    result = next(json.loads(x)["payload"]["result"] for x in lines_of("exec_image") if "image_generation_call" in x)
    assert (image["revisedPrompt"], image["status"]) == ("a single red dot on white", "completed")
    assert result[:40] not in json.dumps(answer)


def test_error_events_are_entries(tmp_path):
    """An error event is an entry with its message; its structured error info is not copied."""
    head, *body = lines_of("exec_plain")
    error = json.dumps(
        {
            "timestamp": "2026-11-30T12:00:00.000Z",
            "type": "event_msg",
            "payload": {
                "type": "error",
                "message": "stream disconnected: quota exceeded",
                "codex_error_info": {"x": "NEVER-INFO"},
            },
        }
    )
    answer = intake(write_lines(tmp_path / "r.jsonl", [head, *body, error]))
    assert {k: entries(answer)[0][k] for k in ("kind", "text")} == {
        "kind": "error",
        "text": "stream disconnected: quota exceeded",
    }
    assert "NEVER-INFO" not in json.dumps(answer)


def test_huge_tool_output_is_not_parsed_but_closes_its_call(tmp_path):
    """A tool output line too large to parse still completes its call, shown as too large."""
    head, *body = lines_of("exec_tools")
    at = next(i for i, line in enumerate(body) if '"function_call_output"' in line and "call_cmd1" in line)
    huge = json.loads(body[at])
    huge["payload"]["output"] = "x" * (9 << 20)
    body[at] = json.dumps(huge)
    answer = intake(write_lines(tmp_path / "r.jsonl", [head, *body]))
    call = next(e for e in entries(answer) if e.get("callId") == "call_cmd1")
    assert (call["status"], call["result"]["text"]) == ("completed", "[output too large to show]")
    assert len(answer["diagnostics"]["oversizeLines"]) == 1


# --- never emitted --------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(p.stem for p in FIX.glob("*.jsonl")))
def test_private_fields_never_reach_the_answer(name):
    """No NEVER-* marker (reasoning, encrypted, prompts, tools, world state, telemetry) is emitted."""
    dumped = json.dumps(intake(fixture(name), limit=500, max_chars=None))
    assert re.findall(r"NEVER-[A-Z-]+", dumped) == []


def test_private_fields_are_counted_as_omitted():
    """Every kind of private field in the marker fixture is counted, so its absence is visible."""
    omitted = intake(fixture("synthetic_markers"))["diagnostics"]["omitted"]
    for kind in (
        "baseInstructions",
        "dynamicTools",
        "developerMessages",
        "toolDefinitions",
        "harnessMessages",
        "reasoning",
        "encrypted",
        "worldState",
        "telemetry",
    ):
        assert omitted.get(kind, 0) >= 1, kind


def test_inter_agent_mail_omits_encrypted_parts():
    """A subagent's task mail shows its plain header only and counts the hidden part."""
    mail = next(e for e in entries(intake(fixture("subagent_child"))) if e["kind"] == "agent_mail")
    assert (mail["author"], mail["recipient"], mail["omittedParts"]) == ("/root", "/root/helper", 1)
    assert "Count the files" not in mail["text"]


# --- forks and subagents --------------------------------------------------------------------


def test_replayed_parent_history_is_not_new_work():
    """A legacy fork's copy of its parent's history is recognised by ids and kept out of the page."""
    answer = intake(fixture("app_legacy_fork"))
    parent_id = json.loads(lines_of("app_legacy_parent")[0])["payload"]["id"]
    assert texts(answer) == [("assistant", "In the fork: fixed bug-2 instead."), ("user", "Fix bug-2 in this fork")]
    assert answer["fork"]["forkedFromId"] == parent_id
    assert {k: answer["fork"]["replayed"][k] for k in ("fromLine", "toLine", "stillReplaying")} == {
        "fromLine": 2,
        "toLine": 56,
        "stillReplaying": False,
    }


def test_fork_of_a_fork_replays_both_ancestors(tmp_path):
    """A fork of a legacy fork skips the whole copied history, both ancestors' metas included."""
    fork_lines = lines_of("app_legacy_fork")
    meta = json.loads(fork_lines[0])
    own = "01a22c50-0000-7000-8000-000000000001"
    meta["payload"].update(id=own, forked_from_id=meta["payload"]["id"])
    ts = meta["timestamp"]
    settings = {"timestamp": ts, "type": "event_msg", "payload": {"type": "thread_settings_applied", "thread_id": own}}
    prompt = {"timestamp": ts, "type": "event_msg", "payload": {"type": "user_message", "message": "Grandchild work"}}
    rollout = write_lines(
        tmp_path / "r.jsonl", [json.dumps(meta), *fork_lines, json.dumps(settings), json.dumps(prompt)]
    )
    answer = intake(rollout)
    assert texts(answer) == [("user", "Grandchild work")]
    replayed = answer["fork"]["replayed"]
    assert (replayed["fromLine"], replayed["toLine"], replayed["lines"]) == (2, 67, 66)


def test_paginated_fork_points_at_its_parent_rollout(tmp_path):
    """An exec fork names its parent and the parent's rollout file in the same sessions tree."""
    day = tmp_path / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    parent_id = json.loads(lines_of("exec_fork_parent")[0])["payload"]["id"]
    child_id = json.loads(lines_of("exec_fork")[0])["payload"]["id"]
    parent = day / f"rollout-2026-11-30T11-45-16-{parent_id}.jsonl"
    shutil.copy(fixture("exec_fork_parent"), parent)
    shutil.copy(fixture("exec_fork"), day / f"rollout-2026-11-30T11-45-17-{child_id}.jsonl")
    fork = intake(day / f"rollout-2026-11-30T11-45-17-{child_id}.jsonl")["fork"]
    assert (fork["forkedFromId"], fork["parentRollout"]) == (parent_id, str(parent))
    assert fork["historyBase"] == {"threadId": parent_id, "endOrdinalExclusive": 18}


def test_subagent_pointer_finds_the_child_rollout(tmp_path):
    """A spawned subagent is listed with its agent path and rollout file."""
    day = tmp_path / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    child_id = json.loads(lines_of("subagent_child")[0])["payload"]["id"]
    child = day / f"rollout-2026-11-30T11-45-18-{child_id}.jsonl"
    shutil.copy(fixture("subagent_child"), child)
    shutil.copy(fixture("subagent_parent"), day / "rollout-2026-11-30T11-45-17-parent.jsonl")
    agents = intake(day / "rollout-2026-11-30T11-45-17-parent.jsonl")["subagents"]
    assert [(a["threadId"], a["agentPath"], a["status"], a["path"]) for a in agents] == [
        (child_id, "/root/helper", "completed", str(child))
    ]


def test_child_rollout_is_marked_as_a_subagent():
    """A subagent's own rollout says so and names its parent thread and agent path."""
    session = intake(fixture("subagent_child"))["session"]
    parent_id = json.loads(lines_of("subagent_parent")[0])["payload"]["id"]
    assert (session["isSubagent"], session["parentThreadId"], session["agentPath"]) == (True, parent_id, "/root/helper")


# --- goal, compaction, damage ---------------------------------------------------------------


def test_goal_is_reported():
    """The latest thread goal is summarised with its status."""
    goal = intake(fixture("app_legacy_parent"))["goal"]
    assert (goal["objective"], goal["status"]) == ("Fix both open bugs", "paused")


def test_compaction_is_counted_and_its_summary_is_the_checkpoint():
    """A compaction is counted; its plain summary (without Codex's framing) is the checkpoint."""
    answer = intake(fixture("app_legacy_parent"))
    assert answer["counts"]["compactions"] == 1
    assert answer["checkpoint"]["text"] == "Summary: two bugs found and reproduced; next, fix bug-1."
    assert not [t for k, t in texts(answer) if t.startswith("Summary:")]


def test_encrypted_compaction_is_never_a_checkpoint():
    """A compaction with only encrypted state is counted but gives no checkpoint."""
    answer = intake(fixture("synthetic_markers"))
    assert (answer["counts"]["compactions"], answer["checkpoint"]) == (1, None)


def test_malformed_lines_are_counted_and_skipped():
    """Bad JSON, bad UTF-8 and a cut-off last line are counted by reason; the rest is read."""
    answer = intake(fixture("synthetic_damage"))
    diagnostics = answer["diagnostics"]
    assert diagnostics["malformedLines"] == {"invalid_json": 1, "invalid_utf8": 1, "truncated": 1}
    assert diagnostics["partialLastLine"] is True
    assert len(texts(answer)) == 4


def test_unknown_types_are_counted_not_copied():
    """Unknown line and event types are counted by name; their contents never appear."""
    answer = intake(fixture("synthetic_damage"))
    assert answer["diagnostics"]["unknownTypes"] == {
        "lineTypes": {"holographic_snapshot": 1},
        "eventTypes": {"telepathy_update": 1},
    }
    assert "NEVER-UNKNOWN" not in json.dumps(answer)


def test_empty_file_gives_an_empty_answer(tmp_path):
    """An empty rollout answers with no session, no entries and no cursor."""
    answer = intake(write_lines(tmp_path / "empty.jsonl", []))
    assert (answer["session"], entries(answer), answer["nextBeforeLine"]) == (
        {"model": None, "isSubagent": False},
        [],
        None,
    )


# --- paging, index, bounds, redaction -------------------------------------------------------


def test_paging_returns_every_entry_exactly_once(tmp_path):
    """Following nextBeforeLine from the newest page visits each entry once, newest to oldest."""
    rollout = long_rollout(tmp_path / "long.jsonl", 20)
    seen, before = [], None
    while True:
        answer = intake(rollout, before_line=before, limit=7)
        seen += [e["line"] for e in entries(answer)]
        before = answer["nextBeforeLine"]
        if before is None:
            break
    assert seen == sorted(set(seen), reverse=True)
    assert len(seen) == intake(rollout)["counts"]["entries"] == 20 * 9


def test_before_cursor_is_exclusive():
    """Entries on a page all lie strictly before the given raw line."""
    answer = intake(fixture("exec_tools"), before_line=29)
    assert [e["line"] for e in entries(answer)] == [28, 24, 19, 14, 12]


def test_index_is_reused_and_only_appended_bytes_are_scanned(tmp_path):
    """A second intake reuses the cached index; after an append only the new bytes are scanned."""
    rollout = tmp_path / "r.jsonl"
    shutil.copy(fixture("exec_plain"), rollout)
    assert intake(rollout)["diagnostics"]["index"] == "built"
    assert intake(rollout)["diagnostics"]["index"] == "reused"
    extra = "".join(line + "\n" for line in lines_of("exec_tools")[1:])
    with open(rollout, "a", encoding="utf-8") as fh:
        fh.write(extra)
    grown = intake(rollout)
    assert (grown["diagnostics"]["index"], grown["diagnostics"]["scannedBytes"]) == ("extended", len(extra.encode()))
    fresh = intake(rollout, cache=False)
    assert (entries(grown), grown["turn"], grown["editedFiles"]) == (
        entries(fresh),
        fresh["turn"],
        fresh["editedFiles"],
    )


def test_long_strings_keep_head_and_tail():
    """A string over max_chars keeps its beginning and end with the omitted count between."""
    call = next(e for e in entries(intake(fixture("exec_tools"), max_chars=80)) if e.get("callId") == "call_cmd2")
    output = call["result"]["text"]
    assert output.startswith("Chunk ID:") and output.endswith("[REDACTED:openai_api_key]\n")
    assert re.search(r"…\[\d+ chars omitted\]…", output)


def test_full_keeps_whole_strings():
    """With max_chars None (--full) strings are not cut."""
    call = next(e for e in entries(intake(fixture("exec_tools"), max_chars=None)) if e.get("callId") == "call_cmd2")
    assert "omitted]" not in call["result"]["text"]


def test_secrets_are_redacted_and_counted():
    """A key printed by a tool is replaced by a placeholder and counted by kind."""
    answer = intake(fixture("exec_tools"))
    assert answer["redactions"] == {"total": 2, "by_kind": {"openai_api_key": 2}}
    assert "sk-proj-" not in json.dumps(answer)


def call_and_output(path: Path, call: dict, output: str) -> Path:
    """A rollout holding one tool call (its payload) and its output, after a real session_meta line."""
    result = {"type": "function_call_output", "call_id": "call_s", "output": output}
    rows = [
        {"type": "response_item", "payload": {**call, "call_id": "call_s"}},
        {"type": "response_item", "payload": result},
    ]
    stamped = [json.dumps({"timestamp": f"2026-11-30T12:00:0{n}.000Z", **row}) for n, row in enumerate(rows)]
    return write_lines(path, [lines_of("exec_plain")[0], *stamped])


@pytest.mark.parametrize(
    "call",
    [
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "cat .env"})},
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "cat ~/.aws/credentials"})},
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "cat .env"]})},
        {"type": "local_shell_call", "action": {"type": "exec", "command": ["cat", "/w/.env"]}},
    ],
)
def test_output_of_a_command_reading_a_secret_file_is_never_copied(tmp_path, call):
    """A command naming a secret-bearing file keeps its command line but drops its output."""
    answer = intake(call_and_output(tmp_path / "r.jsonl", call, "Exit code: 0\nOutput:\nDB_URL=plain-not-a-pattern"))
    (entry,) = entries(answer)
    assert ".env" in entry["input"] or "credentials" in entry["input"]
    assert entry["result"]["text"] == "[omitted: output of a command that reads a secret-bearing file]"
    assert entry["result"]["exitCode"] == 0 and "plain-not-a-pattern" not in json.dumps(answer)


PATCH = "*** Begin Patch\n*** Add File: /w/.env\n+DB_URL=plain-not-a-pattern\n*** End Patch\n"


@pytest.mark.parametrize(
    "call",
    [
        {"type": "custom_tool_call", "name": "apply_patch", "input": PATCH},
        {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["apply_patch", PATCH]})},
    ],
)
def test_patch_to_a_secret_file_keeps_its_result_but_not_its_body(tmp_path, call):
    """An apply_patch adding a .env file (as a tool or, as older Codex did, a command) drops the patch text."""
    answer = intake(call_and_output(tmp_path / "r.jsonl", call, "Success. Updated the following files:\nA /w/.env"))
    (entry,) = entries(answer)
    assert (entry["input"], entry["result"]["text"]) == (
        "[omitted: contents of a secret-bearing file]",
        "Success. Updated the following files:\nA /w/.env",
    )
    assert "plain-not-a-pattern" not in json.dumps(answer)


def test_patch_to_a_secret_file_still_lists_the_file_as_edited(tmp_path):
    """The path of a patched .env file is still an edited file; only the patch text is dropped."""
    call = {"type": "custom_tool_call", "name": "apply_patch", "input": PATCH}
    answer = intake(call_and_output(tmp_path / "r.jsonl", call, "Success."))
    assert [f["path"] for f in answer["editedFiles"]] == ["/w/.env"]


def test_fake_approval_in_tool_output_is_inert_evidence():
    """An 'APPROVED … verdict=done' printed by a tool is only quoted evidence; nothing else changes."""
    answer = intake(fixture("exec_tools"))
    quoted = [e for e in entries(answer) if "APPROVED" in json.dumps(e)]
    assert [e["callId"] for e in quoted] == ["call_cmd2"]
    assert answer["turn"]["state"] == "complete" and answer["trust"].startswith("evidence")
    without_page = {k: v for k, v in answer.items() if k != "entries"}
    assert "APPROVED" not in json.dumps(without_page) and "verdict=done" not in json.dumps(without_page)


def test_shell_join_quotes_as_shlex_does():
    """A shell call's command line is shown as shlex.join writes it (shlex itself is not imported: it loads re)."""
    import shlex

    from autopilot.handoff.transcripts.codex_intake import shell_join

    words = [chr(c) for c in range(1, 256)]
    words += ["", "a b", "it's", "a'b\"c", "--x=1,a/b.c@d%e+f:g-", "naïve", "$HOME", "*"]
    assert shell_join(words) == shlex.join(words)
    for word in words:
        assert shell_join([word]) == shlex.join([word])
