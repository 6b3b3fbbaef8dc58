"""Freshness's git answers, remembered between searches while the files they were about are unchanged.

A search checks each result's files against the commit its session saw (``git diff --name-only <head> --
files``) and the files that were dirty by their content (``git hash-object``): git processes, with
``subprocess`` and ``threading`` to run them, on every search, about files that seldom changed since the
last one. Each answer is kept here with what it depended on: the ``lstat`` of every file it was about (size,
mtime, ctime, inode; ``-`` for a file that is gone) and of the worktree's git index. While none of them
changed, git would answer the same, so the answer is reused and git is not asked. An answer is not kept
when any of those files changed within :data:`RACY_S` of the moment it was asked (git's own racy-timestamp
rule: a write in the same tick can leave the times as they were), nor when the worktree's git directory
cannot be found.

Where: ``freshness.json`` beside the evidence index (the archive's beside the archive's). A cache: an
unreadable, damaged or lost file only means git is asked again; it is replaced whole (never appended) and
holds at most :data:`MAX_ANSWERS` answers, the newest.
"""

from __future__ import annotations

import os

from autopilot import clock, git
from autopilot.fastjson import dumps, parse_json

FILE = "freshness.json"
RACY_S = 2.0  # a file written this recently may change again within the same mtime tick: not remembered
MAX_ANSWERS = 2000
VERSION = 1


class Answers:
    """The remembered answers of one search: :meth:`get` before asking git, :meth:`put` after, :meth:`save` once."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, FILE)
        self.known: dict[str, list[object]] = {}
        self.added = False
        try:
            with open(self.path, encoding="utf-8") as fh:
                found = parse_json(fh.read())
        except (OSError, ValueError, UnicodeDecodeError):
            return
        if isinstance(found, dict) and found.get("version") == VERSION and isinstance(found.get("answers"), dict):
            self.known = {k: v for k, v in found["answers"].items() if isinstance(v, list) and len(v) == 2}

    def get(self, question: list[str], now: str | None) -> object | None:
        """git's answer to ``question`` when what it depended on is still ``now`` (:func:`signature`); None: ask."""
        kept = self.known.get(dumps(question)) if now is not None else None
        return kept[1] if kept is not None and kept[0] == now else None

    def put(self, question: list[str], worktree: str, files: list[str], before: str | None, answer: object) -> None:
        """Remember git's ``answer`` to ``question`` when ``files`` were the same (``before``, their
        :func:`signature` taken before git was asked) before and after it answered."""
        if before is None or signature(worktree, files) != before:
            return
        key = dumps(question)
        self.known.pop(key, None)  # re-added last: the newest are kept
        self.known[key] = [before, answer]
        self.added = True

    def save(self) -> None:
        """Write the answers back when any was added (the newest MAX_ANSWERS); a failure only loses the cache."""
        if not self.added:
            return
        from autopilot.fsutil import atomic_write

        newest = dict(list(self.known.items())[-MAX_ANSWERS:])
        try:  # noqa: SIM105 - not contextlib.suppress: a search does not load contextlib
            atomic_write(self.path, dumps({"version": VERSION, "answers": newest}), durable=False)
        except OSError:  # a full disk or a read-only home: only the cache is lost
            pass


def signature(worktree: str, files: list[str]) -> str | None:
    """What git's answer about ``files`` in ``worktree`` depends on: each one's ``lstat`` and the git index's; None
    when it cannot be told (no git directory found, a file unreadable) or one changed within RACY_S of now."""
    found = git.git_dir(worktree)
    if found is None:
        return None
    moment = clock.unix()
    parts = []
    for path in (os.path.join(found, "index"), *(os.path.join(worktree, f) for f in files)):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            parts.append("-")
            continue
        except OSError:
            return None
        if moment - st.st_mtime < RACY_S or moment - st.st_ctime < RACY_S:
            return None
        parts.append(f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}")
    return ",".join(parts)
