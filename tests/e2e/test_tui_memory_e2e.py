"""`/compact` and `/clear` typed in the real Claude Code TUI, with this plugin: the session's memory survives both.

Headless runs cannot type `/clear`, and an interactive `/compact` rebuilds the session differently from
print mode; so the real claude runs in tmux (tests/support/claude_driver.py) against the scripted
Messages server, and the bridge its hooks call is this checkout's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from tests.support.agents import agent_bin
from tests.support.claude_driver import ClaudeDriver, is_summary_request, summarizer
from tests.support.messages_server import MessagesServer, text, tool_use
from tests.support.plugin_harness import REPO

pytestmark = pytest.mark.e2e
OBJECTIVE = "Add a feature module named feature.py"
HEADER = "codex-autopilot active memory"


def request_for(server: MessagesServer, prompt: str) -> str:
    """The (JSON of the) first main request that holds ``prompt`` (hook context may follow the prompt)."""
    for body in server.main_requests():
        if prompt in json.dumps(body):
            return json.dumps(body)
    raise AssertionError(f"no request carried {prompt!r}")


def memory_in(request: str) -> str:
    """The active memory's injected text in a request (the text block that holds its header), or '' when none."""

    def texts(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, dict):
            return [t for v in value.values() for t in texts(v)]
        if isinstance(value, list):
            return [t for v in value for t in texts(v)]
        return []

    found = [t[t.find(HEADER) :] for t in texts(json.loads(request)) if HEADER in t]
    return found[-1] if found else ""


def logged(repo: Path, session: str) -> list[dict]:
    path = Path(observe.session_dir(os.path.realpath(repo), "claude", session)) / observe.LOG
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_compact_and_clear_typed_in_the_tui_keep_the_sessions_memory(tmp_path, git_repo):
    """After `/compact` the next request carries the edit and the objective the summary dropped; after `/clear` too."""
    agent_bin("claude")
    with MessagesServer(responder=summarizer()) as srv:
        c = ClaudeDriver(tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": sys.executable})
        srv.push(
            tool_use("Write", {"file_path": str(git_repo / "feature.py"), "content": "FEATURE = 1\n"}),
            text("feature.py is written."),
            text("Next I add its test."),
            text("Starting from the memory."),
        )
        with c.tui() as tui:
            tui.send(f"{OBJECTIVE}. Never change README.md.", expect=2)
            first = tui.session_id or c.sessions()[-1]
            tui.send("/compact")
            tui.send("what next after the compaction?")
            tui.send("/clear", expect=0, min_seconds=4)
            tui.send("what next after the clear?")
        after_compact = request_for(srv, "what next after the compaction?")
        after_clear = request_for(srv, "what next after the clear?")
    injected = memory_in(after_compact)
    assert OBJECTIVE in injected and "feature.py" in injected  # what the summary dropped
    # the compaction really happened before that request: the first turn's Write call was summarised away
    # (the scripted server names its tool calls toolu_01Scripted…; the turn's second request carried it)
    assert "toolu_01Scripted" in json.dumps(srv.main_requests()[1]) and "toolu_01Scripted" not in after_compact
    carried = memory_in(after_clear)
    assert OBJECTIVE in carried and "feature.py" in carried
    assert "toolu_01Scripted" not in after_clear  # /clear started a new conversation; only the memory came along
    sources = [o.get("source") for o in logged(git_repo, first) if o["kind"] == "session"]
    assert "compact" in sources
    cleared = [s for s in c.sessions() if s != first]
    assert cleared and any(o.get("source") == "clear" for o in logged(git_repo, cleared[-1]) if o["kind"] == "session")


SUMMARY_TEXT = (
    "<summary>1. Primary request: the user wants a small widget library. 2. Work so far: many modules were "
    "written and some tests were run. 3. Current work: continuing with the library.</summary>"
)
RUNS = ["a", "b", "c", "d", "e", "a"]  # test_e fails; test_a runs twice


def dropping_summarizer(body: dict) -> dict | None:
    """Compaction requests get a summary that keeps the request and drops every path and test outcome."""
    return text(SUMMARY_TEXT, usage={"input_tokens": 100, "output_tokens": 50}) if is_summary_request(body) else None


def test_compact_in_the_tui_restores_what_the_summary_dropped_and_says_so(tmp_path, git_repo):
    """`/compact` after 26 edits and 6 test runs: the next request carries the next action, the unresolved item and
    every test command's last outcome the summary dropped (the edited files it and the one after); the person sees
    the one-line report."""
    agent_bin("claude")
    python = sys.executable
    steps = [tool_use("Write", {"file_path": str(git_repo / "notes.md"), "content": "plan\n"}), text("Planned.")]
    for n in range(1, 21):
        steps.append(tool_use("Write", {"file_path": str(git_repo / f"widgets/w{n:02}.py"), "content": f"W = {n}\n"}))
    for name in "abcde":
        body = "def test_it():\n    assert " + ("False" if name == "e" else "True") + "\n"
        steps.append(tool_use("Write", {"file_path": str(git_repo / f"tests/test_{name}.py"), "content": body}))
    for name in RUNS:
        steps.append(tool_use("Bash", {"command": f"{python} -m pytest -q -p no:cacheprovider tests/test_{name}.py"}))
    steps += [text("Widgets written, test_e still fails."), text("Continuing from the memory."), text("Those.")]
    with MessagesServer(responder=dropping_summarizer) as srv:
        srv.push(*steps)
        c = ClaudeDriver(tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": python})
        with c.tui("--permission-mode", "default") as tui:
            tui.send("Build the widget library in widgets/ with tests.", expect=2)
            session = tui.session_id or c.sessions()[-1]
            checkpoint = {
                "objective": "Build the widget library in widgets/ with tests",
                "next_action": "write the widget registry",
                "unresolved": ["UNRESOLVED-MARKER: the widget registry has no owner"],
            }
            proc = subprocess.run(
                [python, "-m", "autopilot", "handoff", "checkpoint", "--agent", "claude", "--session", session,
                 "--file", "-"],
                cwd=git_repo, input=json.dumps(checkpoint), capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            tui.send("Now write the widgets and run their tests.", expect=32, timeout=400)
            tui.send("/compact")
            compacted = tui.screen()
            tui.send("what next after the compaction?")
            answered = tui.screen()
            tui.send("and which files?")
        request = request_for(srv, "what next after the compaction?")
    injected = memory_in(request)
    rest = memory_in(request_for(srv, "and which files?"))  # what did not fit the first excerpt comes next
    assert SUMMARY_TEXT.split("</summary>")[0][-40:] in request  # the compaction really happened
    assert "make `" in injected and "test_e.py` pass" in injected  # the next action: the failing run
    assert "UNRESOLVED-MARKER" in injected
    for name in "abcde":
        outcome = "fail" if name == "e" else "pass"
        assert f'tests/test_{name}.py": {outcome}' in injected, name
    assert all(f"widgets/w{n:02}.py" in injected + rest for n in range(1, 21))
    log = [o["kind"] for o in logged(git_repo, session)]
    assert log.count("edit") >= 26 and log.count("run") == 6
    assert "compaction dropped" in compacted and "restored with the next message" in compacted
    said = re.search(r"compaction dropped (\d+) facts the task needs; (\d+) restored \(\d+\.\d KB\)", answered)
    assert said and int(said.group(1)) >= 27 and int(said.group(2)) >= 8, answered  # the rest comes next


PLAN_SUMMARY = (
    "<summary>1. Primary request: make the two lexer tests pass. 2. Work so far: the tests were written and "
    "run. 3. Current work: continuing.</summary>"
)


def test_the_agents_stated_next_steps_survive_a_compact_typed_in_the_tui(tmp_path, git_repo):
    """A turn that ends with "Next steps:" and a list, then `/compact` whose summary drops the list: the next request
    carries every stated step (labelled as the agent's claim) and a next action naming both failing tests."""
    agent_bin("claude")
    python = sys.executable
    plan = (
        "Both tests fail.\n\nNext steps:\n1. STEP-ONE fix the comma rule in lexer.py\n2. STEP-TWO rerun the fuzz corpus"
    )
    steps = []
    for name in "ab":
        body = "def test_it():\n    assert False\n"
        steps.append(tool_use("Write", {"file_path": str(git_repo / f"tests/test_{name}.py"), "content": body}))
    for name in "ab":
        steps.append(tool_use("Bash", {"command": f"{python} -m pytest -q -p no:cacheprovider tests/test_{name}.py"}))
    steps += [text(plan), text("Continuing from the memory.")]

    def summarize(body: dict) -> dict | None:
        return text(PLAN_SUMMARY, usage={"input_tokens": 90, "output_tokens": 40}) if is_summary_request(body) else None

    with MessagesServer(responder=summarize) as srv:
        srv.push(*steps)
        c = ClaudeDriver(tmp_path / "c", srv, work=git_repo, plugin_dir=REPO, env={"AUTOPILOT_PYTHON": python})
        with c.tui("--permission-mode", "default") as tui:
            tui.send("Make the two lexer tests pass.", expect=5, timeout=300)
            session = tui.session_id or c.sessions()[-1]
            tui.send("/compact")
            tui.send("what now after the compaction?")
        request = request_for(srv, "what now after the compaction?")
    injected = memory_in(request)
    assert PLAN_SUMMARY.split("</summary>")[0][-30:] in request  # the compaction really happened
    assert "STEP-ONE fix the comma rule in lexer.py" in injected and "STEP-TWO rerun the fuzz corpus" in injected
    assert "Next steps the agent stated" in injected
    assert "tests/test_a.py` pass" in injected and "tests/test_b.py` pass" in injected  # every failing test
    assert any(o.get("next") for o in logged(git_repo, session) if o["kind"] == "turn")
