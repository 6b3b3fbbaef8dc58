"""The redactor without ``re``: a process whose patterns are all kept builds them with ``_sre`` alone and never loads
``re`` (enum, functools and the parser: ~8 ms of a prompt hook), and redacts exactly as the redactor compiled by
``re`` does, over the whole secret corpus and ordinary prompts. A kept program that matches otherwise is caught by
the comparison (a planted one), and a damaged file costs a compile, never a different answer."""

from __future__ import annotations

import json
import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.measured import unmeasured
from tests.support.repo import FIXTURES
from tests.support.secret_corpus import placed_in, shapes

# A process that redacts every text of a file: "full" compiles every pattern with re and keeps none; "keep PATH"
# compiles what is missing from PATH and writes it back; "kept PATH" uses PATH. It prints the redacted texts and
# their counts, whether re (or enum) was loaded, and whether it compiled a pattern the file lacked.
# Texts and answers travel as marshal data: the json package imports re.
WORKER = """
import marshal, sys
from autopilot import patterns
mode, texts = sys.argv[1], marshal.loads(open(sys.argv[2], "rb").read())
patterns.keep_compiled(None if mode == "full" else sys.argv[3])
if mode == "full":
    import re
from autopilot.redact import redact
out, first = [], None  # first: the text after which re was loaded
for n, text in enumerate(texts):
    done, counts = redact(text)
    out.append([done, dict(counts)])
    if first is None and "re" in sys.modules:
        first = n
added = patterns.compiled_cache()
if mode == "keep" and added is not None:
    open(sys.argv[3], "wb").write(added)
loaded = [m for m in ("re", "enum", "re._parser", "sre_parse") if m in sys.modules]  # sre_parse before 3.11
sys.stdout.buffer.write(marshal.dumps({"out": out, "loaded": loaded, "added": added is not None, "first": first}))
"""

ORDINARY = [
    "hi",
    "add a --json flag to the status command and update the docs",
    "the build passed; now fix the flaky test in tests/unit/test_clock.py",
    "why does `git push` say the token is invalid? I rotated it yesterday",
    "rename the password field in the signup form to passphrase",
    "Can you review src/auth/session.py? The key rotation logic looks off to me.",
    "run pytest -q -k secret and tell me what failed",
    "use the API key from the environment, never hard-code it",
    "bump version to 2.4.1 and tag v2.4.1",
    "the commit 3f2a9c1b7e4d5a6f8b9c0d1e2f3a4b5c6d7e8f90 broke the login page",
    "see https://example.com/docs/tokens?page=2#rotation for how tokens expire",
    "export DEBUG=1 && npm test -- --coverage",
]


def fixture_prompts() -> list[str]:
    """What people typed in the real clients' recorded sessions (the fixtures' user messages)."""
    found: list[str] = []
    for path in sorted((FIXTURES / "claude").rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            content = (row.get("message") or {}).get("content") if row.get("type") == "user" else None
            if isinstance(content, str) and content not in found:
                found.append(content)
    return found


@pytest.fixture(scope="module")
def texts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = shapes()
    every = [s.text for s in corpus] + [placed_in(s) for s in corpus]
    every += [f"here is what I found:\n{s.text}" for s in corpus] + [s.token for s in corpus if s.token]
    every += ORDINARY + fixture_prompts()
    # A line with an HTML character reference is decoded by html.unescape, which imports re: those texts go last.
    every.sort(key=lambda text: "&" in text)
    path = tmp_path_factory.mktemp("texts") / "texts.marshal"
    path.write_bytes(marshal.dumps(every))
    return path


def run(mode: str, texts: Path, kept: Path | None = None) -> dict[str, object]:
    argv = [sys.executable, "-I", "-c", WORKER, mode, str(texts)] + ([str(kept)] if kept else [])
    done = subprocess.run(argv, capture_output=True, check=True, timeout=600, env=unmeasured())
    return marshal.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def full(texts: Path) -> dict[str, object]:
    """The redactor as re compiles it."""
    return run("full", texts)


@pytest.fixture(scope="module")
def kept(texts: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kept file holding every program the texts wake (the way a hook or an intake leaves it)."""
    path = tmp_path_factory.mktemp("kept") / "regex.marshal"
    run("keep", texts, path)
    return path


def test_the_texts_are_the_corpus_and_ordinary_prompts(texts: Path, full: dict[str, object]) -> None:
    every = marshal.loads(texts.read_bytes())
    assert len(every) > 1200 and len(fixture_prompts()) >= 5
    out = full["out"]
    assert isinstance(out, list) and sum(bool(counts) for _, counts in out) > 1000  # the corpus is redacted
    assert full["loaded"] == ["re", "enum", "re._parser" if sys.version_info >= (3, 11) else "sre_parse"]


def test_without_re_the_redactor_gives_exactly_the_full_redactors_output(
    texts: Path, full: dict[str, object], kept: Path
) -> None:
    """Every text, its redaction and its counts by kind: identical; and the process loaded re only for the first
    text holding an HTML character reference (html.unescape imports it), after every other text was redacted."""
    without = run("kept", texts, kept)
    assert without["added"] is False and without["out"] == full["out"]
    every = marshal.loads(texts.read_bytes())
    first = without["first"]
    without_ampersand = sum("&" not in text for text in every)  # sorted first
    assert isinstance(first, int) and first >= without_ampersand > 1000 and "&#" in every[first]


def rewrite(path: Path, change) -> None:  # type: ignore[no-untyped-def]
    """The kept file with its entries changed by ``change`` (a program's key -> the program as stored)."""
    tag, entries = marshal.loads(path.read_bytes())
    change(entries)
    path.write_bytes(marshal.dumps((tag, entries)))


def openai_key(entries: dict[tuple[str, int], bytes]) -> tuple[str, int]:
    """The key of the OpenAI key pattern's program."""
    return next(k for k in entries if isinstance(k[0], str) and k[0].startswith("sk\\-"))


def test_a_planted_divergence_is_caught(texts: Path, full: dict[str, object], kept: Path, tmp_path: Path) -> None:
    """A kept program that matches nothing where the OpenAI key's pattern stands (tag and CRC right): the comparison
    above would fail, the key shapes going through as they are."""
    planted = tmp_path / "regex.marshal"
    planted.write_bytes(kept.read_bytes())
    import re

    from autopilot import patterns

    never = patterns.program("(?!)", 0, re.compile("(?!)"))
    assert never is not None

    def swap(entries: dict[tuple[str, int], bytes]) -> None:
        key = openai_key(entries)
        flags = marshal.loads(entries[key][:-4])[0]
        entries[key] = patterns.stored_program((flags, *never[1:]))  # its CRC right: a program as a bug would keep

    rewrite(planted, swap)
    diverged = run("kept", texts, planted)
    assert diverged["added"] is False and diverged["out"] != full["out"]
    differ = [a[0] for a, b in zip(diverged["out"], full["out"], strict=True) if a != b]  # type: ignore[call-overload]
    assert any("sk-proj-" in text for text in differ)


def flip_a_byte(entries: dict[tuple[str, int], bytes]) -> None:
    """One bit changed in the middle of the OpenAI key pattern's program: _sre might run it, its CRC says no."""
    key = openai_key(entries)
    stored = bytearray(entries[key])
    stored[len(stored) // 2] ^= 0x01
    entries[key] = bytes(stored)


@pytest.mark.parametrize("damage", ["a flipped byte", "cut short", "another interpreter's tag"])
def test_a_damaged_kept_file_changes_no_answer(
    texts: Path, full: dict[str, object], kept: Path, tmp_path: Path, damage: str
) -> None:
    """A program whose bytes changed (its CRC no longer matches), a file cut short or another interpreter's: the
    patterns are compiled by re again, and the answers are the full redactor's."""
    path = tmp_path / "regex.marshal"
    data = kept.read_bytes()
    path.write_bytes(data[: len(data) // 3] if damage == "cut short" else data)
    if damage == "a flipped byte":
        rewrite(path, flip_a_byte)
    elif damage == "another interpreter's tag":
        path.write_bytes(marshal.dumps(((0, "another python"), marshal.loads(data)[1])))
    again = run("kept", texts, path)
    assert again["out"] == full["out"] and "re" in again["loaded"] and again["added"] is True
