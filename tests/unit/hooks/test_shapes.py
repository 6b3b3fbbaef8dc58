"""The hook answers' types (hooks/shapes.py) are Claude Code's own contract, and the last guard covers every text.

The contract is read from the pinned ``claude`` binary itself: its hook output schema (zod, minified) is in
the executable's JavaScript, so a Claude Code update that adds, drops or renames a field fails here.
"""

from __future__ import annotations

import mmap
import re

import pytest

from autopilot.hooks import TEXT_CAP, capped
from autopilot.hooks.shapes import HookAnswer, HookSpecificOutput
from tests.support.agents import agent_bin

# The describe() text of the top-level `continue` field opens the hook output schema in every recent version.
OUTPUT_SCHEMA_MARK = b'"Whether Claude should continue after hook'
# The events whose answers this plugin (the autopilot and the active memory) gives context in.
CONTEXT_EVENTS = ("SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop")


def keys(shape: type) -> set[str]:
    """Every key a TypedDict declares, required or not."""
    return set(shape.__required_keys__) | set(shape.__optional_keys__)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def claude_js():
    """The pinned claude executable's bytes (its bundled JavaScript is in them), mapped, not read."""
    with open(agent_bin("claude").resolve(), "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        yield m


def object_keys(js: bytes, start: int) -> list[str]:
    """The keys of the JavaScript object literal whose ``{`` is at ``js[start]``, at its own depth only (nested
    objects, calls, arrays and quoted text are stepped over)."""
    found: list[str] = []
    depth, i, quote = 0, start, b""
    while i < len(js):
        c = js[i : i + 1]
        if quote:
            if c == b"\\":
                i += 1
            elif c == quote:
                quote = b""
        elif c in (b'"', b"'", b"`"):
            quote = c
        elif c in (b")", b"}", b"]"):
            depth -= 1
            if depth == 0:
                return found
        else:
            if c in (b"(", b"{", b"["):
                depth += 1
            if depth == 1 and c in (b"{", b","):  # a key follows the object's own brace or comma
                key = re.match(rb"[A-Za-z_$][\w$]*(?=:)", js[i + 1 : i + 80])
                if key:
                    found.append(key.group().decode())
        i += 1
    raise AssertionError("the object literal never closes")


def output_schema_keys(js: mmap.mmap) -> set[str]:
    """The top-level fields of the binary's hook output schema."""
    mark = js.find(OUTPUT_SCHEMA_MARK)
    assert mark > 0, "the hook output schema was not found in the claude binary"
    start = js.rfind(b"{", 0, mark)
    return set(object_keys(js[start : start + 20_000], 0))


def event_schema_keys(js: mmap.mmap, event: str) -> set[str]:
    """The fields of the binary's hookSpecificOutput schema for ``event``."""
    found = re.search(rb'\{hookEventName:[\w$]+\("' + event.encode() + rb'"\)', js)
    assert found, f"no hookSpecificOutput schema for {event} in the claude binary"
    return set(object_keys(js[found.start() : found.start() + 20_000], 0))


def test_the_answer_declares_exactly_the_fields_of_claude_codes_output_schema(claude_js):
    """HookAnswer's fields are the pinned claude's hook output fields, no more, no fewer."""
    assert keys(HookAnswer) == output_schema_keys(claude_js)


@pytest.mark.parametrize("event", CONTEXT_EVENTS)
def test_every_event_answered_with_context_takes_it(claude_js, event):
    """Each event the hooks give context in declares every field HookSpecificOutput has (hookEventName and
    additionalContext) in the pinned claude's schema for that event."""
    assert keys(HookSpecificOutput) <= event_schema_keys(claude_js, event)


def test_the_key_reader_reads_only_its_own_level():
    """The reader of object literals skips nested objects and quoted text: it can tell a planted field apart."""
    js = b'x={a:u({b:1}),c:r().describe("d:{e:1},f:\\",k:"),g:[{h:2}],m:"n,o:p"};'
    assert object_keys(js, js.index(b"{")) == ["a", "c", "g", "m"]


def test_capped_cleans_and_cuts_every_text_field():
    """Every text field of the contract comes out printable and under the cap; terminalSequence is left as it is
    (it is meant to be an escape sequence)."""
    long = "\x1b[31mred\x07" + "x" * (TEXT_CAP * 2)
    text_fields = [name for name, kind in HookAnswer.__annotations__.items() if kind is str]
    answer = {name: long for name in text_fields}
    answer["hookSpecificOutput"] = {"hookEventName": "Stop", "additionalContext": long}
    out = capped(answer)  # type: ignore[arg-type]
    texts = {name: out[name] for name in text_fields if name != "terminalSequence"}  # type: ignore[literal-required]
    texts["additionalContext"] = out["hookSpecificOutput"]["additionalContext"]
    assert set(texts) == {"systemMessage", "reason", "stopReason", "additionalContext"}
    assert all(len(t) <= TEXT_CAP and "\x1b" not in t and "\x07" not in t for t in texts.values())
    assert out["terminalSequence"] == long
