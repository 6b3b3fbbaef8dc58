"""Text cut to a bound: the one home of clipping, and of the marks that say a cut was made.

Three ways, by what the reader needs to keep:

- :func:`clip` — the start (or, with ``tail``, the end) and ``…``: a prompt, a command, a command's
  output, a label; the result is exactly ``limit`` characters.
- :func:`clip_counted` — the start, and how many characters were cut: a message read whole (a hook's
  reason, a quoted claim), so the reader knows it is incomplete and by how much.
- :func:`clip_middle` — two thirds from the start, one from the end, and the count between:
  evidence whose end matters as much as its start (a tool's output ends with its result).

On the hook hot path (the active memory's recorder clips prompts and outputs): standard library
only, nothing imported.
"""

from __future__ import annotations

ELLIPSIS = "…"
CUT_ROOM = 40  # what clip_counted keeps free for its mark


def clip(text: str, limit: int, *, tail: bool = False) -> str:
    """``text`` cut to ``limit`` characters with ``…`` where it was cut (its end kept when ``tail``)."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - 1)
    return ELLIPSIS + text[len(text) - keep :] if tail else text[:keep] + ELLIPSIS


def clip_value(value: object, limit: int, *, tail: bool = False) -> str | None:
    """:func:`clip` for a value that may be anything (a hook input's field): None when it is no string."""
    return clip(value, limit, tail=tail) if isinstance(value, str) else None


def clip_counted(text: str, limit: int, mark: str = " […{cut:,} characters cut]", *, room: int = CUT_ROOM) -> str:
    """``text`` cut to its first ``limit - room`` characters and ``mark`` (``{cut}``: how many went)."""
    if len(text) <= limit:
        return text
    return text[: max(0, limit - room)] + mark.format(cut=len(text) - limit + room)


def clip_middle(text: str, limit: int | None) -> str:
    """``text`` cut to about ``limit`` characters, two thirds from its start and one from its end (None: whole)."""
    if limit is None or len(text) <= limit:
        return text
    head_n, tail_n = middle_split(limit)
    return middle_join(text[:head_n], len(text) - head_n - tail_n, text[len(text) - tail_n :] if tail_n else "")


def middle_split(limit: int) -> tuple[int, int]:
    """How many characters :func:`clip_middle` keeps from the start and from the end of a longer text."""
    head = (limit * 2 + 2) // 3
    return head, limit - head


def middle_join(head: str, omitted: int, tail: str) -> str:
    """A start and an end with the count of what was left out between them (the mark :func:`clip_middle` makes)."""
    return f"{head}\n…[{omitted} chars omitted]…\n{tail}"
