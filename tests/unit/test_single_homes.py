"""Each concept has one home (docs/architecture.md, "One home per concept"): a rule here is a finder over the
package's syntax trees, a test that the package obeys it, and a test that the finder finds a planted violation.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, NamedTuple

import pytest

from autopilot import fsutil
from autopilot.errors import BridgeError
from tests.unit.test_architecture import modules, nodes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


def planted(source: str) -> tuple[ast.AST, ...]:
    """The nodes of a planted module's source."""
    return tuple(ast.walk(ast.parse(source)))


# -- file locks: fsutil alone makes them --------------------------------------------------------------------

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


def test_the_lock_finder_finds_each_form():
    """test_only_its_home_does_it can fail: each way of taking a file lock is found, a terminal's ioctl is not."""
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


# -- the clock: clock.py alone reads the time of day and writes a time as text -------------------------------

TIME_READS = {"time", "time_ns", "strftime", "gmtime", "localtime", "ctime", "asctime", "mktime"}  # not monotonic
DATETIME_READS = {"now", "utcnow", "today", "fromtimestamp", "utcfromtimestamp", "fromisoformat"}
FORMATS = {"strftime", "isoformat"}  # a datetime or date written as text
SQL_CLOCK = ("strftime(", "'now'", "current_timestamp", "current_date", "current_time", "julianday(")


def last_name(node: ast.AST) -> str:
    """``x`` of ``x`` or of ``a.b.x`` ('' for anything else)."""
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def clock_uses(tree: Iterable[ast.AST]) -> list[int]:
    """The lines that read the clock or write a time as text: ``time.time()``, ``time.strftime(…)``,
    ``datetime.now()``, ``datetime.fromisoformat(…)``, any ``.strftime(…)`` or ``.isoformat()``, such a name
    imported from time or datetime, or SQL that asks SQLite for the time."""
    found = []
    for node in tree:
        if isinstance(node, ast.ImportFrom) and node.module in ("time", "datetime"):
            if any(a.name in (TIME_READS if node.module == "time" else DATETIME_READS) for a in node.names):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner, name = last_name(node.func.value), node.func.attr
            if (
                (owner == "time" and name in TIME_READS)
                or (owner in ("datetime", "date") and name in DATETIME_READS)
                or name in FORMATS
            ):
                found.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [node.lineno] if any(s in node.value.lower() for s in SQL_CLOCK) else []
    return sorted(set(found))


def test_the_clock_finder_finds_each_form():
    """test_only_its_home_does_it can fail: each way of reading or formatting the time is found; a duration is not."""
    source = (
        "import time\n"
        "a = time.time()\n"
        "b = time.strftime('%Y', time.gmtime(a))\n"
        "c = datetime.now(timezone.utc)\n"
        "d = datetime.datetime.fromisoformat(text)\n"
        "e = moment.isoformat()\n"
        "f = day.strftime('%Y-%m-%d')\n"
        "from time import time as now\n"
        "db.execute(\"INSERT INTO t VALUES (strftime('%s', 'now'))\")\n"
        "g = time.monotonic() + time.perf_counter()\n"
        "h = clock.unix()\n"
    )
    assert clock_uses(planted(source)) == [2, 3, 4, 5, 6, 7, 8, 9]


# -- a run's state.json: read only through loop/state.py (Store, Store.peek, read_run) -------------------------

STATE_FILE_NAMERS_ALLOWED = {
    "autopilot.knowledge.share.ref": "its own state.json under $AUTOPILOT_HOME/share/ (what a pull verified), no run's",
}
STATE_FILE = re.compile(r"/?state\.json(\.[\w-]*)?")  # the file, or its .lock, .valid and .corrupt-… siblings


def state_file_names(tree: Iterable[ast.AST]) -> list[int]:
    """The lines that name state.json as a file: a string that is its name (``"state.json"``, ``"/state.json"`` in
    an f-string, ``"state.json.lock"``), not a sentence that mentions it."""
    return sorted(
        {
            node.lineno
            for node in tree
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and STATE_FILE.fullmatch(node.value)
        }
    )


def test_the_state_file_finder_finds_each_form():
    """test_only_its_home_does_it can fail: each way of naming the file is found, a message that mentions it is not."""
    source = (
        'a = run / "state.json"\n'
        'b = os.path.join(run, "state.json")\n'
        'c = f"{run}/state.json"\n'
        'd = run / "state.json.lock"\n'
        'e = "the old state.json is unchanged"\n'
        'f = run / "events.jsonl"\n'
    )
    assert state_file_names(planted(source)) == [1, 2, 3, 4]


# -- each home obeyed, and each home real ---------------------------------------------------------------------


class Home(NamedTuple):
    """One concept's home: the finder of what only it may do, the module that does it, the others allowed (each
    with its reason), and how many finds in the home show the finder sees what it looks for."""

    finder: Callable[[Iterable[ast.AST]], list[int]]
    module: str
    allowed: dict[str, str]
    at_least: int


HOMES = {
    "file locks": Home(lock_uses, "autopilot.fsutil", {}, 3),
    "the clock": Home(clock_uses, "autopilot.clock", {}, 5),
    "a run's state.json": Home(state_file_names, "autopilot.loop.state", STATE_FILE_NAMERS_ALLOWED, 4),
}


@pytest.mark.parametrize("concept", HOMES)
def test_only_its_home_does_it(concept):
    """No module but the concept's home (and the few allowed, for reasons named there) does what the finder finds:
    fsutil alone takes file locks, clock.py alone reads and formats the time, loop/state.py alone names state.json."""
    home = HOMES[concept]
    found = {m: home.finder(nodes(p)) for m, p in modules().items() if m != home.module}
    assert {m: lines for m, lines in found.items() if lines and m not in home.allowed} == {}
    assert {m for m, lines in found.items() if lines} == set(home.allowed)  # no allowance outlives its reason


@pytest.mark.parametrize("concept", HOMES)
def test_its_home_really_does_it(concept):
    """The home itself is found doing it (so the check above is not vacuous)."""
    home = HOMES[concept]
    assert len(home.finder(nodes(modules()[home.module]))) >= home.at_least
