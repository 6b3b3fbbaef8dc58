"""The error vocabulary is data: well formed, and it maps each kind of error people name to their words."""

from __future__ import annotations

import pytest

from autopilot.handoff.search import terms
from autopilot.handoff.search.vocabulary import PHRASES


def test_every_entry_is_a_printed_error_and_plain_words():
    """Keys are non-empty text as tools print it; values are lowercase words only, never the key repeated."""
    for key, said in PHRASES.items():
        assert key.strip() == key and key, key
        assert said and said == said.lower() and all(w.isalnum() or w == "utf8" for w in said.split()), key


@pytest.mark.parametrize(
    ("printed", "said"),
    [
        ("ZeroDivisionError: division by zero", "divide by zero"),
        ("KeyError: 'JPY'", "missing key"),
        ("ValueError: invalid literal for int() with base 10: 'x'", "not a number"),
        ("AttributeError: 'NoneType' object has no attribute 'get'", "none"),
        ("TypeError: f() missing 1 required positional argument: 'x'", "missing argument"),
        ("IndexError: list index out of range", "out of range"),
        ("subprocess.TimeoutExpired: Command 'x' timed out after 5 seconds", "hung"),
        ("PermissionError: [Errno 13] Permission denied: '/etc/x'", "permission denied"),
        ("TypeError: Cannot read properties of undefined (reading 'toFixed')", "undefined"),
        ("panic: runtime error: invalid memory address or nil pointer dereference", "null"),
        ("sqlite3.OperationalError: database is locked", "locked"),
        ("RecursionError: maximum recursion depth exceeded", "infinite recursion"),
    ],
)
def test_an_error_as_printed_is_found_by_what_people_call_it(printed, said):
    """Each error's printed form brings the words a person would use for it."""
    held = set(terms.index_terms(printed).split())
    assert {terms.term(w) for w in said.split()} <= held
