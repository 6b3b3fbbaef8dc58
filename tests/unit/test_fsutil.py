"""fsutil's temp files: made as tempfile.mkstemp makes them, without importing tempfile."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

from autopilot import fsutil


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
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "f")], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n" and (tmp_path / "f").read_text() == "x"


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
