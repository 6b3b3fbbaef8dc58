"""codex-bridge handoff checkpoint | active | recover through the CLI, on real files and transcripts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from autopilot.scripted.responses_server import ResponsesServer
from tests.support.claude_rows import Transcript, text, tool_use
from tests.support.handoff_env import claude_session, codex_rollout
from tests.support.hooks import SESSION, payload
from tests.support.messages_server import MessagesServer

CHECKPOINT = {
    "objective": "Make the parser accept empty input",
    "constraints": ["never change the public API"],
    "next_action": "run pytest -q tests/test_parser.py",
    "unresolved": ["empty input crashes parse()"],
    "completed": ["wrote a failing test"],
}


def store_dir(repo: Path, agent: str = "claude", session: str = SESSION) -> Path:
    return Path(observe.session_dir(os.path.realpath(repo), agent, session))


def hook(bridge, event: str, repo: Path, **fields) -> None:
    code, _, err = bridge("hook", event, stdin=json.dumps(payload(event, repo, **fields)))
    assert code == 0, err


def checkpoint(bridge, repo: Path, body: object, *flags: str, session: str = SESSION):
    raw = body if isinstance(body, str) else json.dumps(body)
    return bridge(
        "-C",
        str(repo),
        "handoff",
        "checkpoint",
        "--agent",
        "claude",
        "--session",
        session,
        "--file",
        "-",
        *flags,
        stdin=raw,
    )


def active(bridge, repo: Path, session: str = SESSION, agent: str = "claude") -> dict:
    code, out, err = bridge("-C", str(repo), "handoff", "active", "--agent", agent, "--session", session, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def recorded(git_repo, bridge):
    """A session the hooks have seen start and take one prompt."""
    hook(bridge, "SessionStart", git_repo, source="startup")
    hook(bridge, "UserPromptSubmit", git_repo, prompt="Fix the parser. Never change the public API.")
    return git_repo


# --- checkpoint ----------------------------------------------------------------------------------------


def test_checkpoint_is_stored_as_the_agents_claim(recorded, bridge):
    """A valid checkpoint is appended with its hash and labelled as the agent's claim."""
    code, out, err = checkpoint(bridge, recorded, CHECKPOINT)
    answer = json.loads(out)
    assert code == 0 and answer["stored"] and answer["checkpoint"] == CHECKPOINT
    assert "claim" in answer["claim"] and "not proof" in answer["claim"] and answer["sha256"].startswith("sha256:")
    (line,) = (store_dir(recorded) / observe.CHECKPOINTS).read_text().splitlines()
    assert json.loads(line)["checkpoint"] == CHECKPOINT


def test_checkpoint_from_a_file(recorded, bridge, tmp_path):
    """--file F reads the checkpoint from a file; the lists default to empty."""
    f = tmp_path / "cp.json"
    f.write_text(json.dumps({"objective": "o", "next_action": "n"}))
    code, out, _ = bridge(
        "-C", str(recorded), "handoff", "checkpoint", "--agent", "claude", "--session", SESSION, "--file", str(f)
    )
    assert code == 0 and json.loads(out)["checkpoint"]["unresolved"] == []


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("{not json", "not valid JSON"),
        ({"objective": "o"}, "'next_action' is missing"),
        ({**CHECKPOINT, "unresolved": "one thing"}, "unresolved: must be a JSON array, not str"),
        ({**CHECKPOINT, "next_action": "   "}, "next_action: is blank"),
        ({**CHECKPOINT, "notes": "x"}, "Additional properties are not allowed"),
        ([CHECKPOINT], "the checkpoint: must be a JSON object, not list"),
        ({**CHECKPOINT, "completed": ["x" * 501]}, "completed/0: must be at most 500 characters"),
    ],
)
def test_a_bad_checkpoint_is_refused_in_one_line_and_nothing_is_stored(recorded, bridge, body, said):
    """Malformed JSON or a schema violation: exit 1, one line saying what is wrong, no checkpoint written."""
    code, out, err = checkpoint(bridge, recorded, body)
    assert code == 1 and out == "" and said in err and len(err.strip().splitlines()) == 1
    assert not (store_dir(recorded) / observe.CHECKPOINTS).exists()


def test_a_checkpoint_for_an_unknown_session_is_refused(git_repo, bridge):
    """A session no hook recorded here and no transcript names is refused; nothing is created."""
    code, _, err = checkpoint(bridge, git_repo, CHECKPOINT, session="99999999-aaaa-4bbb-8ccc-000000000009")
    assert code == 1 and "no claude session" in err
    assert not store_dir(git_repo, session="99999999-aaaa-4bbb-8ccc-000000000009").exists()


def test_a_checkpoint_for_a_session_known_by_its_transcript_is_stored(git_repo, bridge):
    """A session whose hooks never ran (its transcript exists) can be checkpointed."""
    t = Transcript()
    t.user("hello")
    claude_session(t, git_repo)
    code, _, err = checkpoint(bridge, git_repo, CHECKPOINT, session=t.session)
    assert code == 0, err


def test_a_session_id_that_is_a_path_is_refused(git_repo, bridge):
    """--session must look like an id: a path is refused before anything is read."""
    code, _, err = checkpoint(bridge, git_repo, CHECKPOINT, session="../../etc")
    assert code == 1 and "is not a session id" in err


# --- active --------------------------------------------------------------------------------------------


def test_active_shows_the_reduced_state_coverage_and_history(recorded, bridge):
    """The view has the objective with its source, the checkpoint's age, coverage and the injection history."""
    checkpoint(bridge, recorded, CHECKPOINT)
    view = active(bridge, recorded)
    assert (view["objective"]["text"], view["objective"]["source"]) == (CHECKPOINT["objective"], "checkpoint")
    assert view["nextAction"]["text"] == CHECKPOINT["next_action"]
    assert [u["text"] for u in view["unresolved"]] == CHECKPOINT["unresolved"]
    assert view["checkpoint"]["ageSeconds"] >= 0 and view["checkpoint"]["count"] == 1
    assert view["coverage"]["status"] == "degraded"  # the hook payload's transcript does not exist
    assert [r["kind"] for r in view["coverage"]["reasons"]] == ["transcript_missing"]
    assert view["injections"] == {"total": 0, "shown": []}
    assert view["trust"].startswith("evidence-only")


def test_active_as_text_names_the_claim(recorded, bridge):
    """Without --json the view is text for a person."""
    checkpoint(bridge, recorded, CHECKPOINT)
    code, out, _ = bridge("-C", str(recorded), "handoff", "active", "--agent", "claude", "--session", SESSION)
    assert code == 0 and "Next action: run pytest -q tests/test_parser.py  [checkpoint]" in out
    assert "the agent's claim" in out


def test_active_for_an_unknown_session_says_so(git_repo, bridge):
    """No store and no transcript: exit 1 and a hint to list the sessions."""
    code, _, err = bridge("-C", str(git_repo), "handoff", "active", "--agent", "claude", "--session", SESSION)
    assert code == 1 and "no active memory" in err and "handoff list" in err


def test_active_points_to_the_worktree_that_has_the_session(recorded, bridge, tmp_path):
    """A session recorded in another worktree is not shown here; the error names where it is."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    code, _, err = bridge("-C", str(other), "handoff", "active", "--agent", "claude", "--session", SESSION)
    assert code == 1 and os.path.realpath(recorded) in err


def test_a_corrupt_state_file_is_moved_aside_and_reported(recorded, bridge):
    """active.json that cannot be parsed is moved aside (bytes kept), reported, and the state rebuilt from the logs."""
    state = store_dir(recorded) / "active.json"
    state.write_text("{ half a file")
    view = active(bridge, recorded)
    (aside,) = store_dir(recorded).glob("active.json.corrupt-*")
    assert aside.read_text() == "{ half a file" and not state.exists()
    assert "state_file_corrupt" in [r["kind"] for r in view["coverage"]["reasons"]]
    assert view["objective"]["text"].startswith("Fix the parser")


def test_malformed_log_lines_are_counted_not_fatal(recorded, bridge):
    """A broken line in observations.jsonl is skipped and counted in coverage."""
    with open(store_dir(recorded) / observe.LOG, "a") as fh:
        fh.write("not json\n[1, 2]\n")
    view = active(bridge, recorded)
    (reason,) = [r for r in view["coverage"]["reasons"] if r["kind"] == "malformed_lines"]
    assert reason["counts"] == {"observations": 2} and view["requests"] == 1


def test_active_redacts_secrets(git_repo, bridge):
    """A credential in a prompt is redacted before it is stored, so the view shows only its placeholder."""
    hook(bridge, "UserPromptSubmit", git_repo, prompt="deploy with key AKIAABCDEFGHIJKLMNOP please")
    view = active(bridge, git_repo)
    assert "AKIAABCDEFGHIJKLMNOP" not in json.dumps(view) and "[REDACTED:aws_access_key_id]" in json.dumps(view)
    assert "AKIAABCDEFGHIJKLMNOP" not in (store_dir(git_repo) / observe.LOG).read_text()


# --- search ------------------------------------------------------------------------------------------


def search(bridge, repo: Path, query: str) -> dict:
    code, out, err = bridge("-C", str(repo), "handoff", "search", query, "--json")
    assert code == 0, err
    return json.loads(out)


def test_search_finds_a_checkpoint_written_a_moment_ago(recorded, bridge):
    """A checkpoint is searchable at once, labelled as a checkpoint of this session; a newer one replaces it."""
    checkpoint(bridge, recorded, CHECKPOINT)
    (hit,) = [r for r in search(bridge, recorded, "empty input crashes")["results"] if r["kind"] == "checkpoint"]
    assert "unresolved: empty input crashes parse()" in hit["excerpt"] and hit["session"] == SESSION
    checkpoint(bridge, recorded, {**CHECKPOINT, "unresolved": ["the lexer drops tabs"]})
    texts = [r["excerpt"] for r in search(bridge, recorded, "lexer drops tabs")["results"] if r["kind"] == "checkpoint"]
    assert texts and all("the lexer drops tabs" in t for t in texts)


def test_search_does_not_show_another_worktrees_memory(recorded, bridge, tmp_path):
    """A checkpoint recorded in one repository is not evidence in an unrelated one."""
    checkpoint(bridge, recorded, CHECKPOINT)
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    code, out, err = bridge("-C", str(other), "handoff", "search", "empty input crashes", "--json")
    assert code == 0, err
    assert [r for r in json.loads(out)["results"] if r["kind"] == "checkpoint"] == []


# --- recover -------------------------------------------------------------------------------------------


def work_transcript(repo: Path) -> Transcript:
    """A Claude session that edited a file, ran the tests (failing, then passing) and was compacted."""
    t = Transcript()
    t.user("Fix the parser. Never change the public API.")
    t.assistant(tool_use("Edit", {"file_path": f"{repo}/parser.py", "old_string": "a", "new_string": "b"}, "toolu_e1"))
    t.result("toolu_e1", "ok")
    t.assistant(tool_use("Bash", {"command": "pytest -q"}, "toolu_b1"))
    t.result("toolu_b1", "Exit code 1\n1 failed, 3 passed", is_error=True)
    t.assistant(text("The test fails; fixing."))
    t.compact("SUMMARY: parser half fixed")
    t.user("go on")
    t.assistant(tool_use("Bash", {"command": "pytest -q"}, "toolu_b2"))
    t.result("toolu_b2", "4 passed")
    return t


def test_recover_rebuilds_what_the_hooks_missed(git_repo, bridge):
    """From the transcript alone: requests, the edit, both runs (the later pass wins) and the compaction."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    code, out, err = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    summary = json.loads(out)
    assert code == 0, err
    assert summary["added"] == {"compact": 1, "edit": 1, "model": 1, "request": 2, "run": 2}
    view = active(bridge, git_repo, session=t.session)
    assert view["objective"]["text"].startswith("Fix the parser") and view["objective"]["source"] == "first-request"
    assert [(v["command"], v["outcome"], v["previous"]) for v in view["recentEvidence"]["validation"]] == [
        ("pytest -q", "pass", "fail")
    ]
    assert len(view["compactions"]) == 1
    kinds = [r["kind"] for r in view["coverage"]["reasons"]]
    assert view["coverage"]["status"] == "degraded" and kinds[:2] == ["hooks_missing", "recovered"]


def test_recover_makes_no_model_request(git_repo, tmp_path):
    """recover as its own process, every model route pointed at a recorder (both APIs, codex and claude on PATH):
    it rebuilds the session and none of them is asked anything."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    calls = tmp_path / "agent-calls"
    shims = tmp_path / "bin"
    shims.mkdir()
    for name in ("codex", "claude"):
        (shims / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{calls}"\nexit 1\n')
        (shims / name).chmod(0o755)
    with ResponsesServer() as openai, MessagesServer() as anthropic:
        env = {
            **os.environ,
            **anthropic.env(),
            "OPENAI_BASE_URL": openai.url,
            "OPENAI_API_KEY": "sk-test-not-a-real-key",
            "AUTOPILOT_BACKEND": "openai",
            "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}",
        }
        done = subprocess.run(
            [sys.executable, "-m", "autopilot", "-C", str(git_repo), "handoff", "recover", "--from", "claude",
             "--session", t.session],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert sum(json.loads(done.stdout)["added"].values()) == 7
        assert (openai.requests, anthropic.log, calls.exists()) == ([], [], False)


def test_recovered_observations_count_what_recover_added(git_repo, bridge):
    """handoff active counts the observations recover rebuilt, not the recovery marker it writes with them."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    code, out, _ = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    added = sum(json.loads(out)["added"].values())
    coverage = active(bridge, git_repo, session=t.session)["coverage"]
    assert (added, coverage["recoveredObservations"], coverage["hookObservations"]) == (7, 7, 0)


def test_recovered_observations_are_found_by_search(git_repo, bridge):
    """recover, then handoff search: the rebuilt request is found, labelled as recovered, pointing at its line."""
    t = work_transcript(git_repo)
    path = claude_session(t, git_repo)
    bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    code, out, err = bridge("-C", str(git_repo), "handoff", "search", "parser public API", "--json")
    assert code == 0, err
    results = json.loads(out)["results"]  # the work done in answer to the request, then the request (issue 37)
    (hit,) = [r for r in results if r["role"] == "memory.request"]
    work = [r for r in results if r is not hit]
    assert work and all(r["via"]["rel"] == "answers" and r["session"] == t.session for r in work)
    assert work[0]["rank"] < hit["rank"] and all(r["via"]["rank"] == hit["rank"] for r in work)
    assert (hit["kind"], hit["role"], hit["excerpt"], hit["session"]) == (
        "observation", "memory.request", "Fix the parser. Never change the public API.", t.session
    )  # fmt: skip
    assert {k: hit["pointer"][k] for k in ("via", "source", "line", "log")} == {
        "via": "recover", "source": str(path), "line": 1, "log": "observations.jsonl"
    }  # fmt: skip
    code, out, _ = bridge("-C", str(git_repo), "handoff", "search", "parser public API")
    assert code == 0 and "(recovered from the transcript)" in out and f"line 1 of {path}" in out


def test_recover_twice_adds_nothing(git_repo, bridge):
    """A second recover writes nothing at all."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    log = store_dir(git_repo, session=t.session) / observe.LOG
    before = log.read_bytes()
    code, out, _ = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    assert code == 0 and json.loads(out)["added"] == {} and not json.loads(out)["changed"]
    assert log.read_bytes() == before


def test_recover_skips_what_the_hooks_already_recorded(git_repo, bridge):
    """Observations the hooks made (same call ids, same prompt) are not added again."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    event = payload("UserPromptSubmit", git_repo, prompt="Fix the parser. Never change the public API.")
    event["session_id"] = t.session
    bridge("hook", "UserPromptSubmit", stdin=json.dumps(event))
    edit = payload("PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": f"{git_repo}/parser.py"})
    edit.update(session_id=t.session, tool_use_id="toolu_e1", tool_response={})
    bridge("hook", "PostToolUse", stdin=json.dumps(edit))
    code, out, _ = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    added = json.loads(out)["added"]
    assert code == 0 and "edit" not in added and added["run"] == 2


def test_recover_never_replaces_checkpointed_unresolved_work(git_repo, bridge):
    """Recovered observations add to a session; the checkpoint's unresolved items are still all there."""
    t = work_transcript(git_repo)
    claude_session(t, git_repo)
    checkpoint(bridge, git_repo, CHECKPOINT, session=t.session)
    bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    view = active(bridge, git_repo, session=t.session)
    assert [u["text"] for u in view["unresolved"] if u["source"] == "checkpoint"] == CHECKPOINT["unresolved"]
    assert view["objective"]["text"] == CHECKPOINT["objective"]


def test_recover_of_an_unknown_session_fails(git_repo, bridge):
    """No transcript of that session: exit 1, nothing written."""
    code, _, err = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", SESSION)
    assert code == 1 and "no Claude Code session" in err
    assert not store_dir(git_repo).exists()


def test_recover_when_the_transcript_disappeared(recorded, bridge):
    """The hooks recorded a session whose transcript is gone: recover refuses, the memory is untouched."""
    log = store_dir(recorded) / observe.LOG
    before = log.read_bytes()
    code, _, err = bridge("-C", str(recorded), "handoff", "recover", "--from", "claude", "--session", SESSION)
    assert code == 1 and "no Claude Code session" in err and log.read_bytes() == before


def test_recover_of_a_session_in_another_worktree_is_refused(git_repo, bridge, tmp_path):
    """A transcript recorded in another repository is never read into this one."""
    t = work_transcript(git_repo)
    other = tmp_path / "elsewhere"
    other.mkdir()
    claude_session(t, other)
    code, _, err = bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    assert code == 1 and not store_dir(git_repo, session=t.session).exists()


def test_recover_reads_codex_exit_codes_and_compactions(git_repo, bridge):
    """A Codex rollout gives the run's exit code and the compaction the hooks could not see."""
    rollout = codex_rollout("compact_auto", git_repo)
    thread = json.loads(rollout.read_text().splitlines()[0])["payload"]["id"]
    code, out, err = bridge("-C", str(git_repo), "handoff", "recover", "--from", "codex", "--session", thread)
    assert code == 0, err
    assert json.loads(out)["added"]["compact"] == 1
    view = active(bridge, git_repo, session=thread, agent="codex")
    assert view["objective"]["text"] == "auto compact test" and len(view["compactions"]) == 1


def test_recover_records_the_names_each_edit_changed(git_repo, bridge):
    """recover names what each edit of a file changed, so search finds the earlier edit by its own symbol."""
    (git_repo / "parser.py").write_text("def parse_header(line):\n    return split_fields(line)\n")
    t = Transcript()
    t.user("Fix the parser.")
    for n, (old, new) in enumerate([("line.split(':')", "split_fields(line)"), ("rows", "list(rows)")]):
        t.assistant(
            tool_use("Edit", {"file_path": f"{git_repo}/parser.py", "old_string": old, "new_string": new}, f"e{n}")
        )
        t.result(f"e{n}", "ok")
    claude_session(t, git_repo)
    bridge("-C", str(git_repo), "handoff", "recover", "--from", "claude", "--session", t.session)
    log = [json.loads(x) for x in (store_dir(git_repo, session=t.session) / observe.LOG).read_text().splitlines()]
    assert [o.get("names") for o in log if o["kind"] == "edit"] == [["parse_header", "split_fields", "split"], ["list"]]
    code, out, err = bridge("-C", str(git_repo), "handoff", "search", "split_fields", "--json")
    assert code == 0, err
    assert [(r["role"], r["pointer"]["line"]) for r in json.loads(out)["results"]] == [("memory.edit", 2)]
