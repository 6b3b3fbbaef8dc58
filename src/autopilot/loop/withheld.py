"""Which changed files are withheld from a diff: secret-bearing by name, by origin or by content.

git is asked only through :mod:`autopilot.git`'s runners.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

from autopilot.git import EMPTY_TREE, run_git_bytes, start_git
from autopilot.redact import ENV_FILE_LINE, KEY_FILE_LINES, is_env_file_text, is_public_path, is_secret_path

# One changed path of `git diff --raw`: (status letter, old path, new path, old blob, new blob);
# the old path is None for an addition, the new path None for a deletion.
Change = tuple[str, "str | None", "str | None", str, str]
_NO_BLOB = "0" * 40


def secret_changes(repo: str, since: str, tree: str, changes: list[Change]) -> list[Change]:
    """The changes whose contents must not leave: secret-bearing by name, by origin or by content.

    By name: either side's path is a secret file (so ``.env`` renamed ``env.txt`` still is). By
    origin: the contents are byte for byte a secret file's (``cp .env settings.bak``), from this
    diff, from the base, or from a secret file git ignores (a gitignored ``.env``: no blob of it is
    in git, so its copy is matched by hashing the file in the work tree). By content: either side
    holds a key file's telltale line (``redact.KEY_FILE_LINES``: a PEM BEGIN line, a PuTTY or
    OpenSSH key, a kubeconfig client key), or reads like an env file with a secret in it
    (``redact.is_env_file_text``: a ``.env`` pasted into ``settings.txt`` and edited), whatever the
    file is called. The base's listing, the ignored files and the content searches run side by side.
    """
    by_name = {i for i, c in enumerate(changes) if any(p and is_secret_path(p) for p in (c[1], c[2]))}
    rest = [c for i, c in enumerate(changes) if i not in by_name]
    if not rest:
        return changes
    # Additions (and copies) could be copies of a secret file the base holds unchanged.
    listing = (
        start_git(repo, "ls-tree", "-r", "-z", "--full-tree", since)
        if since != EMPTY_TREE and any(c[1] is None or c[0] == "C" for c in rest)
        else None
    )
    ignored = start_git(repo, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
    revs = [tree] if since == EMPTY_TREE else [tree, since]
    paths = sorted({p for c in rest for p in (c[1], c[2]) if p})
    chunks = [paths[n : n + 500] for n in range(0, len(paths), 500)]
    patterns = [arg for p in KEY_FILE_LINES for arg in ("-e", p)]
    searches = [
        start_git(repo, "grep", "-z", "-l", "-I", "-E", *patterns, *revs, "--", *(f":(literal){p}" for p in chunk))
        for chunk in chunks
    ]
    env_searches = [
        start_git(
            repo, "grep", "-z", "-l", "-I", "-E", "-e", ENV_FILE_LINE, *revs, "--", *(f":(literal){p}" for p in c)
        )
        for c in chunks
    ]
    blobs = {b for i in by_name for b in changes[i][3:5] if b != _NO_BLOB}
    for entry in (listing() if listing else "").split("\0"):
        meta, _, path = entry.partition("\t")
        if path and is_secret_path(path):
            blobs.add(meta.rsplit(" ", 1)[-1])
    blobs |= _work_tree_blobs(repo, _ignored_secret_paths(repo, ignored().split("\0"), is_secret_path), len(rest[0][4]))
    keyed = {hit for search in searches for hit in search().split("\0") if hit}  # "<rev>:<path>"
    env_like = {hit for search in env_searches for hit in search().split("\0") if hit}
    candidates = {
        blob
        for c in rest
        for rev, path, blob in ((tree, c[2], c[4]), (since, c[1], c[3]))
        if path and f"{rev}:{path}" in env_like and not is_public_path(path)
    }
    env_files = {blob for blob, text in _blob_texts(repo, candidates).items() if is_env_file_text(text)}
    return [
        c
        for i, c in enumerate(changes)
        if i in by_name
        or c[3] in blobs
        or c[4] in blobs
        or c[3] in env_files
        or c[4] in env_files
        or (c[2] and f"{tree}:{c[2]}" in keyed)
        or (c[1] and f"{since}:{c[1]}" in keyed)
    ]


MAX_IGNORED_SECRETS = 200
MAX_HASHED_BYTES = 1 << 20  # an ignored secret file larger than this is not hashed


# Folders an ignored-folder walk never enters: dependencies and build output hold no secret of the project's.
_UNWALKED = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", ".tox"})
MAX_IGNORED_WALK = 5000  # files looked at inside ignored folders, in all


def _ignored_secret_paths(repo: str, listed: list[str], is_secret: Callable[[str], bool]) -> list[str]:
    """The secret-bearing files among what ``ls-files --ignored --directory`` listed: the files it named, and
    those inside the ignored folders it listed whole (``secrets/``: git names the folder, not its ``.pgpass``),
    looked for within a bound."""
    found = [p for p in listed if p and not p.endswith("/") and is_secret(p)]
    budget = MAX_IGNORED_WALK
    for folder in (p for p in listed if p.endswith("/")):
        for top, dirs, files in os.walk(os.path.join(repo, folder)):
            dirs[:] = [d for d in dirs if d not in _UNWALKED]
            rel = os.path.relpath(top, repo)
            for name in files:
                budget -= 1
                path = name if rel == "." else f"{rel}/{name}"
                if is_secret(path):
                    found.append(path)
            if budget <= 0 or len(found) >= MAX_IGNORED_SECRETS:
                return found
    return found


def _work_tree_blobs(repo: str, paths: list[str], id_length: int) -> set[str]:
    """The git blob ids of work-tree files (at most 200, each at most 1 MiB), as ``git hash-object`` gives them."""
    found = set()
    for path in paths[:MAX_IGNORED_SECRETS]:
        try:
            with open(os.path.join(repo, path), "rb") as fh:
                data = fh.read(MAX_HASHED_BYTES + 1)
        except OSError:  # a directory git lists whole (`--directory`), or gone
            continue
        if len(data) <= MAX_HASHED_BYTES:
            digest = hashlib.sha256 if id_length == 64 else hashlib.sha1  # the repository's object format
            found.add(digest(b"blob %d\0" % len(data) + data).hexdigest())
    return found


def _blob_texts(repo: str, blobs: set[str]) -> dict[str, str]:
    """The contents of blobs as text, read with one ``git cat-file --batch`` (a missing blob is left out)."""
    if not blobs:
        return {}
    order = sorted(blobs)
    proc = run_git_bytes(repo, "cat-file", "--batch", data="".join(f"{b}\n" for b in order).encode())
    out, pos, texts = proc.stdout, 0, {}
    for blob in order:
        eol = out.find(b"\n", pos)
        if eol < 0:
            break
        header = out[pos:eol].split()
        pos = eol + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            texts[blob] = out[pos : pos + size].decode("utf-8", "replace")
            pos += size + 1
    return texts
