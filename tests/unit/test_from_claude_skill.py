"""The from-claude skill's script: the pointer checks, finding codex-bridge, and the intake it runs."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from autopilot import paths
from tests.support.repo import FIXTURES

TRANSCRIPT = FIXTURES / "claude" / "tools" / "49fa090f-34fe-47da-9cd9-cf59c6a193ff.jsonl"


@pytest.fixture
def skill(bridge):
    """The from-claude skill as `install codex` wrote it."""
    code, _, err = bridge("install", "codex")
    assert code == 0, err
    return paths.codex_home() / "skills" / "from-claude"


@pytest.fixture
def work(tmp_path):
    """The repository Codex works in."""
    repo = tmp_path / "work"
    (repo / ".git").mkdir(parents=True)
    return repo


@pytest.fixture
def fake_bridge(tmp_path):
    """A codex-bridge on PATH that records its arguments and prints a marker."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    calls = tmp_path / "calls.json"
    tool = folder / "codex-bridge"
    tool.write_text(
        f"#!{sys.executable}\nimport json, sys\njson.dump(sys.argv[1:], open({str(calls)!r}, 'w'))\n"
        "print('{\"intake\": true}')\n"
    )
    tool.chmod(0o755)
    return {"path": folder, "calls": calls}


def claude_pointer(transcript: Path | str, cwd: Path | str) -> Path:
    """Write the Claude-side $handoff pointer."""
    target = paths.handoff_dir() / "claude-latest.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps(
            {
                "transcript_path": str(transcript),
                "cwd": str(cwd),
                "session_id": "49fa090f-x",
                "created_at": "2026-11-30T11:47:18.000000Z",
            }
        )
    )
    return target


def run(skill: Path, *args: str, cwd: Path, path: str | None = None) -> subprocess.CompletedProcess:
    """Run the skill's launcher as Codex's shell tool would, with PATH set to ``path``."""
    env = {**os.environ, "PATH": path if path is not None else os.environ["PATH"]}
    return subprocess.run(
        [str(skill / "scripts" / "from-claude"), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_runs_intake_on_the_pointers_transcript(skill, work, fake_bridge):
    """With a pointer for this repository, the bridge runs `handoff intake <transcript>` and its output passes on."""
    claude_pointer(TRANSCRIPT, work)
    done = run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert (done.returncode, done.stdout) == (0, '{"intake": true}\n')
    assert json.loads(fake_bridge["calls"].read_text()) == ["handoff", "intake", str(TRANSCRIPT)]
    assert "handed over at 2026-11-30T11:47:18" in done.stderr


def test_passes_paging_flags_as_separate_arguments(skill, work, fake_bridge):
    """--before-line, --limit, --max-chars and --full reach the bridge as their own arguments."""
    claude_pointer(TRANSCRIPT, work)
    run(
        skill,
        "--before-line",
        "40",
        "--limit",
        "5",
        "--max-chars",
        "300",
        "--full",
        cwd=work,
        path=f"{fake_bridge['path']}:/usr/bin:/bin",
    )
    assert json.loads(fake_bridge["calls"].read_text()) == [
        "handoff",
        "intake",
        str(TRANSCRIPT),
        "--before-line",
        "40",
        "--limit",
        "5",
        "--max-chars",
        "300",
        "--full",
    ]


def test_a_subdirectory_of_the_repository_matches(skill, work, fake_bridge):
    """Codex running in a subdirectory of the pointer's repository is the same place."""
    claude_pointer(TRANSCRIPT, work)
    (work / "pkg").mkdir()
    assert run(skill, cwd=work / "pkg", path=f"{fake_bridge['path']}:/usr/bin:/bin").returncode == 0


def test_no_pointer_says_what_to_do(skill, work, fake_bridge):
    """Without a pointer the script stops and says to type $handoff in Claude Code first."""
    done = run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert done.returncode == 1 and "type $handoff in Claude Code first" in done.stderr
    assert not fake_bridge["calls"].exists()


def test_pointer_for_another_directory_is_refused(skill, work, tmp_path, fake_bridge):
    """A pointer made in another directory is refused, naming both directories."""
    other = tmp_path / "other"
    other.mkdir()
    claude_pointer(TRANSCRIPT, other)
    done = run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert done.returncode == 1 and f"is for {other}, not {work}" in done.stderr
    assert not fake_bridge["calls"].exists()


def test_corrupt_pointer_is_refused(skill, work, fake_bridge):
    """A pointer that is not JSON is reported, not guessed around."""
    claude_pointer(TRANSCRIPT, work).write_text("{broken")
    done = run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert done.returncode == 1 and "cannot read" in done.stderr


def test_explicit_transcript_skips_the_pointer(skill, work, tmp_path, fake_bridge):
    """A transcript given as the argument is read even when the pointer is for elsewhere."""
    claude_pointer("/elsewhere.jsonl", tmp_path)
    assert run(skill, str(TRANSCRIPT), cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin").returncode == 0
    assert json.loads(fake_bridge["calls"].read_text()) == ["handoff", "intake", str(TRANSCRIPT)]


def test_transcript_with_shell_characters_is_passed_verbatim(skill, work, tmp_path, fake_bridge):
    """A path full of shell syntax reaches the bridge as one argument, never evaluated."""
    odd = tmp_path / "a b;$(touch pwned)`x`.jsonl"
    odd.write_text(TRANSCRIPT.read_text())
    claude_pointer(odd, work)
    run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert json.loads(fake_bridge["calls"].read_text())[2] == str(odd)
    assert not (work / "pwned").exists()


def test_missing_transcript_is_reported(skill, work, fake_bridge):
    """A pointer whose transcript is gone says so before any bridge runs."""
    claude_pointer(work / "gone.jsonl", work)
    done = run(skill, cwd=work, path=f"{fake_bridge['path']}:/usr/bin:/bin")
    assert done.returncode == 1 and "does not exist" in done.stderr


def test_falls_back_to_the_recorded_installation(skill, work, tmp_path, fake_bridge):
    """With no codex-bridge on PATH, the one recorded at install time (installed.json) runs."""
    recorded = skill / "scripts" / "installed.json"
    recorded.write_text(json.dumps({"bridge": str(fake_bridge["path"] / "codex-bridge"), "python": None}))
    claude_pointer(TRANSCRIPT, work)
    done = run(skill, cwd=work, path="/usr/bin:/bin")
    assert done.returncode == 0 and fake_bridge["calls"].exists()


def test_no_bridge_anywhere_says_what_to_do(skill, work):
    """With neither PATH nor the recorded installation usable, the script says how to fix it."""
    (skill / "scripts" / "installed.json").write_text(
        json.dumps({"bridge": "/gone/codex-bridge", "python": "/gone/python"})
    )
    claude_pointer(TRANSCRIPT, work)
    done = run(skill, cwd=work, path="/usr/bin:/bin")
    assert done.returncode == 1 and "cannot find codex-bridge" in done.stderr


def test_reads_a_real_transcript_through_the_installed_bridge(skill, work):
    """End to end without Codex: the launcher finds this checkout's bridge and prints the real intake JSON."""
    claude_pointer(TRANSCRIPT, work)
    done = run(skill, cwd=work, path="/usr/bin:/bin")  # no codex-bridge on PATH: the recorded one runs
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert (answer["format"], answer["session"]["sessionId"]) == ("claude-code-transcript", TRANSCRIPT.stem)
    assert answer["trust"].startswith("evidence-only")


def test_skill_command_is_what_the_skill_md_says(skill):
    """The command in SKILL.md is the launcher the tests run."""
    assert shlex.quote(str(skill / "scripts" / "from-claude")) in (skill / "SKILL.md").read_text()
