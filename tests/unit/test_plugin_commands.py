"""Slash commands and the from-codex skill pass what the user typed to the bridge without any shell expanding it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.repo import REPO

HEREDOC = re.compile(r"<<'CODEX_AUTOPILOT_ARGS'\n\$ARGUMENTS\nCODEX_AUTOPILOT_ARGS\n")
# A fake bridge that appends each call's argv (as JSON) to calls.jsonl next to it.
FAKE_BRIDGE = f"""#!{sys.executable}
import json, os, sys
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.jsonl"), "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
"""


@pytest.fixture
def scripts(tmp_path):
    """scripts/slash next to a fake bridge that records its calls."""
    root = tmp_path / "scripts"
    root.mkdir()
    shutil.copy(REPO / "scripts" / "slash", root / "slash")
    (root / "bridge").write_text(FAKE_BRIDGE)
    (root / "bridge").chmod(0o755)
    return root


def slash(scripts, *args, stdin):
    proc = subprocess.run([str(scripts / "slash"), *args], input=stdin, capture_output=True, text=True, timeout=30)
    calls = scripts / "calls.jsonl"
    return proc, [json.loads(x) for x in calls.read_text().splitlines()] if calls.exists() else []


def test_goal_reaches_the_bridge_verbatim(scripts, tmp_path):
    """Quotes, $(...), backticks and ; in a goal are one literal argument; nothing is executed."""
    goal = """add "x" $(touch PWNED) `touch PWNED2` ; rm -rf ~ & it's fine"""
    proc, calls = slash(scripts, "autopilot", "sess-1", stdin=f"  {goal}\n")
    assert proc.returncode == 0
    assert calls == [["plan", "--goal", goal, "--session-id", "sess-1"]]
    assert not list(Path.cwd().glob("PWNED*")) and not list(tmp_path.rglob("PWNED*"))


def test_autopilot_resume_resumes_then_shows_status(scripts):
    """`/autopilot resume` continues the paused run and prints its status; it never plans."""
    _, calls = slash(scripts, "autopilot", "sess-1", stdin="resume\n")
    assert calls == [["resume"], ["status"]]


def test_codex_plan_plans(scripts):
    """/codex-plan runs the same plan command for this session."""
    _, calls = slash(scripts, "plan", "sess-1", stdin="write docs\n")
    assert calls == [["plan", "--goal", "write docs", "--session-id", "sess-1"]]


def test_empty_goal_is_refused(scripts):
    """A goal of only whitespace makes no call and says how to use the command."""
    proc, calls = slash(scripts, "plan", "sess-1", stdin=" \n")
    assert proc.returncode == 2 and calls == [] and "/codex-plan <goal>" in proc.stderr


def test_stop_reason_is_literal_and_optional(scripts):
    """/codex-stop passes its reason as one argument, with a default when none is given."""
    slash(scripts, "stop", "sess-1", stdin="done for $(today)\n")
    _, calls = slash(scripts, "stop", "sess-1", stdin="\n")
    assert calls == [["stop", "--reason", "done for $(today)"], ["stop", "--reason", "stopped with /codex-stop"]]


@pytest.mark.parametrize(
    "path", sorted(p.relative_to(REPO) for p in [*REPO.glob("commands/*.md"), *REPO.glob("skills/*/SKILL.md")])
)
def test_arguments_only_ever_go_through_a_quoted_heredoc(path):
    """$ARGUMENTS appears only as the body of a quoted heredoc, never where a shell would expand it."""
    text = (REPO / path).read_text()
    assert text.count("$ARGUMENTS") == len(HEREDOC.findall(text))


@pytest.fixture
def codex_pointer(isolated_homes, git_repo):
    """A $handoff pointer from Codex for git_repo, and a stub bridge that records the intake call."""
    rollout = git_repo.parent / "rollout-2026-11-30T10-00-00-abc.jsonl"
    rollout.write_text("{}\n")
    pointer = isolated_homes / "autopilot" / "handoff" / "codex-latest.json"
    pointer.parent.mkdir(parents=True)
    pointer.write_text(
        json.dumps(
            {
                "transcript_path": str(rollout),
                "cwd": str(git_repo),
                "session_id": "s",
                "created_at": "2026-11-30T10:00:00Z",
            }
        )
    )
    stub = git_repo.parent / "stub" / "bridge"
    stub.parent.mkdir()
    stub.write_text(FAKE_BRIDGE)
    stub.chmod(0o755)
    return {"rollout": rollout, "pointer": pointer, "calls": stub.parent / "calls.jsonl", "stub": stub}


def from_codex(cwd, stub, *args, stdin=""):
    script = REPO / "skills" / "from-codex" / "scripts" / "from-codex"
    return subprocess.run(
        [str(script), *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,
        env={**os.environ, "CODEX_AUTOPILOT_BRIDGE": str(stub)},
    )


def test_from_codex_runs_intake_on_the_pointers_rollout(codex_pointer, git_repo):
    """With the pointer's cwd matching this repository, the bridge runs the intake on its rollout."""
    proc = from_codex(git_repo / ".", codex_pointer["stub"], "--args-on-stdin", stdin="--before 40 --full\n")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(codex_pointer["calls"].read_text()) == [
        "handoff",
        "from-codex",
        "intake",
        str(codex_pointer["rollout"]),
        "--before",
        "40",
        "--full",
    ]


def test_from_codex_refuses_a_handoff_for_another_directory(codex_pointer, tmp_path):
    """A pointer recorded in another repository is not read here; the user is told how to override."""
    other = tmp_path / "other"
    (other / ".git").mkdir(parents=True)
    proc = from_codex(other, codex_pointer["stub"])
    assert proc.returncode == 1 and "not " + str(other) in proc.stderr and "pass the rollout path" in proc.stderr
    assert not codex_pointer["calls"].exists()


def test_from_codex_takes_an_explicit_rollout(codex_pointer, tmp_path):
    """A rollout path given as the argument is read wherever Claude runs."""
    proc = from_codex(tmp_path, codex_pointer["stub"], "--args-on-stdin", stdin="'/x y/rollout.jsonl'\n")
    assert proc.returncode == 0
    assert json.loads(codex_pointer["calls"].read_text()) == ["handoff", "from-codex", "intake", "/x y/rollout.jsonl"]


def test_from_codex_without_a_handoff_says_what_to_do(isolated_homes, git_repo):
    """No pointer yet: exit 1 and tell the user to type $handoff in Codex."""
    proc = from_codex(git_repo, "/nonexistent")
    assert proc.returncode == 1 and "type $handoff in Codex first" in proc.stderr
