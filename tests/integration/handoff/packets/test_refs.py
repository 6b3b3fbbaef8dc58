"""The excerpt budget a packet shares: what does not fit is dropped to its pointer and reported as a gap."""

from __future__ import annotations

from tests.integration.handoff.packets.test_store import export, stored


def test_budget_that_bites_is_a_gap(bridge, repo, session):
    """A tiny excerpt budget drops excerpts to their pointers and reports what it dropped."""
    packet = stored(export(bridge, repo, session, "--budget-tokens", "100")["packet"])
    budget = next(g for g in packet["coverage"]["gaps"] if g["kind"] == "budget")
    assert budget["dropped"]
    assert any(m.get("omitted") == "budget" for m in packet["latestMessages"])
