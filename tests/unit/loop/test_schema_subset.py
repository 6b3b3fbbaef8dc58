"""loop/schema_subset accepts exactly what jsonschema accepts on the bridge's own schemas, and says jsonschema's words.

Each schema gets real valid documents (answers as Codex writes them, states built by the loop's own functions)
and thousands of random mutations of them: a key dropped or added, a value swapped for another JSON type or
another enum word, numbers at and past their bounds, integral floats, booleans where numbers go, nested at any
depth. For every one, the subset's verdict must be jsonschema's.
"""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from autopilot.loop import schema_subset as schema
from autopilot.loop import transitions
from autopilot.loop.backends import Usage
from autopilot.loop.state import SCHEMA_PATH, new_state

SCHEMAS = Path(schema.__file__).parent / "schemas"
TASK = {"id": "T1", "title": "Add the exporter", "description": "d", "acceptance": ["it exports", "tests pass"]}
PLAN = {"summary": "ship it", "tasks": [TASK, {**TASK, "id": "T2", "acceptance": []}]}
REVIEW = {
    "decision": "request_changes",
    "summary": "one bug",
    "issues": [
        {"severity": "major", "file": "src/x.py", "line": 12, "message": "off by one"},
        {"severity": "minor", "file": None, "line": None, "message": "naming"},
    ],
}
VERDICT = {
    "decision": "continue",
    "reason": "T1 met",
    "next_task_id": "T2",
    "progressed": True,
    "criteria": [{"criterion": "it exports", "met": True, "evidence": "test_export passes"}],
}


def states() -> list[dict]:
    """States as the loop makes them: idle, planned, reviewed, after a verdict, stopped."""
    idle = new_state("/w")
    planned = copy.deepcopy(idle)
    transitions.apply_plan(
        planned,
        run_id="r1",
        goal="ship the exporter",
        plan=copy.deepcopy(PLAN),
        plan_path="docs/autopilot/plans/p.md",
        conversation_id="resp_1",
        base_sha="a" * 40,
        plan_tree="b" * 40,
        budget_usd=5.0,
        max_iterations=20,
        no_progress_threshold=3,
        backend="openai",
        model="gpt-6.2-sol",
        owner_session_id=None,
        usage=Usage(input=1200, cached=0, output=300),
        usd=0.0123,
        calls=1,
        effort="high",
        min_rate_limit_left=10.0,
    )
    reviewed = copy.deepcopy(planned)
    transitions.apply_review(
        reviewed,
        copy.deepcopy(REVIEW),
        task_id="T1",
        base_sha="a" * 40,
        head_sha="c" * 40,
        fingerprint="f" * 40,
        review_path="/h/runs/x/review.json",
    )
    judged = copy.deepcopy(reviewed)
    transitions.apply_verdict(
        judged, copy.deepcopy(VERDICT), head_sha="d" * 40, fingerprint="e" * 40, verdict_path=None
    )
    stopped = copy.deepcopy(judged)
    transitions.apply_stop(stopped, "the user stopped it")
    return [idle, planned, reviewed, judged, stopped]


CORPUS = {
    "plan": [PLAN, {"summary": "", "tasks": []}],
    "review": [REVIEW, {"decision": "approve", "summary": "ok", "issues": []}],
    "verdict": [VERDICT, {**VERDICT, "decision": "done", "next_task_id": None, "criteria": []}],
}
ODD_VALUES = [None, True, False, 0, -1, 1, 1.0, 2.5, -0.5, 1e300, "", "x", "approve", "major", [], [1], {}, {"a": 1}]


def paths(value: object, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``value`` (the root included)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            found += paths(inner, (*prefix, n))
    return found


def mutate(doc: object, rng: random.Random) -> object:
    """``doc`` with one to three random changes."""
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths(doc))
        if not path:
            return copy.deepcopy(rng.choice(ODD_VALUES))
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        value = parent[last]
        roll = rng.random()
        if roll < 0.2 and isinstance(parent, dict):
            del parent[last]
        elif roll < 0.3 and isinstance(parent, list):
            parent.pop(last)
        elif roll < 0.4 and isinstance(value, dict):
            value[rng.choice(["extra", "id", "decision", "status", "x-note"])] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif roll < 0.5 and isinstance(value, list):
            value.append(copy.deepcopy(rng.choice([*value, *ODD_VALUES])))
        elif roll < 0.6 and isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[last] = rng.choice([-value, value - 1, float(value), 0, -1, 100, 101, 1e-9, -1e-9, True])
        else:
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
    return doc


def jsonschema_accepts(document: dict, instance: object) -> bool:
    return not any(jsonschema.Draft202012Validator(document).iter_errors(instance))


def cases() -> list[tuple[str, dict, list]]:
    out = [(name, json.loads((SCHEMAS / f"{name}.json").read_text()), docs) for name, docs in CORPUS.items()]
    return [*out, ("state", json.loads(Path(SCHEMA_PATH).read_text()), states())]


@pytest.mark.parametrize("name, document, valid", cases(), ids=lambda c: c if isinstance(c, str) else "")
def test_the_subset_accepts_exactly_what_jsonschema_accepts(name, document, valid):
    """Each schema's valid documents and 3,000 mutations of them get jsonschema's verdict (both kinds occur)."""
    compiled = schema.Schema(document)
    assert compiled.check is not None  # the whole schema is inside the subset: no document goes to jsonschema
    rng = random.Random(name)
    verdicts = set()
    for n in range(3000):
        instance = valid[n % len(valid)] if n < len(valid) else mutate(valid[n % len(valid)], rng)
        expected = jsonschema_accepts(document, instance)
        assert compiled.check(instance) is expected, (name, instance)
        verdicts.add(expected)
    assert verdicts == {True, False}


@pytest.mark.parametrize("name, document, valid", cases(), ids=lambda c: c if isinstance(c, str) else "")
def test_an_invalid_document_gets_jsonschemas_first_error(name, document, valid):
    """The message is jsonschema's first error by path, as the bridge always worded it."""
    compiled = schema.Schema(document)
    rng = random.Random(name + "words")
    for n in range(300):
        instance = mutate(valid[n % len(valid)], rng)
        errors = sorted(jsonschema.Draft202012Validator(document).iter_errors(instance), key=lambda e: list(e.path))
        expected = (
            (("/".join(str(p) for p in errors[0].path) or "(top level)") + ": " + errors[0].message) if errors else None
        )
        assert compiled.first_error(instance) == expected


@pytest.mark.parametrize(
    "document, instance, expected",
    [
        ({"type": "integer"}, 3.0, True),
        ({"type": "integer"}, True, False),
        ({"type": "number"}, False, False),
        ({"enum": [1]}, True, False),
        ({"enum": [0, None]}, False, False),
        ({"enum": [[1, "a"]]}, [1.0, "a"], True),
        ({"const": {"a": [True]}}, {"a": [1]}, False),
        ({"minimum": 0}, float("nan"), True),
        ({"exclusiveMinimum": 0}, 0, False),
        ({"maximum": 100}, 100.0, True),
        ({"minLength": 1}, "", False),
        ({"minLength": 1}, 5, True),
        ({"oneOf": [{"type": "integer"}, {"type": "number"}]}, 1, False),
        (
            {"properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "null"}},
            {"a": "x", "b": None},
            True,
        ),
        ({"items": False}, [], True),
        ({"$defs": {"n": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/n"}]}}, "$ref": "#/$defs/n"}, None, True),
    ],
)
def test_edge_cases_agree_with_jsonschema(document, instance, expected):
    """Booleans are not numbers, integral floats are integers, NaN passes bounds, and the like, as jsonschema says."""
    assert jsonschema_accepts(document, instance) is expected
    assert schema.Schema(document).check(instance) is expected


@pytest.mark.parametrize(
    "document, good, bad",
    [
        ({"pattern": "^x"}, "xy", "yx"),
        ({"uniqueItems": True}, [1, 2], [1, 1]),
        ({"prefixItems": [{"type": "string"}], "items": False}, ["a"], ["a", "b"]),
        ({"properties": {"a": {"type": "string", "maxLength": 1, "pattern": "b"}}}, {"a": "b"}, {"a": "c"}),
    ],
)
def test_a_schema_outside_the_subset_is_left_to_jsonschema(document, good, bad):
    """A keyword the subset does not check is never ignored: every document of that schema goes to jsonschema."""
    compiled = schema.Schema(document)
    assert compiled.check is None
    (error,) = jsonschema.Draft202012Validator(document).iter_errors(bad)
    assert compiled.first_error(good) is None
    assert compiled.first_error(bad) == ("/".join(map(str, error.path)) or "(top level)") + ": " + error.message


def test_a_valid_answer_and_state_are_checked_without_importing_jsonschema():
    """A review answer and a state that are valid cost no jsonschema import (60-100 ms)."""
    code = (
        "import sys; from autopilot.loop import schema_subset as schema\n"
        "from autopilot.loop.state import problem, new_state\n"
        f"ok = schema.load({str(SCHEMAS / 'review.json')!r}).first_error({REVIEW!r}) is None\n"
        "print(ok, problem(new_state('/w')), 'jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "True None False\n"
