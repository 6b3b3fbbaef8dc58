"""A JSONL line read without orjson reads exactly as orjson reads it."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import orjson
import pytest

from autopilot.fastjson import parse_json_line, pretty
from tests.support.repo import FIXTURES


def orjson_reading(raw: bytes) -> tuple[str, object]:
    try:
        return "ok", orjson.loads(raw)
    except orjson.JSONDecodeError:
        return "refused", None


def our_reading(raw: bytes) -> tuple[str, object]:
    try:
        return "ok", parse_json_line(raw)
    except ValueError:
        return "refused", None


def test_every_line_the_real_clients_wrote_reads_as_orjson_reads_it():
    """Each line of every Claude transcript and Codex rollout fixture gives orjson's value, or its refusal."""
    lines = [line for path in FIXTURES.rglob("*.jsonl") for line in path.read_bytes().splitlines()]
    assert len(lines) > 1000
    assert [our_reading(line) for line in lines] == [orjson_reading(line) for line in lines]


@pytest.mark.parametrize(
    "raw",
    [
        b'"\\ud800"',
        b'{"a":"\\uDC00 cut"}',
        b'"\\ud83d\\ude00"',
        b'"\\ud55c\\uae00"',
        b"1e400",
        b'{"a":-1e999}',
        b"NaN",
        b'{"a":Infinity}',
        b"[1,]",
        b'{"a":1,"a":2}',
        b'"\xff"',
        b'"a\tb"',
        b' {"a":1}\r',
        b'\x0c{"a":1}',
        b'\xc2\xa0{"a":1}',
        b'\xef\xbb\xbf{"a":1}',
        b"[" * 1100 + b"]" * 1100,
        b"",
        b'{"a":1} x',
        b'{"x":1.0e308,"y":-0,"z":"\\u0000"}',
    ],
)
def test_lines_where_the_two_parsers_could_differ_read_as_orjson_reads_them(raw):
    """NaN, huge numbers, lone surrogates, odd whitespace, deep nesting: orjson's verdict stands."""
    assert our_reading(raw) == orjson_reading(raw)


def test_an_ordinary_line_is_read_without_importing_orjson():
    """Reading a plain line loads no orjson (it costs ~15 ms of a process that answers in 30)."""
    code = 'from autopilot.fastjson import parse_json_line as p; p(b\'{"a": [1, 2.5, "x"]}\'); import sys; '
    code += "print('orjson' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"


def test_a_truncated_line_in_a_fresh_process_is_refused_not_a_crash():
    """Where json.decoder was never imported, an unterminated string or container is a ValueError as orjson says,
    not the SystemError the C scanner raises then (a crash-truncated row in an append made the intake exit 70)."""
    code = (
        "import sys; from autopilot.fastjson import parse_json_line as p\n"
        "for raw in (b'{\"timestamp\": \"broken', b'{\"a\": 1', b'[1, 2'):\n"
        "    try: p(raw)\n"
        "    except ValueError: print('refused')\n"
        "print(p(b'{\"a\": 1}'))"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "refused\nrefused\nrefused\n{'a': 1}\n"


def _random_value(rng: random.Random, depth: int = 0) -> object:
    kinds = ["str", "int", "float", "bool", "none"] + (["list", "dict", "tuple"] * 2 if depth < 4 else [])
    kind = rng.choice(kinds)
    if kind == "str":
        return "".join(rng.choice('ab "\\\n\t\x00\x1b\u2028é日😀\ud800') for _ in range(rng.randint(0, 6)))
    if kind == "int":
        return rng.choice([0, -1, 7, 2**70, -(2**64), True, False])
    if kind == "float":
        return rng.choice([0.0, -0.0, 1.5, 1e300, 1e-300, float("nan"), float("inf"), float("-inf"), 0.1 + 0.2])
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "none":
        return None
    items = [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    keys = ["k", "", "é", 'q"', 1, 2.5, True, False, None, float("nan")]
    return {rng.choice(keys): v for v in items}


def test_pretty_writes_what_json_dumps_with_indent_writes():
    """Over 3,000 random documents (escapes, astral and lone surrogate text, big ints, NaN, tuples, odd keys)."""
    rng = random.Random(5)
    for _ in range(3000):
        value = _random_value(rng)
        assert pretty(value) == json.dumps(value, indent=2)


def test_pretty_refuses_what_json_refuses():
    """A value or key json cannot write raises the same TypeError."""
    for bad in ({"a": {1, 2}}, {(1, 2): "x"}, [object()]):
        with pytest.raises(TypeError) as theirs:
            json.dumps(bad, indent=2)
        with pytest.raises(TypeError) as ours:
            pretty(bad)
        assert str(ours.value) == str(theirs.value)


def test_every_fixture_intake_prints_as_json_dumps_prints_it():
    """The intake answers of every real Claude transcript and Codex rollout print byte for byte alike."""
    from autopilot.handoff.transcripts.claude_intake import intake as claude
    from autopilot.handoff.transcripts.codex_intake import intake as codex

    answers = [claude(p, limit=500) for p in (FIXTURES / "claude").rglob("*.jsonl") if "subagents" not in p.parts]
    answers += [codex(p, limit=500) for p in (FIXTURES / "codex").glob("*.jsonl")]
    assert len(answers) > 20
    for answer in answers:
        assert pretty(answer) == json.dumps(answer, indent=2)
