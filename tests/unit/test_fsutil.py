"""fsutil's temp files: made as tempfile.mkstemp makes them, without importing tempfile."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from autopilot import fsutil
from tests.support.measured import unmeasured


def test_a_temp_file_is_new_and_private(tmp_path):
    """The file is created empty, readable and writable by its owner only, with the prefix and suffix asked for."""
    old = os.umask(0)
    try:
        fd, name = fsutil.make_temp(tmp_path, ".state.json.", ".tmp")
    finally:
        os.umask(old)
    os.close(fd)
    assert os.path.dirname(name) == str(tmp_path)
    assert os.path.basename(name).startswith(".state.json.") and name.endswith(".tmp")
    assert stat.S_IMODE(os.stat(name).st_mode) == 0o600 and os.path.getsize(name) == 0


def test_a_taken_name_or_planted_symlink_is_never_opened(tmp_path, monkeypatch):
    """A name that exists, even as a symlink to a file elsewhere, is skipped for a new one; the target is untouched."""
    target = tmp_path / "victim"
    target.write_text("keep")
    names = iter([b"\x00" * 6, b"\x01" * 6])
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    os.symlink(target, tmp_path / f"p{'00' * 6}.tmp")
    fd, name = fsutil.make_temp(tmp_path, "p", ".tmp")
    with os.fdopen(fd, "wb") as fh:
        fh.write(b"new")
    assert name == str(tmp_path / f"p{'01' * 6}.tmp")
    assert target.read_text() == "keep"


def test_atomic_write_imports_no_tempfile(tmp_path):
    """Writing a file atomically loads neither tempfile nor what it imports (random, shutil)."""
    code = "import sys; from autopilot.fsutil import atomic_write; atomic_write(sys.argv[1], 'x', durable=False); "
    code += "print(sorted(m for m in ('tempfile', 'random', 'shutil') if m in sys.modules))"
    argv = [sys.executable, "-c", code, str(tmp_path / "f")]
    out = subprocess.run(argv, capture_output=True, text=True, check=True, env=unmeasured())
    assert out.stdout == "[]\n" and (tmp_path / "f").read_text() == "x"


def test_under_the_private_umask_new_folders_are_0700_and_files_0600_whatever_the_umask(tmp_path):
    """With the user's umask 000, an atomic write into missing folders makes each folder 0700 and the file 0600."""
    old = os.umask(0)
    try:
        previous = fsutil.private_umask()
        fsutil.atomic_write(tmp_path / "a" / "b" / "c.json", "{}")
        with open(tmp_path / "a" / "log.jsonl", "a") as fh:  # an ordinary writer: the umask covers it too
            fh.write("x\n")
        fsutil.restore_umask(previous)
        assert os.umask(0) == 0  # the caller's umask is back
    finally:
        os.umask(old)
    modes = {p.relative_to(tmp_path).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*")}
    assert modes == {"a": 0o700, "a/b": 0o700, "a/b/c.json": 0o600, "a/log.jsonl": 0o600}


def test_the_users_own_files_keep_the_users_umask_under_the_private_one(tmp_path, monkeypatch):
    """A plan in the repository (replace_text, user_dirs) gets 0644 and 0755 with umask 022, not the bridge's 0600."""
    monkeypatch.setattr(fsutil, "_USER_UMASK", [])
    old = os.umask(0o022)
    try:
        previous = fsutil.private_umask()
        fsutil.replace_text(tmp_path / "docs" / "plans" / "p.md", "# plan\n")
        fsutil.restore_umask(previous)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "docs").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "docs" / "plans").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "docs" / "plans" / "p.md").stat().st_mode) == 0o644


def test_a_lock_file_is_private(tmp_path):
    """The lock file a lock creates is its user's alone (0600), with the umask 000."""
    old = os.umask(0)
    try:
        with fsutil.held(tmp_path / "x.lock"):
            pass
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.lock").stat().st_mode) == 0o600


def test_a_home_an_older_version_left_readable_is_tightened_once(tmp_path):
    """Folders 0755 become 0700, files 0644 0600, a read-only packet 0444 0400; a symlink's target is left alone; a
    second pass walks nothing."""
    home, outside = tmp_path / "home", tmp_path / "outside.txt"
    (home / "handoff" / "packets").mkdir(parents=True)
    outside.write_text("not ours")
    (home / "crash.log").write_text("x")
    (home / "handoff" / "packets" / "p.json").write_text("{}")
    (home / "link").symlink_to(outside)
    for path, mode in ((home, 0o755), (home / "handoff", 0o755), (home / "handoff" / "packets", 0o775),
                       (home / "crash.log", 0o644), (home / "handoff" / "packets" / "p.json", 0o444),
                       (outside, 0o644)):  # fmt: skip
        path.chmod(mode)
    assert fsutil.tighten(home) == 5
    modes = {p.relative_to(home).as_posix(): stat.S_IMODE(p.lstat().st_mode) for p in home.rglob("*")}
    assert stat.S_IMODE(home.stat().st_mode) == 0o700 and stat.S_IMODE(outside.stat().st_mode) == 0o644
    assert {k: v for k, v in modes.items() if k != "link"} == {
        "crash.log": 0o600, "handoff": 0o700, "handoff/packets": 0o700, "handoff/packets/p.json": 0o400,
    }  # fmt: skip
    assert fsutil.tighten(home) == 0


def test_a_shared_folder_or_the_users_home_is_never_tightened(tmp_path, monkeypatch):
    """A home set to a folder shared by design (sticky, as /tmp) or to the user's own home folder is left as it is."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / "theirs").write_text("x")
    (shared / "theirs").chmod(0o644)
    assert fsutil.tighten(shared) == 0 and stat.S_IMODE(shared.stat().st_mode) == 0o1777
    mine = tmp_path / "me"
    mine.mkdir(mode=0o755)
    mine.chmod(0o755)
    monkeypatch.setenv("HOME", str(mine))
    assert fsutil.tighten(mine) == 0 and stat.S_IMODE(mine.stat().st_mode) == 0o755


def test_a_lock_excludes_another_holder_and_a_filelock_one(tmp_path):
    """Two Locks on one file exclude each other (within a process too: a flock per open file), a lock filelock takes
    excludes one, and is_held sees them held, from this process and another."""
    import subprocess
    import sys

    import filelock

    from autopilot.fsutil import Lock, is_held

    path = tmp_path / "run.lock"
    first, second = Lock(path), Lock(path)
    assert first.acquire(0) and not second.acquire(0.05)
    holder = subprocess.run(
        [sys.executable, "-c", "import sys; from autopilot.fsutil import is_held; sys.exit(is_held(sys.argv[1]))",
         str(path)], check=False)  # fmt: skip
    assert holder.returncode == 1  # another process sees it held
    first.release()
    assert second.acquire(0) and is_held(path)  # is_held asks with a file of its own: this process counts too
    second.release()
    assert not is_held(path)
    with filelock.FileLock(str(path)):
        assert not Lock(path).acquire(0.05)
    assert Lock(path).acquire(0)


def test_a_lock_waits_for_its_holder_then_takes_it(tmp_path):
    """A Lock that waits takes the lock once its holder lets go, inside its timeout."""
    import threading
    import time

    from autopilot.fsutil import Lock

    path = tmp_path / "run.lock"
    holder = Lock(path)
    assert holder.acquire(0)
    threading.Timer(0.2, holder.release).start()
    started = time.monotonic()
    waiter = Lock(path)
    assert waiter.acquire(5) and 0.15 < time.monotonic() - started < 2
    waiter.release()
