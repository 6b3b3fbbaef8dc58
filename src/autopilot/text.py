"""Text cut to a bound: the one home of clipping, and of the marks that say a cut was made.

Three ways, by what the reader needs to keep:

- :func:`clip` — the start (or, with ``tail``, the end) and ``…``: a prompt, a command, a command's
  output, a label; the result is exactly ``limit`` characters.
- :func:`clip_counted` — the start, and how many characters were cut: a message read whole (a hook's
  reason, a quoted claim), so the reader knows it is incomplete and by how much.
- :func:`clip_middle` — two thirds from the start, one from the end, and the count between:
  evidence whose end matters as much as its start (a tool's output ends with its result); its mark
  and which side keeps the odd character are the caller's (the handoff's evidence, the loop's prompts).

And whether a short run of letters and digits reads as generated or as a name people give
(:func:`reads_generated`), the one home of that call: the redactor withholds a vendor's token whose
body after an unknown prefix (``acme_``, ``tk-live-``) is 16-31 characters when it reads so
(:mod:`autopilot.redact.generic`), and the active memory keeps an edit's names only when none does
(:mod:`autopilot.handoff.memory.names`), so it never stores what a view would withhold.

On the hook hot path (the active memory's recorder clips prompts and outputs, and names an edit's
changes): standard library only, nothing imported.
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


MIDDLE_MARK = "\n…[{omitted} chars omitted]…\n"


def clip_middle(text: str, limit: int | None, mark: str = MIDDLE_MARK, *, end_rounds_up: bool = False) -> str:
    """``text`` cut to about ``limit`` characters, two thirds from its start and one from its end (None: whole).

    ``mark`` goes between them (``{omitted}``: how many characters were left out, ``{total}``: the text's length);
    with ``end_rounds_up`` the end keeps the character a limit that three does not divide leaves over.
    """
    if limit is None or len(text) <= limit:
        return text
    head_n, tail_n = middle_split(limit, end_rounds_up=end_rounds_up)
    tail = text[len(text) - tail_n :] if tail_n else ""
    return middle_join(text[:head_n], len(text) - head_n - tail_n, tail, mark)


def middle_split(limit: int, *, end_rounds_up: bool = False) -> tuple[int, int]:
    """How many characters :func:`clip_middle` keeps from the start and from the end of a longer text."""
    head = limit * 2 // 3 if end_rounds_up else (limit * 2 + 2) // 3
    return head, limit - head


def middle_join(head: str, omitted: int, tail: str, mark: str = MIDDLE_MARK) -> str:
    """A start and an end with ``mark`` between them, counting what was left out (what :func:`clip_middle` makes)."""
    return head + mark.format(omitted=omitted, total=len(head) + omitted + len(tail)) + tail


_VOWELS = frozenset("aeiouAEIOU")


def word_parts(text: str) -> int:
    """How many words, acronyms and numbers ``text`` is made of (``GetItemInt64Borrow``: 5; ``HTTPServer``: 2)."""
    count = 1 if text else 0
    for i in range(1, len(text)):
        a, b = text[i - 1], text[i]
        if (
            a.isdigit() != b.isdigit()
            or (a.islower() and b.isupper())
            or (a.isupper() and b.isupper() and i + 1 < len(text) and text[i + 1].islower())
        ):
            count += 1
    return count


def reads_generated(body: str) -> bool:
    """Whether letters and digits read as generated, not as a name: both cases, half the characters different, and
    a new part (:func:`word_parts`) every 2.8 characters or sooner, or every 3.6 with under a quarter of the letters
    vowels.

    Of 650 bodies of 12-31 characters with both cases behind a prefix in the dependencies' sources, all names, none
    passes (the nearest: 3.0, and 4.3 with 23% vowels); of random base62 bodies of 16-31 characters, 98-99% do.
    """
    if not (any(c.isupper() for c in body) and any(c.islower() for c in body)) or len(set(body)) * 2 < len(body):
        return False
    if body.startswith(("kwDO", "kgDO")):  # GitHub's node ids: `PR_kwDOA5dJV85Yc5Ql`
        return False
    count = word_parts(body)
    if len(body) < 2.8 * count:
        return True
    letters = sum(c.isalpha() for c in body)
    return len(body) < 3.6 * count and sum(c in _VOWELS for c in body) * 4 < letters
