"""Terminal escapes: no escape sequence from a model, a transcript or a tool reaches a person's terminal.

A run is planned from a hostile Codex answer (a window-title change, a screen clear, an OSC 8 link,
8-bit C1 controls, a carriage return, a direction override in every text), given a hostile verdict,
and its session's active memory records hostile prompts, paths and test output. Each command with
text output then runs as a real process on a real pseudo-terminal, and what it wrote is rendered by
pyte (a VT100 emulator): the window title stays empty, nothing is cleared or overwritten, and the
raw bytes hold no ESC, no C1 control and no bare carriage return. Hook answers, the plan file in
the repository and error messages are checked the same way.
"""

from __future__ import annotations

import copy
import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pyte
import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.bridge import run_bridge
from tests.support.hooks import SESSION, payload
from tests.support.loop import PLAN, continue_to
from tests.support.world import copy_tree, scripted_world

HOSTILE = (
    "\x1b]0;PWNED-TITLE\x07\x1b[2J\x1b[H\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
    "\x9b2J\x9d2;C1-TITLE\x9c\rOVERWRITE\u202eevil\x1b[31mred"
)
MARK = "hostile-marker"
T2 = f"T2{HOSTILE}"
RAW_FORBIDDEN = [b"\x1b", b"\xc2\x9b", b"\xc2\x9d", b"\xc2\x9c", b"\x07", "\u202e".encode()]


def hostile_plan() -> dict:
    plan = copy.deepcopy(PLAN)
    plan["summary"] = f"{MARK} summary {HOSTILE}"
    for task in plan["tasks"]:
        task["title"] += f" {MARK} {HOSTILE}"
        task["description"] += f" {HOSTILE}"
        task["acceptance"] = [f"{c} {HOSTILE}" for c in task["acceptance"]]
    plan["tasks"][0]["id"] = f"T1{HOSTILE}"
    plan["tasks"][1]["id"] = T2
    return plan


@pytest.fixture(scope="module")
def hostile_world(tmp_path_factory, git_repo_template):
    """A run planned, judged and remembered from hostile answers: built once for the module (a plan, a verdict
    and four hooks, one of them starting a review worker, cost a second and a half)."""
    with scripted_world(tmp_path_factory, "hostile") as (world, server), world.building():
        repo = copy_tree(git_repo_template, world.work / "repo")
        server.push(reply_json(hostile_plan()))
        code, out, err = run_bridge("-C", str(repo), "plan", "--goal", f"Add a feature {HOSTILE}")
        assert code == 0, err
        (repo / "feature.py").write_text("x = 1\n")
        verdict = continue_to(T2)
        verdict["reason"] = f"{MARK} reason {HOSTILE}"
        server.push(reply_json(verdict))
        code, _, err = run_bridge("-C", str(repo), "verdict", "--last-message", f"done {HOSTILE}")
        assert code == 0, err
        for event, fields in (
            ("SessionStart", {"source": "startup"}),
            ("UserPromptSubmit", {"prompt": f"{MARK} fix it {HOSTILE}", "prompt_id": "p1"}),
            ("PostToolUse", {"tool_name": "Edit", "tool_input": {"file_path": f"/w/{MARK}{HOSTILE}.py"}}),
            ("PostToolUseFailure", {"tool_name": "Bash", "tool_input": {"command": f"pytest -q {HOSTILE}"},
                                    "error": f"Exit code 1\n1 failed {MARK} {HOSTILE}"}),
        ):  # fmt: skip
            code, _, err = run_bridge("hook", event, stdin=json.dumps(payload(event, repo, **fields)))
            assert code == 0, err
    return world


@pytest.fixture
def hostile(hostile_world, openai_env, monkeypatch):
    """The hostile world's repository, as built (the openai backend pointed at this test's scripted server)."""
    return hostile_world.restore(monkeypatch).work / "repo"


def on_a_terminal(args: list[str], cwd: Path, stdin: str = "") -> bytes:
    """What ``codex-bridge ARGS`` writes to a real pseudo-terminal (stdout and stderr both)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "autopilot", *args],
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=follower,
        stderr=follower,
        env={**os.environ, "TERM": "xterm-256color", "COLUMNS": "200"},
    )
    os.close(follower)
    assert proc.stdin is not None
    proc.stdin.write(stdin.encode())
    proc.stdin.close()
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError(f"{args} wrote nothing for 60 s")
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks)


def rendered(raw: bytes) -> pyte.Screen:
    screen = pyte.Screen(220, 400)
    pyte.ByteStream(screen).feed(raw)
    return screen


def assert_inert(raw: bytes, *, expect_mark: bool = True) -> None:
    """No escape reached the terminal: raw bytes clean, the title untouched, the text still on screen."""
    assert [b for b in RAW_FORBIDDEN if b in raw] == [], raw[:2000]
    assert b"\r" not in raw.replace(b"\r\n", b"")  # the pty's own line ends only
    screen = rendered(raw)
    assert screen.title == "" and screen.icon_name == ""
    shown = "\n".join(screen.display)
    if expect_mark:
        assert MARK in shown and "\\x1b]0;PWNED-TITLE" in shown, shown[:3000]


def commands(repo: Path) -> list[tuple[list[str], str]]:
    statusline = json.dumps({"session_id": SESSION, "workspace": {"current_dir": str(repo)}})
    return [
        (["status"], ""),
        (["statusline"], statusline),
        (["report"], ""),
        (["handoff", "active", "--agent", "claude", "--session", SESSION], ""),
        (["handoff", "search", MARK], ""),
    ]


@pytest.mark.parametrize("index", range(5), ids=["status", "statusline", "report", "handoff active", "handoff search"])
def test_no_escape_sequence_reaches_the_terminal(hostile, index):
    """Each command's text output, rendered on a real pty, changes no title, clears nothing, shows the escapes."""
    args, stdin = commands(hostile)[index]
    raw = on_a_terminal(args, hostile, stdin)
    assert_inert(raw, expect_mark=args[0] not in ("statusline", "report"))


def test_the_status_line_segment_is_bounded_and_printable(hostile):
    """The segment is one printable line of at most 120 characters, whatever the task id holds."""
    stdin = json.dumps({"workspace": {"current_dir": str(hostile)}})
    raw = on_a_terminal(["statusline"], hostile, stdin)
    line = raw.decode().rstrip("\r\n")
    assert "\n" not in line and len(line) <= 120 and line.startswith("autopilot ▶ T2\\x1b]0;PWNED")
    assert_inert(raw, expect_mark=False)


def test_status_lines_are_bounded(hostile, openai_env, bridge):
    """A 20,000-character verdict reason does not make a 20,000-character line in `status`."""
    verdict = continue_to(T2)
    verdict["reason"] = "long " + "x" * 20_000
    (hostile / "feature2.py").write_text("y = 2\n")
    openai_env.push(reply_json(verdict))
    assert bridge("-C", str(hostile), "verdict", "--last-message", "done")[0] == 0
    raw = on_a_terminal(["status"], hostile)
    assert max(len(line) for line in raw.decode().split("\r\n")) <= 400


def test_an_error_message_is_printable(hostile, tmp_path):
    """A hostile directory name in an error (`-C DIR`) is shown escaped, not acted on."""
    raw = on_a_terminal(["-C", str(tmp_path / f"gone{HOSTILE}"), "status"], hostile)
    assert b"error" in raw
    assert_inert(raw, expect_mark=False)


def test_the_plan_file_holds_no_escape(hostile):
    """The plan written into the repository (people `cat` it) shows Codex's escapes as text."""
    state = json.loads(subprocess.run(
        [sys.executable, "-m", "autopilot", "state"], cwd=hostile, capture_output=True, text=True, check=True
    ).stdout)  # fmt: skip
    data = (hostile / state["plan_path"]).read_bytes()
    assert_inert(data.replace(b"\n", b"\r\n"))


def test_hook_answers_hold_no_escape(hostile, bridge, openai_env):
    """The Stop hook's reason or context and its systemMessage carry the verdict's escapes as text only."""
    (hostile / "feature3.py").write_text("z = 3\n")
    verdict = continue_to(T2)
    verdict["reason"] = f"{MARK} {HOSTILE}"
    openai_env.push(reply_json(verdict))
    code, out, err = bridge("hook", "Stop", stdin=json.dumps(payload("Stop", hostile, stop_hook_active=False)))
    answer = json.loads(out)
    texts = [answer.get("reason"), answer.get("systemMessage"), (answer.get("hookSpecificOutput") or {}).get(
        "additionalContext")]  # fmt: skip
    shown = "\n".join(t for t in texts if t)
    assert code == 0 and MARK in shown
    assert_inert(shown.encode().replace(b"\n", b"\r\n"))
