"""The real-home guard: a test that writes to the real home fails, naming what it wrote.

``tests/conftest.py`` gives every test its own ``HOME``, ``$AUTOPILOT_HOME``, ``$CODEX_HOME`` and
``$CLAUDE_CONFIG_DIR``; code that finds a home another way (``pwd``, a subprocess started without
``HOME``, a path taken before the test set its own) still reaches the real one. So the guard takes
a snapshot of the real homes (``$HOME`` as the test run found it, and the user's home in the password
database) before the tests and compares it after each one:

- the top level of each home: which entries exist, and each file's size and modification time;
- every file and folder under the roots the bridge and the agents write (``WATCHED``), walked whole.

Another process writing there during the run (your own Claude Code or Codex) trips it too: the
message names the paths, so such a change is easy to tell apart from a test's.
"""

from __future__ import annotations

import os
import pwd

WATCHED = (".codex-autopilot", ".codex", ".claude")  # $AUTOPILOT_HOME, $CODEX_HOME, $CLAUDE_CONFIG_DIR
MAX_ENTRIES = 50_000  # a walk bound: a home with more files than this under the roots is compared in part

Snapshot = dict[str, tuple[int, int]]


def real_homes() -> list[str]:
    """The homes a test must not touch: ``$HOME`` as found now, and the password database's."""
    found = {os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)}
    if os.environ.get("HOME"):
        found.add(os.path.realpath(os.environ["HOME"]))
    return sorted(found)


def snapshot(homes: list[str]) -> Snapshot:
    """Each watched path with its (size, mtime in ns); a folder's size is -1 (its entries are listed)."""
    seen: Snapshot = {}
    for home in homes:
        try:
            top = list(os.scandir(home))
        except OSError:
            continue
        for entry in top:
            try:
                if entry.is_dir(follow_symlinks=False):
                    seen[entry.path] = (-1, 0)  # its own mtime moves with whatever else writes inside it
                else:
                    st = entry.stat(follow_symlinks=False)
                    seen[entry.path] = (st.st_size, st.st_mtime_ns)
            except OSError:
                continue
        for name in WATCHED:
            _walk(os.path.join(home, name), seen)
    return seen


def _walk(root: str, seen: Snapshot) -> None:
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            if len(seen) >= MAX_ENTRIES:
                return
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            seen[path] = (-1 if name in dirs else st.st_size, st.st_mtime_ns)


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """What differs between two snapshots, one line a path: created, changed or removed."""
    out = [f"created {p}" for p in sorted(after.keys() - before.keys())]
    out += [f"changed {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]]
    out += [f"removed {p}" for p in sorted(before.keys() - after.keys())]
    return out


class HomeGuard:
    """A snapshot of the real homes, compared (and renewed) after each test."""

    def __init__(self, homes: list[str]) -> None:
        self.homes = homes
        self.last = snapshot(homes)

    def check(self) -> list[str]:
        """What changed in the real homes since the last check (the next check starts from now)."""
        now = snapshot(self.homes)
        found, self.last = changes(self.last, now), now
        return found
