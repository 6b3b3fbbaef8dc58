"""The workspace a command acts on: its git top level, its run store, its settings and backend."""

from __future__ import annotations

import os
from contextlib import suppress
from functools import cached_property

from autopilot import git
from autopilot.errors import BridgeError, BudgetExhausted, CallBusy, InfraError, RateLimitLow, RunChanged
from autopilot.loop import transitions
from autopilot.loop.state import State, Store, call_busy

INDEX_CACHE = "codex-autopilot-work-index"  # the work tree's index copy, in the repository's git directory

TYPE_CHECKING = False  # typing costs ~2 ms to import; this idiom keeps it off the hot path
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from autopilot.config import Config
    from autopilot.loop.backends import Backend
    from autopilot.loop.reviewer import Answer, Check
    from autopilot.loop.snapshot import Snapshot

    R = TypeVar("R")


# Plan files are the run's own notes, not work to review.
PLAN_DIR = "docs/autopilot/plans"


class Workspace:
    """One git work tree and the autopilot run that belongs to it."""

    def __init__(self, cwd: str | None = None) -> None:
        self.root = git.toplevel(cwd)
        self.store = Store(self.root)

    @cached_property
    def config(self) -> Config:
        """The user's config file (read on first use)."""
        from autopilot import config

        return config.load_config()

    def backend(self, flag: str | None, state: State | None) -> Backend:
        """The backend to ask, honouring the run's own unless told otherwise."""
        from autopilot import config
        from autopilot.loop.backends import make_backend

        name = config.resolve_backend(flag, state.get("backend") if state else None, self.config)
        return make_backend(name, run_dir=str(self.store.dir), config=self.config)

    def conversation_for(self, backend: Backend, state: State) -> str | None:
        """The run's conversation, when it lives on this backend (ids do not cross backends)."""
        return state.get("conversation_id") if state.get("backend") == backend.name else None

    def consult(
        self,
        phase: str,
        text: str,
        state: State | None,
        *,
        backend: str | None,
        model: str | None,
        what: str,
        record: Callable[[Answer], R],
        budget_usd: float | None = None,
        check: Check | None = None,
        deadline: float | None = None,
        effort: str | None = None,
        run_id: str | None = None,
        min_rate_limit_left: float | None = None,
        owner: str | None = None,
    ) -> R:
        """Ask Codex for ``phase``'s JSON about the run in ``state`` (None: a new plan, no run yet), then
        ``record(answer)`` (charge and apply it) and return what that returns.

        One call per run is in flight at a time, and it keeps its slot until ``record`` has charged it:
        the next call checks the budget against what the previous one cost, so 64 concurrent reviews
        cannot spend past the cap (the call that crosses it is the last).
        Before paying for a call the run directory must take a write, so the answer can be recorded.
        A failure is recorded in the run (and what it consumed charged once) before it is raised; a
        plan's failure touches no run (it is in events.jsonl). ``deadline`` (``time.monotonic()``)
        bounds waiting for the slot and the whole exchange; default: now + AUTOPILOT_TIMEOUT.
        ``model`` and ``effort`` are the flags (None: the environment, the config's phase settings, the
        run's own); every call is logged with ``run_id`` (a plan's: the run it is about to create).
        Before the call, a Codex rate-limit window with less than the run's ``min_rate_limit_left`` percent
        left (a plan's: ``min_rate_limit_left``) pauses the run instead (:meth:`guard_rate_limit`).
        A run's call continues the run's conversation while its history is under ``max_history_tokens``; at
        the limit (or with no conversation on this backend) it starts a fresh one, its prompt prefixed with
        the run's own state (``prompts.restart_seed``: no model call), so every call's history stays bounded.
        ``owner``: the Claude Code session the call is made for; a run nobody owns is claimed for it in the budget
        guard's transaction, before Codex is asked, and one another session claimed meanwhile refuses the call
        (:class:`~autopilot.errors.RunTaken`).
        """
        import time

        from autopilot import config
        from autopilot.loop import control, reviewer
        from autopilot.output import say

        if deadline is None:
            deadline = time.monotonic() + self.timeout()
        chosen = self.backend(backend, state)
        # Resolved before anything happens: a bad AUTOPILOT_EFFORT is bad input, and nothing changes.
        chosen_model = config.resolve_model(model, state.get("model") if state else None, self.config, phase)
        chosen_effort = config.resolve_effort(effort, state.get("effort") if state else None, self.config, phase)
        history_limit = config.max_history_tokens(self.config)
        try:
            self.store.check_writable()
            with self.store.call_slot(phase, deadline):
                beside = False
                if state is not None:
                    current = control.guard_budget(self.store, phase, state, owner=owner)
                    remaining = current["budget_usd"] - current["budget_used_usd"]
                    self.guard_rate_limit(phase, chosen.name, current.get("min_rate_limit_left"), current)
                    beside = self.beside(phase, current, deadline)
                else:
                    remaining = float(budget_usd or 0)
                    self.guard_rate_limit(phase, chosen.name, min_rate_limit_left, None)
                conversation, fresh, restarted = None, False, False
                if state is not None:
                    # Beside a call in flight, the run's conversation is that call's: this one starts its own.
                    conversation = None if beside else self.conversation_for(chosen, current)
                    restarted = conversation is not None and transitions.history_full(current, history_limit)
                    if conversation is None or restarted:
                        text = self.seeded(current, text, history_limit if restarted else None)
                        conversation, fresh = None, True
                say(f"asking Codex ({chosen.name}) {what}" + (" beside another call in flight" if beside else ""))
                answer = reviewer.ask(
                    self.store,
                    phase,
                    text,
                    backend=chosen,
                    model=chosen_model,
                    effort=chosen_effort,
                    run_id=state.get("run_id") if state is not None else run_id,
                    conversation_id=conversation,
                    cwd=self.root,
                    deadline=deadline,
                    remaining_usd=remaining,
                    check=check,
                )
                answer.fresh, answer.restarted, answer.continued = fresh, restarted, conversation
                return record(answer)
        except BridgeError as exc:
            if state is not None:
                self.record_failure(phase, exc, state)
            raise

    def beside(self, phase: str, state: State, deadline: float) -> bool:
        """Inside ``phase``'s own lane: whether a call is in flight in the other lane, which this one then runs beside
        (True). Beside it only while the run ``state``'s budget has room for both (:func:`transitions.room_beside`);
        nearer the cap calls take turns, so the call that crosses it is the last: a verdict waits for the review in
        flight until ``deadline``, a review gives way to a verdict (CallBusy). Each call holds its own lane and looks
        at the other's only once it holds it, so of two calls that start together one always sees the other."""
        import time

        from autopilot.fsutil import is_held

        other = self.store.other_lane(phase)
        if not is_held(other.path):
            return False
        if transitions.room_beside(state):
            return True
        if phase != "review" and other.acquire(max(0.0, deadline - time.monotonic())):
            other.release()  # its call is over: this one takes its turn
            return False
        raise call_busy(phase)

    def seeded(self, state: State, text: str, limit: int | None) -> str:
        """``text`` prefixed with the run's state for a fresh conversation (``limit``: the bound it restarts at)."""
        from autopilot.loop.prompts import restart_seed
        from autopilot.output import say
        from autopilot.redact import Redactor

        if limit is not None:
            say(
                f"the run's Codex conversation carries {state['conversation_tokens']:,} tokens of history (the "
                f"bound is {limit:,}): starting a fresh one from the run's own state"
            )
        return restart_seed(state, Redactor()) + text

    def guard_rate_limit(self, phase: str, backend: str, floor: float | None, state: State | None) -> None:
        """Refuse the call when one of Codex's rate-limit windows has less than ``floor`` percent left, as its
        rollouts last recorded it; a running run becomes paused_rate_limit, saying when the window resets.

        Only the codex-cli backend spends the windows of the user's Codex plan (the Responses API bills an
        API key instead), so only its calls are held back.
        """
        if floor is None or backend != "codex-cli":
            return
        from autopilot.codex import ratelimits
        from autopilot.loop import control, status

        found = ratelimits.short_window(ratelimits.latest(), float(floor))
        if found is None:
            return
        name, window = found
        when, resets = ratelimits.until(window["resets_at_unix"]), window["resets_at"]
        reason = (
            f"Codex's {name} window has {window['left_percent']:g}% left, under the {float(floor):g}% this run keeps "
            f"free" + (f"; it resets at {resets[:16].replace('T', ' ')} UTC ({when})" if when and resets else "")
        )
        if state is None:
            raise RateLimitLow(f"no plan was asked for: {reason}", hint="plan again once the window has reset")
        with suppress(RunChanged):  # a run replaced meanwhile, or no longer running, is not this call's to pause
            control.pause(self.store, state, status.PAUSED_RATE_LIMIT, reason)
        raise RateLimitLow(
            f"the autopilot run paused before its {phase} call: {reason}",
            hint="once it has reset, `/autopilot resume` (or `codex-bridge resume`) continues the run",
        )

    def record_failure(self, phase: str, exc: BridgeError, state: State) -> None:
        """Charge what a failed exchange of run ``state`` consumed (once) and record why it failed; ``exc.run``
        is then the run as the failure left it (None: a run re-planned meanwhile owns none of it)."""
        from autopilot.loop.backends import Usage

        usage = exc.usage if isinstance(exc.usage, Usage) else Usage()
        if isinstance(exc, RunChanged) or not self.store.exists():  # refused: the run changed, nothing is its
            return
        with suppress(RunChanged), self.store.transaction(expect=state) as s:
            if exc.calls or usage.input or usage.output:
                transitions.charge(s, phase, usage, exc.usd, exc.calls)
            if isinstance(exc, InfraError):
                transitions.record_error(s, phase, exc.kind, str(exc), counts=not isinstance(exc, CallBusy))
            elif isinstance(exc, BudgetExhausted):
                transitions.budget_guard(s)
            exc.run = s.copy()

    def snapshot(self, base: str | None) -> Snapshot:
        """The work since ``base``, without the run's own plan files."""
        from autopilot.loop import snapshot  # every hook with a run loads this module; only a diff needs that one

        return snapshot.snapshot(self.root, base, exclude=(PLAN_DIR,), cache=self.index_cache)

    @property
    def index_cache(self) -> str:
        """Where the work-tree index copy is kept between calls (see loop.snapshot.work_tree): beside the repository's
        own index, in its git directory. It holds what that index holds, the names of the work tree's files; kept
        there, a file named with a credential is not written under the bridge's home, where everything is redacted."""
        found = git.git_dir(self.root) or git.run_git(self.root, "rev-parse", "--absolute-git-dir").strip()
        return os.path.join(found, INDEX_CACHE)

    def snapshot_while_loading(self, base: str | None) -> Snapshot:
        """The snapshot a Codex call (a review, a verdict) is shown.

        It was taken in a thread while filelock was imported (~30 ms each, overlapped); the run's locks are taken
        with ``fcntl`` now, so there is nothing left to overlap. Neither jsonschema nor yaml is needed: a valid
        answer or state is checked without jsonschema (:mod:`.schema_subset`), and the price table is read from its
        cache (``budget._load_yaml``); a config file, if any, was read before.
        """
        return self.snapshot(base)

    def timeout(self) -> float:
        """Seconds one Codex call may take."""
        from autopilot import config

        return config.timeout_seconds(self.config)
