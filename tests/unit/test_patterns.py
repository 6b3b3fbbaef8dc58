"""Patterns declared with autopilot.patterns.lazy compile on first use, and then behave as re.compile's; compiled
programs kept between processes (keep_compiled) are re.compile's patterns, and a cache of another interpreter, a
damaged file or a refused entry costs a compile, never a wrong pattern."""

from __future__ import annotations

import importlib
import marshal
import pkgutil
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import autopilot
from autopilot import patterns
from autopilot.patterns import lazy


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
from autopilot import patterns
from autopilot.redact import redact
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


# ---- compiled programs kept between processes ----------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_cache_left() -> Iterator[None]:
    """Each test starts without a kept cache and leaves none to the next (the module's state is per process)."""
    yield
    patterns._Cache.path, patterns._Cache.entries, patterns._Cache.added = None, None, False


def declared() -> set[tuple[str | bytes, int]]:
    """Every pattern the package declares with ``lazy`` (each module imported): its source and flags."""
    for info in pkgutil.walk_packages(autopilot.__path__, "autopilot."):
        if not info.name.endswith("__main__"):  # __main__ runs the CLI
            importlib.import_module(info.name)
    found: set[tuple[str | bytes, int]] = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("autopilot."):
            continue
        values = list(vars(module).values())
        for value in values:
            if isinstance(value, (list, tuple)):
                values += [getattr(v, "pattern", None) for v in value]
        found |= {(v.pattern, int(v.flags_given)) for v in values if isinstance(v, patterns._Lazy)}
    return found


def write(path: Path) -> None:
    data = patterns.compiled_cache()
    assert data is not None
    path.write_bytes(data)


def test_every_declared_pattern_comes_back_from_the_cache_as_re_compiles_it(tmp_path: Path) -> None:
    """All ~280 of the package's patterns, compiled once and kept, then read back in a fresh start: each equals
    re.compile's (Pattern equality compares the source, the flags and the program) and matches as it does."""
    cache = tmp_path / "regex.marshal"
    sources = declared()
    assert len(sources) > 200
    patterns.keep_compiled(str(cache))
    for source, flags in sources:
        patterns.compile_pattern(source, flags)
    write(cache)
    patterns.keep_compiled(str(cache))
    for source, flags in sources:
        kept = patterns.compile_pattern(source, flags)
        assert kept == re.compile(source, flags), source
    assert patterns._Cache.entries is not None and len(patterns._Cache.entries) == len(sources)
    assert patterns.compiled_cache() is None  # nothing new: nothing to write back
    text = "password=hunter2 ghp_" + "a1B2" * 9 + " sk-ant-api03-" + "x" * 90 + " AKIAIOSFODNN7EXAMPLE"
    for source, flags in sources:
        if isinstance(source, str):
            kept, fresh = patterns.compile_pattern(source, flags), re.compile(source, flags)
            assert [m.span() for m in kept.finditer(text)] == [m.span() for m in fresh.finditer(text)], source


def test_a_kept_pattern_is_compiled_by_no_parser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the cache: a pattern it holds is built without re's Python compiler."""
    cache = tmp_path / "regex.marshal"
    source = r"(?P<name>[A-Z_]{3,40})\s*=\s*(?P<value>\S+)"
    patterns.keep_compiled(str(cache))
    first = patterns.compile_pattern(source, re.MULTILINE)
    write(cache)
    patterns.keep_compiled(str(cache))
    calls: list[object] = []
    compiler = re._compiler if sys.version_info >= (3, 11) else importlib.import_module("sre_compile")  # type: ignore[attr-defined]
    monkeypatch.setattr(compiler, "compile", lambda *a: calls.append(a))
    kept = patterns.compile_pattern(source, re.MULTILINE)
    assert calls == [] and kept == first and kept.groupindex == {"name": 1, "value": 2}
    assert kept.sub(r"\g<name>=[x]", "API_KEY = abc") == "API_KEY=[x]"


def test_lazy_patterns_use_the_cache(tmp_path: Path) -> None:
    """A lazy pattern's first use goes through the kept programs: a miss is added, then written back once."""
    cache = tmp_path / "regex.marshal"
    patterns.keep_compiled(str(cache))
    assert patterns.compiled_cache() is None  # nothing compiled, nothing read
    pattern = patterns.lazy(r"kept-\d+")
    assert pattern.search("a kept-42 b") is not None
    write(cache)
    assert patterns.compiled_cache() is None  # written: nothing new since
    _, entries = marshal.loads(cache.read_bytes())
    assert (r"kept-\d+", 0) in entries


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"not marshal at all",
        lambda data: data[: len(data) // 2],
        lambda data: marshal.dumps(((0, "another python"), marshal.loads(data)[1])),
        lambda data: marshal.dumps((marshal.loads(data)[0], ["not", "a", "dict"])),
    ],
    ids=["garbage", "cut short", "another interpreter", "wrong shape"],
)
def test_an_unusable_cache_file_costs_a_compile_and_is_replaced(tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "regex.marshal"
    patterns.keep_compiled(str(cache))
    patterns.compile_pattern(r"x+y", 0)
    write(cache)
    cache.write_bytes(damage(cache.read_bytes()))  # type: ignore[operator]
    patterns.keep_compiled(str(cache))
    assert patterns.compile_pattern(r"x+y", 0) == re.compile(r"x+y")
    write(cache)  # the miss was added: the file is this interpreter's again
    patterns.keep_compiled(str(cache))
    assert patterns.compile_pattern(r"x+y", 0) == re.compile(r"x+y") and patterns.compiled_cache() is None


def test_an_entry_the_engine_refuses_is_compiled_afresh(tmp_path: Path) -> None:
    """_sre validates a program: a broken one is dropped and the pattern compiled by re (and kept right)."""
    cache = tmp_path / "regex.marshal"
    patterns.keep_compiled(str(cache))
    patterns.compile_pattern(r"ab+c", 0)
    tag, entries = marshal.loads(patterns.compiled_cache() or b"")
    flags, _code, *rest = marshal.loads(entries[(r"ab+c", 0)][:-4])
    entries[(r"ab+c", 0)] = patterns.stored_program((flags, [999_999, 1, 2], *rest))  # its CRC right
    cache.write_bytes(marshal.dumps((tag, entries)))
    patterns.keep_compiled(str(cache))
    assert patterns.compile_pattern(r"ab+c", 0) == re.compile(r"ab+c")
    assert patterns.compiled_cache() is not None  # the right program replaces the refused one


def test_the_cache_holds_a_bounded_number_of_patterns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern built from data (one per call) cannot grow the file without bound: past the cap it is compiled, not
    kept."""
    monkeypatch.setattr(patterns, "CACHE_ENTRIES", 3)
    patterns.keep_compiled(str(tmp_path / "regex.marshal"))
    for n in range(10):
        assert patterns.compile_pattern(f"word{n}", 0).search(f"a word{n}")
    assert patterns._Cache.entries is not None and len(patterns._Cache.entries) == 3


def test_without_a_cache_nothing_is_read_or_kept(tmp_path: Path) -> None:
    patterns.keep_compiled(str(tmp_path / "regex.marshal"))
    patterns._Cache.path = None  # a process told to keep none
    assert patterns.compile_pattern(r"plain", 0) == re.compile(r"plain")
    assert patterns._Cache.entries is None and patterns.compiled_cache() is None


def test_the_flags_and_escape_are_res_own():
    """The flags and the escaping the redactor uses without importing re: the same numbers and the same text, so a
    pattern built with them is the one re would build, and its kept program is found."""
    assert (int(re.IGNORECASE), int(re.MULTILINE)) == (patterns.IGNORECASE, patterns.MULTILINE)
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert patterns.escape(every) == re.escape(every)


def test_a_process_keeps_its_programs_beside_the_bytecode_unless_told_otherwise(tmp_path: Path) -> None:
    """Without keep_compiled, a process reads and extends the file beside the package's bytecode, never the home."""
    code = "from autopilot import patterns as p; print(p.kept_in() == p.kept_path(), p.kept_path())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "True" and Path(out[1]).parent == Path(patterns.__file__).parent / "__pycache__"
    patterns.keep_compiled(None)
    assert patterns.kept_in() is None
