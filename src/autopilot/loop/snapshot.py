"""The review snapshot: everything that changed since the run's base, as a tree, a patch and its stat.

The work tree is written as a tree object through a private copy of the index (the user's index is never
touched); secret-bearing files are withheld from the patch (:mod:`autopilot.loop.withheld`). git is asked
only through :mod:`autopilot.git`'s runners.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from autopilot import config
from autopilot.errors import BridgeError
from autopilot.git import EMPTY_TREE, head_sha, run_git

if TYPE_CHECKING:
    from autopilot.loop.withheld import Change


class Snapshot:
    """The work since a base commit: the patch, its stat, and a fingerprint of the work tree."""

    __slots__ = ("base", "head", "tree", "patch", "stat", "files", "secret_files", "skipped")

    def __init__(
        self,
        *,
        base: str | None,
        head: str | None,
        tree: str,
        patch: str,
        stat: str,
        files: list[str],
        secret_files: list[str] | None = None,
        skipped: list[tuple[str, str]] | None = None,
    ) -> None:
        self.base, self.head, self.tree, self.patch, self.stat, self.files = base, head, tree, patch, stat, files
        self.secret_files = secret_files or []
        self.skipped = skipped or []  # (path, why) of changed files left out of the snapshot

    @property
    def empty(self) -> bool:
        """Whether nothing changed since the base."""
        return not self.files


def work_tree(repo: str, cache: str | None = None, skipped: list[tuple[str, str]] | None = None) -> str:
    """A tree object of the work tree as it is now (tracked and untracked, ignoring .gitignore'd files).

    The user's index is never touched: a copy of it is used, so staged/unstaged state stays as it was.
    With ``cache`` (a file path) the copy is kept between calls, so git's stat cache survives and only
    files that changed are hashed again; it is refreshed whenever the user's own index is newer.
    Changed files larger than ``AUTOPILOT_MAX_FILE_BYTES`` (1 MiB) or binary are left out: hashing them
    would store a new blob in .git/objects at every edit (a growing log appended three times is three
    copies). They are appended to ``skipped`` with the reason, so a review can say what it did not see.
    """
    import shutil
    import tempfile

    from autopilot.fsutil import sweep_stale

    index = os.path.join(repo, ".git", "index")
    if not os.path.isdir(os.path.join(repo, ".git")):  # a worktree or submodule: ask git where its index is
        index = run_git(repo, "rev-parse", "--git-path", "index").strip()
        index = index if os.path.isabs(index) else os.path.join(repo, index)
    source = index
    if (
        cache
        and os.path.exists(cache)
        and (not os.path.exists(index) or os.path.getmtime(cache) >= os.path.getmtime(index))
    ):
        source = cache
    where = os.path.dirname(cache) if cache else None
    if where:
        os.makedirs(where, exist_ok=True)
        sweep_stale(where, ("autopilot-index-",))  # left by a process killed mid-call
    too_big = oversized(repo)
    if skipped is not None:
        skipped.extend(too_big)
    excludes = [f":(exclude,literal){path}" for path, _ in too_big]
    # A private copy per call: concurrent callers (a hook and a review worker) never share an index.lock. The copy
    # keeps the index's mtime: git takes an entry's stat data on trust only when the file's mtime is older than the
    # index's (a file rewritten in the index's second, at the same size, is "racy" and hashed again); a copy dated
    # now would vouch for such a file, and an edit of the same size made within a second went unseen.
    with tempfile.TemporaryDirectory(prefix="autopilot-index-", dir=where) as tmp:
        temp_index = os.path.join(tmp, "index")
        if os.path.exists(source):
            shutil.copy2(source, temp_index)
        env = {"GIT_INDEX_FILE": temp_index}
        run_git(repo, "add", "--all", "--", ".", *excludes, env=env)
        tree = run_git(repo, "write-tree", env=env).strip()
        if cache:  # git wrote it with the user's umask (it writes their objects too): the copy we keep is private
            os.chmod(temp_index, 0o600)
            os.replace(temp_index, cache)
        return tree


MAX_FILE_BYTES = 1 << 20
BINARY_PROBE = 8192  # git's own rule: a NUL byte in the first 8 KiB means binary


def oversized(repo: str) -> list[tuple[str, str]]:
    """Changed or untracked files (not ignored) a snapshot leaves out: too large, or binary; with why."""
    limit = int(config.env("AUTOPILOT_MAX_FILE_BYTES") or MAX_FILE_BYTES)
    out = run_git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", check=False)
    found: list[tuple[str, str]] = []
    for entry in out.split("\0"):
        if len(entry) < 4 or entry[:2] in ("D ", " D", "DD"):
            continue
        path = entry[3:]
        full = os.path.join(repo, path)
        try:
            size = os.path.getsize(full)
            if size > limit:
                found.append((path, f"{size:,} bytes, over the {limit:,}-byte limit (AUTOPILOT_MAX_FILE_BYTES)"))
                continue
            with open(full, "rb") as fh:
                if b"\0" in fh.read(BINARY_PROBE):
                    found.append((path, "binary"))
        except OSError:
            continue
    return found


def snapshot(repo: str, base: str | None, exclude: tuple[str, ...] = (), cache: str | None = None) -> Snapshot:
    """Everything that changed since ``base`` (committed, staged, unstaged and untracked), minus ``exclude``.

    Secret-bearing files are listed in ``secret_files`` (both sides of a rename or copy) and their
    contents left out of the patch and the stat, so they never reach a prompt (see ``secret_changes``).
    """
    from autopilot.loop.withheld import secret_changes  # the hook that only asks for work_tree never loads it

    skipped: list[tuple[str, str]] = []
    tree = work_tree(repo, cache, skipped)
    since = base or EMPTY_TREE
    excludes = [f":(exclude){p}" for p in exclude]
    try:
        raw = run_git(repo, "diff", "--raw", "-z", "--no-abbrev", "-M", "-C", since, tree, "--", ".", *excludes)
    except BridgeError:
        if base and not run_git(repo, "cat-file", "-t", base, check=False).strip():
            raise BridgeError(
                f"the run's base commit {base[:12]} no longer exists in {repo}",
                hint="re-plan with `codex-bridge plan --goal ...`",
            ) from None
        raise
    changes = _raw_changes(raw)
    files = [path for _, old, new, _, _ in changes if (path := new or old)]
    secret = secret_changes(repo, since, tree, changes)
    secret_files = sorted({p for c in secret for p in (c[1], c[2]) if p})
    excludes += [f":(exclude,literal){f}" for f in secret_files]
    # One git call for the rest: the stat block, a blank line, then the patch.
    out = (
        run_git(
            repo,
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--patch-with-stat",
            "--stat=120",
            since,
            tree,
            "--",
            ".",
            *excludes,
        )
        if len(secret) < len(changes)
        else ""
    )
    stat, _, patch = out.partition("\n\ndiff --git ")
    patch = _uncut_hunk_headers(f"diff --git {patch}") if patch else ""
    stat = stat.strip("\n") + "\n" if stat else ""
    return Snapshot(
        base=base,
        head=head_sha(repo),
        tree=tree,
        patch=patch,
        stat=stat,
        files=files,
        secret_files=secret_files,
        skipped=skipped,
    )


def _uncut_hunk_headers(patch: str) -> str:
    """``patch`` without the hunk headers' function contexts that git cut at 80 bytes.

    The context is the nearest line above the hunk; a cut one can end inside a secret, before
    the part (``@host``, a closing quote) redaction needs to recognise it. Whole ones stay.
    """
    import re  # not at the top: a hook that loads this module only for work_tree never needs re

    def uncut(match: re.Match[str]) -> str:
        if len(match.group(2).encode("utf-8", "replace")) < 78:
            return match.group(0)
        return f"{match.group(1)} [function line omitted: git cut it at 80 bytes]"

    return re.sub(r"^(@@@? -[^@\n]* @@@?) ([^\n]{60,})$", uncut, patch, flags=re.MULTILINE)


def _raw_changes(raw: str) -> list[Change]:
    """The entries of ``git diff --raw -z --no-abbrev`` output."""
    fields = raw.split("\0")
    changes: list[Change] = []
    i = 0
    while i + 1 < len(fields) and fields[i].startswith(":"):
        meta = fields[i][1:].split(" ")
        old_blob, new_blob, status = meta[2], meta[3], meta[4][:1]
        if status in ("R", "C"):
            changes.append((status, fields[i + 1], fields[i + 2], old_blob, new_blob))
            i += 3
        else:
            path = fields[i + 1]
            changes.append(
                (status, None if status == "A" else path, None if status == "D" else path, old_blob, new_blob)
            )
            i += 2
    return changes
