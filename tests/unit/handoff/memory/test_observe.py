"""The hook-side recorder: what each event records, where, in whole lines, when an injection may be due; its screen."""

from __future__ import annotations

import json
import os
import random
import sysconfig
import threading
from pathlib import Path

import pytest

from autopilot import fastjson
from autopilot.handoff.memory import observe
from autopilot.handoff.memory.observe import NEXT_STEPS, STEP_CHARS, observations, stated_next
from autopilot.redact import redact
from tests.support.secret_corpus import annotated_key, placed_in, shapes

SESSION = "aaaaaaaa-1111-4222-8333-444444444444"


def data(cwd, **fields):
    return {"session_id": SESSION, "transcript_path": "/t.jsonl", "cwd": str(cwd), **fields}


def log(repo, agent="claude"):
    path = os.path.join(observe.session_dir(str(repo), agent, SESSION), observe.LOG)
    with open(path) as fh:
        return [json.loads(line) for line in fh]


def strip(obs):
    return {k: v for k, v in obs.items() if k not in ("at", "v")}


def test_a_prompt_is_a_request_with_its_id(git_repo):
    """UserPromptSubmit records the prompt and its prompt_id."""
    (obs,) = observe.observations("UserPromptSubmit", data(git_repo, prompt="Fix it", prompt_id="p1"), "claude")
    assert strip(obs) == {
        "agent": "claude",
        "event": "UserPromptSubmit",
        "via": "hook",
        "kind": "request",
        "prompt": "Fix it",
        "id": "p1",
    }


def test_a_subagents_prompt_is_not_a_request(git_repo):
    """A prompt a subagent received is its parent's instruction, not the user's request."""
    assert observe.observations("UserPromptSubmit", data(git_repo, prompt="x", agent_id="a1"), "claude") == []


def test_claude_failed_bash_keeps_its_exit_code_and_output(git_repo):
    """PostToolUseFailure of a validating Bash call records the exit code Claude Code put in the error."""
    event = data(git_repo, tool_name="Bash", tool_input={"command": "pytest -q"}, error="Exit code 3\n1 failed")
    (obs,) = observe.observations("PostToolUseFailure", {**event, "tool_use_id": "t1"}, "claude")
    assert (obs["kind"], obs["command"], obs["exit"], obs["output"], obs["id"]) == (
        "run",
        "pytest -q",
        3,
        "Exit code 3\n1 failed",
        "t1",
    )


def test_claude_successful_bash_exited_zero(git_repo):
    """PostToolUse of a Bash call means exit 0; stdout and stderr are kept as the output tail."""
    response = {"stdout": "2 passed", "stderr": "warn", "interrupted": False}
    event = data(git_repo, tool_name="Bash", tool_input={"command": "pytest"}, tool_response=response)
    (obs,) = observe.observations("PostToolUse", event, "claude")
    assert (obs["exit"], obs["output"]) == (0, "2 passed\nwarn")


def test_commands_that_do_not_validate_are_not_recorded(git_repo):
    """An ordinary command (ls, git status) leaves no observation."""
    event = data(git_repo, tool_name="Bash", tool_input={"command": "ls -la"}, tool_response={"stdout": "x"})
    assert observe.observations("PostToolUse", event, "claude") == []


def test_codex_patch_records_each_file(git_repo):
    """A Codex apply_patch call records one edit per file, each with its own id."""
    patch = "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.py\n@@\n-y\n+z\n*** End Patch\n"
    event = data(git_repo, tool_name="apply_patch", tool_input={"command": patch}, tool_use_id="c1")
    found = observe.observations("PostToolUse", {**event, "tool_response": "Exit code: 0\nSuccess."}, "codex")
    assert [(o["path"], o["result"], o["id"]) for o in found] == [
        ("a.txt", "ok", "c1:a.txt"),
        ("b.py", "ok", "c1:b.py"),
    ]


def test_codex_events_carry_the_model(git_repo):
    """Codex names the model on its events: the recorder keeps it (model changes come from it)."""
    (obs,) = observe.observations("Stop", data(git_repo, model="gpt-6.2-sol"), "codex")
    assert (obs["kind"], obs["model"]) == ("turn", "gpt-6.2-sol")


def test_compaction_keeps_trigger_and_instructions(git_repo):
    """PreCompact records its trigger and the custom instructions of `/compact <instructions>`."""
    event = data(git_repo, trigger="manual", custom_instructions="focus on the parser")
    (obs,) = observe.observations("PreCompact", event, "claude")
    assert (obs["phase"], obs["trigger"], obs["instructions"]) == ("pre", "manual", "focus on the parser")


def test_record_appends_to_the_sessions_log_in_its_worktree(git_repo):
    """Observations land in handoff/active/<worktree>/<agent>-<session>/observations.jsonl."""
    folder, due = observe.record("SessionStart", data(git_repo, source="startup"), "claude")
    assert folder.endswith(f"claude-{SESSION}") and not due
    assert [o["kind"] for o in log(git_repo)] == ["session"]
    with open(os.path.join(os.path.dirname(folder), observe.WORKTREE_FILE)) as fh:
        assert fh.read() == os.path.realpath(git_repo)


def test_two_worktrees_never_share_a_session_store(git_repo, tmp_path):
    """The same session id in two worktrees gets two stores (there is no shared latest)."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    a, _ = observe.record("Stop", data(git_repo), "claude")
    b, _ = observe.record("Stop", data(other), "claude")
    assert a != b and os.path.basename(a) == os.path.basename(b)


def test_outside_git_nothing_is_recorded(tmp_path):
    """A session outside any git work tree is not recorded."""
    assert observe.record("Stop", data(tmp_path), "claude") is None


@pytest.mark.parametrize("session", ["", "../etc", "a/b", "x" * 81, None])
def test_a_session_id_that_cannot_name_a_directory_is_refused(git_repo, session):
    """A missing or path-like session id records nothing."""
    assert observe.record("Stop", {**data(git_repo), "session_id": session}, "claude") is None


def test_memory_can_be_switched_off(git_repo, monkeypatch):
    """AUTOPILOT_MEMORY=off records nothing."""
    monkeypatch.setenv("AUTOPILOT_MEMORY", "off")
    assert observe.record("Stop", data(git_repo), "claude") is None


def test_concurrent_hooks_write_whole_lines(git_repo):
    """Hooks appending at once never interleave: every line parses."""
    observe.record("Stop", data(git_repo), "claude")
    prompt = "p" * 3000

    def hit() -> None:
        for _ in range(20):
            observe.record("UserPromptSubmit", data(git_repo, prompt=prompt), "claude")

    threads = [threading.Thread(target=hit) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(log(git_repo)) == 1 + 8 * 20


def test_a_prompt_is_due_only_after_a_fact_changed(git_repo):
    """A prompt checks for an injection only when an edit, run, compaction or checkpoint came since the mark."""
    folder, _ = observe.record("UserPromptSubmit", data(git_repo, prompt="first"), "claude")
    assert not observe.due("UserPromptSubmit", {}, folder)
    observe.record("PostToolUse", data(git_repo, tool_name="Write", tool_input={"file_path": "/a.py"}), "claude")
    assert observe.due("UserPromptSubmit", {}, folder)
    with open(os.path.join(folder, observe.MARK), "w") as fh:
        fh.write(f"{os.path.getsize(os.path.join(folder, observe.LOG))} 0\n")
    assert not observe.due("UserPromptSubmit", {}, folder)


@pytest.mark.parametrize(("source", "due"), [("startup", False), ("compact", True), ("clear", True)])
def test_session_start_is_due_after_a_reset(git_repo, source, due):
    """SessionStart checks for an injection after a compaction or /clear, never at startup."""
    folder, answer = observe.record("SessionStart", data(git_repo, source=source), "claude")
    assert answer is due


def test_encoder_matches_json():
    """The hot path's encoder writes what json.dumps writes with compact separators."""
    value = {"a": 'é\n"', "b": [1, 2.5, None, True], "c": {}}
    assert fastjson.dumps(value) == json.dumps(value, separators=(",", ":"))


# The recorder's screen: the redactor loads only for texts that may hold a credential, and misses none it would
# change. ``observe.needs_redaction`` decides, without a regular expression, whether a kept text (a prompt, a command,
# a test's output, a path) must go through the redactor. False must mean the redactor would leave the text as it is:
# checked on every shape of the corpus and on chunks of the installed dependencies' sources, cut as the recorder cuts
# outputs.

ORDINARY = ["add a --json flag to export", "3 passed in 0.12s", "/w/src/export.py", "pytest -q", "npm test"]


def chunks() -> list[str]:
    """Every 15th source file of site-packages, cut into the recorder's 1,500-character pieces."""
    site = Path(sysconfig.get_paths()["purelib"])
    files = sorted(site.rglob("*.py"))[::15]
    out = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        out += [text[i : i + observe.OUTPUT_CHARS] for i in range(0, len(text), observe.OUTPUT_CHARS)]
    return out


def test_every_corpus_shape_passes_the_screen():
    """Each credential shape, alone, placed in a file, or as a token, is sent to the redactor."""
    for shape in shapes():
        for text in (shape.text, placed_in(shape), *([shape.token] if shape.token else [])):
            assert observe.needs_redaction(text), shape.name


def test_the_screen_misses_nothing_the_redactor_would_change():
    """Over thousands of pieces of ordinary code, every piece the redactor changes was let through by the screen."""
    pieces = chunks()
    missed = [p[:200] for p in pieces if not observe.needs_redaction(p) and redact(p)[0] != p]
    assert len(pieces) > 1000 and missed == []


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_hook_texts_skip_the_redactor(text):
    """What most prompts, paths and test runs look like costs no redactor load."""
    assert not observe.needs_redaction(text)


def bare_and_short_tokens(rng: random.Random) -> list[str]:
    """Tokens of the classes found with no prefix or a short body: annotated keys, 52-character base32 PATs, ngrok
    authtokens in both forms, unknown prefixes with bodies of 16-31 characters (any mix of cases and digits)."""
    base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    def draw(n: int, alphabet: str = base62) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return [
        annotated_key(rng.choice(["AZDO", "ACOG"])),
        draw(52, "abcdefghijklmnopqrstuvwxyz234567"),
        f"{rng.choice('0123')}{draw(26)}_{rng.choice('123456789')}{draw(20)}",
        f"{draw(21)}_{rng.choice('123456789')}{draw(20)}",
        rng.choice(["zq_", "acme-", "vx-"]) + draw(rng.randint(16, 31), rng.choice([base62, base62[:52]])),
    ]


def test_every_bare_or_short_token_the_redactor_withholds_passes_the_screen():
    """Of 200 tokens of each bare or short-bodied class, in prose, JSON, an assignment and a URL, none that the
    redactor changes is screened out (Claude Code's hooks and Codex's record with the same screen)."""
    rng = random.Random(2112)
    changed = 0
    for _ in range(200):
        for token in bare_and_short_tokens(rng):
            for text in (f"use {token} now", f'{{"v": "{token}"}}', f"X={token}", f"https://h/{token}@x", token):
                if redact(text)[0] != text:
                    changed += 1
                    assert observe.needs_redaction(text), text
    assert changed > 4000


# The agent's own stated next steps (Stop's last message): read without a regex, bounded, kept as its claim.


@pytest.mark.parametrize(
    ("message", "steps"),
    [
        ("Done for now.\n\nNext steps:\n1. fix test_a\n2. fix test_b", ["fix test_a", "fix test_b"]),
        (
            "Fixed it.\n\n**Next steps**\n- make `pytest -k io` pass\n- update the docs\n\nAsk me.",
            ["make `pytest -k io` pass", "update the docs"],
        ),
        ("Next: run the migrations.", ["run the migrations."]),
        ("## Remaining\n* wire the cache\n* add a test", ["wire the cache", "add a test"]),
        ("To do:\n- [ ] rename Parser\n- [ ] release", ["rename Parser", "release"]),
        ("Plan:\nFirst write the failing test.", ["First write the failing test."]),
        (
            "Done.\n\nNext, I'll rewrite the cache layer\nso it survives restarts.",
            ["Next, I'll rewrite the cache layer so it survives restarts."],
        ),
        ("All tests pass; nothing is left.", []),
        ("I will plan the next release later.", []),
        ("Next is the fun part", []),  # "Next" alone is a word, not a heading
    ],
)
def test_the_stated_next_steps_are_read_from_the_turns_last_message(message, steps):
    """A "Next steps" list, a "Next:" line, a "Remaining"/"To do"/"Plan" heading or a closing "Next, I'll…"."""
    found = stated_next(message)
    assert (found.splitlines() if found else []) == steps


def test_the_last_block_of_the_message_wins():
    """An earlier list that the message moved on from is not the plan; the last one is."""
    message = "Next steps:\n- old idea\n\nI tried that; it failed.\n\nNext steps:\n- new idea"
    assert stated_next(message) == "new idea"


def test_steps_are_bounded_in_number_and_length():
    """At most NEXT_STEPS steps of at most STEP_CHARS characters, each on one line."""
    message = "Next steps:\n" + "\n".join(f"- step {n} " + "word " * 200 for n in range(20))
    steps = stated_next(message).splitlines()
    assert len(steps) == NEXT_STEPS and all(len(s) <= STEP_CHARS for s in steps)


def test_the_stop_observation_keeps_them_as_the_agents_words():
    """A Stop whose last message states next steps records them with the turn; one that states none does not."""
    [turn] = observations("Stop", {"last_assistant_message": "Next steps:\n1. a\n2. b"}, "claude")
    assert (turn["kind"], turn["next"]) == ("turn", "a\nb")
    [plain] = observations("Stop", {"last_assistant_message": "Done."}, "claude")
    assert "next" not in plain
