"""The workspace's git facts: top level, HEAD, and the diff since a base, untracked files included."""

from __future__ import annotations

import os

from autopilot import config
from autopilot.errors import BridgeError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the no-run hook path loads this module)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_GIT_ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}


# The one place a git process is started (tests/unit/test_single_homes_git.py): every other module asks git through
# run_git (text), run_git_bytes (bytes, the exit code and stderr to the caller), start_git (started now, read later)
# or stream_git (stdout read as it comes). subprocess is imported in each (~3 ms): a path that forks no git (the
# no-run hook, `handoff search`) never loads it.


class GitTimeout(BridgeError):
    """git did not finish within the deadline its caller gave."""


def run_git(
    repo: str, *args: str, env: dict[str, str] | None = None, check: bool = True, data: str | None = None
) -> str:
    """Run git in ``repo`` (``data`` on its stdin) and return its stdout; a failure becomes a BridgeError."""
    import subprocess

    try:
        proc = subprocess.run(
            _argv(repo, args),
            input=data,
            capture_output=True,
            text=True,
            errors="replace",
            env=_env(env),
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise _not_installed() from None
    if check and proc.returncode != 0:
        raise BridgeError(f"git {' '.join(args[:2])} failed in {repo}: {proc.stderr.strip()[:300]}")
    return proc.stdout


def run_git_bytes(
    repo: str,
    *args: str,
    data: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    prompt: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``repo`` (``data`` on its stdin, bytes) and return the finished process, whatever its exit code.

    Past ``timeout`` seconds git is killed and :class:`GitTimeout` raised. With ``prompt``, git may ask for
    credentials at the person's terminal (as ``git fetch`` would); otherwise it never asks.
    """
    import subprocess

    try:
        return subprocess.run(
            _argv(repo, args),
            input=data,
            capture_output=True,
            env=_env(env, prompt=prompt),
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise _not_installed() from None
    except subprocess.TimeoutExpired:
        raise GitTimeout(f"git {args[0]} took longer than {timeout:.0f}s in {repo}") from None


def start_git(repo: str, *args: str) -> Callable[[], str]:
    """Start git in ``repo`` and return a function that waits for its stdout (errors: empty output)."""
    import subprocess

    try:
        proc = subprocess.Popen(
            _argv(repo, args),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            text=True,
            errors="replace",
            env=_env(None),
        )
    except FileNotFoundError:
        raise _not_installed() from None
    return lambda: proc.communicate()[0]


def stream_git(repo: str, *args: str) -> subprocess.Popen[bytes]:
    """Start git in ``repo`` with its stdout to read as it comes (bytes; stderr discarded): the caller waits for it."""
    import subprocess

    try:
        return subprocess.Popen(
            _argv(repo, args),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=_env(None),
        )
    except FileNotFoundError:
        raise _not_installed() from None


def _argv(repo: str, args: tuple[str, ...]) -> list[str]:
    """git's command line, run in ``repo``: the only place one is built."""
    return ["git", "-C", repo, *args]


def _env(env: dict[str, str] | None, *, prompt: bool = False) -> dict[str, str]:
    """git's environment: ours, no optional locks, the C locale, no credential prompt unless ``prompt``, and ``env``."""
    ours = {k: v for k, v in _GIT_ENV.items() if k != "GIT_TERMINAL_PROMPT"} if prompt else _GIT_ENV
    return {**os.environ, **ours, **(env or {})}


def _not_installed() -> BridgeError:
    return BridgeError("git is not installed", hint="install git and try again")


def toplevel(cwd: str | None = None) -> str:
    """The top level of the git work tree containing ``cwd``."""
    cwd = os.path.abspath(cwd or os.getcwd())
    if "GIT_DIR" not in os.environ and "GIT_WORK_TREE" not in os.environ:
        # Hooks ask on every event: find `.git` by walking up instead of forking git.
        here = os.path.realpath(cwd)
        while True:
            if os.path.exists(os.path.join(here, ".git")):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    out = run_git(cwd, "rev-parse", "--show-toplevel", check=False).strip()
    if not out:
        raise BridgeError(
            f"{cwd} is not inside a git repository", hint="run codex-bridge inside your project, or `git init` it first"
        )
    return os.path.realpath(out)


def git_dir(top: str) -> str | None:
    """The git directory of the work tree at ``top``, read from its ``.git`` (a directory, or a file naming one
    as linked worktrees and submodules have); None when only git can say (GIT_DIR and the like are set)."""
    if any(v in os.environ for v in ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR")):
        return None
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as fh:
            line = fh.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not line.startswith("gitdir: "):
        return None
    path = os.path.join(top, line[len("gitdir: ") :])  # relative to the work tree, unless absolute
    return path if os.path.isdir(path) else None


def common_dir(top: str) -> str:
    """The repository's common git directory (the one all its worktrees share) as a real path.

    Read from the files as git reads them (the git directory's ``commondir``, relative to it), so a
    search forks no ``git rev-parse --git-common-dir`` (~3 ms); git is asked when the files do not say.
    """
    found = git_dir(top)
    shared = _shared_dir(found) if found is not None else None
    if shared is not None:
        return shared
    out = run_git(top, "rev-parse", "--git-common-dir").strip()
    return os.path.realpath(os.path.join(top, out))


def _shared_dir(found: str) -> str | None:
    """The common directory of git directory ``found`` (its ``commondir``, else itself); None: unreadable."""
    try:
        with open(os.path.join(found, "commondir"), encoding="utf-8") as fh:
            shared = fh.read(4096).strip()
    except FileNotFoundError:  # a main worktree's .git, or a submodule's directory: it is its own
        return os.path.realpath(found)
    except (OSError, UnicodeDecodeError):
        return None
    return os.path.realpath(os.path.join(found, shared)) if shared else None


def head_sha(repo: str) -> str | None:
    """The commit HEAD points at, or None in a repository without commits.

    Read from the files when they plainly say it (HEAD, the branch's loose or packed ref, and a loose commit
    object: what ``git rev-parse --verify HEAD^{commit}`` would print, without forking git: ~2 ms of every review
    and verdict); git is asked otherwise (a packed or alternate commit, a reftable repository, GIT_DIR set...).
    """
    found = git_dir(repo)
    if found is not None and "GIT_OBJECT_DIRECTORY" not in os.environ:
        known = _head_commit(found)
        if known is not None:
            return known or None
    out = run_git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).strip()
    return out or None


def _head_commit(found: str) -> str | None:
    """The commit HEAD in git directory ``found`` names, "" on an unborn branch, None: ask git."""
    head = _head_file(found)
    if head is None:
        return None
    shared = _shared_dir(found)
    if shared is None:
        return None
    if _is_oid(head):
        return head if _loose_commit(shared, head) else None
    prefix = "ref: refs/heads/"
    name = head[len(prefix) :] if head.startswith(prefix) else ""
    if not name or name == ".invalid" or any(c.isspace() for c in name):
        return None  # .invalid: a reftable repository
    ref = f"refs/heads/{name}"
    oid: str | None
    try:
        with open(os.path.join(shared, *ref.split("/")), "rb") as fh:
            oid = fh.read(4096).decode("ascii").strip()
        if not oid:
            return None  # an empty ref file is no answer
    except FileNotFoundError:
        oid = _packed_ref(shared, ref)
    except (OSError, UnicodeDecodeError):  # a directory of that name, an unreadable file
        return None
    if oid is None or (oid and not _is_oid(oid)):  # unreadable packed-refs, a symbolic ref
        return None
    if not oid:
        return ""  # unborn: no loose ref and none packed
    return oid if _loose_commit(shared, oid) else None


def _head_file(found: str) -> str | None:
    """What the HEAD file of git directory ``found`` says (an object id, or ``ref: NAME``); None: unreadable."""
    try:
        with open(os.path.join(found, "HEAD"), "rb") as fh:
            return fh.read(4096).decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _is_oid(text: str) -> bool:
    """Whether ``text`` is an object id as git writes it (40 or 64 lower-case hex digits)."""
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _packed_ref(shared: str, ref: str) -> str | None:
    """The object ``ref`` names in packed-refs, "" when it is not there (or there is no such file), None: unreadable."""
    try:
        with open(os.path.join(shared, "packed-refs"), "rb") as fh:
            packed = fh.read().decode("ascii")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError):
        return None
    for line in packed.splitlines():
        oid, _, name = line.partition(" ")
        if name == ref:
            return oid
    return ""


def _loose_commit(shared: str, oid: str) -> bool:
    """Whether ``oid`` is a loose commit object in ``shared`` (its header, inflated, says ``commit``)."""
    import zlib

    try:
        with open(os.path.join(shared, "objects", oid[:2], oid[2:]), "rb") as fh:
            head = zlib.decompressobj().decompress(fh.read(64), 16)
    except (OSError, zlib.error):
        return False
    return head.startswith(b"commit ")


def branch(repo: str) -> str | None:
    """The checked-out branch name, or None when HEAD is detached.

    Read from HEAD when it plainly names a branch whose short name nothing else could mean (what
    ``git symbolic-ref --short HEAD`` would print, without forking git: ~3 ms of every search); git
    is asked otherwise (a reftable repository, a tag or ref of the same name, GIT_DIR set...).
    """
    found = git_dir(repo)
    if found is not None:
        name = _head_branch(found)
        if name is not None:
            return name or None
    out = run_git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
    return out or None


def _head_branch(found: str) -> str | None:
    """The short branch name HEAD in git directory ``found`` names, "" when it is detached, None: ask git."""
    head = _head_file(found)
    if head is None:
        return None
    if _is_oid(head):
        return ""  # detached: symbolic-ref says nothing
    prefix = "ref: refs/heads/"
    name = head[len(prefix) :] if head.startswith(prefix) else ""
    shared = _shared_dir(found)
    if not name or name == ".invalid" or any(c.isspace() for c in name) or shared is None:
        return None  # .invalid: a reftable repository
    # --short keeps "heads/" when the short name also names a ref by a rule git tries first: NAME, refs/NAME,
    # refs/tags/NAME (loose, or in packed-refs).
    shadows = (name, f"refs/{name}", f"refs/tags/{name}")
    for base in dict.fromkeys((found, shared)):
        if any(os.path.lexists(os.path.join(base, *ref.split("/"))) for ref in shadows):
            return None
        try:
            with open(os.path.join(base, "packed-refs"), "rb") as fh:
                packed = fh.read()
        except OSError:
            continue
        if any(f" {ref}\n".encode() in packed for ref in shadows[1:]):
            return None
    return name


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
        if cache:
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
    import re  # not at the top: the no-run hook path imports this module and must not load re

    def uncut(match: re.Match[str]) -> str:
        if len(match.group(2).encode("utf-8", "replace")) < 78:
            return match.group(0)
        return f"{match.group(1)} [function line omitted: git cut it at 80 bytes]"

    return re.sub(r"^(@@@? -[^@\n]* @@@?) ([^\n]{60,})$", uncut, patch, flags=re.MULTILINE)


# One changed path of `git diff --raw`: (status letter, old path, new path, old blob, new blob);
# the old path is None for an addition, the new path None for a deletion.
Change = tuple[str, "str | None", "str | None", str, str]
_NO_BLOB = "0" * 40


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
    from autopilot.redact import ENV_FILE_LINE, KEY_FILE_LINES, is_env_file_text, is_public_path, is_secret_path

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
    import hashlib

    found = set()
    for path in paths[:MAX_IGNORED_SECRETS]:
        try:
            with open(os.path.join(repo, path), "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except OSError:  # a directory git lists whole (`--directory`), or gone
            continue
        if len(data) <= MAX_FILE_BYTES:
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


def bound(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters keeping its beginning and end, and whether it was cut."""
    if len(text) <= limit:
        return text, False
    head = limit * 2 // 3
    tail = limit - head
    omitted = len(text) - head - tail
    marker = f"\n[... {omitted} characters omitted from the middle; the full text has {len(text)} ...]\n"
    return text[:head] + marker + text[-tail:], True
