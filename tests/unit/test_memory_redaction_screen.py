"""The recorder's screen: the redactor loads only for texts that may hold a credential, and misses none it would change.

``observe.needs_redaction`` decides, without a regular expression, whether a kept text (a prompt, a
command, a test's output, a path) must go through the redactor. False must mean the redactor would
leave the text as it is: checked on every shape of the corpus and on chunks of the installed
dependencies' sources, cut as the recorder cuts outputs.
"""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

import pytest

from autopilot.handoff.memory import observe
from autopilot.redact import redact
from tests.support.secret_corpus import annotated_key, placed_in, shapes

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


def bare_and_short_tokens(rng: random.Random) -> list[str]:
    """Tokens of the classes found with no prefix or a short body: annotated keys, 52-character base32 PATs, ngrok
    authtokens in both forms, unknown prefixes with bodies of 16-31 characters (any mix of cases and digits)."""
    base62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    def draw(n: int, alphabet: str = base62) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    return [
        annotated_key(rng.choice(["AZDO", "ACOG"])),
        draw(52, "abcdefghijklmnopqrstuvwxyz234567"),
        f"{rng.choice('0123')}{draw(26)}_{rng.choice('123456789')}{draw(20)}",
        f"{draw(21)}_{rng.choice('123456789')}{draw(20)}",
        rng.choice(["zq_", "acme-", "vx-"]) + draw(rng.randint(16, 31), rng.choice([base62, base62[:52]])),
    ]


def test_every_bare_or_short_token_the_redactor_withholds_passes_the_screen():
    """Of 200 tokens of each bare or short-bodied class, in prose, JSON, an assignment and a URL, none that the
    redactor changes is screened out (Claude Code's hooks and Codex's record with the same screen)."""
    rng = random.Random(2112)
    changed = 0
    for _ in range(200):
        for token in bare_and_short_tokens(rng):
            for text in (f"use {token} now", f'{{"v": "{token}"}}', f"X={token}", f"https://h/{token}@x", token):
                if redact(text)[0] != text:
                    changed += 1
                    assert observe.needs_redaction(text), text
    assert changed > 4000
