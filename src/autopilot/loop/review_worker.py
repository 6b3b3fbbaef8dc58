"""The review worker: one warm process per run reviews Claude's newest work in the background, one review at a time.

The PostToolUse hook notes that a review is wanted (:func:`poke` adds to ``review-wanted``) and starts the worker when
none is running; it never waits for a review. The worker holds ``review.lock`` for its whole life (a second one exits
at once with EXIT_BUSY), so at most one review is in flight per run, and it pays for the Codex client's start (the
libraries a review loads, the redactor's patterns, the price table) once per run instead of once per review.

When it reviews: an edit was noted since the last review started, and either that edit came after the review finished
or Claude has run a tool since (it is still working; a Claude that stops instead gets the verdict, which sees the same
diff). So edits made during a review are reviewed together in the next one, of the newest tree, and a Codex slower than
Claude means fewer reviews, never more waiting. Nothing is reviewed while Codex is deciding a verdict (it judges the
same work), and a tree already reviewed, planned on or judged by the last verdict is not reviewed again.

``loop.review.review()`` records each outcome in state.json (``last_review`` and ``reviews_pending``, one transaction)
and the hooks hand it over. A worker killed mid-review loses no finding: the tree it was reviewing is still unreviewed,
so the next edit's hook starts a worker that reviews it (the newest tree).

It exits when the run is no longer running (done, paused, stopped, re-planned), when the review mode is no longer
``edit``, when the Claude Code process it serves is gone, on SIGTERM, or after IDLE_S without work. With the openai
backend a review in flight does not hold it: the review was asked in the provider's background mode, so the worker
leaves it running there (its id kept in ``review-left.json``) and exits at once; the run's next worker (the next
edit's, or the one the next session's start starts) fetches it by id, charges what the provider billed and hands its
findings over (``loop.review.collect``). The codex-cli backend's review is finished and recorded first (a ``codex
exec`` cannot be left running); a second SIGTERM ends it at once (its codex stopped, its tree left for the next).
With the openai backend it also keeps the run's relay open (``loop/backends/relay.py``): the Stop hook's verdict is
sent through this process's loaded client, so the stop the person waits for pays no SDK start (~1 s of CPU). The calls
it relays are finished before it exits, whatever ends it but a second SIGTERM.
It imports no hook module: the worker is an operation on the run.
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import suppress
from typing import TYPE_CHECKING

from autopilot.fsutil import is_held
from autopilot.loop.state import CALL_LANE, Store

if TYPE_CHECKING:
    from collections.abc import Callable
    from threading import Event

    from autopilot.loop.backends.relay import Relay

LOCK = "review.lock"  # held by the worker for its whole life
# The PostToolUse hook appends a byte to it after each edit: its size counts the edits noted, whatever the clocks say
# (a file's mtime is the kernel's coarse time, a few ms behind the time of day; an edit noted as a review ended must
# not be taken for one made during it).
WANTED = "review-wanted"
DONE = "review-done"  # touched by the worker as a review ends: its mtime and the tool mark's are the same clock's
PID_FILE = "review-worker.pid"  # while it runs: its pid and the Claude Code process it serves (SessionEnd stops it)
WORKER_LOG = "review-worker.log"
MAX_LOG_BYTES = 1_000_000  # then the log is rotated to review-worker.log.1
EXIT_BUSY = 75  # another worker serves this run
IDLE_S = 300.0  # a worker with nothing to do for this long exits (the next edit starts another)
COLLECT_S = 1.0  # how often a review left running by an earlier worker is asked after
COLLECT_TIMEOUT_S = 10.0  # how long one such ask may take
POLL_S = 0.2  # how often an idle worker looks for work: a few stat calls, ~50 ms of CPU in IDLE_S
ENTRY = "from autopilot.loop.review_worker import main; main()"  # what the process runs


def running(store: Store) -> bool:
    """Whether a review worker serves this run right now."""
    return is_held(store.dir / LOCK)


def poke(store: Store, root: str, *, claude_pid: int | None, tool_mark: str) -> bool:
    """Note that Claude changed the work and a review is wanted; start the worker unless one runs. Whether one was
    started. Returns at once (``claude_pid``: the Claude Code process the worker serves and exits with;
    ``tool_mark``: the file the hooks touch on every tool use, which tells the worker Claude is still working)."""
    store.dir.mkdir(parents=True, exist_ok=True)
    with open(store.dir / WANTED, "ab") as fh:
        fh.write(b".")
    if running(store):
        return False
    start_worker(store, root, claude_pid=claude_pid, tool_mark=tool_mark)
    return True


def start_worker(store: Store, root: str, *, claude_pid: int | None, tool_mark: str) -> None:
    """A detached review worker for ``root`` (its own session: it outlives the hook that starts it)."""
    import subprocess

    log_path = store.dir / WORKER_LOG
    with suppress(OSError):
        if log_path.stat().st_size > MAX_LOG_BYTES:
            os.replace(log_path, log_path.with_name(WORKER_LOG + ".1"))
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-c", ENTRY],
            stdin=subprocess.PIPE,
            stdout=log,
            stderr=log,
            cwd=root,
            start_new_session=True,
        )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps({"root": root, "claude_pid": claude_pid, "tool_mark": tool_mark}).encode())
    proc.stdin.close()
    proc.returncode = 0  # never waited for: it runs on after this hook (silences Popen's still-running warning)


def main() -> None:
    """The worker process: :func:`worker`, then out at once. Its lock and pid file are gone by then and its log is
    flushed; tearing down an interpreter that loaded a review's libraries would keep the process around for a
    tenth of a second more (seconds on a loaded machine), past the SessionEnd hook that waits for it."""
    import traceback

    try:
        code = worker()
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def worker() -> int:
    """Serve the run of the workspace named on stdin until there is nothing left to do; EXIT_BUSY when another
    worker serves it."""
    import signal
    import threading

    from autopilot.fsutil import Lock

    given = json.loads(sys.stdin.read())
    store = Store(given["root"])
    lock = Lock(store.dir / LOCK)
    if not lock.acquire(0):
        return EXIT_BUSY
    from autopilot.errors import Terminated

    stop = threading.Event()

    def on_term(signum: int, _frame: object) -> None:
        # The first SIGTERM (SessionEnd's) lets a review in flight finish and be recorded: its call is billed either
        # way. A second one ends it now (codex_cli stops its codex on the way out); its tree stays unreviewed, so the
        # next edit's worker reviews it and no finding is lost.
        if stop.is_set():
            raise Terminated(signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_term)
    pid_file = store.dir / PID_FILE
    try:
        pid_file.write_text(f"{os.getpid()} {given.get('claude_pid') or ''}\n")
        return Worker(store, given["root"], given.get("claude_pid"), given.get("tool_mark"), stop).serve()
    except Terminated as exc:
        say(f"review worker: stopped by signal {exc.signum} twice; the review in flight was not recorded")
        return 128 + exc.signum
    except Exception as exc:
        from autopilot.paths import autopilot_home
        from autopilot.plugin import write_crash_log  # only a crash pays for it

        write_crash_log(str(autopilot_home()), exc)
        raise
    finally:
        with suppress(OSError):
            pid_file.unlink()
        lock.release()


class Worker:
    """One run's reviews, in one process: what is due, and the review itself."""

    def __init__(self, store: Store, root: str, claude_pid: int | None, tool_mark: str | None, stop: Event) -> None:
        self.store, self.root, self.stop = store, root, stop
        self.claude = Process(claude_pid) if claude_pid else None
        self.tool_mark = tool_mark
        self.started_mark = 0  # the edits noted as the last review started: any noted after it are new work
        self.finished_mark = 0  # ... and as it ended: those noted before it were made during it
        self.finished = 0  # when the last review ended (ns, the done mark's mtime)
        self.reviews = 0
        self.cpu_start = 0.0  # CPU seconds (this process and its git children) the client's start cost
        self.seen: dict[str, tuple[int, str | None]] = {}  # what why_stop last read: file -> (mtime, its answer)
        self.relay: Relay | None = None  # the run's warm line to the Responses API, while the backend is openai
        self.left: str | None = None  # the id of the review this worker left running (it then exits)
        self.background = True  # whether its openai reviews may be left running (config.review_background)
        self.next_collect = 0.0  # when to ask again after a review an earlier worker left running

    def serve(self) -> int:
        """Review what is due until the worker has no reason to live; 0. The calls it relays are finished first."""
        try:
            return self._serve()
        finally:
            if self.relay is not None:
                self.relay.close(wait=self.call_timeout())

    def _serve(self) -> int:
        self.warm()
        self.cpu_start = cpu_seconds()
        idle_since = time.monotonic()
        while not self.stop.is_set():
            if self.left is not None:
                say(f"review worker: exits (a review left running); {self.reviews} review(s), {self.relayed()} relayed")
                return 0
            if self.collecting():  # before anything else: the run's budget then counts it
                if time.monotonic() - idle_since > IDLE_S:
                    say(f"review worker: exits (a review left running is not done after {IDLE_S:.0f}s)")
                    return 0
                self.stop.wait(POLL_S)
                continue
            why = self.why_stop()
            if why:
                say(
                    f"review worker: exits ({why}); {self.reviews} review(s), {self.relayed()} relayed, "
                    f"{self.cpu_start:.2f}s of CPU to start, {cpu_seconds() - self.cpu_start:.2f}s since"
                )
                return 0
            if self.due():
                self.review_once()
                idle_since = time.monotonic()
                continue
            if self.relay is not None:
                idle_since = time.monotonic() if self.relay.busy() else max(idle_since, self.relay.last_active)
            if time.monotonic() - idle_since > IDLE_S:
                idle = f"idle for {IDLE_S:.0f}s"
                say(f"review worker: exits ({idle}); {self.reviews} review(s), {self.relayed()} relayed")
                return 0
            self.stop.wait(POLL_S)
        say(f"review worker: exits (asked to stop); {self.reviews} review(s), {self.relayed()} relayed")
        return 0

    def should_leave(self) -> bool:
        """Whether to stop waiting for the review in flight and leave it running at the provider (asked a few times
        a second while it runs): the worker was asked to stop, or has no reason to live any more."""
        return self.stop.is_set() or self.why_stop() is not None

    def collecting(self) -> bool:
        """Whether a review an earlier worker left running is still awaited (fetched and recorded as soon as it is
        done; asked after once a second). Not while the Claude Code session it serves is gone: the next one's."""
        from autopilot import clock
        from autopilot.loop.review import LEFT as LEFT_NOTE
        from autopilot.loop.review import collect, left_running, set_aside

        if not left_running(self.store) or (self.claude is not None and not self.claude.alive()):
            return False
        now = time.monotonic()
        if now >= self.next_collect:
            self.next_collect = now + COLLECT_S
            try:
                outcome = collect(self.root, timeout=min(COLLECT_TIMEOUT_S, self.call_timeout()))
            except Exception as exc:  # a note that cannot be recorded must not hold every later review back
                aside = set_aside(self.store, "failed")
                say(f"review worker: the review left running earlier could not be recorded ({exc}); moved to {aside}")
                return False
            if outcome != "pending":
                say(f"review worker: the review left running earlier was {outcome}")
                return False
        # Still pending: waited for while it may still be answering; past that (a provider that never finishes, a key
        # gone since) the worker reviews on and keeps asking after it, rather than hold every later review back.
        return clock.unix() - mtime_ns(self.store.dir / LEFT_NOTE) / 1e9 < self.call_timeout()

    def relayed(self) -> int:
        """The calls it sent for other processes of the run (the Stop hook's verdicts)."""
        return self.relay.served if self.relay is not None else 0

    @staticmethod
    def call_timeout() -> float:
        """How long one call may take: what closing the relay waits at most for a call it took."""
        from autopilot import config
        from autopilot.errors import BridgeError

        try:
            return config.timeout_seconds(config.load_config())
        except BridgeError:
            return config.DEFAULT_TIMEOUT_S

    def warm(self) -> None:
        """Load what a review needs before one is due: the Codex client's libraries, the redactor's patterns."""
        from autopilot import config
        from autopilot.errors import BridgeError

        try:
            settings = config.load_config()
            state = self.store.load()
            backend = config.resolve_backend(None, state.get("backend"), settings)
        except BridgeError:
            return  # a broken config or run is reported by the review that needs it
        try:
            self.background = config.review_background()
        except BridgeError as exc:  # a bad value: reviews are waited for, as with off
            self.background = False
            say(f"review worker: {exc}")
        if backend == "openai":
            import openai  # noqa: F401  (~0.9 s of CPU: paid once per run, not once per review)
            import tenacity  # noqa: F401

            from autopilot.loop import backends
            from autopilot.loop.backends.relay import Relay

            # Its own calls go straight out; the Stop hook's verdicts come through its relay, paying no SDK start.
            backends.SERVING_RELAY = True
            self.relay = Relay(str(self.store.dir))
            if not self.relay.start():
                self.relay = None
        from autopilot.loop import review  # noqa: F401  (the snapshot, prompts, the redactor)
        from autopilot.redact import Redactor

        Redactor()("warm")  # its patterns compile on the first use

    def why_stop(self) -> str | None:
        """Why the worker should exit now, or None. Cheap enough to ask five times a second: a kill(0) and two stat
        calls; state.json and the config file are read again only when they changed."""
        if self.claude is not None and not self.claude.alive():
            return "the Claude Code session it served has ended"
        return self._changed(str(self.store.path), self._run_over) or self._changed(self._config(), self._mode_off)

    def _changed(self, path: str, ask: Callable[[], str | None]) -> str | None:
        """``ask()``'s answer, asked again only when the file at ``path`` changed since it was last asked."""
        stamp = mtime_ns(path)
        if path not in self.seen or self.seen[path][0] != stamp:
            self.seen[path] = (stamp, ask())
        return self.seen[path][1]

    def _run_over(self) -> str | None:
        state = Store.peek(str(self.store.dir))
        if state is None or state.get("status") != "running" or not state.get("plan"):
            return "the run is no longer running"
        return None

    @staticmethod
    def _config() -> str:
        from autopilot import config

        return str(config.config_path())

    @staticmethod
    def _mode_off() -> str | None:
        from autopilot import config
        from autopilot.errors import BridgeError

        try:
            mode = config.review_mode()
        except BridgeError:
            return "the review mode cannot be read"
        return None if mode == "edit" else f"the review mode is {mode} now"

    def due(self) -> bool:
        """Whether a review should start now (see the module's docstring)."""
        wanted = size(self.store.dir / WANTED)
        if wanted <= self.started_mark:
            return False
        if self.finished and wanted <= self.finished_mark and mtime_ns(self.tool_mark) < self.finished:
            return False  # edits made during the last review: reviewed once Claude shows it is still working
        return not is_held(self.store.dir / CALL_LANE)  # Codex is deciding a verdict on this work

    def review_once(self) -> None:
        """Review the newest tree, unless it was reviewed, planned on or judged already; record a failure."""
        from autopilot.errors import BridgeError, BudgetExhausted, InfraError, RunChanged
        from autopilot.loop import control
        from autopilot.loop.backends import DETACH, Detach, Detached
        from autopilot.loop.review import review
        from autopilot.loop.snapshot import work_tree

        self.started_mark = size(self.store.dir / WANTED)
        before = cpu_seconds()
        state = self.store.load()
        last = state.get("last_review")
        seen = {state.get("plan_tree"), state.get("verdict_tree"), last.get("fingerprint") if last else None}
        token = DETACH.set(Detach(lambda _rid: None, self.should_leave) if self.background else None)
        try:
            if work_tree(self.root, str(self.store.dir / "work-index")) in seen - {None}:
                return
            review(cwd=self.root)
            self.reviews += 1
            say(f"review worker: review {self.reviews} used {cpu_seconds() - before:.3f}s of CPU")
        except Detached as exc:
            self.left = exc.response_id
            say(f"review worker: the review in flight is left running ({exc.response_id}); the run's next worker")
        except InfraError as exc:  # recorded in state, with consecutive_errors counted (busy: not counted)
            with suppress(RunChanged):  # re-planned or no longer running meanwhile: nothing to pause
                control.pause_if_unavailable(self.store, exc.run or self.store.load(), "review", exc, untold=True)
        except BudgetExhausted as exc:  # the run is stopped already: the person is told by the next hook
            say(f"review worker: {exc}")
            control.left_untold(self.store)
        except BridgeError as exc:  # nothing to review
            say(f"review worker: {exc}")
        finally:
            DETACH.reset(token)
            self.finished_mark = size(self.store.dir / WANTED)
            done = self.store.dir / DONE
            with open(done, "a"):
                os.utime(done)
            self.finished = mtime_ns(done)


class Process:
    """A process by pid, and the start time that tells it from a later one given the same pid (Linux)."""

    def __init__(self, pid: int) -> None:
        self.pid = int(pid)
        self.started = _start_time(self.pid)

    def alive(self) -> bool:
        """Whether the process still runs (and is the same one)."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # someone else's process: it exists
            return True
        return self.started is None or _start_time(self.pid) == self.started


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat (the start time in clock ticks), or None where there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read().decode("utf-8", "replace")
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


def size(path: str | os.PathLike[str]) -> int:
    """A file's size in bytes, 0 when it is missing."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def mtime_ns(path: str | os.PathLike[str] | None) -> int:
    """A file's modification time in ns, 0 when it is missing."""
    if not path:
        return 0
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def cpu_seconds() -> float:
    """CPU this process and its finished children (git, codex) used, user and system."""
    import resource

    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def say(text: str) -> None:
    """One line in the worker's log (its stderr)."""
    from autopilot.output import say as tell

    tell(text)
