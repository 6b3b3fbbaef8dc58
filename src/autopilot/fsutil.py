"""Writing files so that readers never see half of one: the one atomic writer; and the one lock-file helper.

Every file the bridge writes that someone else may read while it is written (state.json,
artifacts, packets, Codex's hooks.json and skills, pointers, index caches) goes through
:func:`atomic_write`: a temp file in the same directory (:func:`make_temp`, as ``tempfile.mkstemp``
makes one), optionally fsynced, then ``os.replace``. A failure leaves the old file untouched and no
temp file behind. Files that belong to the user (Codex's config and hooks.json, the plan in the
repository) go through :func:`replace_text`, which keeps their permissions and writes through a symlink.

Every lock another process may hold is a lock file taken here (:class:`Lock`, :func:`held`, :func:`is_held`): an
exclusive flock through ``fcntl`` (filelock, ~40 ms to import, only where the filesystem has no flock).

Everything the bridge keeps is private to its user, whatever the umask: a bridge process runs with the umask
tightened (:func:`private_umask`: group and others lose every bit), so every folder it makes is 0700 and every file
0600 (atomic writes, logs, locks, the SQLite index and its journals, caches); what it writes for the user elsewhere
keeps the user's own umask (:func:`replace_text`, :func:`user_dirs`, and git, which :mod:`autopilot.git` starts with
it). A home an older version left readable is tightened once (:func:`tighten`).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # the hooks' $handoff path and every intake page write through here: no typing, no pathlib
if TYPE_CHECKING:  # (~3 ms with the urllib.parse and ipaddress it imports) and no contextlib at run time
    from collections.abc import Iterable

    import filelock

    PathLike = str | os.PathLike[str]


def atomic_write(
    path: PathLike, data: bytes | str | Iterable[bytes], *, mode: int | None = None, durable: bool = True
) -> None:
    """Replace ``path`` with ``data`` in one step; ``durable`` fsyncs the file and its directory first.

    ``data`` may be an iterable of byte chunks, for files too large to hold in memory (a decompressed
    rollout). ``mode`` sets the permissions of the new file (for example 0o444 for an immutable packet).
    Caches that are cheap to rebuild pass ``durable=False``: a crash may lose them, never corrupt them.
    """
    path = os.fspath(path)
    parent = os.path.dirname(path) or "."
    chunks = [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
    if not os.path.isdir(parent):
        private_dirs(parent)
    fd, tmp = make_temp(parent, f".{os.path.basename(path)}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs ~0.5 ms to import
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:
        _sync_dir(parent)


# tempfile.mkstemp's flags: O_EXCL, so a name already taken (or a planted symlink) is never opened.
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)


def make_temp(directory: PathLike, prefix: str, suffix: str = "") -> tuple[int, str]:
    """``tempfile.mkstemp(suffix, prefix, directory)`` without importing tempfile (~5 ms: random, shutil, weakref):
    a new file readable and writable by its owner only, opened exclusively; its descriptor and path."""
    for _ in range(100):
        name = os.path.join(directory, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, _TEMP_FLAGS, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary name in {directory}")


def replace_text(path: PathLike, text: str) -> None:
    """Replace a user's file atomically, keeping its permissions (a new one gets 0666 less the umask).

    A symlink is written through: its target is replaced and the link stays, so a file a dotfiles
    manager links into ``$CODEX_HOME`` stays managed (``os.replace`` on the link would swap the link
    itself for a regular file).
    """
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~user_umask()
        user_dirs(os.path.dirname(target) or ".")
    atomic_write(target, text)
    os.chmod(target, mode)


# -- private to the user ----------------------------------------------------------------------------------------------

PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600
_USER_UMASK: list[int] = []  # the umask the process was started with, before private_umask() tightened it


def private_umask() -> int:
    """Tighten this process's umask so what it creates is its user's alone (group and others lose every bit); the
    umask before, for :func:`restore_umask`."""
    previous = os.umask(0o077)
    os.umask(previous | 0o077)
    if not _USER_UMASK:
        _USER_UMASK.append(previous)
    return previous


def restore_umask(previous: int) -> None:
    """Put back the umask :func:`private_umask` returned (a bridge run in-process leaves its caller's as it was)."""
    os.umask(previous)


def user_umask() -> int:
    """The umask the user runs with (what the process had before :func:`private_umask`): for the user's own files."""
    if _USER_UMASK:
        return _USER_UMASK[0]
    current = os.umask(0o022)
    os.umask(current)
    return current


def child_umask() -> int:
    """The umask to start a process that writes the user's own files with (git in the user's repository): the user's,
    or -1 (``subprocess``: the process's own) when :func:`private_umask` did not tighten it."""
    return _USER_UMASK[0] if _USER_UMASK else -1


def private_dirs(path: PathLike) -> None:
    """``os.makedirs(path, exist_ok=True)``, every folder it makes 0700 (``makedirs`` gives ``mode`` to the last)."""
    _make_dirs(os.fspath(path), PRIVATE_DIR)


def user_dirs(path: PathLike) -> None:
    """``os.makedirs(path, exist_ok=True)`` for the user's own tree (a plan in the repository): the user's umask."""
    _make_dirs(os.fspath(path), 0o777 & ~user_umask(), chmod=True)


def _make_dirs(path: str, mode: int, *, chmod: bool = False) -> None:
    missing: list[str] = []
    while path and not os.path.isdir(path):
        missing.append(path)
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, mode)
        except FileExistsError:
            continue  # made by another process meanwhile (or a file: the write that follows says so)
        if chmod:
            os.chmod(folder, mode)  # the process's own umask (tightened) would narrow it


def tighten(home: PathLike) -> int:
    """Make a home an older version left readable private: the folder 0700, every folder under it 0700 and every file
    0600 (0400 stays 0400), symlinks left alone; how many entries changed. Once: a home already 0700 is not walked.

    Only a folder this user owns is changed, never one shared by design (with the sticky bit: ``/tmp``), nor the
    user's own home folder."""
    import stat

    home = os.fspath(home)
    try:
        st = os.lstat(home)
    except OSError:
        return 0
    if not stat.S_ISDIR(st.st_mode) or not st.st_mode & 0o077:
        return 0
    if st.st_uid != os.geteuid() or st.st_mode & stat.S_ISVTX or os.path.realpath(home) in _NEVER_TIGHTEN():
        return 0
    changed = 0
    for root, dirs, files in os.walk(home):
        for name in [*dirs, *files]:
            changed += _tighten_one(os.path.join(root, name))
    os.chmod(home, PRIVATE_DIR)
    return changed + 1


def _NEVER_TIGHTEN() -> set[str]:  # noqa: N802 - a constant made when first asked
    return {os.path.realpath(p) for p in ("/", os.path.expanduser("~"))}


def _tighten_one(path: str) -> int:
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return 0
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid() or not st.st_mode & 0o077:
        return 0
    mode = PRIVATE_DIR if stat.S_ISDIR(st.st_mode) else (st.st_mode & 0o700)
    try:
        os.chmod(path, mode)
    except OSError:
        return 0
    return 1


def _sync_dir(directory: str) -> None:
    """Make a rename in ``directory`` survive a power cut (best effort: not every filesystem allows it)."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


STALE_AFTER_S = 600.0  # a temp file or folder this old belongs to a process that died (no call takes 10 min to write)


def sweep_stale(
    directory: PathLike, prefixes: tuple[str, ...], *, suffix: str = "", older_than: float = STALE_AFTER_S
) -> int:
    """Remove what killed processes left in ``directory``: entries named ``<prefix>…<suffix>`` older than
    ``older_than`` seconds (temp files of :func:`atomic_write`, temp index folders). Returns how many."""
    import shutil

    from autopilot import clock

    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    cutoff = clock.unix() - older_than
    for entry in entries:
        if not entry.name.startswith(prefixes) or not entry.name.endswith(suffix):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_mtime > cutoff:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
            removed += 1
        except OSError:
            continue
    return removed


LOCK_TIMEOUT_S = 60.0
LOCK_POLL_S = 0.02  # how often a waiting Lock tries again
HELD_HINT = "wait for it to finish, or remove the lock file if no codex-bridge is running"


class Lock:
    """The lock file at ``path``, held across processes; as a context manager, :meth:`acquire` waits up to
    ``timeout`` seconds, then raises ``busy`` or else BridgeError (``another codex-bridge process has held …``,
    then ``hint``).

    An exclusive ``flock`` on the file (the lock filelock takes on Unix, so the two exclude each other), taken with
    ``fcntl``, a C module: filelock costs ~40 ms to import, which every hook that writes the run's state paid. Where
    the filesystem has no flock (ENOSYS: some network filesystems), filelock's soft lock takes over."""

    def __init__(
        self, path: PathLike, timeout: float = LOCK_TIMEOUT_S, *, hint: str = HELD_HINT, busy: Exception | None = None
    ) -> None:
        self.path = os.fspath(path)
        self.timeout = timeout
        self.hint = hint
        self.busy = busy
        self._fd: int | None = None
        self._soft: filelock.FileLock | None = None

    def acquire(self, timeout: float) -> bool:
        """Take the lock, waiting up to ``timeout`` seconds (0: only try); whether it is held now."""
        import errno
        import fcntl
        import time

        if self._fd is not None or self._soft is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)  # not inherited by the processes this one starts
        end = time.monotonic() + max(0.0, timeout)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    os.close(fd)
                    if exc.errno == errno.ENOSYS:
                        return self._soft_acquire(end - time.monotonic())
                    raise
                left = end - time.monotonic()
                if left <= 0:
                    os.close(fd)
                    return False
                time.sleep(min(LOCK_POLL_S, left))
                continue
            self._fd = fd
            return True

    def _soft_acquire(self, timeout: float) -> bool:
        import filelock

        lock = filelock.FileLock(self.path, mode=PRIVATE_FILE)
        try:
            lock.acquire(timeout=max(0.0, timeout))
        except filelock.Timeout:
            return False
        self._soft = lock
        return True

    def release(self) -> None:
        """Let the lock go (taken by :meth:`acquire`)."""
        if self._fd is not None:
            import fcntl

            fd, self._fd = self._fd, None
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        if self._soft is not None:
            soft, self._soft = self._soft, None
            soft.release()

    def __enter__(self) -> None:
        if not self.acquire(self.timeout):
            if self.busy is not None:
                raise self.busy
            from autopilot.errors import BridgeError

            raise BridgeError(
                f"another codex-bridge process has held {self.path} for {self.timeout:.0f}s", hint=self.hint
            )

    def __exit__(self, *exc: object) -> None:
        self.release()


def held(
    path: PathLike, timeout: float = LOCK_TIMEOUT_S, *, hint: str = HELD_HINT, busy: Exception | None = None
) -> Lock:
    """Hold the lock file ``path`` for a ``with`` block; another process holding it past ``timeout`` raises ``busy``,
    or a BridgeError that names the lock and says ``hint``."""
    return Lock(path, timeout, hint=hint, busy=busy)


def is_held(path: PathLike) -> bool:
    """Whether another process holds the lock file at ``path`` now (a non-blocking shared lock is refused),
    without creating it or loading filelock: fast enough for the status line."""
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)
