"""loop/threads.py: every Codex thread the autopilot's own reviewer used, from each run's files, never a user's."""

from __future__ import annotations

import json
from pathlib import Path

from autopilot import paths
from autopilot.loop.threads import own_threads


def run(name: str) -> Path:
    """A run folder under $AUTOPILOT_HOME/runs."""
    folder = paths.autopilot_home() / "runs" / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_no_runs_folder_means_no_threads():
    """Before any run there is nothing to pass over (and nothing is created)."""
    assert own_threads() == set() and not (paths.autopilot_home() / "runs").exists()


def test_each_runs_conversation_charged_threads_and_codex_cli_calls_are_the_reviewers():
    """A run's conversation_id, every thread codex-thread-usage.json charged, every codex-cli call's thread."""
    (run("a-1") / "state.json").write_text(json.dumps({"conversation_id": "t-current"}))
    (run("a-1") / "codex-thread-usage.json").write_text(json.dumps({"t-earlier": {"input": 1}, "t-current": {}}))
    events = [{"backend": "codex-cli", "conversation_id": "t-event"}, {"backend": "codex-cli", "outcome": "error"}]
    (run("b-2") / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    assert own_threads() == {"t-current", "t-earlier", "t-event"}


def test_another_backends_ids_are_not_codex_threads():
    """An openai call's conversation id is a Responses id: no Codex session of the user's is passed over for it."""
    line = {"backend": "openai", "conversation_id": "resp_1", "note": "codex-cli was not used"}
    (run("a-1") / "events.jsonl").write_text(json.dumps(line) + "\n")
    assert own_threads() == set()


def test_damaged_files_are_read_around():
    """A state.json, usage file or event line that is not what it should be is skipped; the rest still counts."""
    (run("a-1") / "state.json").write_text("{not json")
    (run("a-1") / "codex-thread-usage.json").write_text('["codex-cli", "t-list"]')
    (run("b-2") / "state.json").write_text(json.dumps({"conversation_id": 42}))
    good = json.dumps({"backend": "codex-cli", "conversation_id": "t-good"})
    (run("b-2") / "events.jsonl").write_text(f'{{"backend": "codex-cli", cut\n["codex-cli"]\n"codex-cli"\n{good}\n')
    (paths.autopilot_home() / "runs" / "stray-file").write_text("not a run")
    assert own_threads() == {"t-good"}
