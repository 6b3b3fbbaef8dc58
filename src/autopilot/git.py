"""The workspace's git facts (top level, git directories, HEAD, branch: read from the files where they plainly say
it), and the one runner of git processes."""

from __future__ import annotations

import os

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
            umask=_user_umask(),
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
            umask=_user_umask(),
            timeout=timeout,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise _not_installed() from None
    except subprocess.TimeoutExpired:
        raise GitTimeout(f"git {args[0]} took longer than {timeout:.0f}s in {repo}") from None


def version(timeout: float) -> str:
    """What ``git --version`` says (for a crash log): its first line, ``not found``, or why it said nothing."""
    import subprocess

    try:
        proc = subprocess.run(
            _argv(None, ("--version",)),
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=_env(None),
            umask=_user_umask(),
        )
    except FileNotFoundError:
        return "not found"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"not asked: {exc}"
    return (proc.stdout or proc.stderr).strip().split("\n")[0][:200]


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
            umask=_user_umask(),
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
            umask=_user_umask(),
        )
    except FileNotFoundError:
        raise _not_installed() from None


def _argv(repo: str | None, args: tuple[str, ...]) -> list[str]:
    """git's command line, run in ``repo`` (None: wherever this process is): the only place one is built."""
    return ["git", *(() if repo is None else ("-C", repo)), *args]


def _user_umask() -> int:
    """The user's own umask for git: the objects, refs and index git writes in a repository are the user's, not the
    bridge's private files (:func:`autopilot.fsutil.private_umask`)."""
    from autopilot.fsutil import child_umask

    return child_umask()


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
