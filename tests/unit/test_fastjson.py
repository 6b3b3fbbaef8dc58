"""A JSONL line read without orjson reads exactly as orjson reads it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from autopilot.fastjson import parse_json_line

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


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
