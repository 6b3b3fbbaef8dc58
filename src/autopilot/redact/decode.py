"""Evasions undone and encodings decoded, so a credential hidden by how it is written is judged as it is.

A zero-width character inside a token is dropped and a percent-encoded run that decodes to a known token is
withheld whole (:func:`undo_evasions`, before any rule runs); a chain of joined string literals whose joined text
holds a secret is withheld piece by piece (:func:`split_literals`); a base64, hex, ``\\u00XX`` or ``\\xXX`` run
whose decoded text holds one is withheld whole (:func:`encoded_secrets`, after every rule).
"""

from __future__ import annotations

from autopilot.patterns import lazy
from autopilot.redact import PLACEHOLDER, Counts
from autopilot.redact.rules import NUMBERED, Rule, apply

TYPE_CHECKING = False  # binascii and collections.abc load when first needed: a hook that redacts a prompt
if TYPE_CHECKING:  # pays for each module it imports (bench/bench_compare.py)
    import re
    from collections.abc import Callable

# Zero-width characters a token can hide behind: dropped when they sit between two token characters.
_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_HIDDEN = lazy(r"(?<=[\w\-+/=.])[\u200b\u200c\u200d\u2060\ufeff\u00ad]+(?=[\w\-+/=.])")
_PERCENT = lazy(r"%[0-9A-Fa-f]{2}")
_URL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/%")


def undo_evasions(text: str, counts: Counts, tokens: list[Rule]) -> str:
    """``text`` with zero-width characters inside tokens dropped and percent-encoded tokens withheld whole."""
    if any(c in text for c in _ZERO_WIDTH):
        text = _HIDDEN.sub("", text)
    if "%" not in text:
        return text

    parts: list[str] = []
    pos = 0
    while (found := _PERCENT.search(text, pos)) is not None:
        start, end = found.start(), found.end()
        while start > pos and text[start - 1] in _URL_CHARS:  # the run of URL characters around the escape
            start -= 1
        while end < len(text) and text[end] in _URL_CHARS:
            end += 1
        parts += [text[pos:start], _decoded(text[start:end], counts, tokens)]
        pos = end
    return "".join(parts) + text[pos:] if parts else text


def _decoded(run: str, counts: Counts, tokens: list[Rule]) -> str:
    """A percent-encoded run as it was, or redacted whole when its decoded text holds a known token."""
    if len(run) < 16:
        return run
    plain = _PERCENT.sub(lambda m: chr(int(m.group(0)[1:], 16)), run)  # tokens are ASCII; urllib costs ~3 ms
    found: Counts = Counts()
    lowered = plain.lower()
    out = plain
    for rule in tokens:
        out = apply(rule, out, lowered, found)
    if not found:
        return run
    counts.update(found)
    return out if "%" not in out else PLACEHOLDER.format(kind=next(iter(found)))


# -- secrets split across string literals, and secrets encoded ------------------------------------------------------

# Two or more string literals joined into one: by `+`, `.`, `..` or `||`, or adjacent (Python's and C's `"a" "b"`),
# on one line or across a line break (a line number or grep's prefix after it: a Read, `cat -n`, `grep -n`). A secret
# cut in pieces this way matches no pattern piece by piece.
_JOIN = r"[ \t]*(?:\+|\.\.?|\|\|)?[ \t]*(?:(?:\\{1,3}n|\\?\r?\n)" + NUMBERED + r"[ \t]*(?:\+|\.\.?|\|\|)?[ \t]*)?"
_QUOTE = r"(\\{0,3}[\"'])"  # JSON-escaped too: a transcript holds the source as a JSON string
_LITERALS = lazy(_QUOTE + r"[^\"'\\\n]{1,512}\1(?:" + _JOIN + r"\1[^\"'\\\n]{1,512}\1){1,16}")
_PIECE = lazy(_QUOTE + r"([^\"'\\\n]{1,512})\1")


def split_literals(text: str, counts: Counts, redact: Callable[[str, Counts], tuple[str, Counts]]) -> str:
    """``text`` with every chain of joined literals whose joined text holds a secret withheld piece by piece (only a
    chain where a run of 16 or more characters without a space crosses a join is judged: one secret, not a sentence)."""
    if "'" not in text and '"' not in text:
        return text

    def judge(match: re.Match[str]) -> str:
        chain = match.group(0)
        pieces = [p.group(2) for p in _PIECE.finditer(chain)]
        if len(pieces) < 2 or not any(_crosses(a, b) for a, b in zip(pieces, pieces[1:], strict=False)):
            return chain
        found: Counts = Counts()
        redact("".join(pieces), found)
        if not found:
            return chain
        kind = next(iter(found))
        counts[kind] += 1
        return _PIECE.sub(lambda p: p.group(1) + PLACEHOLDER.format(kind=kind) + p.group(1), chain)

    return _LITERALS.sub(judge, text)


def _crosses(left: str, right: str) -> bool:
    """Whether a run of 16 or more characters without white space spans the join of ``left`` and ``right``."""
    if left[-1:].isspace() or right[:1].isspace() or not left.strip() or not right.strip():
        return False
    return len(left.split()[-1]) + len(right.split()[0]) >= 16


# Runs that may be a secret encoded: base64 (standard or URL-safe) or hex of 24 characters or more, and `\u00XX` or
# `\xXX` escapes. Each is decoded; when that reads as text (printable ASCII) and the text holds something the
# redactor withholds, the whole run is withheld.
_ENCODED = lazy(r"[A-Za-z0-9+/_\-]{24,}={0,2}")
_ESCAPED = lazy(r"(?:\\(?:u00|x)[0-9a-fA-F]{2}){8,}")
_PRINTABLE = frozenset(range(0x20, 0x7F)) | {0x09, 0x0A, 0x0D}


def encoded_secrets(
    text: str,
    counts: Counts,
    redact: Callable[[str, Counts], tuple[str, Counts]],
    depth: int = 2,
) -> str:
    """``text`` with every encoded run whose decoded text holds a secret withheld whole (``redact`` judges it); a run
    encoded again (a Kubernetes secret's base64 of a base64 value) is decoded once more, ``depth`` times in all."""

    def judge(match: re.Match[str]) -> str:
        return _judge_run(match.group(0), counts, redact, depth)

    if "\\u00" in text or "\\x" in text:
        text = _ESCAPED.sub(judge, text)
    return _ENCODED.sub(judge, text)


def _judge_run(run: str, counts: Counts, redact: Callable[[str, Counts], tuple[str, Counts]], depth: int) -> str:
    """An encoded run, or its placeholder when its decoded text holds a secret (:func:`encoded_secrets`). Not a closure
    of it: a closure that calls itself is a reference cycle, left for the cycle collector on every string redacted."""
    plain = _decode(run)
    if plain is None:
        if "/" in run:  # folders before it (`names-new/<base64>`, `/w/<base64>`): each part alone
            return "/".join(
                _judge_run(part, counts, redact, depth) if len(part) >= 24 else part for part in run.split("/")
            )
        return run
    found: Counts = Counts()
    redact(plain, found)
    if not found and depth > 1:
        encoded_secrets(plain, found, redact, depth - 1)
    if not found:
        return run
    kind = "encoded_" + next(iter(found))
    counts[kind] += 1
    return PLACEHOLDER.format(kind=kind)


def _decode(run: str) -> str | None:
    """The text an encoded run stands for, or None when it is no encoding of printable text."""
    raw: bytes | None = None
    if run.startswith("\\"):
        raw = bytes(
            int(run[i + (4 if run[i + 1] == "u" else 2) : i + (6 if run[i + 1] == "u" else 4)], 16)
            for i in range(0, len(run), 6 if run[1] == "u" else 4)
        )
    elif len(run) % 2 == 0 and all(c in "0123456789abcdefABCDEF" for c in run):
        raw = bytes.fromhex(run)
    else:
        import binascii

        body = run.rstrip("=")
        try:
            raw = binascii.a2b_base64((body.replace("-", "+").replace("_", "/")) + "=" * (-len(body) % 4))
        except (binascii.Error, ValueError):
            return None
    if len(raw) < 12 or any(b not in _PRINTABLE for b in raw):
        return None
    return raw.decode("ascii")


# -- lines continued, and lines written in escapes ------------------------------------------------------------------

# A line continued on the next: a shell's backslash, or a value cut after its `=` (a base64 token's padding, an
# assignment whose value is on the next line). A line number or grep's prefix may open the next line.
_CONTINUED = lazy(
    # a backslash (escaped again in JSON) or `=`, a line break (or JSON's `\n`), what may open the next line (a line
    # number, grep's prefix, a diff marker), blanks, then what a value goes on with
    r"(?:\\{1,2}|=)[ \t]*(?:\r?\n|\\n)" + NUMBERED + r"[+\-]?[ \t]*(?=[A-Za-z0-9_\-+/=.~\"'])"
)
_LINE_BREAK = lazy(r"\r?\n")


def joined_lines(text: str, counts: Counts, redact: Callable[[str, Counts], tuple[str, Counts]]) -> str:
    """``text`` with each run of continued lines (a backslash or an ``=`` at the end, the rest on the next line) whose
    joined line, redacted, withholds more than its lines one by one replaced by that joined line, redacted (the tail of
    a token cut after its ``=``, a secret cut by a shell's line continuation)."""
    plain_breaks = "\\\n" in text or "=\n" in text or "\\\r\n" in text or "=\r\n" in text
    if not plain_breaks and "\\\\n" not in text and "=\\n" not in text:  # JSON's escaped forms: `\\\n`, `=\n`
        return text
    breaks = list(_CONTINUED.finditer(text))
    if not breaks:
        return text
    parts: list[str] = []
    pos = 0
    i = 0
    while i < len(breaks):
        j = i  # breaks i..j continue one logical line: each ends the line the next one continues
        while j + 1 < len(breaks) and "\n" not in text[breaks[j].end() : breaks[j + 1].start()]:
            j += 1
        start = text.rfind("\n", 0, breaks[i].start()) + 1
        end = text.find("\n", breaks[j].end())
        end = len(text) if end < 0 else end
        if start < pos:  # overlaps the group before (cannot: each group ends a line)
            i = j + 1
            continue
        group = text[start:end]
        joined = "".join(
            text[a:b]
            for a, b in zip(
                [start] + [m.end() for m in breaks[i : j + 1]],
                [m.start() + (1 if text[m.start()] == "=" else 0) for m in breaks[i : j + 1]] + [end],
                strict=True,
            )
        )
        alone = redact(group, Counts())[0]
        found: Counts = Counts()
        whole = redact(joined, found)[0]
        if found and _kept(whole) < _kept(alone):
            counts.update(found)
            parts += [text[pos:start], whole]
            pos = end
        i = j + 1
    return "".join(parts) + text[pos:] if parts else text


_PLACEHOLDERS = lazy(r"\[REDACTED:\w+\]")


def _kept(text: str) -> int:
    """How many letters and digits of ``text`` no placeholder stands for (joined lines withholding more win)."""
    return sum(c.isalnum() for c in _PLACEHOLDERS.sub("", text))


# Escapes a line can spell a secret in: JSON's `\uXXXX` (escaped again inside a JSON string too), `\xXX`, HTML's
# numeric and named entities, and URL percent-encoding.
_ESCAPES = lazy(
    r"\\{1,3}u[0-9a-fA-F]{4}|\\{1,3}x[0-9a-fA-F]{2}|&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6});|&[A-Za-z]{2,12};|%[0-9A-Fa-f]{2}"
)


def decoded_lines(text: str, counts: Counts, redact: Callable[[str, Counts], tuple[str, Counts]]) -> str:
    """``text`` with each line whose escapes, decoded, spell a secret (``ghp\\u005f…``, ``sk&#45;proj…``,
    ``password%3Dhunter2``) replaced by its decoded text, redacted. A line whose decoded text holds none stays as
    written; only lines with an escape are decoded."""
    if "\\" not in text and "&" not in text and "%" not in text:
        return text
    lines = text.split("\n")
    changed = False
    for n, line in enumerate(lines):
        if ("\\" not in line and "&" not in line and "%" not in line) or _ESCAPES.search(line) is None:
            continue
        plain = _unescape(line)
        if plain == line:
            continue
        found: Counts = Counts()
        out = redact(plain, found)[0]
        if found:
            counts.update(found)
            lines[n] = out
            changed = True
    return "\n".join(lines) if changed else text


def _unescape(line: str) -> str:
    """``line`` with its escapes decoded, repeatedly (an escape may be escaped again: ``\\\\u005f``, ``&amp;#95;``)."""
    for _ in range(3):
        before = line
        if "&" in line:
            import html

            line = html.unescape(line)
        line = _ESCAPES.sub(_one, line)
        if line == before:
            break
    return line


def _one(match: re.Match[str]) -> str:
    escape = match.group(0).lstrip("\\")
    if escape[0] in "ux%":
        code = int(escape[1:], 16)
    else:
        return match.group(0)  # an HTML entity html.unescape left as it was: not one
    return chr(code) if 0x20 <= code < 0x7F else match.group(0)
