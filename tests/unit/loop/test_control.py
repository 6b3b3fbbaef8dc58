"""loop/control.py: a session's claim and a once-per-run notice ride on the transactions a hook already makes."""

from __future__ import annotations

import pytest

from autopilot.errors import RunTaken
from autopilot.loop import control
from autopilot.loop.state import Store
from tests.unit.loop.test_transitions import planned


def written(store: Store, **overrides) -> dict:
    """A planned, running run (``overrides`` applied) written to ``store``; the run as read back."""
    with store.transaction() as s:
        s.update(planned(**overrides))
    return store.load()


def test_a_call_made_for_a_session_claims_a_run_nobody_owns(git_repo):
    """The budget guard of a call made for session A writes A as the run's owner, before anything is asked."""
    store = Store(git_repo)
    read = written(store)
    assert control.guard_budget(store, "verdict", read, owner="A")["owner_session_id"] == "A"
    assert store.load()["owner_session_id"] == "A"


def test_a_run_another_session_claimed_meanwhile_refuses_the_call_untouched(git_repo):
    """Read unowned, claimed by B since: the guard for A raises RunTaken naming B and writes nothing."""
    store = Store(git_repo)
    read = written(store)
    with store.transaction() as s:
        s["owner_session_id"] = "B"
    before = store.path.read_bytes()
    with pytest.raises(RunTaken) as caught:
        control.guard_budget(store, "verdict", read, owner="A")
    assert caught.value.now["owner_session_id"] == "B" and store.path.read_bytes() == before


def test_a_spent_budget_refusal_carries_the_run_it_stopped(git_repo):
    """BudgetExhausted from the guard carries the run as stopped, so its caller need not read it again."""
    from autopilot.errors import BudgetExhausted

    store = Store(git_repo)
    read = written(store, budget_used_usd=2.0)
    with pytest.raises(BudgetExhausted) as caught:
        control.guard_budget(store, "verdict", read, owner="A")
    assert (caught.value.run["status"], caught.value.run["owner_session_id"]) == ("stopped_budget", "A")


def test_a_counted_block_records_its_notice_once(git_repo):
    """The block that carries a once-per-run notice records it; the next block finds it said."""
    store = Store(git_repo)
    first = control.hold(store, written(store), blocks=0, cap=8, notice="budget-warning")
    again = control.hold(store, store.load(), blocks=1, cap=8, notice="budget-warning")
    assert (first, again) == ((None, True), (None, False))
    after = store.load()
    assert (after["consecutive_blocks"], after["notices"]) == (2, ["budget-warning"])


def test_a_block_that_pauses_the_run_records_no_notice(git_repo):
    """A pause at Claude Code's cap says the pause, so the notice stays unsaid for a later answer."""
    store = Store(git_repo)
    paused, said = control.hold(store, written(store), blocks=0, cap=1, notice="budget-warning")
    assert paused and not said and store.load()["notices"] == []


def test_a_block_claims_a_run_nobody_owns(git_repo):
    """A block made for session A (no call was made before it) claims the run for A."""
    store = Store(git_repo)
    control.hold(store, written(store), blocks=0, cap=None, owner="A")
    assert store.load()["owner_session_id"] == "A"


def test_a_new_turn_claims_restarts_the_count_and_records_the_notice_together(git_repo):
    """One transaction: the claim, the block count at 0, the notice; the run after is returned."""
    store = Store(git_repo)
    after, stopped, said = control.new_turn(
        store, written(store, consecutive_blocks=3), owner="A", notice="budget-warning"
    )
    assert (stopped, said) == (False, True)
    on_disk = store.load()
    for run in (after, on_disk):
        assert (run["owner_session_id"], run["consecutive_blocks"], run["notices"]) == ("A", 0, ["budget-warning"])


def test_a_new_turn_that_stops_the_run_records_no_notice(git_repo):
    """A prompt that finds the budget spent stops the run; the warning it would have carried is not recorded."""
    store = Store(git_repo)
    after, stopped, said = control.new_turn(store, written(store, budget_used_usd=2.0), notice="budget-warning")
    assert (after["status"], stopped, said, after["notices"]) == ("stopped_budget", True, False, [])


def test_a_new_turn_on_a_run_another_session_claimed_is_refused(git_repo):
    """Read unowned, claimed by B since: a new turn for A raises RunTaken and changes nothing."""
    store = Store(git_repo)
    read = written(store, consecutive_blocks=3)
    with store.transaction() as s:
        s["owner_session_id"] = "B"
    with pytest.raises(RunTaken):
        control.new_turn(store, read, owner="A")
    assert store.load()["consecutive_blocks"] == 3
