"""What a provider bills for one call, so the scripted servers' usage is the usage a real run would see.

A provider bills every call for its whole prompt: the instructions, the tools, the output format and
the conversation so far (the items a client re-sends, or those a ``previous_response_id`` stands
for). So a conversation that keeps growing costs more with every call. Tokens here are characters
over :data:`CHARS_PER_TOKEN`, rounded up: near enough to a real tokenizer for English and code.

Prompt caching follows OpenAI's published rule: a prompt of at least :data:`CACHE_MIN_TOKENS` tokens
is cached in blocks of :data:`CACHE_BLOCK_TOKENS`; a later prompt whose leading blocks are the same
bytes bills those blocks as cached (``cached`` is part of ``input``, never more).
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autopilot.scripted.shapes import StatedUsage

CHARS_PER_TOKEN = 4
CACHE_MIN_TOKENS = 1024
CACHE_BLOCK_TOKENS = 128
# Fields that carry no text the model reads (identifiers, kinds, states).
_NOT_TEXT = frozenset({"id", "type", "status", "call_id", "role", "annotations", "phase"})


def tokens(chars: int) -> int:
    """The tokens ``chars`` characters bill as (rounded up)."""
    return -(-chars // CHARS_PER_TOKEN)


def item_text(item: Any) -> str:
    """The text of one conversation item (a message, a tool call, its output) that a model reads."""
    if isinstance(item, str):
        return item
    if isinstance(item, list):
        return "".join(item_text(part) for part in item)
    if isinstance(item, dict):
        return "".join(item_text(value) for key, value in item.items() if key not in _NOT_TEXT)
    return "" if item is None or isinstance(item, bool) else str(item)


def preamble(body: dict[str, Any]) -> str:
    """What a request puts before the conversation: its instructions, tools and output format."""
    parts = [str(body.get("instructions") or "")]
    if body.get("tools"):
        parts.append(json.dumps(body["tools"], sort_keys=True, separators=(",", ":")))
    fmt = (body.get("text") or {}).get("format")
    if fmt:
        parts.append(json.dumps(fmt, sort_keys=True, separators=(",", ":")))
    return "".join(parts)


def input_items(body: dict[str, Any]) -> list[tuple[str, str]]:
    """The (role, text) of each conversation item a request sends itself (a string input is one user message)."""
    raw = body.get("input")
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    return [
        (str(item.get("role") or item.get("type") or "") if isinstance(item, dict) else "user", item_text(item))
        for item in items
    ]


class PrefixCache:
    """The blocks of earlier prompts a provider keeps, and how much of a new prompt they cover."""

    def __init__(self) -> None:
        self._blocks: set[bytes] = set()
        self._lock = threading.Lock()

    def cached_tokens(self, prompt: str) -> int:
        """Tokens of ``prompt``'s leading blocks that an earlier prompt began with; then remembers this one."""
        if tokens(len(prompt)) < CACHE_MIN_TOKENS:
            return 0
        step = CACHE_BLOCK_TOKENS * CHARS_PER_TOKEN
        digest = hashlib.sha256()
        keys = []
        for start in range(0, len(prompt) - step + 1, step):
            # bytes of the characters [start, start + step): blocks are counted in characters
            digest.update(prompt[start : start + step].encode("utf-8", "surrogatepass"))
            keys.append(digest.copy().digest())
        with self._lock:
            hits = 0
            for key in keys:
                if key not in self._blocks:
                    break
                hits += 1
            self._blocks.update(keys)
        return hits * CACHE_BLOCK_TOKENS


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class Ledger:
    """Conversations kept by response id, and what each call billed (``bills``, in order)."""

    def __init__(self) -> None:
        self.cache = PrefixCache()
        self.bills: list[dict[str, int]] = []
        self._history: dict[str, list[str]] = {}
        self._seen: set[bytes] = set()  # every item sent or answered so far
        self._lock = threading.Lock()

    def conversation(self, body: dict[str, Any]) -> str:
        """The text of everything a request puts before the model: what ``previous_response_id`` stands for,
        then its own input (a scripted reviewer that only knows its conversation reads this)."""
        with self._lock:
            carried = list(self._history.get(str(body.get("previous_response_id") or ""), []))
        return "".join(carried + [text for _, text in input_items(body)])

    def bill(
        self, rid: str, body: dict[str, Any], output: list[dict[str, Any]], stated: StatedUsage | None = None
    ) -> dict[str, int]:
        """The usage of answering ``body`` with ``output`` as response ``rid`` (kept for its successors).

        ``history_tokens`` is what the call carried from earlier turns: the items a
        ``previous_response_id`` stands for, and the items it re-sends that an earlier call sent or
        answered (a client's fixed developer and system messages are its own prompt, not history).
        ``stated`` (a scripted step's own usage) replaces the counted tokens, the history still counted.
        """
        answer = [item_text(item) for item in output]
        sent = input_items(body)
        head = preamble(body)
        with self._lock:
            carried = list(self._history.get(str(body.get("previous_response_id") or ""), []))
            resent = sum(
                len(text) for role, text in sent if role not in ("developer", "system") and _key(text) in self._seen
            )
            self._seen.update(_key(text) for _, text in sent)
            self._seen.update(_key(text) for text in answer)
        conversation = carried + [text for _, text in sent]
        prompt = head + "".join(conversation)
        bill = {
            "input_tokens": tokens(len(prompt)),
            "cached_tokens": self.cache.cached_tokens(prompt),
            "output_tokens": tokens(sum(map(len, answer))),
            "history_tokens": tokens(sum(map(len, carried)) + resent),
        }
        if stated:
            bill.update(**stated)
        with self._lock:
            if body.get("store", True):
                self._history[rid] = conversation + answer
            self.bills.append(bill)
        return bill
