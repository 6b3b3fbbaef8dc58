"""handoff/memory/shapes.py: the active state the reducer makes of a real long session has the shapes' keys."""

from __future__ import annotations

import json

import pytest

from autopilot.handoff.memory import shapes
from autopilot.handoff.memory.reduce import reduce
from tests.support.repo import FIXTURES
from tests.support.shapes import mismatches


def active(agent: str) -> shapes.Active:
    """The reduced state of the 100-turn session the real ``agent`` wrote (tests/fixtures/long: its memory logs)."""
    folder = FIXTURES / "long" / agent / "memory"
    logs = {
        name: [json.loads(line) for line in (folder / f"{name}.jsonl").read_text().splitlines()]
        for name in ("observations", "checkpoints")
    }
    return reduce(logs["observations"], logs["checkpoints"])


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_active_state_and_its_facts_have_their_shapes(agent):
    """The state, its stated facts, items, runs, edits, compactions, checkpoint and counts: each its shape."""
    state = active(agent)
    assert mismatches(state, shapes.Active) == []
    for field in ("objective", "nextAction"):
        assert state[field] is not None and mismatches(state[field], shapes.Stated) == [], field
    parts = [
        (state["constraints"], shapes.Constraint),
        (state["unresolved"] + state["completed"], shapes.Item),
        (state["validation"], shapes.Run),
        (state["compactions"], shapes.Compaction),
        (state["boundaries"], shapes.Boundary),
        (state["recoveries"], shapes.Recovery),
    ]
    assert all(items for items, _ in parts[:5]), "the long session has each kind of fact"
    assert [(shape.__name__, i) for items, shape in parts for i in items if mismatches(i, shape)] == []
    assert mismatches(state["currentWork"], shapes.CurrentWork) == []
    assert mismatches(state["edits"], shapes.Edits) == []
    assert state["edits"]["recent"] and [e for e in state["edits"]["recent"] if mismatches(e, shapes.Edited)] == []
    assert state["checkpoint"] is not None and mismatches(state["checkpoint"], shapes.CheckpointFacts) == []
    assert mismatches(state["observations"], shapes.ObservationCounts) == []
