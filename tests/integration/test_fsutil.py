"""The home is private: what the bridge keeps under $AUTOPILOT_HOME is readable by its user alone, whatever the umask.

A run (plan and review), the hooks (a prompt with a credential, a failed command, a compaction), and the handoff
(export, import, intake, search and its index) write runs, memory, packets, caches, locks, logs and the SQLite
index; with the umask 000, every folder must come out 0700 and every file 0600 (or 0400), a real second local user
(``useradd``) must read nothing there (neither through the home nor, with the folders opened to it, a file), git's
objects in the user's repository must keep the user's umask, and a home an older version left readable is
tightened by the next command.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path

import pytest

from autopilot.scripted.responses_server import reply_json
from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, work_session
from tests.support.hooks import payload
from tests.support.loop import APPROVE, plan_two_tasks
from tests.support.second_user import as_user, second_user

SESSION = "7d3e2a10-0000-4000-8000-0000000000aa"
RECEIVER = "01a2ffff-0000-7000-8000-00000000c0de"


@pytest.fixture
def open_home(monkeypatch):
    """$AUTOPILOT_HOME in a folder under /tmp that every user may enter (0755), not made yet: the bridge makes it."""
    parent = Path(tempfile.mkdtemp(prefix="autopilot-home-", dir="/tmp"))
    parent.chmod(0o755)
    home = parent / "home"
    monkeypatch.setenv("AUTOPILOT_HOME", str(home))
    yield home
    import shutil

    shutil.rmtree(parent, ignore_errors=True)


def umask_000(fn):
    old = os.umask(0)
    try:
        return fn()
    finally:
        os.umask(old)


def use_everything(bridge, server, repo: Path) -> None:
    """A run, the hooks and the handoff, each writing what it keeps under the home."""
    plan_two_tasks(server, repo, bridge)
    (repo / "app.py").write_text("print('hi')\n")
    server.push(reply_json(APPROVE))
    code, _, err = bridge("review", cwd=repo)
    assert code == 0, err
    for event, fields in (
        ("SessionStart", {"source": "startup"}),
        ("UserPromptSubmit", {"prompt": "deploy with sk-proj-" + "Ab3Cd4Ef5" * 5}),
        ("PostToolUseFailure", {"tool_name": "Bash", "tool_input": {"command": "pytest"}, "error": "Exit code 1"}),
        ("PreCompact", {"trigger": "manual", "custom_instructions": "keep the plan"}),
    ):
        code, _, err = bridge("hook", event, stdin=json.dumps(payload(event, repo, **fields)), cwd=repo)
        assert code == 0, err
    session = claude_session(work_session(Transcript()), repo, SESSION)
    outs = []
    for args in (
        ("handoff", "intake", str(session)),
        ("handoff", "export", "--from", "claude", "--session", SESSION, "--to", "codex"),
        ("handoff", "search", "parser"),
    ):
        code, out, err = bridge(*args, cwd=repo)
        assert code == 0, err
        outs.append(out)
    packet = json.loads(outs[1])["packet"]
    args = ("handoff", "import", packet, "--to", "codex", "--session", RECEIVER, "--new-session")
    code, _, err = bridge(*args, cwd=repo)
    assert code == 0, err


def modes(home: Path) -> dict[str, int]:
    return {p.relative_to(home).as_posix(): stat.S_IMODE(p.lstat().st_mode) for p in home.rglob("*")}


@pytest.mark.slow
def test_everything_the_bridge_keeps_is_private_whatever_the_umask(openai_env, git_repo, bridge, open_home):
    """With the umask 000, every folder under the home is 0700, every file 0600 or 0400, the home itself 0700."""
    objects = set((git_repo / ".git" / "objects").rglob("*"))
    umask_000(lambda: use_everything(bridge, openai_env, git_repo))
    found = modes(open_home)
    kinds = {"packets", "index", "active", "runs", "cache"}
    assert kinds <= {part for name in found for part in name.split("/")}, sorted(found)  # the writers all wrote
    assert any(name.endswith(".sqlite3") for name in found) and any(name.endswith(".lock") for name in found)
    assert stat.S_IMODE(open_home.stat().st_mode) == 0o700
    assert {name: oct(mode) for name, mode in found.items() if mode & 0o077} == {}
    # git's objects in the user's repository keep the user's umask (000 here): 0444, not the bridge's 0400
    new = [p for p in (git_repo / ".git" / "objects").rglob("*") if p.is_file() and p not in objects]
    assert new and {oct(stat.S_IMODE(p.stat().st_mode)) for p in new} == {"0o444"}


@pytest.mark.slow
def test_a_second_local_user_reads_nothing_under_the_home(openai_env, git_repo, bridge, open_home):
    """A real second user lists no folder and opens no file of the home; with the folders opened to it (0711), it
    still opens no file."""
    umask_000(lambda: use_everything(bridge, openai_env, git_repo))
    files = sorted(str(p) for p in open_home.rglob("*") if p.is_file())
    folders = [str(open_home)] + sorted(str(p) for p in open_home.rglob("*") if p.is_dir())
    assert len(files) >= 15  # runs, memory, packets, imports, the index, caches, locks

    def attempt() -> list[str]:
        read = []
        for folder in folders:
            try:
                os.listdir(folder)
                read.append(folder)
            except OSError:
                pass
        for name in files:
            try:
                with open(name, "rb") as fh:
                    fh.read(1)
                read.append(name)
            except OSError:
                pass
        return read

    with second_user() as user:
        env = {"HOME": "/", "PATH": os.environ["PATH"]}
        assert as_user(user, env, attempt) == []
        for folder in folders:  # the files are private on their own too, not only behind their folders
            os.chmod(folder, 0o711)
        assert as_user(user, env, attempt) == []


def test_a_home_left_readable_by_an_older_version_is_tightened_by_the_next_command(git_repo, bridge, open_home):
    """A home of 0755 folders and 0644 files (a packet 0444) becomes 0700, 0600 and 0400 on the next `state`."""
    (open_home / "handoff" / "packets").mkdir(parents=True)
    (open_home / "handoff" / "index").mkdir()
    (open_home / "handoff" / "index" / "evidence.sqlite3").write_bytes(b"SQLite format 3\0")
    (open_home / "handoff" / "packets" / "p.json").write_text("{}")
    for path in [open_home, *open_home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (open_home / "handoff" / "packets" / "p.json").chmod(0o444)
    code, _, err = bridge("state", cwd=git_repo)
    assert code == 0, err
    assert stat.S_IMODE(open_home.stat().st_mode) == 0o700
    assert modes(open_home) == {
        "handoff": 0o700, "handoff/index": 0o700, "handoff/index/evidence.sqlite3": 0o600,
        "handoff/packets": 0o700, "handoff/packets/p.json": 0o400,
    }  # fmt: skip
