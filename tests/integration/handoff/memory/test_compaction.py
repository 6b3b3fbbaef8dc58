"""A compaction and the active memory: the checkpoint before it, the summary compared after it, and what comes back.

The hooks run in-process as Claude Code and Codex call them (their order at a compaction was seen with the real
binaries: docs/memory.md, "What the clients deliver").
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from autopilot.handoff.memory import compaction, observe
from tests.support.hooks import SESSION, context_of, run_hook

CHECKPOINT = {
    "objective": "Make the parser accept trailing commas",
    "constraints": ["keep the public API unchanged"],
    "next_action": "NEXT-MARKER rewrite the tokenizer loop",
    "unresolved": ["UNRESOLVED-MARKER the fuzz corpus crashes the lexer"],
    "completed": ["read the grammar"],
}
TESTS = ["pytest -q tests/test_lexer.py", "pytest -q tests/test_parser.py", "ruff check src"]


def store(repo: Path, agent: str = "claude") -> Path:
    return Path(observe.session_dir(os.path.realpath(repo), agent, SESSION))


def logged(repo: Path, name: str, agent: str = "claude") -> list[dict]:
    path = store(repo, agent) / name
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def busy_session(bridge, repo: Path, edits: int = 6) -> None:
    """A session with a checkpoint, then edits and validation runs (the lexer test fails last)."""
    run_hook(bridge, "SessionStart", repo, source="startup")
    run_hook(bridge, "UserPromptSubmit", repo, prompt="Make the parser accept trailing commas", prompt_id="p1")
    code, _, err = bridge(
        "-C", str(repo), "handoff", "checkpoint", "--agent", "claude", "--session", SESSION, "--file", "-",
        stdin=json.dumps(CHECKPOINT),
    )  # fmt: skip
    assert code == 0, err
    time.sleep(0.005)  # the edits come after the checkpoint, also by the clock
    for n in range(edits):
        run_hook(
            bridge, "PostToolUse", repo, tool_name="Edit", tool_input={"file_path": f"{repo}/src/mod{n}.py"},
            tool_response={},
        )  # fmt: skip
    run_hook(
        bridge, "PostToolUse", repo, tool_name="Bash", tool_input={"command": TESTS[1]},
        tool_response={"stdout": "3 passed", "stderr": "", "interrupted": False},
    )  # fmt: skip
    run_hook(
        bridge, "PostToolUse", repo, tool_name="Bash", tool_input={"command": TESTS[2]},
        tool_response={"stdout": "All checks passed!", "stderr": "", "interrupted": False},
    )  # fmt: skip
    run_hook(
        bridge, "PostToolUseFailure", repo, tool_name="Bash", tool_input={"command": TESTS[0]},
        error="Exit code 1\n2 failed, 5 passed",
    )  # fmt: skip
    run_hook(bridge, "Stop", repo, stop_hook_active=False)


SUMMARY = (
    "<summary>The user wants the parser to accept trailing commas and the public API unchanged. "
    "Next: rewrite the tokenizer loop (NEXT-MARKER). `pytest -q tests/test_parser.py` passed. "
    "The grammar was read.</summary>"
)


def test_a_manual_compaction_restores_only_what_the_summary_dropped(git_repo, bridge):
    """After `/compact` the next prompt carries the dropped test outcome, unresolved item and files, not what the
    summary kept."""
    busy_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    assert run_hook(bridge, "SessionStart", git_repo, source="compact") is None  # waits for the summary
    run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary=SUMMARY)
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on"))
    assert "UNRESOLVED-MARKER" in text and f'"{TESTS[0]}": fail' in text and f'"{TESTS[2]}": pass' in text
    assert all(f"src/mod{n}.py" in text for n in range(6))
    assert "make `pytest -q tests/test_lexer.py` pass: it fails" in text  # the next action (a failing run)
    assert TESTS[1] not in text and "Make the parser accept" not in text and "read the grammar" not in text


def test_the_person_is_told_what_the_compaction_dropped_in_one_line(git_repo, bridge):
    """PostCompact says how many facts the summary dropped; the restoring prompt says how many came back, and size."""
    busy_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "SessionStart", git_repo, source="compact")
    said = run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary=SUMMARY)
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on")
    (report,) = [r for r in logged(git_repo, observe.INJECTIONS) if r["kind"] == "report"]
    dropped = report["dropped"]
    assert said == {"plain": f"codex-autopilot: compaction dropped {dropped} facts the task needs; they are "
                    "restored with the next message"}  # fmt: skip
    assert answer["systemMessage"].startswith(f"codex-autopilot: compaction dropped {dropped} facts the task needs; "
                                              f"{dropped} restored (")  # fmt: skip
    assert dropped >= 9 and report["restored"] == dropped and "\n" not in answer["systemMessage"]
    assert run_hook(bridge, "UserPromptSubmit", git_repo, prompt="and then?") is None  # said once


def test_an_automatic_compaction_restores_at_once_and_reports_it(git_repo, bridge):
    """An automatic compaction goes on with the turn: SessionStart restores everything lost, PostCompact reports."""
    busy_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="auto", custom_instructions=None)
    text = context_of(run_hook(bridge, "SessionStart", git_repo, source="compact"))
    assert "UNRESOLVED-MARKER" in text and "make `pytest -q tests/test_lexer.py` pass" in text
    said = run_hook(bridge, "PostCompact", git_repo, trigger="auto", compact_summary=SUMMARY)
    assert said["plain"].startswith("codex-autopilot: compaction dropped ") and " restored (" in said["plain"]
    dropped = int(said["plain"].split("dropped ")[1].split()[0])
    assert f"; {dropped} restored (" in said["plain"]


def test_a_summary_that_keeps_everything_restores_nothing(git_repo, bridge):
    """When the summary says every fact, nothing is injected after the compaction and the person hears so."""
    busy_session(bridge, git_repo, edits=1)
    full = (
        "Make the parser accept trailing commas; keep the public API unchanged. Next: make "
        f"`{TESTS[0]}` pass (it fails). Open: UNRESOLVED-MARKER the fuzz corpus crashes the lexer. Edited src/mod0.py. "
        f"`{TESTS[0]}` failed, `{TESTS[1]}` passed, `{TESTS[2]}` passed. Completed: read the grammar."
    )
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "SessionStart", git_repo, source="compact")
    said = run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary=full)
    assert said["plain"].startswith("codex-autopilot: compaction kept all ")
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on")
    assert context_of(answer) == ""


def test_without_a_summary_everything_lost_comes_back(git_repo, bridge):
    """A compaction whose PostCompact never comes (an older client) still restores every fact at the next prompt."""
    busy_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "SessionStart", git_repo, source="compact")
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on"))
    assert "UNRESOLVED-MARKER" in text and "tests/test_lexer.py" in text and "Make the parser accept" in text


def test_an_automatic_checkpoint_is_taken_before_a_compaction(git_repo, bridge):
    """PreCompact stores a checkpoint labelled automatic, with the files and outcomes it saw; it is no claim."""
    busy_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)  # Claude fires it twice
    auto = [c for c in logged(git_repo, observe.CHECKPOINTS) if c["by"] == compaction.AUTOMATIC]
    assert len(auto) == 1 and auto[0]["claim"].startswith("automatic checkpoint: what the hooks observed")
    assert auto[0]["checkpoint"]["next_action"].startswith("make `pytest -q tests/test_lexer.py` pass")
    assert len(auto[0]["observed"]["editedSinceCheckpoint"]) == 6
    code, out, _ = bridge(
        "-C", str(git_repo), "handoff", "active", "--agent", "claude", "--session", SESSION, "--json"
    )  # fmt: skip
    view = json.loads(out)
    assert view["automaticCheckpoint"]["count"] == 1 and view["checkpoint"]["count"] == 1
    assert len(view["currentWork"]["editedSinceCheckpoint"]) == 6  # the automatic one resets nothing


def codex_hook(repo: Path, event: str, **fields) -> dict | None:
    """A Codex hook event, recorded and answered as its memory hook and `handoff inject` do."""
    from autopilot.handoff.memory.inject import hook_answer

    data = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": event, **fields}
    recorded = observe.record(event, data, "codex")
    return hook_answer("codex", event, data) if recorded and recorded[1] else None


def test_codex_compares_the_summary_its_rollout_holds(git_repo, tmp_path):
    """Codex's PostCompact carries no summary: the rollout's newest `compacted` line is read, and only what it
    dropped is injected at the compaction's SessionStart, with the report."""
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(json.dumps({"type": "session_meta", "payload": {"id": SESSION}}) + "\n")
    codex_hook(git_repo, "SessionStart", source="startup", transcript_path=str(rollout))
    codex_hook(git_repo, "UserPromptSubmit", prompt="Add a --json flag to export.py", transcript_path=str(rollout))
    codex_hook(git_repo, "PostToolUse", tool_name="apply_patch", tool_input={"command": "*** Add File: a_file.py\n"})
    codex_hook(git_repo, "PostToolUse", tool_name="apply_patch", tool_input={"command": "*** Add File: b_file.py\n"})
    codex_hook(git_repo, "Stop")
    codex_hook(git_repo, "PreCompact", trigger="manual", transcript_path=str(rollout))
    summary = {"type": "compacted", "payload": {"message": "Add a --json flag to export.py; a_file.py was added."}}
    with rollout.open("a") as fh:
        fh.write(json.dumps(summary) + "\n")
    said = codex_hook(git_repo, "PostCompact", trigger="manual", transcript_path=str(rollout))
    assert said == {"systemMessage": "codex-autopilot: compaction dropped 1 fact the task needs; they are "
                    "restored with the next message"}  # fmt: skip
    answer = codex_hook(git_repo, "SessionStart", source="compact", transcript_path=str(rollout))
    text = context_of(answer)
    assert '"b_file.py"' in text and "a_file.py" not in text and "--json" not in text
    assert answer["systemMessage"].startswith("codex-autopilot: compaction dropped 1 fact the task needs; 1 restored")


def test_codexs_handoff_takes_the_senders_checkpoint(git_repo):
    """`$handoff` typed in Codex takes the thread's automatic checkpoint before the pointer (no injection)."""
    codex_hook(git_repo, "SessionStart", source="startup")
    codex_hook(git_repo, "UserPromptSubmit", prompt="Add a --json flag to export.py")
    codex_hook(git_repo, "PostToolUse", tool_name="apply_patch", tool_input={"command": "*** Add File: a_file.py\n"})
    assert codex_hook(git_repo, "UserPromptSubmit", prompt="$handoff") is None
    (auto,) = [c for c in logged(git_repo, observe.CHECKPOINTS, "codex") if c["by"] == compaction.AUTOMATIC]
    assert auto["source"] == "$handoff" and auto["observed"]["editedSinceCheckpoint"] == ["a_file.py"]


PLAN = (
    "Both lexer tests still fail.\n\nNext steps:\n1. STEP-ONE fix the comma rule in lexer.py\n"
    "2. STEP-TWO rerun the fuzz corpus\n"
)


def planned_session(bridge, repo: Path) -> None:
    """busy_session whose last turn ends with the agent's own "Next steps" list."""
    busy_session(bridge, repo)
    run_hook(bridge, "UserPromptSubmit", repo, prompt="keep going", prompt_id="p2")
    run_hook(bridge, "Stop", repo, stop_hook_active=False, last_assistant_message=PLAN)


def test_the_agents_stated_next_steps_are_not_echoed_back_while_it_still_has_them(git_repo, bridge):
    """Before any compaction the steps are the agent's own words in its own context: no injection repeats them."""
    planned_session(bridge, git_repo)
    assert [o.get("next") for o in logged(git_repo, observe.LOG) if o["kind"] == "turn"][-1] == (
        "STEP-ONE fix the comma rule in lexer.py\nSTEP-TWO rerun the fuzz corpus"
    )
    run_hook(
        bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": f"{git_repo}/src/lexer.py"},
        tool_response={},
    )  # fmt: skip
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on"))
    assert "src/lexer.py" in text  # an injection was made (a new edit) ...
    assert "STEP-ONE" not in text and "STEP-TWO" not in text  # ... without the agent's own words


def test_stated_next_steps_the_summary_dropped_come_back_labelled_as_the_agents_claim(git_repo, bridge):
    """After `/compact` drops them, the next prompt carries every stated step, labelled, and the report counts them."""
    planned_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "SessionStart", git_repo, source="compact")
    said = run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary=SUMMARY)
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on"))
    assert "STEP-TWO rerun the fuzz corpus" in text and "Next steps the agent stated" in text
    assert "STEP-ONE fix the comma rule" in text  # the failing run is the next action; the steps follow it
    assert "make `pytest -q tests/test_lexer.py` pass" in text
    [record] = [r for r in logged(git_repo, observe.INJECTIONS) if r["kind"] == "compaction"]
    assert len(record["dropped"].get("next_steps", [])) == 2 and "compaction dropped" in str(said)


def test_stated_next_steps_the_summary_kept_are_not_injected_again(git_repo, bridge):
    """A summary that still says the steps holds them: nothing is repeated."""
    planned_session(bridge, git_repo)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "SessionStart", git_repo, source="compact")
    keeps = SUMMARY.replace("</summary>", " Next steps: STEP-ONE fix the comma rule in lexer.py; STEP-TWO rerun the "
                            "fuzz corpus.</summary>")  # fmt: skip
    run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary=keeps)
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on"))
    assert "STEP-ONE" not in text and "STEP-TWO" not in text


def test_a_stated_step_holding_a_credential_is_stored_redacted(git_repo, bridge):
    """The steps are text from the model: a credential in them never reaches the observation log."""
    secret = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    run_hook(bridge, "SessionStart", git_repo, source="startup")
    run_hook(bridge, "Stop", git_repo, stop_hook_active=False, last_assistant_message=f"Next: push with {secret}")
    raw = (store(git_repo) / observe.LOG).read_text()
    assert secret not in raw and "push with" in raw
