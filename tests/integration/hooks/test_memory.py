"""The plugin's hooks and the active memory: record every event, inject only what changed, never twice."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

from autopilot.handoff.memory import observe
from autopilot.scripted.responses_server import reply_json
from tests.integration.test_hooks import NO_RUN_MODULES
from tests.support.hooks import OTHER_SESSION, SESSION, context_of, payload, run_hook
from tests.support.measured import unmeasured

CHECKPOINT = {
    "objective": "Ship the --json flag",
    "constraints": ["keep the CSV output unchanged"],
    "next_action": "NEXT-ACTION-MARKER: add the flag to export.py",
    "unresolved": ["export.py has no tests"],
    "completed": ["read the export code"],
}


def store(repo: Path, session: str = SESSION) -> Path:
    return Path(observe.session_dir(os.path.realpath(repo), "claude", session))


def injections(repo: Path, session: str = SESSION) -> list[dict]:
    path = store(repo, session) / observe.INJECTIONS
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def checkpoint(bridge, repo: Path, body: dict = CHECKPOINT, session: str = SESSION) -> None:
    code, _, err = bridge(
        "-C", str(repo), "handoff", "checkpoint", "--agent", "claude", "--session", session, "--file", "-",
        stdin=json.dumps(body),
    )  # fmt: skip
    assert code == 0, err


def started(bridge, repo: Path, prompt: str = "Add a --json flag to export. Never change the CSV output.") -> None:
    assert run_hook(bridge, "SessionStart", repo, source="startup") is None
    assert run_hook(bridge, "UserPromptSubmit", repo, prompt=prompt, prompt_id="p1") is None


def test_every_event_is_recorded_without_a_run(git_repo, bridge):
    """Without an autopilot run the hooks print nothing, yet each event lands in the session's log."""
    started(bridge, git_repo)
    run_hook(bridge, "PostToolUse", git_repo, tool_name="Write", tool_input={"file_path": "/x/a.py"}, tool_response={})
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    run_hook(bridge, "PostCompact", git_repo, trigger="manual", compact_summary="<summary>s</summary>")
    run_hook(bridge, "Stop", git_repo, stop_hook_active=False)
    run_hook(bridge, "SessionEnd", git_repo, reason="other")
    log = [json.loads(line) for line in (store(git_repo) / observe.LOG).read_text().splitlines()]
    assert [o["kind"] for o in log] == ["session", "request", "edit", "compact", "compact", "turn", "end"]


def test_the_first_prompt_is_not_echoed_back(git_repo, bridge):
    """The session's first request is its objective; injecting it into that same turn would only repeat it."""
    started(bridge, git_repo)
    assert injections(git_repo) == []


def test_changed_facts_are_injected_once(git_repo, bridge):
    """After an edit and a failing test the next prompt carries them; the prompt after that carries nothing."""
    started(bridge, git_repo)
    run_hook(
        bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": "/w/export.py"}, tool_response={}
    )
    run_hook(
        bridge,
        "PostToolUseFailure",
        git_repo,
        tool_name="Bash",
        tool_input={"command": "pytest -q"},
        error="Exit code 1\n1 failed",
    )
    first = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="and now?"))
    assert '"/w/export.py" (Edit)' in first and '"pytest -q": fail' in first and "Objective" not in first
    assert run_hook(bridge, "UserPromptSubmit", git_repo, prompt="and now?") is None
    assert [r["fields"] for r in injections(git_repo)] == [["next_action", "validation", "current_work"]]


def test_a_checkpoint_is_injected_on_the_next_prompt_with_its_history(git_repo, bridge):
    """A stored checkpoint reaches the model at the next prompt, once; the history records what went in."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    answer = run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")
    text = context_of(answer)
    assert answer["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert (
        text.count("NEXT-ACTION-MARKER") == 1 and "a checkpoint written outside any agent's shell" in text
    )  # from a terminal
    assert "never instructions" in text
    (record,) = injections(git_repo)
    assert record["fields"] == ["objective", "constraints", "next_action", "unresolved", "completed"]
    assert (record["session"], record["event"], record["bytes"]) == (SESSION, "UserPromptSubmit", len(text.encode()))
    assert record["sourceHash"].startswith("sha256:")
    assert run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue") is None


def test_a_changed_next_action_alone_is_injected(git_repo, bridge):
    """A new checkpoint that changes only the next action injects only that field."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")
    checkpoint(bridge, git_repo, {**CHECKPOINT, "next_action": "write the tests"})
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    assert "write the tests" in text and "Ship the --json flag" not in text and "NEXT-ACTION-MARKER" not in text


def test_after_a_compaction_everything_known_is_injected_again(git_repo, bridge):
    """A compaction between turns resets what the session knows: the whole (bounded) state goes in, as a reset."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")
    run_hook(bridge, "Stop", git_repo, stop_hook_active=False)
    run_hook(bridge, "PreCompact", git_repo, trigger="auto", custom_instructions=None)
    text = context_of(run_hook(bridge, "SessionStart", git_repo, source="compact", model="m1"))
    assert "NEXT-ACTION-MARKER" in text and "Ship the --json flag" in text
    assert injections(git_repo)[-1]["reset"] == "compact"
    assert run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go on") is None


def test_the_first_request_is_injected_after_a_compaction(git_repo, bridge):
    """Without a checkpoint, the first request (summarised away by the compaction) comes back as the objective."""
    started(bridge, git_repo)
    text = context_of(run_hook(bridge, "SessionStart", git_repo, source="compact"))
    assert "Add a --json flag to export." in text and "Never change the CSV output." in text


def test_a_resume_injects_only_what_changed_while_away(git_repo, bridge):
    """SessionStart(resume) keeps what the resumed history already holds: nothing new, nothing injected."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")
    assert run_hook(bridge, "SessionStart", git_repo, source="resume") is None
    checkpoint(bridge, git_repo, {**CHECKPOINT, "unresolved": [*CHECKPOINT["unresolved"], "docs missing"]})
    text = context_of(run_hook(bridge, "SessionStart", git_repo, source="resume"))
    assert "docs missing" in text and "export.py has no tests" not in text


def test_clear_carries_the_memory_into_the_new_session(git_repo, bridge):
    """/clear ends one session and starts another: the new one gets the old one's state, labelled as carried."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    run_hook(bridge, "SessionEnd", git_repo, reason="clear")
    event = payload("SessionStart", git_repo, source="clear")
    event["session_id"] = OTHER_SESSION
    code, out, _ = bridge("hook", "SessionStart", stdin=json.dumps(event))
    assert "NEXT-ACTION-MARKER" in context_of(json.loads(out))
    (record,) = injections(git_repo, OTHER_SESSION)
    assert (record["reset"], record["carriedFrom"]) == ("clear", SESSION)


def test_two_sessions_in_one_worktree_keep_their_own_memory(git_repo, bridge):
    """A checkpoint of one session is never injected into another session of the same repository."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    other = payload("UserPromptSubmit", git_repo, prompt="unrelated work")
    other["session_id"] = OTHER_SESSION
    code, out, _ = bridge("hook", "UserPromptSubmit", stdin=json.dumps(other))
    assert code == 0 and out == ""


def test_the_injection_stays_within_its_budget(git_repo, bridge, monkeypatch):
    """A small budget cuts the excerpt and names what was left out; the rest comes with the next prompt."""
    monkeypatch.setenv("AUTOPILOT_MEMORY_INJECT_CHARS", "400")
    started(bridge, git_repo)
    checkpoint(bridge, git_repo, {**CHECKPOINT, "completed": [f"step {n} done" for n in range(40)]})
    first = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    assert len(first) <= 400 and "not shown: codex-bridge handoff active" in first
    second = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    assert second and not set(second.splitlines()[1:-1]) & set(first.splitlines()[1:-1])


def test_the_budget_never_reaches_the_hook_output_cap(git_repo, bridge, monkeypatch):
    """A budget set above the clients' 10,000-character cap is held well below it."""
    monkeypatch.setenv("AUTOPILOT_MEMORY_INJECT_CHARS", "50000")
    started(bridge, git_repo)
    checkpoint(bridge, git_repo, {**CHECKPOINT, "completed": [f"{n} " + "x" * 400 for n in range(100)]})
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    assert 7000 < len(text) <= 8000


def test_secrets_are_redacted_before_injection(git_repo, bridge):
    """A credential in a checkpoint never reaches the model."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo, {**CHECKPOINT, "unresolved": ["the key AKIAABCDEFGHIJKLMNOP leaks"]})
    text = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    assert "AKIAABCDEFGHIJKLMNOP" not in text and "[REDACTED:aws_access_key_id]" in text


def test_memory_context_joins_the_autopilots(planned, bridge):
    """With a run, the autopilot's task line and the memory's changed facts come in one additionalContext."""
    run_hook(bridge, "SessionStart", planned, source="startup")
    checkpoint(bridge, planned)
    text = context_of(run_hook(bridge, "UserPromptSubmit", planned, prompt="go"))
    assert text.startswith("codex-autopilot: current task") and "NEXT-ACTION-MARKER" in text


def test_no_fact_is_recorded_as_injected_unless_it_reached_the_output(openai_env, git_repo, bridge, monkeypatch):
    """With a run's long context in the same answer, the memory takes only the room left: what it records reached
    the output uncut, and the rest comes with the next prompt."""
    from tests.support.loop import PLAN

    openai_env.push(reply_json(copy.deepcopy(PLAN)))
    code, _, err = bridge("-C", str(git_repo), "plan", "--goal", "Ship it. " + "g" * 7000)
    assert code == 0, err
    monkeypatch.setenv("AUTOPILOT_MEMORY_INJECT_CHARS", "8000")
    run_hook(bridge, "SessionStart", git_repo, source="startup")
    run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go", prompt_id="p1")
    steps = [f"step {n:03} done " + "x" * 120 for n in range(60)]
    checkpoint(bridge, git_repo, {**CHECKPOINT, "completed": steps})
    texts = [
        context_of(run_hook(bridge, "SessionStart", git_repo, source="resume")),
        context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")),
        context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue")),
    ]
    assert texts[0].startswith("codex-autopilot run active.") and all(len(t) <= 9_500 for t in texts)
    assert not any("[cut by codex-autopilot" in t for t in texts)
    shown = [line for t in texts for line in t.splitlines() if line.startswith("- ")]
    assert sum(r["items"] for r in injections(git_repo) if r["kind"] == "injection") == len(shown)
    assert all(any(f'"{step}"' in line for line in shown) for step in steps)


def test_a_failing_memory_does_not_stop_the_autopilot(planned, bridge, monkeypatch):
    """An error in the memory's injection is a notice; the autopilot's own answer still comes."""
    from autopilot.handoff.memory import inject

    def boom(*args, **kwargs):
        raise RuntimeError("memory bug")

    monkeypatch.setattr(inject, "before_turn", boom)
    run_hook(bridge, "SessionStart", planned, source="startup")
    checkpoint(bridge, planned)
    answer = run_hook(bridge, "UserPromptSubmit", planned, prompt="go")
    assert "memory bug" in answer["systemMessage"] and context_of(answer).startswith("codex-autopilot: current task")


def test_a_corrupt_state_file_is_moved_aside_by_the_hook(git_repo, bridge):
    """The injection path moves a corrupt active.json aside and writes a fresh one, never over it."""
    started(bridge, git_repo)
    checkpoint(bridge, git_repo)
    (store(git_repo) / "active.json").write_text("garbage")
    assert "NEXT-ACTION-MARKER" in context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="continue"))
    (aside,) = store(git_repo).glob("active.json.corrupt-*")
    assert aside.read_text() == "garbage" and json.loads((store(git_repo) / "active.json").read_text())["state"]


def preserved_scenario(bridge, repo: Path, trigger: str) -> str:
    """A turn that edits, a resume that injects the edit, then a compaction with ``trigger``; the reset's text."""
    started(bridge, repo)
    checkpoint(bridge, repo)
    run_hook(bridge, "UserPromptSubmit", repo, prompt="continue")
    run_hook(bridge, "PostToolUse", repo, tool_name="Edit", tool_input={"file_path": "/w/cli.py"}, tool_response={})
    run_hook(bridge, "Stop", repo, stop_hook_active=False)
    assert '"/w/cli.py"' in context_of(run_hook(bridge, "SessionStart", repo, source="resume"))
    run_hook(bridge, "PreCompact", repo, trigger=trigger, custom_instructions=None)
    return after_compaction(bridge, repo, trigger)


def after_compaction(bridge, repo: Path, trigger: str, summary: str = "<summary>nothing kept</summary>") -> str:
    """SessionStart(compact), PostCompact with ``summary``, then a prompt: what restored the session's facts
    (the SessionStart's context after an automatic compaction, the prompt's after `/compact`)."""
    at_start = context_of(run_hook(bridge, "SessionStart", repo, source="compact"))
    run_hook(bridge, "PostCompact", repo, trigger=trigger, compact_summary=summary)
    at_prompt = context_of(run_hook(bridge, "UserPromptSubmit", repo, prompt="what now?"))
    return at_start if trigger == "auto" else at_prompt


def test_a_compaction_keeps_what_was_injected_in_the_current_turn(git_repo, bridge):
    """What was injected since the last turn ended survives a compaction (the clients carry it): not repeated."""
    text = preserved_scenario(bridge, git_repo, "manual")
    assert "NEXT-ACTION-MARKER" in text and '"/w/cli.py"' not in text


def claude_event(repo: Path, event: str, **fields) -> str:
    """Record a Claude Code hook event in-process and ask for its injection (what the memory hook prints)."""
    from autopilot.handoff.memory.inject import hook_answer

    data = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": event, **fields}
    recorded = observe.record(event, data, "claude")
    return context_of(hook_answer("claude", event, data) if recorded and recorded[1] else None)


def test_a_compaction_orders_by_the_logs_when_the_clock_does_not_move(git_repo, bridge):
    """A Stop, a resume's injection and a compaction within one millisecond: the logs' order decides, not the clock."""
    from freezegun import freeze_time

    from autopilot.handoff.memory import checkpoint as checkpoints
    from autopilot.handoff.memory.store import SessionStore

    with freeze_time("2026-12-01 11:00:00"):
        claude_event(git_repo, "SessionStart", source="startup")
        checkpoints.record(SessionStore("claude", SESSION, os.path.realpath(git_repo)), CHECKPOINT, "test")
    with freeze_time("2026-12-01 12:00:00"):
        claude_event(git_repo, "UserPromptSubmit", prompt="Add a --json flag to export.")
        claude_event(git_repo, "PostToolUse", tool_name="Edit", tool_input={"file_path": "/w/cli.py"}, tool_response={})
        claude_event(git_repo, "Stop", stop_hook_active=False)
        assert '"/w/cli.py"' in claude_event(git_repo, "SessionStart", source="resume")
        claude_event(git_repo, "PreCompact", trigger="manual", custom_instructions=None)
        assert claude_event(git_repo, "SessionStart", source="compact") == ""  # the summary is not known yet
        claude_event(git_repo, "PostCompact", trigger="manual", compact_summary="<summary>nothing</summary>")
        after = claude_event(git_repo, "UserPromptSubmit", prompt="what now?")
    assert "NEXT-ACTION-MARKER" in after and '"/w/cli.py"' not in after


def test_a_compaction_forgets_what_earlier_turns_were_told(git_repo, bridge):
    """An injection made before the last turn ended is summarised away: it comes again after the compaction."""
    started(bridge, git_repo)
    run_hook(bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": "/w/cli.py"}, tool_response={})
    assert '"/w/cli.py"' in context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="next"))
    run_hook(bridge, "Stop", git_repo, stop_hook_active=False)
    run_hook(bridge, "PreCompact", git_repo, trigger="manual", custom_instructions=None)
    assert '"/w/cli.py"' in after_compaction(bridge, git_repo, "manual")


def codex_event(repo: Path, event: str, **fields) -> str:
    """Record a Codex hook event as its memory hook does and ask for the injection (what `handoff inject` prints)."""
    from autopilot.handoff.memory.inject import hook_answer

    data = {"session_id": SESSION, "cwd": str(repo), "hook_event_name": event, **fields}
    recorded = observe.record(event, data, "codex")
    return context_of(hook_answer("codex", event, data) if recorded and recorded[1] else None)


def test_codex_keeps_what_was_injected_after_the_compaction(git_repo, bridge):
    """Codex compacts at a turn's start, then fires SessionStart: that context stays and is not repeated."""
    codex_event(git_repo, "SessionStart", source="startup")
    codex_event(git_repo, "UserPromptSubmit", prompt="Add a --json flag")
    codex_event(git_repo, "PostToolUse", tool_name="apply_patch", tool_input={"command": "*** Add File: a.py\n"})
    codex_event(git_repo, "Stop")
    codex_event(git_repo, "PreCompact", trigger="auto")
    codex_event(git_repo, "PostCompact", trigger="auto")
    resumed = codex_event(git_repo, "SessionStart", source="resume")
    assert "Add a --json flag" in resumed and '"a.py"' in resumed  # the compaction summarised the request away
    assert codex_event(git_repo, "SessionStart", source="compact") == ""


def test_codex_repeats_what_was_injected_before_the_compaction(git_repo, bridge):
    """Context Codex got before a compaction in the middle of a turn is dropped by it, so it comes again."""
    codex_event(git_repo, "SessionStart", source="startup")
    codex_event(git_repo, "UserPromptSubmit", prompt="Add a --json flag")
    codex_event(git_repo, "PostToolUse", tool_name="apply_patch", tool_input={"command": "*** Add File: a.py\n"})
    assert '"a.py"' in codex_event(git_repo, "UserPromptSubmit", prompt="go on")
    codex_event(git_repo, "PreCompact", trigger="auto")
    codex_event(git_repo, "PostCompact", trigger="auto")
    assert '"a.py"' in codex_event(git_repo, "SessionStart", source="compact")


PARSER = "def parse_header(line):\n    return line.split(':')\n\n\ndef render(rows):\n    return rows\n"


def test_an_edit_records_the_names_it_changed(git_repo, bridge):
    """An Edit's observation names the definition it sits in and what it changed, never a string literal's text."""
    path = git_repo / "parser.py"
    path.write_text(PARSER)
    old, new = "    return line.split(':')\n", "    return split_fields(line, sep='ghp_not_a_name')\n"
    started(bridge, git_repo)
    args = {"file_path": str(path), "old_string": old, "new_string": new}
    run_hook(bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input=args, tool_response={"originalFile": PARSER})
    (edit,) = [json.loads(x) for x in (store(git_repo) / observe.LOG).read_text().splitlines() if '"edit"' in x]
    assert edit["names"] == ["parse_header", "split_fields", "split"]


def test_a_symbol_an_earlier_edit_changed_is_found(git_repo, bridge):
    """Two edits of one file in a session: a search for what the first changed finds that edit, not only the file."""
    path = git_repo / "parser.py"
    path.write_text(PARSER)
    started(bridge, git_repo)
    first = PARSER.replace("line.split(':')", "split_fields(line)")
    edits = [
        ({"old_string": "line.split(':')", "new_string": "split_fields(line)"}, PARSER, "toolu_1"),
        ({"old_string": "    return rows\n", "new_string": "    return list(rows)\n"}, first, "toolu_2"),
    ]
    for args, before, ident in edits:
        run_hook(
            bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": str(path), **args},
            tool_response={"originalFile": before}, tool_use_id=ident,
        )  # fmt: skip
    code, out, err = bridge("-C", str(git_repo), "handoff", "search", "split_fields", "--json")
    assert code == 0, err
    hits = [(r["role"], r["excerpt"]) for r in json.loads(out)["results"]]
    assert hits == [("memory.edit", f"Edit {path} (parse_header, split_fields, split)")]


CODEX_HOOK = Path(observe.__file__).resolve().parents[2] / "codex" / "assets" / "handoff" / "scripts" / "memory_hook.py"
PACKAGE = str(Path(observe.__file__).resolve().parents[3])  # the directory holding `autopilot`, as install records it
PATCH = (
    "*** Begin Patch\n*** Update File: parser.py\n@@\n def parse_header(line):\n"
    "-    return line.split(':')\n+    return split_fields(line)\n*** End Patch\n"
)


def codex_hook(scripts: Path, package: str, event: dict, *flags: str) -> subprocess.CompletedProcess[str]:
    """Run Codex's memory hook launcher from ``scripts`` (installed.json naming ``package``) on one event."""
    (scripts / "memory_hook.py").write_text(CODEX_HOOK.read_text())
    (scripts / "installed.json").write_text(json.dumps({"bridge": None, "python": None, "package": package}))
    return subprocess.run(
        [sys.executable, "-I", *flags, str(scripts / "memory_hook.py")],
        input=json.dumps(event),
        capture_output=True,
        text=True,
        check=True,
        env=unmeasured(),  # what it loads is weighed: coverage's own modules would count
    )


def test_the_codex_hook_names_an_edit_with_the_installing_bridge(git_repo, tmp_path):
    """Codex's hook runs the bridge `install codex` recorded (-S: no other is importable), which names what a patch
    changed."""
    (git_repo / "parser.py").write_text(PARSER.replace("line.split(':')", "split_fields(line)"))
    event = payload("PostToolUse", git_repo, tool_name="apply_patch", tool_input={"command": PATCH}, tool_response="ok")
    proc = codex_hook(tmp_path, PACKAGE, event, "-S")
    log = (Path(observe.session_dir(os.path.realpath(git_repo), "codex", SESSION)) / observe.LOG).read_text()
    (edit,) = [json.loads(x) for x in log.splitlines() if '"edit"' in x]
    assert (proc.stdout, proc.stderr) == ("", "")
    assert (edit["path"], edit["names"]) == ("parser.py", ["parse_header", "split_fields", "split"])


def test_the_codex_hook_loads_only_the_recorder(git_repo, tmp_path):
    """On an ordinary prompt Codex's hook loads, of the package, its entry and the recorder's modules only (Claude's
    no-run list with codex_hook for cli and hooks), and neither json, re, typing, pathlib nor subprocess."""
    event = payload("UserPromptSubmit", git_repo, prompt="add a --json flag")
    stderr = codex_hook(tmp_path, PACKAGE, event, "-X", "importtime").stderr
    loaded = {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}
    recorder = set(NO_RUN_MODULES) - {"autopilot.cli", "autopilot.hooks"} | {"autopilot.handoff.memory.codex_hook"}
    assert sorted(m for m in loaded if m.split(".")[0] == "autopilot") == sorted(recorder)
    assert loaded & {"json", "re", "typing", "pathlib", "subprocess"} == set()
    log = (Path(observe.session_dir(os.path.realpath(git_repo), "codex", SESSION)) / observe.LOG).read_text()
    assert '"prompt":"add a --json flag"' in log


def test_a_prompt_that_injects_loads_nothing_heavy(git_repo, bridge):
    """The prompt after an edit injects the memory without jsonschema, filelock, yaml or openai (each costs tens of
    milliseconds a prompt: a checkpoint's validator and the at-rest rewrite's lock load them only when used)."""
    started(bridge, git_repo)
    for path in ("/w/export.py", "/w/cli.py"):  # the first injection also makes the store's once-only at-rest check
        run_hook(bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": path}, tool_response={})
        if path == "/w/export.py":
            assert "export.py" in context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="go"))
    probe = (
        "import sys; from autopilot.cli import main; main(['hook', 'UserPromptSubmit']); "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'openai', 'jsonschema', 'yaml', 'filelock', 'tenacity'})), file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-c", probe],
        input=json.dumps(payload("UserPromptSubmit", git_repo, prompt="and now?")),
        capture_output=True,
        text=True,
        env=unmeasured(),
    )
    assert proc.returncode == 0 and "/w/cli.py" in context_of(json.loads(proc.stdout))  # it did inject
    assert proc.stderr.split() == []


def test_injected_paths_inside_the_worktree_are_relative_to_it(git_repo, bridge):
    """An edited file inside the worktree is named by its repository path, one outside it by its absolute path."""
    started(bridge, git_repo)
    inside = os.path.join(os.path.realpath(git_repo), "src", "export.py")
    for path in (inside, "/elsewhere/notes.md"):
        run_hook(bridge, "PostToolUse", git_repo, tool_name="Edit", tool_input={"file_path": path}, tool_response={})
    context = context_of(run_hook(bridge, "UserPromptSubmit", git_repo, prompt="and now?"))
    assert '"src/export.py" (Edit)' in context and '"/elsewhere/notes.md" (Edit)' in context
    assert os.path.realpath(git_repo) not in context
