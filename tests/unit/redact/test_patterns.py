"""Patterns declared with redact.patterns.lazy compile on first use, and then behave as re.compile's."""

from __future__ import annotations

import re
import subprocess
import sys

from autopilot.redact.patterns import lazy


def test_a_lazy_pattern_matches_as_the_compiled_one_does():
    """search, sub, findall, fullmatch, the pattern text and the flags are those of re.compile's pattern."""
    source, flags = r"(?P<word>t[a-z]+)", re.IGNORECASE
    ours, theirs = lazy(source, flags), re.compile(source, flags)
    text = "Token and TEXT, then tail"
    assert ours.pattern == theirs.pattern and ours.flags == theirs.flags and ours.groups == theirs.groups
    assert ours.findall(text) == theirs.findall(text)
    assert ours.sub("<\\g<word>>", text) == theirs.sub("<\\g<word>>", text)
    assert ours.search(text).span() == theirs.search(text).span()  # type: ignore[union-attr]
    assert (ours.fullmatch("tail") is None) == (theirs.fullmatch("tail") is None)


def test_a_bytes_pattern_is_lazy_too():
    """A bytes pattern compiles on first use and matches bytes."""
    assert lazy(rb'"uuid":"([^"]+)"').findall(b'{"uuid":"a1","x":{"uuid":"b2"}}') == [b"a1", b"b2"]


def test_importing_the_redactor_and_the_readers_compiles_no_pattern():
    """The ~150 module-level patterns of the redactor and the transcript readers cost nothing until used;
    redacting plain prose compiles only the few its hints call for."""
    code = """
import sys
from autopilot.redact import patterns, redact
import autopilot.redact.tokens, autopilot.redact.named, autopilot.redact.shell, autopilot.redact.keys
import autopilot.handoff.transcripts.claude_intake, autopilot.handoff.transcripts.codex_intake
def lazies():
    for name, module in list(sys.modules.items()):
        if name.startswith("autopilot."):
            yield from (v for v in vars(module).values() if isinstance(v, patterns._Lazy))
            for rules in (v for v in vars(module).values() if isinstance(v, (list, tuple))):
                found = (getattr(r, "pattern", None) for r in rules)
                yield from (p for p in found if isinstance(p, patterns._Lazy))
def compiled():
    return sum("_compiled" in p.__dict__ for p in set(lazies()))
before = compiled()
redact("The build passed and the docs now describe the new flag.")
print(len(set(lazies())), before, compiled())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    declared, at_import, after_prose = map(int, out)
    assert declared > 100 and at_import == 0 and after_prose < 20, out
