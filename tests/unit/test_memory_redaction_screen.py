"""The recorder's screen: the redactor loads only for texts that may hold a credential, and misses none it would change.

``observe.needs_redaction`` decides, without a regular expression, whether a kept text (a prompt, a
command, a test's output, a path) must go through the redactor. False must mean the redactor would
leave the text as it is: checked on every shape of the corpus and on chunks of the installed
dependencies' sources, cut as the recorder cuts outputs.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from autopilot.memory import observe
from autopilot.redact import redact
from tests.support.secret_corpus import placed_in, shapes
from tests.unit.test_twins import MEMORY_HOOK, load

ORDINARY = ["add a --json flag to export", "3 passed in 0.12s", "/w/src/export.py", "pytest -q", "npm test"]


def chunks() -> list[str]:
    """Every 15th source file of site-packages, cut into the recorder's 1,500-character pieces."""
    site = Path(sysconfig.get_paths()["purelib"])
    files = sorted(site.rglob("*.py"))[::15]
    out = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        out += [text[i : i + observe.OUTPUT_CHARS] for i in range(0, len(text), observe.OUTPUT_CHARS)]
    return out


def test_every_corpus_shape_passes_the_screen():
    """Each credential shape, alone, placed in a file, or as a token, is sent to the redactor."""
    for shape in shapes():
        for text in (shape.text, placed_in(shape), *([shape.token] if shape.token else [])):
            assert observe.needs_redaction(text), shape.name


def test_the_screen_misses_nothing_the_redactor_would_change():
    """Over thousands of pieces of ordinary code, every piece the redactor changes was let through by the screen."""
    pieces = chunks()
    missed = [p[:200] for p in pieces if not observe.needs_redaction(p) and redact(p)[0] != p]
    assert len(pieces) > 1000 and missed == []


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_hook_texts_skip_the_redactor(text):
    """What most prompts, paths and test runs look like costs no redactor load."""
    assert not observe.needs_redaction(text)


def test_the_codex_hook_screens_as_the_bridge_does():
    """The stand-alone script's twin gives the same answer on the corpus and on ordinary text."""
    hook = load(MEMORY_HOOK)
    for text in [*ORDINARY, *(s.text for s in shapes())]:
        assert hook.needs_redaction(text) is observe.needs_redaction(text)
