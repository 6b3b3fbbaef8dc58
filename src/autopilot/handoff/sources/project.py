"""The project a handoff belongs to: canonical root, worktree identity, and the git state packets record.

A *project* is one git repository on this machine, named by its common git directory
(shared by all its worktrees); a *worktree* is one checkout of it. Sessions are matched
to a worktree by the ``cwd`` their transcript rows recorded (never by reversing Claude
Code's lossy project-directory names), so a sibling worktree or another project is never
taken for this one. :func:`git_state` is what a packet records and what import compares:
branch, HEAD, the dirty paths with a content hash each, and one hash over all of them.
"""

from __future__ import annotations

import os

from autopilot import git
from autopilot.digest import sha256_hex
from autopilot.errors import BridgeError
from autopilot.patterns import lazy

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this module
if TYPE_CHECKING:
    from typing import Any

    from autopilot.handoff.sources.shapes import DirtyPath, GitState, Identity

THIS_WORKTREE = "this-worktree"
SIBLING_WORKTREE = "sibling-worktree"
OTHER_PROJECT = "other-project"
# Claude Code's `--worktree` checkouts live inside the main checkout; a deleted one is still not it.
_CLAUDE_WORKTREE = lazy(r"^\.claude/worktrees/[^/]+")


def _real(path: str) -> str:
    """``path`` with symlinks resolved when it exists, else just normalised."""
    return os.path.realpath(path) if os.path.exists(path) else os.path.normpath(path)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class Project:
    """One git worktree of one repository, as seen from a directory inside it."""

    def __init__(self, cwd: str | None = None) -> None:
        self.worktree = git.toplevel(cwd)
        self.common_dir = git.common_dir(self.worktree)
        self.root = os.path.dirname(self.common_dir) if os.path.basename(self.common_dir) == ".git" else self.common_dir
        self._owners: dict[str, str | None] = {}
        self._worktrees: list[str] | None = None

    @property
    def repo_id(self) -> str:
        """The repository's identity on this machine: a hash of its common git directory."""
        return "sha256:" + sha256_hex(self.common_dir.encode())

    @property
    def worktree_id(self) -> str:
        """This worktree's identity: a hash of its top-level path."""
        return "sha256:" + sha256_hex(self.worktree.encode())

    @property
    def worktrees(self) -> list[str]:
        """Every registered worktree of the repository, this one included (real paths); asked of git once (not
        functools.cached_property: functools and collections cost a search ~2.5 ms to import)."""
        if self._worktrees is None:
            out = git.run_git(self.worktree, "worktree", "list", "--porcelain", check=False)
            found = [os.path.realpath(line[9:]) for line in out.splitlines() if line.startswith("worktree ")]
            self._worktrees = sorted(set(found) | {self.worktree, self.root}, key=len, reverse=True)
        return self._worktrees

    def identity(self) -> Identity:
        """The identity fields a listing or a packet records."""
        return {"repoId": self.repo_id, "worktreeId": self.worktree_id, "root": self.root, "worktree": self.worktree}

    def owner(self, cwd: str) -> str | None:
        """The worktree of this repository that ``cwd`` belongs to, or None for another project."""
        if cwd in self._owners:
            return self._owners[cwd]
        real = _real(cwd)
        owner = next((w for w in self.worktrees if _inside(real, w)), None)
        if owner is not None and os.path.isdir(real):
            # A repository nested inside a checkout is a project of its own.
            try:
                top = git.toplevel(real)
            except BridgeError:
                top = None
            if top is not None and top != owner:
                owner = None
        if owner is not None:
            claude_worktree = _CLAUDE_WORKTREE.match(os.path.relpath(real, owner))
            if claude_worktree:  # registered ones matched above; this one was removed
                owner = os.path.join(owner, claude_worktree.group(0))
        self._owners[cwd] = owner
        return owner

    def classify(self, cwd: Any) -> str:
        """``this-worktree``, ``sibling-worktree`` or ``other-project`` for a session's recorded cwd."""
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            return OTHER_PROJECT
        owner = self.owner(cwd)
        if owner is None:
            return OTHER_PROJECT
        return THIS_WORKTREE if owner == self.worktree else SIBLING_WORKTREE

    def relative(self, path: str) -> str:
        """``path`` relative to this worktree when it is inside it, else as given."""
        real = _real(path) if os.path.isabs(path) else path
        if os.path.isabs(real) and _inside(real, self.worktree):
            return os.path.relpath(real, self.worktree)
        return path


def require_match(project: Project, cwd: Any, what: str) -> None:
    """Refuse a session recorded in another worktree or project, saying where it belongs."""
    scope = project.classify(cwd)
    if scope == THIS_WORKTREE:
        return
    where = "another worktree of this repository" if scope == SIBLING_WORKTREE else "another project"
    raise BridgeError(
        f"{what} was recorded in {cwd!s}, which is {where}, not {project.worktree}",
        hint=f"run the command from that directory, or pass --cwd {cwd!s}; "
        "sessions are never taken from another worktree or project silently",
    )


# --- git state -------------------------------------------------------------------------------


def _status(repo: str) -> list[tuple[str, str]]:
    """(XY status, path) for every changed or untracked path, renames reported at their new path."""
    out = git.run_git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
    found = []
    for item in out.split("\0"):
        if len(item) > 3:
            found.append((item[:2], item[3:]))
    return sorted(found, key=lambda pair: pair[1])


def blob_ids(repo: str, paths: list[str]) -> dict[str, str | None]:
    """The git blob id of each path's working-tree content (None when it is gone)."""
    present = [p for p in paths if os.path.isfile(os.path.join(repo, p))]
    ids: dict[str, str | None] = dict.fromkeys(paths)
    if present:
        try:
            out = git.run_git(repo, "hash-object", "--no-filters", "--stdin-paths", data="\n".join(present) + "\n")
        except BridgeError:  # a file gone meanwhile: no id is taken on trust
            return ids
        ids.update(zip(present, out.split(), strict=False))
    return ids


def git_state(repo: str) -> GitState:
    """Branch, HEAD, dirty paths with content hashes, and one hash over the whole dirty state.

    The branch and the paths are names a view shows (a packet, its drift, the dashboard): a credential in one (a
    branch named after a token, a file named with one) is withheld here, so every view shows it withheld and a
    packet compares like with like; the hash is taken over the names as they are.
    """
    from autopilot.redact import Redactor, is_secret_path  # the redaction package: only packets need it, never a search

    shown = Redactor()
    status = _status(repo)
    blobs = blob_ids(repo, [p for _, p in status if not is_secret_path(p)])
    dirty: list[DirtyPath] = []
    for code, path in status:
        if is_secret_path(path):
            # Even a hash of a short secret can be guessed: a secret file is named, never fingerprinted.
            dirty.append({"path": path, "status": code, "contentHash": None, "secretFile": True})
        else:
            blob = blobs.get(path)
            dirty.append({"path": path, "status": code, "contentHash": f"git-blob:{blob}" if blob else None})
    head = git.head_sha(repo)
    digest = sha256_hex(repr([head, [(d["path"], d["status"], d["contentHash"]) for d in dirty]]).encode())
    for d in dirty:
        d["path"] = shown(d["path"])
    branch = git.branch(repo)
    return {"branch": shown(branch) if branch else branch, "head": head, "dirty": dirty, "diffHash": "sha256:" + digest}


def changed_between(repo: str, old: str | None, new: str | None) -> set[str] | None:
    """Paths that differ between two commits, or None when either is unknown or gone."""
    if not old or not new:
        return None
    if old == new:
        return set()
    out = git.run_git(repo, "diff", "--name-only", "--no-renames", old, new, check=False)
    if not out and git.run_git(repo, "cat-file", "-t", old, check=False).strip() != "commit":
        return None
    return set(out.split("\n")) - {""}
