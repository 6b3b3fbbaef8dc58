"""Each concept has one home (docs/architecture.md, "One home per concept"): a rule here is a finder over the
package's syntax trees, a test that the package obeys it, and a test that the finder finds a planted violation.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import pytest

from autopilot import fsutil
from autopilot.errors import BridgeError
from tests.unit.test_architecture import modules, nodes

if TYPE_CHECKING:
    from collections.abc import Iterable


def planted(source: str) -> tuple[ast.AST, ...]:
    """The nodes of a planted module's source."""
    return tuple(ast.walk(ast.parse(source)))


# -- file locks: fsutil alone makes them --------------------------------------------------------------------

LOCK_HOME = "autopilot.fsutil"
LOCK_CALLS = {"fcntl": {"flock", "lockf"}, "os": {"lockf"}, "msvcrt": {"locking"}}  # fcntl.ioctl is no file lock


def lock_uses(tree: Iterable[ast.AST]) -> list[int]:
    """The lines that import filelock or lock a file through fcntl, os or msvcrt (``fcntl.flock(...)``,
    ``from fcntl import flock``)."""
    found = []
    for node in tree:
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "filelock" for a in node.names):
            found.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module:
            base = node.module.split(".")[0]
            if base == "filelock" or any(a.name in LOCK_CALLS.get(base, ()) for a in node.names):
                found.append(node.lineno)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found += [node.lineno] if node.attr in LOCK_CALLS.get(node.value.id, ()) else []
    return sorted(set(found))


def test_only_fsutil_locks_files():
    """No module but fsutil imports filelock or calls fcntl.flock / fcntl.lockf: every lock is fsutil's."""
    found = {m: lock_uses(nodes(p)) for m, p in modules().items() if m != LOCK_HOME}
    assert {m: lines for m, lines in found.items() if lines} == {}


def test_fsutil_is_where_the_locks_are():
    """fsutil really is the home: it imports filelock and calls fcntl.flock (so the check above is not vacuous)."""
    assert len(lock_uses(nodes(modules()[LOCK_HOME]))) >= 3


def test_the_lock_finder_finds_each_form():
    """The check above can fail: each way of taking a file lock is found, a terminal's ioctl is not."""
    source = (
        "import filelock\n"
        "from filelock import FileLock\n"
        "import fcntl\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "fcntl.lockf(fd, fcntl.LOCK_EX)\n"
        "from fcntl import flock\n"
        "os.lockf(fd, os.F_LOCK, 0)\n"
        "fcntl.ioctl(fd, termios.TIOCEXCL)\n"
    )
    assert lock_uses(planted(source)) == [1, 2, 4, 5, 6, 7]


def test_a_held_lock_makes_another_holder_wait_then_names_it(tmp_path):
    """While one Lock holds a file, another times out: a try says False, a `with` raises the BridgeError that names
    the lock, how long it waited and the hint."""
    path = tmp_path / "run.lock"
    with fsutil.held(path):
        other = fsutil.Lock(path)
        assert other.acquire(0) is False
        with pytest.raises(BridgeError) as caught, fsutil.held(path, 0.05, hint="try later"):
            pass
    assert str(caught.value) == f"another codex-bridge process has held {path} for 0s (try later)"
    assert other.acquire(0) is True
    other.release()


def test_is_held_sees_another_holder_and_creates_nothing(tmp_path):
    """is_held is True only while a lock holds the file, and a lock file that is not there stays absent."""
    path = tmp_path / "call.lock"
    assert fsutil.is_held(path) is False and not path.exists()
    lock = fsutil.Lock(path)
    assert lock.acquire(0) is True
    assert fsutil.is_held(path) is True
    lock.release()
    assert fsutil.is_held(path) is False
