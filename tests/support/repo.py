"""Where the tests find the checkout: one constant each, so no test counts its own file's parents.

A test file's depth changes when it moves to mirror the package (tests/unit/loop/test_state.py); these do not.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "src"
PACKAGE = SRC / "autopilot"
TESTS = REPO / "tests"
FIXTURES = TESTS / "fixtures"
