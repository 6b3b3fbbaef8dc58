"""The real-home guard: a test that writes to the real home fails, naming what it wrote.

``tests/conftest.py`` gives every test its own ``HOME``, ``$AUTOPILOT_HOME``, ``$CODEX_HOME`` and
``$CLAUDE_CONFIG_DIR``. What still reaches a home is code that runs before a test has its own (a
module-scoped fixture, a collection-time probe) or that finds a home another way (``pwd``, a
subprocess started without ``HOME``). So:

- the run's own ``HOME`` is a **sentinel**, an empty folder made when the suite starts (conftest.py
  sets it before any test or fixture runs): whatever lands there came from this run, and every
  file in it is compared after each test;
- the **real homes** (``$HOME`` as the run found it, and the password database's) are compared too:
  each file at their top level (``.claude.json``, ``.gitconfig``) and every file and folder under the
  roots the bridge and the agents write (``WATCHED``).

A change in the sentinel always fails the test. A change in a real home fails it in CI (``$CI`` set, as
``.ci/run`` runs: nothing else runs there) or with ``AUTOPILOT_HOME_GUARD=strict``; on a machine where other
processes share the home (your own Claude Code or Codex, another checkout's tests or benchmarks) it is a
warning naming the paths, since it may not be the test's doing.
"""

from __future__ import annotations

import os
import pwd

WATCHED = (".codex-autopilot", ".codex", ".claude")  # $AUTOPILOT_HOME, $CODEX_HOME, $CLAUDE_CONFIG_DIR
MAX_ENTRIES = 50_000  # a walk bound: a home with more files than this is compared in part

Snapshot = dict[str, tuple[int, int]]


def real_homes() -> list[str]:
    """The homes a test must not touch: ``$HOME`` as found now, and the password database's."""
    found = {os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)}
    if os.environ.get("HOME"):
        found.add(os.path.realpath(os.environ["HOME"]))
    return sorted(found)


def snapshot(homes: list[str], sentinels: list[str] | tuple[str, ...] = ()) -> Snapshot:
    """Each watched path: a file with its (size, mtime in ns), a folder as (-1, 0) (its entries are listed)."""
    seen: Snapshot = {}
    for home in homes:
        try:
            top = list(os.scandir(home))
        except OSError:
            continue
        for entry in top:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                    seen[entry.path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue
        for name in WATCHED:
            _walk(os.path.join(home, name), seen)
    for sentinel in sentinels:
        _walk(sentinel, seen)
    return seen


def _walk(root: str, seen: Snapshot) -> None:
    """Every folder under ``root`` (by its existence) and every file (by size and mtime), ``root`` included."""
    if os.path.isdir(root):
        seen[root] = (-1, 0)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            seen[os.path.join(folder, name)] = (-1, 0)
        for name in files:
            if len(seen) >= MAX_ENTRIES:
                return
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            seen[path] = (st.st_size, st.st_mtime_ns)


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs between two snapshots, one line a path: created, changed or removed."""
    out = [f"created {p}" for p in sorted(after.keys() - before.keys())]
    out += [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    out += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    return out


class HomeGuard:
    """A snapshot of the real homes (and of the run's sentinel home), compared and renewed after each test."""

    def __init__(self, homes: list[str], sentinels: list[str] | None = None) -> None:
        self.homes = homes
        self.sentinels = sentinels or []
        self.last = snapshot(self.homes, self.sentinels)

    def check(self) -> list[str]:
        """What changed in the watched homes since the last check (the next check starts from now)."""
        now = snapshot(self.homes, self.sentinels)
        found, self.last = changes(self.last, now), now
        return found

    def in_sentinel(self, change: str) -> bool:
        """Whether a reported change is in the run's sentinel home (only this run writes there)."""
        path = change.split(" ", 1)[1]
        return any(path == s or path.startswith(s.rstrip("/") + "/") for s in self.sentinels)
