"""The one error type users see, and the exit codes it maps to."""

from __future__ import annotations

TYPE_CHECKING = False  # errors.py is on every hook's path: types only for the checker
if TYPE_CHECKING:
    from typing import Any

# Exit codes are part of the contract: hooks and scripts branch on them.
EXIT_OK = 0
EXIT_ERROR = 1  # bad input or a refused operation: nothing changed
EXIT_USAGE = 2  # argparse's own code for a malformed command line
EXIT_INFRA = 3  # the reviewer was unavailable (binary, network, quota, bad output) or its rate limit is too low
EXIT_BUDGET = 4  # the run's budget is spent; no call was made
EXIT_STATE = 5  # state.json is corrupt or from a newer version
EXIT_CRASH = 70  # a bug in the bridge; a crash log was written


class BridgeError(Exception):
    """A failure the user can act on; the message says what to do next."""

    exit_code = EXIT_ERROR
    usage: object | None = None  # tokens a failed exchange still consumed (budget.Usage)
    usd: float = 0.0  # what those tokens cost
    calls: int = 0  # model calls the failed exchange made
    run: Any = None  # the run as the failure was recorded in it, its state (loop/shapes.py); None: not recorded

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint

    def __str__(self) -> str:
        base = super().__str__()
        return f"{base} ({self.hint})" if self.hint else base


class InfraError(BridgeError):
    """The reviewer could not give an answer: not the same as the reviewer saying no."""

    exit_code = EXIT_INFRA

    def __init__(self, message: str, *, kind: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.kind = kind  # binary_missing | exit_status | timeout | rate_limit | auth | schema | network | busy | ...

    def with_usage(self, usage: object) -> InfraError:
        """Attach the tokens the failed call consumed, so they are charged exactly once."""
        self.usage = usage
        return self


class CallBusy(InfraError):
    """Another call of the same run held Codex for the whole wait: lock contention, not the reviewer failing.

    It is recorded as the run's last error and told to the user, but it counts toward no pause.
    """

    KIND = "busy"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, kind=self.KIND, hint=hint)


class BudgetExhausted(BridgeError):
    """The run has spent its budget, so no model call was made."""

    exit_code = EXIT_BUDGET


class RateLimitLow(BridgeError):
    """A Codex rate-limit window has less left than the run keeps free, so no model call was made."""

    exit_code = EXIT_INFRA


class Unwritable(BridgeError):
    """A write failed because the disk is full, a file-size limit or quota was reached, or it is read-only.

    Not a bug: exit 1 and no crash log (which could not be written either); the message names the file,
    the cause and what was kept.
    """

    def __init__(self, what: object, exc: OSError, *, kept: str = "") -> None:
        import errno  # builtin: free, but only failures need it

        denied = exc.errno in (errno.EACCES, errno.EPERM)  # a read may be refused too: say access, not write
        super().__init__(
            f"cannot {'access' if denied else 'write'} {what} ({exc.strerror or exc})" + (f"; {kept}" if kept else ""),
            hint=f"check who may read and write {what} (and $AUTOPILOT_HOME), then try again"
            if denied
            else "free some disk space, raise the file-size limit or make $AUTOPILOT_HOME writable, then try again",
        )
        self.errno = exc.errno


def unwritable(exc: BaseException) -> Unwritable | None:
    """``exc`` as an Unwritable when it says the disk is full, over a size limit or quota, or read-only; else None."""
    import errno  # builtin: free, but only failures need it

    full = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EACCES, errno.EPERM)
    if isinstance(exc, OSError) and exc.errno in full:
        return Unwritable(exc.filename or "a file", exc)
    return None


class RunChanged(BridgeError):
    """state.json no longer holds the run a caller read: it was re-planned meanwhile (``replaced``), or it is no
    longer running. Raised before anything is changed; ``now`` is the run as it is now (its state: loop/shapes.py)."""

    def __init__(self, message: str, *, now: Any, replaced: bool, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.now = now
        self.replaced = replaced


class RunTaken(RunChanged):
    """Another Claude Code session claimed the run a session found unowned and was about to claim: nothing was
    changed; ``now`` is the run as it is now (its ``owner_session_id`` names the session that has it)."""

    def __init__(self, message: str, *, now: Any) -> None:
        super().__init__(message, now=now, replaced=False)


class StateError(BridgeError):
    """state.json cannot be used as it is (corrupt, or written by a newer version)."""

    exit_code = EXIT_STATE


class Terminated(BaseException):
    """The process was asked to end (SIGTERM, or SIGHUP when its terminal closed): raised where the process was, so
    every ``finally`` and ``with`` on the way out runs (a child process is stopped, a temp folder removed) as on
    Ctrl-C. A BaseException, like KeyboardInterrupt: no ``except Exception`` may swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def end_cleanly_on_signals() -> dict[int, Any]:
    """Make SIGTERM and SIGHUP raise :class:`Terminated` in the main thread; the handlers they had, for
    :func:`restore_signals` (``_signal``: loaded at start-up, free). Elsewhere than the main thread: nothing."""
    import _signal

    def stop(signum: int, _frame: object) -> None:
        raise Terminated(signum)

    previous: dict[int, Any] = {}
    for signum in (_signal.SIGTERM, _signal.SIGHUP):
        if _signal.getsignal(signum) != _signal.SIG_DFL:  # one ignored on purpose (nohup) stays ignored
            continue
        try:
            previous[signum] = _signal.signal(signum, stop)
        except ValueError:  # not the main thread: signals are the main thread's
            break
    return previous


def restore_signals(previous: dict[int, Any]) -> None:
    """Put back the handlers :func:`end_cleanly_on_signals` replaced."""
    import _signal

    for signum, handler in previous.items():
        _signal.signal(signum, handler)
