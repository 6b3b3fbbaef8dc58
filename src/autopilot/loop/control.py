"""Steering a run: pause, resume, stop, the budget guard and cap, who owns the run, and Claude Code's Stop blocks.

Every operation applies one of ``loop``'s pure transitions inside one transaction that expects the run its
caller read (``Store.transaction(expect=...)``): a run re-planned meanwhile (or, where it matters, no longer
running) raises :class:`~autopilot.errors.RunChanged` and is left as it is. The CLI (``codex-bridge stop |
resume | budget``), the hooks, the review worker, ``Workspace.consult`` and the dashboard call these; hooks
render what they return and decide nothing about a run's status themselves. The operations named by a
directory (``cwd``) return what they did, as the CLI prints it. What a hook must write besides (a session's claim of
a run nobody owns: :func:`own`; a once-per-run notice: :func:`note`) rides on the transaction it already makes, so
it never costs a read of state.json of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot import git
from autopilot.errors import BridgeError, BudgetExhausted, CallBusy, InfraError, RunChanged, RunTaken
from autopilot.loop import status, transitions
from autopilot.loop.state import State, Store

# The notices key: a review in the background paused or stopped the run and no hook has told the person yet.
UNTOLD = "untold-end"

if TYPE_CHECKING:
    from autopilot.loop.shapes import BudgetChecked, BudgetSet, Plan, Resumed, Stopped, Task


def require_run(store: Store, state: State) -> tuple[Plan, Task]:
    """The run's plan and current task; refused with a clear next step when there is no planned run here."""
    plan, task = state.get("plan"), state.get("current_task")
    if not plan or not task:
        raise BridgeError(
            f"there is no autopilot run in {store.workspace}", hint='start one with `codex-bridge plan --goal "..."`'
        )
    return plan, task


def stop(reason: str, *, cwd: str | None = None) -> Stopped:
    """Return the run to idle, keeping token_usage and spend."""
    store = _store(cwd)
    if not store.exists():
        raise BridgeError(f"there is no autopilot run in {store.workspace} to stop")
    with store.transaction() as s:
        transitions.apply_stop(s, reason or "stopped by the user")
        after = s.copy()
    return {
        "status": after["status"],
        "stop_reason": after["stop_reason"],
        "token_usage": after["token_usage"],
        "budget_used_usd": after["budget_used_usd"],
    }


def resume(*, cwd: str | None = None) -> Resumed:
    """Set a paused, budget-stopped or iteration-limited run running again, with its failure counts cleared."""
    store = _store(cwd)
    state = store.load()
    require_run(store, state)
    if state["status"] == status.RUNNING:
        return {"status": status.RUNNING, "resumed": False}
    if state["status"] not in status.RESUMABLE:
        raise BridgeError(
            f"a run that is {state['status']} cannot be resumed", hint='plan a new one: codex-bridge plan --goal "..."'
        )
    with store.transaction(expect=state) as s:
        if transitions.over_budget(s):
            raise BridgeError(
                f"the budget is spent (${s['budget_used_usd']:.4f} of ${s['budget_usd']:.2f})",
                hint="raise it first: codex-bridge budget set USD",
            )
        transitions.apply_resume(s)
        after = s.copy()
    return {"status": after["status"], "resumed": True, "max_iterations": after["max_iterations"]}


def check_budget(*, cwd: str | None = None) -> BudgetChecked:
    """budget-guard: flip a running run that is over its cap to stopped_budget; ``over_budget`` says if it is."""
    store = _store(cwd)
    state = store.load()
    flipped = False
    if state["status"] == status.RUNNING and transitions.over_budget(state):
        with store.transaction() as s:
            flipped = transitions.budget_guard(s)
            state = s.copy()
    return {
        "status": state["status"],
        "budget_used_usd": state["budget_used_usd"],
        "budget_usd": state["budget_usd"],
        "over_budget": transitions.over_budget(state) and bool(state.get("plan")),
        "stopped_now": flipped,
    }


def set_budget(usd: float, *, cwd: str | None = None) -> BudgetSet:
    """Change the run's spend cap."""
    from autopilot import config

    value = float(config.positive_number("budget", usd))
    store = _store(cwd)
    if not store.exists():
        raise BridgeError(
            f"there is no autopilot run in {store.workspace}", hint="give --budget to `codex-bridge plan`"
        )
    with store.transaction() as s:
        s["budget_usd"] = value
        after = s.copy()
    return {"budget_usd": after["budget_usd"], "budget_used_usd": after["budget_used_usd"], "status": after["status"]}


def guard_budget(store: Store, phase: str, state: State, *, owner: str | None = None) -> State:
    """The run ``state`` as it is now; stops it instead of calling Codex when its budget is already spent.

    A run that was replaced meanwhile refuses the call too (its budget is not this one's). ``owner``: the session
    the call is made for, which claims a run nobody owns here, before Codex is asked (:func:`own`).
    """
    try:
        with store.transaction(expect=state) as s:
            own(s, owner)
            stopped = transitions.over_budget(s)
            if stopped:
                transitions.budget_guard(s)
            now = s.copy()
    except RunTaken:
        raise
    except RunChanged as exc:
        raise RunChanged(
            "the run was re-planned while this call waited; nothing was asked",
            hint="`codex-bridge status` shows the new run",
            now=exc.now,
            replaced=True,
        ) from None
    if not stopped:
        return now
    spent = BudgetExhausted(
        f"the run's budget is spent (${now['budget_used_usd']:.4f} of ${now['budget_usd']:.2f}); "
        f"no {phase} call was made",
        hint="raise it with `codex-bridge budget set USD` then `codex-bridge resume`, or re-plan",
    )
    spent.run = now
    raise spent


def pause(store: Store, state: State, paused: str, reason: str) -> State:
    """Pause the running run ``state`` as ``paused`` with its reason; the run after (RunChanged: it moved on)."""
    with store.transaction(expect=state, running=True) as s:
        transitions.apply_pause(s, paused, reason)
        return s.copy()


def pause_if_unavailable(
    store: Store, state: State, phase: str, exc: InfraError, *, untold: bool = False
) -> str | None:
    """After ``phase``'s call failed with ``exc`` (already recorded in ``state``): pause the run as
    paused_reviewer_unavailable when that made INFRA_PAUSE_AFTER failures in a row; returns the reason it
    paused with (None: not yet; RunChanged: the run moved on). A busy call slot never pauses. ``untold``: no hook
    waits for the call (a review in the background): the pause is noted as not told yet (UNTOLD), in the same
    write, so the next hook that sees the pause says it."""
    if isinstance(exc, CallBusy) or transitions.failures(state, phase) < transitions.INFRA_PAUSE_AFTER:
        return None
    with store.transaction(expect=state, running=True) as s:
        reason = transitions.pause_if_unavailable(s, phase, exc.kind)
        if reason and untold:
            note(s, UNTOLD)
        return reason


def left_untold(store: Store) -> None:
    """A review in the background (no hook waits for it) paused or stopped the run: note that no hook has said so
    yet (UNTOLD), so the next hook of the run's session tells the person, once."""
    try:
        with store.transaction() as s:
            if s["status"] in (status.PAUSED_REVIEWER_UNAVAILABLE, status.STOPPED_BUDGET):
                note(s, UNTOLD)
    except RunChanged:
        return


def hold(
    store: Store,
    state: State,
    *,
    blocks: int,
    cap: int | None,
    owner: str | None = None,
    notice: str | None = None,
    plan_shown: bool = False,
) -> tuple[str | None, bool]:
    """Count the Stop block that keeps Claude working on the running run ``state`` (``blocks`` before it in a
    row), or pause the run where Claude Code's ``cap`` would end the turn. ``owner`` claims a run nobody owns
    (:func:`own`); the once-per-run ``notice`` the block's answer carries is recorded with it (never with a pause,
    whose answer says the pause instead), and so is the plan shown with either answer (``plan_shown``). Returns the
    pause's reason (None: counted) and whether ``notice`` was recorded now (RunChanged: the run moved on)."""
    with store.transaction(expect=state, running=True) as s:
        own(s, owner)
        if plan_shown:
            s["plan_to_show"] = False
        paused = transitions.count_block(s, blocks, cap)
        return paused, paused is None and notice is not None and note(s, notice)


def reset_blocks(store: Store, state: State) -> State:
    """Start the run's count of Stop blocks again (Claude Code counts them per user turn); the run after."""
    try:
        with store.transaction(expect=state) as s:
            s["consecutive_blocks"] = 0
            return s.copy()
    except RunChanged as exc:
        now: State = exc.now
        return now


def new_turn(
    store: Store, state: State, *, owner: str | None = None, notice: str | None = None
) -> tuple[State, bool, bool]:
    """A prompt from the user: the Stop-block count starts again and the budget guard runs, in one transaction with
    the claim of a run nobody owns (``owner``, :func:`own`) and the once-per-run ``notice`` the prompt's answer
    carries (recorded only while the run keeps running). Returns the run after, whether the guard stopped it, and
    whether ``notice`` was recorded now (a run replaced meanwhile is left as it is)."""
    try:
        with store.transaction(expect=state) as s:
            own(s, owner)
            s["consecutive_blocks"] = 0
            stopped = transitions.budget_guard(s)
            said = notice is not None and s["status"] == status.RUNNING and note(s, notice)
            return s.copy(), stopped, said
    except RunTaken:
        raise
    except RunChanged as exc:
        return exc.now, False, False


def claim(store: Store, state: State, session_id: str) -> State:
    """The run once session ``session_id`` has claimed it when no session owned it yet (the run as it is now
    when it was replaced meanwhile: the caller compares its owner)."""
    try:
        with store.transaction(expect=state) as s:
            _claim(s, session_id)
            return s.copy()
    except RunChanged as exc:
        now: State = exc.now
        return now


def own(state: State, owner: str | None) -> None:
    """Inside a transaction: claim the run ``state`` for session ``owner`` when no session owns it; RunTaken when
    another session does (it claimed the run since the caller found it unowned). None: nothing to claim or check."""
    if owner is not None and not _claim(state, owner):
        raise RunTaken(
            "another Claude Code session claimed the autopilot run meanwhile; nothing was changed", now=state.copy()
        )


def _claim(state: State, session_id: str) -> bool:
    """Claim ``state`` for ``session_id`` unless a session owns it; whether it is ``session_id``'s now."""
    if not state.get("owner_session_id"):
        state["owner_session_id"] = session_id
    return state.get("owner_session_id") == session_id


def note(state: State, key: str) -> bool:
    """Inside a transaction: record the once-per-run notice ``key`` (a new plan clears them); whether it is new."""
    if key in state["notices"]:
        return False
    state["notices"].append(key)
    return True


def release(store: Store, session_id: str) -> None:
    """Let go of the run owned by ``session_id`` (its id changes on /clear), so the next session claims it."""
    with store.transaction() as s:
        if s.get("owner_session_id") == session_id:
            s["owner_session_id"] = None


def _store(cwd: str | None) -> Store:
    """The run store of the git work tree around ``cwd``."""
    return Store(git.toplevel(cwd))
