"""Writing files so that readers never see half of one: the one atomic writer; and the one lock-file helper.

Every file the bridge writes that someone else may read while it is written (state.json,
artifacts, packets, Codex's hooks.json and skills, pointers, index caches) goes through
:func:`atomic_write`: a temp file in the same directory (:func:`make_temp`, as ``tempfile.mkstemp``
makes one), optionally fsynced, then ``os.replace``. A failure leaves the old file untouched and no
temp file behind. Files that belong to the user (Codex's config and hooks.json, the plan in the
repository) go through :func:`replace_text`, which keeps their permissions and writes through a symlink.

Every lock another process may hold is a lock file taken here (:class:`Lock`, :func:`held`, :func:`is_held`): an
exclusive flock through ``fcntl`` (filelock, ~40 ms to import, only where the filesystem has no flock).
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
    os.makedirs(parent, exist_ok=True)
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
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    atomic_write(target, text)
    os.chmod(target, mode)


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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by the processes this one starts
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

        lock = filelock.FileLock(self.path)
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
