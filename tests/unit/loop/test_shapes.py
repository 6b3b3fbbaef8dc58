"""The typed shapes of a run stay true to the files they describe: state.json's schema and Codex's answer schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autopilot.loop import shapes

RUN = Path(shapes.__file__).parent
STATE_SCHEMA = json.loads((RUN / "state_schema.json").read_text(encoding="utf-8"))


def keys(shape: type) -> set[str]:
    """Every key a TypedDict declares, required or not (its bases' included)."""
    return set(shape.__required_keys__) | set(shape.__optional_keys__)  # type: ignore[attr-defined]


def test_run_state_has_every_property_of_the_state_schema():
    """RunState declares exactly the properties state_schema.json lists: a field added to one is added to both."""
    assert keys(shapes.RunState) == set(STATE_SCHEMA["properties"])


@pytest.mark.parametrize(
    ("shape", "schema"),
    [
        (shapes.Task, STATE_SCHEMA["$defs"]["task"]),
        (shapes.PhaseUsage, STATE_SCHEMA["$defs"]["usage"]),
        (shapes.TokenUsage, STATE_SCHEMA["properties"]["token_usage"]),
        (shapes.Plan, STATE_SCHEMA["properties"]["plan"]),
        (shapes.LastReview, STATE_SCHEMA["properties"]["last_review"]),
        (shapes.LastVerdict, STATE_SCHEMA["properties"]["last_verdict"]),
        (shapes.LastError, STATE_SCHEMA["properties"]["last_error"]),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_state_parts_match_their_schema(shape, schema):
    """Each object inside state.json has the TypedDict's keys exactly."""
    assert keys(shape) == set(schema["properties"])


@pytest.mark.parametrize(
    ("shape", "phase"), [(shapes.Plan, "plan"), (shapes.Review, "review"), (shapes.Verdict, "verdict")]
)
def test_codex_answers_match_their_output_schema(shape, phase):
    """What Codex may answer in each phase (loop/schemas/) is the shape the run reads."""
    schema = json.loads((RUN / "schemas" / f"{phase}.json").read_text(encoding="utf-8"))
    assert keys(shape) == set(schema["properties"])


def test_keys_include_what_a_shape_inherits():
    """keys() sees a subclass's own keys and its base's (a listed run is a run state and its directory)."""
    assert keys(shapes.ListedRun) == set(STATE_SCHEMA["properties"]) | {"run_dir"}
