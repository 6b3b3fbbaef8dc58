"""Freshness of a search result: ``current``, ``changed`` or ``unavailable``, with the reasons.

*unavailable*: the source file (a transcript or rollout) was deleted; the excerpt is the
packet's copy and is shown as one. *changed*: the source no longer holds the bytes the
evidence came from, or a file the evidence talks about differs from what the session left
(compared with the commit and the dirty-file hashes recorded then: ``git diff --name-only
<head> -- <files>`` for files that were clean, ``git hash-object`` for files that were
dirty), or its worktree or commit is gone. *current*: none of that. A source's verdict is
remembered in the index with the file's size and mtime, so a transcript is hashed once,
not on every search.
"""

from __future__ import annotations

import _sqlite3 as sqlite3  # the sqlite3 package's C module, without its datetime and collections (index.py)
import os

from autopilot import git
from autopilot.errors import BridgeError
from autopilot.handoff.search import index, remembered
from autopilot.handoff.sources import verify_hash
from autopilot.handoff.sources.project import blob_ids

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this module (bench/bench_search.py)
if TYPE_CHECKING:
    from collections.abc import Callable

    from autopilot.handoff.search.shapes import DocGit, Document, Hit
    from autopilot.handoff.sources.shapes import TranscriptHash

CURRENT, CHANGED, UNAVAILABLE = "current", "changed", "unavailable"
SHARED = "shared from another machine: its source is not on this machine; the excerpt is the packet's copy"


def annotate(results: list[Hit], db: sqlite3.Connection) -> None:
    """Set ``freshness`` on every result (sources checked once each, git asked once per worktree and commit)."""
    sources: dict[tuple[str, str], tuple[str, str | None]] = {}
    for r in results:
        src = r["_data"].get("source") or {}
        path, recorded = str(src.get("path") or ""), src.get("hash")
        want = str(recorded.get("sha256")) if recorded else "None" if recorded else "None"
        if path and (path, want) not in sources:
            sources[(path, want)] = _source(db, path, recorded)
    clean: dict[tuple[str, str], set[str]] = {}  # (worktree, commit) -> files that were as committed
    dirty: dict[str, set[str]] = {}  # worktree -> files that were dirty (compared by content hash)
    for r in results:
        data = r["_data"]
        g = data.get("git") or {}
        if data.get("files") and data.get("worktree") and g.get("head"):
            then = g.get("dirty") or {}
            clean.setdefault((data["worktree"], g["head"]), set()).update(f for f in data["files"] if f not in then)
            dirty.setdefault(data["worktree"], set()).update(f for f in data["files"] if f in then)
    diffs: dict[tuple[str, str], tuple[str | None, set[str]]] = {}
    blobs: dict[str, dict[str, str | None]] = {}
    # git's answers from an earlier search, while the files they were about are unchanged: git is asked the rest
    memo = remembered.Answers(index.index_folder())
    missed: dict[tuple[str, ...], tuple[str, list[str], str | None]] = {}  # asked of git: remembered after

    def recall(question: tuple[str, ...], worktree: str, files: set[str]) -> object | None:
        listed = sorted(files)
        before = remembered.signature(worktree, listed)
        known = memo.get(list(question), before)
        if known is None:
            missed[question] = (worktree, listed, before)
        return known

    def ask_diff(key: tuple[str, str]) -> None:
        diffs[key] = _differs(key[0], key[1], clean[key])

    def ask_blobs(worktree: str) -> None:
        blobs[worktree] = _blobs_now(worktree, dirty[worktree])

    # each job bound to its argument now (not functools.partial: functools costs a search ~2.5 ms of imports)
    def diff_job(key: tuple[str, str]) -> Callable[[], None]:
        return lambda: ask_diff(key)

    def blobs_job(worktree: str) -> Callable[[], None]:
        return lambda: ask_blobs(worktree)

    jobs: list[Callable[[], None]] = []
    for key in clean:
        known = recall(("diff", *key), key[0], clean[key])
        if isinstance(known, list):
            diffs[key] = (None, set(known))
        else:
            jobs.append(diff_job(key))
    for worktree in dirty:
        known = recall(("blobs", worktree), worktree, dirty[worktree])
        if isinstance(known, dict):
            blobs[worktree] = known
        else:
            jobs.append(blobs_job(worktree))
    _in_parallel(jobs)
    for question, (worktree, files, before) in missed.items():
        if question[0] == "diff":  # an answer, not a reason it could not be given (the worktree or commit gone)
            why, listed = diffs[(question[1], question[2])]
            if why is None:
                memo.put(list(question), worktree, files, before, sorted(listed))
        elif None not in blobs[worktree].values():  # every file hashed (none gone, git not failed)
            memo.put(list(question), worktree, files, before, blobs[worktree])
    memo.save()
    for r in results:
        data = r["_data"]
        src = data.get("source") or {}
        reasons: list[str] = []
        state = CURRENT
        recorded = src.get("hash")
        key = (str(src.get("path") or ""), str(recorded.get("sha256")) if recorded else "None")
        verdict = sources.get(key) if key[0] else None
        if data.get("shared"):  # a teammate's packet: its source and files are on their machine
            state = UNAVAILABLE
            reasons.append(SHARED)
        elif verdict and verdict[0] == UNAVAILABLE:
            state = UNAVAILABLE
            reasons.append(f"the source {src['path']} was deleted: the excerpt is the packet's copy")
        elif verdict and verdict[0] == CHANGED:
            state = CHANGED
            reasons.append(str(verdict[1]))
        g = data.get("git") or {}
        if data.get("files") and data.get("worktree") and g.get("head"):
            why, files = _changed(data, g, diffs, blobs)
            if why:
                reasons.append(why)
            elif files:
                reasons.append(f"changed since: {', '.join(files)}")
            if (why or files) and state == CURRENT:
                state = CHANGED
            r["changedFiles"] = files
        r["freshness"] = {
            "state": state,
            "reasons": reasons,
            "copy": state == UNAVAILABLE,
            "checked": [k for k, on in (("source", bool(src.get("path"))), ("files", bool(data.get("files")))) if on],
        }


def _source(db: sqlite3.Connection, path: str, recorded: TranscriptHash | None) -> tuple[str, str | None]:
    """The verdict on one source file: from the cache when its size and mtime are unchanged, else by hashing it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return UNAVAILABLE, None
    except OSError as exc:
        return CHANGED, f"the source {path} cannot be read: {exc.strerror}"
    want = str(recorded.get("sha256")) if recorded else "None"
    row = db.execute(
        "SELECT size, mtime_ns, state, reason FROM source_checks WHERE path = ? AND want = ?", (path, want)
    ).fetchone()
    if row and (row[0], row[1]) == (st.st_size, st.st_mtime_ns):
        return str(row[2]), row[3]
    if not recorded or not recorded.get("ranges"):
        return CURRENT, None  # nothing recorded to compare with (a document from elsewhere)
    problem = verify_hash(recorded, path)
    verdict = (CHANGED, problem) if problem else (CURRENT, None)
    try:
        with index.writer() as w:
            w.execute(
                "INSERT OR REPLACE INTO source_checks (path, want, size, mtime_ns, state, reason) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (path, want, st.st_size, st.st_mtime_ns, verdict[0], verdict[1]),
            )
    except (sqlite3.DatabaseError, BridgeError):
        pass  # only a cache: the verdict stands
    return verdict


def _in_parallel(jobs: list[Callable[[], None]]) -> None:
    """Run each git question in a thread of its own (each is a process; the GIL is no obstacle)."""
    if len(jobs) < 2:  # one question or none: no thread (and no threading to import when git is not asked)
        for job in jobs:
            job()
        return
    import threading

    threads = [threading.Thread(target=job) for job in jobs[1:]]
    for t in threads:
        t.start()
    if jobs:
        jobs[0]()
    for t in threads:
        t.join()


def _changed(
    data: Document,
    g: DocGit,
    diffs: dict[tuple[str, str], tuple[str | None, set[str]]],
    blobs: dict[str, dict[str, str | None]],
) -> tuple[str | None, list[str]]:
    """Why a document's files are not as its session left them (a reason), and which ones changed."""
    then = g.get("dirty") or {}
    why, listed = diffs.get((data["worktree"], g["head"]), (None, set()))
    now = blobs.get(data["worktree"], {})
    files = [
        f
        for f in data["files"]
        if (f in then and now.get(f) != then[f]) or (f not in then and (f in listed or why is not None))
    ]
    return why, files


def _differs(worktree: str, head: str, files: set[str]) -> tuple[str | None, set[str]]:
    """Which ``files`` differ now from commit ``head`` (or why that cannot be told)."""
    if not os.path.isdir(worktree):
        return f"its worktree {worktree} no longer exists", set(files)
    if not files:
        return None, set()
    try:
        listed = git.run_git(worktree, "diff", "--name-only", "--no-renames", head, "--", *sorted(files))
    except BridgeError:
        return f"the commit the session saw ({head[:12]}) is not in this repository any more", set(files)
    return None, {line for line in listed.splitlines() if line}


def _blobs_now(worktree: str, files: set[str]) -> dict[str, str | None]:
    """Each file's content now as a packet records it (``git-blob:<id>``; None when it is gone)."""
    if not os.path.isdir(worktree):
        return dict.fromkeys(files)
    ids = blob_ids(worktree, sorted(files))
    return {f: (f"git-blob:{b}" if b else None) for f, b in ids.items()}
