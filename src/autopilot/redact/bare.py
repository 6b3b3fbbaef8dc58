"""Bare tokens: a generated-looking token is withheld wherever it stands, whatever its prefix, or with none.

Provider rules (:mod:`.tokens`) know the formats someone listed, and :mod:`.generic` a generated value where a
credential stands. What is left is a token standing alone in prose, a log line, a file name or a branch name, in a
format nobody listed: a container registry's access token, a fintech or cloud-storage key, a cloud session token, a
runner's registration token. Such a token is found by its shape, not by its name:

- a run of letters and digits, with the separators tokens use (``_``, ``-``, ``.``, ``~``), whose body (what follows
  a structural prefix of short words: ``dckr_pat_``, ``dp.st.prd.``) has upper and lower case and digits and starts
  a new word, acronym or number every 2.8 characters or sooner, as random text does (a name: every 3 or more);
- a run of upper case and digits (24+) or of lower case and digits (28+) that is not hex, a fifth or more of it
  digits and at 4 bits a character or more;
- a base64 run (``+`` or ``/`` in it, 32+) that reads as generated and is no path.

Kept: transcript and API ids (``toolu_``, ``msg_``, ``call_`` ...) and digests by their prefix (the ids
:mod:`.generic` keeps), hex (digests, UUIDs, commit ids: a hex secret is found by its name or its sentence), base64
that decodes to text (:mod:`.decode` judges that text), pictures, fonts and compressed data by their first bytes,
SSH public keys, certificates and public keys, alphabets, and anything inside a URL (its own rules judge it).
Measured over 81 MB of ordinary text (docs/BENCHMARKS.md, "Issue 35"): a handful of runs in 55 MB of installed
packages, none a name.
"""

from __future__ import annotations

from autopilot.patterns import MULTILINE, lazy
from autopilot.redact.generic import NOT_SECRET, bits_per_char
from autopilot.redact.keys import opens_public_der
from autopilot.redact.rules import Rule, long_word_lines
from autopilot.text import word_parts

TYPE_CHECKING = False  # typing costs ~3 ms to import, and a hook that redacts a prompt loads this module
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator

# A run of token characters standing alone: not inside a longer run, a base64 run, a percent or backslash escape, nor
# after a URL's `//` (the first character after it is preceded by `/`, and a URL's host and path are its own rules').
# A `/` before is a folder (a token named file); a sentence's `.` after is not the token's.
_RUN = (
    r"[A-Za-z0-9_\-](?<![A-Za-z0-9_\-.~+=%\\@][A-Za-z0-9_\-])(?<!//[A-Za-z0-9_\-])[A-Za-z0-9_\-.~]{14,998}[A-Za-z0-9_\-~]"
    # base64's padding (a key without `+` or `/`: one in four of 32 random bytes); a placeholder after: a provider's
    # rule kept this part (ngrok's credential id)
    r"={0,2}(?![A-Za-z0-9_\-~+=])(?!\[REDACTED:)"
)
# A base64 run standing alone, maybe a file in folders (`notes/<token>.md`): the folders' names (words, a capital
# first at most) are group 1 and stay, the run is group 2.
_B64 = (
    r"(?<![A-Za-z0-9_\-.~+/=%\\@:])(/?(?:[A-Za-z][a-z0-9_\-.]{0,40}/)*)([A-Za-z0-9+/]{30,2000}={0,2})"
    r"(?![A-Za-z0-9+/=])"
)
SHORTEST = 16  # the fewest letters and digits a bare token's body is judged at (docs/BENCHMARKS.md, "Issue 35")
_EXTENSION = lazy(r"\.[A-Za-z][A-Za-z0-9]{0,4}$")
_ID_HEAD = lazy(r"([A-Za-z0-9]+)[_\-]")
_SEPARATORS = lazy(r"[._\-~]")
# A structural prefix: short words before the body (`dckr_pat_`, `dp.st.prd.`, `acme-live-`), at most four.
_PREFIX = lazy(r"(?:[A-Za-z]{1,12}[._\-~]){1,4}")
# Base64 that opens a picture, a font, compressed data or an SSH public key (`AAAA`: a length of a few bytes).
_DATA: tuple[str, ...] = (
    "iVBORw0KGg",
    "/9j/",
    "R0lGOD",
    "UklGR",
    "PHN2Zy",
    "PD94bWw",
    "JVBERi0",
    "d09GR",
    "T1RUTw",
    "AAEAAA",
)
_DATA += ("H4sI", "eJw", "eJy", "eNp", "eJx", "KLUv", "UEsDB", "AAAA", "Qk0", "gAAAAA")
# IPFS content ids and bech32 addresses: public content hashes and addresses, lower case and digits.
_PUBLIC = ("bafy", "bafk", "bc1q", "bc1p", "tb1q", "ltc1")


def _sequential(body: str) -> bool:
    """Whether ``body`` is a table, not a token: an alphabet's runs (``ABCDEFGH…``, ``0123456789``), or 24 characters
    or more all different (a character set: random text of that length repeats one)."""
    steps = sum(1 for a, b in zip(body, body[1:], strict=False) if b == chr(ord(a) + 1))
    return steps * 4 > len(body) or (len(body) >= 24 and len(set(body)) == len(body))


def generated(body: str) -> bool:
    """Whether letters and digits read as generated: upper and lower case and digits, a new word, acronym or number
    every 2.8 characters or sooner (random base62: every ~1.7, 97-99% of 16-40 characters; names every 3 or more), a
    third of them different; or, of one case with digits, long, not hex, at 4 bits a character: upper case (24+, an
    eighth digits, as base32 has) or lower case (28+, a fifth digits, 4.2 bits)."""
    size = len(body)
    upper = any(map(str.isupper, body))
    lower = any(map(str.islower, body))
    digits = sum(map(str.isdigit, body))
    if not digits or _sequential(body):
        return False
    if upper and lower:
        if body.startswith(("kwDO", "kgDO")) or _words_cover(body):  # a GitHub node id; a name in camel case
            return False
        if len(set(body)) * 3 < min(size, 48):
            return False
        # a new part every 2.8 characters; or, from 32 on, 4.3 bits a character (runs of capitals merge parts)
        return size < 2.8 * word_parts(body) or (size >= 32 and bits_per_char(body) >= 4.3)
    if _hex(body):
        return False
    if upper:  # base32 (A-Z, 2-7) may hold only a digit or two
        return size >= 24 and bits_per_char(body) >= 4.0
    if digits * 5 < size:
        return False
    return size >= 28 and bits_per_char(body) >= 4.2 and not body.startswith(_PUBLIC)


_CAMEL_WORD = lazy(r"[A-Z][a-z]{2,}|^[a-z]{3,}")
_VOWELS = frozenset("aeiouAEIOU")


def _words_cover(body: str) -> bool:
    """Whether words (a capital and lower case, a vowel in every four letters: ``Alert``, ``Value``) make up three
    fifths of ``body`` or more, as in a name run together (``DnsAlpnH3JobWonRace``, ``w3cSetAlertValue``); random
    text's runs of lower case rarely read as words."""
    covered = 0
    for m in _CAMEL_WORD.finditer(body):
        word = m.group(0)
        if sum(c in _VOWELS for c in word) * 4 >= len(word):
            covered += len(word)
    return covered * 5 >= len(body) * 3


def _hex(body: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in body)


def _decodes_to_text(run: str) -> bool:
    """Whether a base64 run decodes to printable text (its text is :mod:`.decode`'s to judge, not a token) or to a
    table of bytes (each the one before it plus one: ``bytes(range(256))``)."""
    import binascii

    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) < 16:
        return False
    try:
        raw = binascii.a2b_base64(body[: len(body) // 4 * 4])
    except (binascii.Error, ValueError):
        return False
    if len(raw) >= 12 and sum(1 for a, b in zip(raw, raw[1:], strict=False) if b == (a + 1) % 256) * 2 > len(raw):
        return True
    return len(raw) >= 12 and all(32 <= b < 127 or b in (9, 10, 13) for b in raw)


def _bare(value: str, match: re.Match[str]) -> bool:
    """Whether a run standing alone is a generated token: its body (after a structural prefix of short words) reads as
    generated, 20 characters or more (16 behind a prefix of two words), and so does its longest part on its own (a
    file's or a package's name joins words, numbers and hex with separators: no part of it reads as generated); and it
    is no id, digest, text or data."""
    value = value.rstrip("=")  # base64's padding
    if not any(map(str.isdigit, value)):
        return False
    head = _ID_HEAD.match(value)
    if head and head.group(1).lower() in NOT_SECRET:  # an id (`toolu_…`, `msg_…`, `sha512-…`), not a token
        return False
    if value.startswith(_DATA) or _inside_armour(match) or _in_url(match) or _in_base64(match):
        return False
    if _in_data_block(match):
        return False
    prefix = _PREFIX.match(value)
    body = value[prefix.end() :] if prefix else value
    body = _EXTENSION.sub("", body)  # a token named file: `<token>.md`
    parts = [part for part in _SEPARATORS.split(body) if part]
    letters = "".join(parts)
    seps = prefix.group(0).count("_") + prefix.group(0).count("-") if prefix else 0
    if len(letters) < (16 if seps >= 2 else SHORTEST) or not generated(letters):
        return False
    longest = max(parts, key=len)
    if len(longest) < 10 or not (longest == letters or _part_generated(longest)):
        return False
    return "_" in body or "." in body or not _decodes_to_text(body)


def _part_generated(part: str) -> bool:
    """Whether the longest part of a token's body reads as generated on its own (a shorter bar for one case: 16)."""
    if any(map(str.isupper, part)) and any(map(str.islower, part)):
        return generated(part)
    return len(part) >= 16 and any(map(str.isdigit, part)) and not _hex(part) and not _sequential(part)


def _base64(value: str, match: re.Match[str]) -> bool:
    """Whether a base64 run standing alone is a generated secret: no folder of a path, no data or public key, no
    text, and its letters and digits read as generated."""
    if ("+" not in value and "/" not in value) or value.startswith(_DATA) or _inside_armour(match) or _in_url(match):
        return False
    if _in_data_block(match):
        return False
    core = value.rstrip("=")
    parts = core.split("/")
    if sum(_word(part) for part in parts) * 2 >= len(parts):  # `usr/lib/python3/...`: a path
        return False
    if len(core) < 32 or _decodes_to_text(core) or _public_der(core):
        return False
    return generated("".join(c for c in core if c.isalnum()))


def _word(part: str) -> bool:
    """Whether a part of a path is a word (``lib``, ``Users``, ``README``), as a random base64 piece rarely is."""
    return len(part) >= 3 and part.isalpha() and (part.islower() or part.isupper() or part[1:].islower())


def _public_der(core: str) -> bool:
    return core.startswith("MI") and opens_public_der(core)


_URL_STOPS = " \t\n\r\"'`<>()[]{},;|"


def _in_url(match: re.Match[str]) -> bool:
    """Whether the run is part of a URL (its path or query: the URL's own rules judge those)."""
    text, start = match.string, match.start()
    at = start
    while at > 0 and start - at < 300 and text[at - 1] not in _URL_STOPS:
        at -= 1
    return "://" in text[at:start]


_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~")


def _in_base64(match: re.Match[str]) -> bool:
    """Whether a run between slashes is a piece of a longer base64 run (``+`` or ``=`` padding in it, or a digest's
    prefix before it): the base64 rule judged the whole."""
    text, start, end = match.string, match.start(), match.end()
    if not (text[start - 1 : start] == "/" or text[end : end + 1] == "/"):
        return False
    left, right = start, end
    while left > 0 and start - left < 2000 and text[left - 1] in _B64_CHARS:
        left -= 1
    while right < len(text) and right - end < 2000 and text[right] in _B64_CHARS:
        right += 1
    run = text[left:right]
    head = _ID_HEAD.match(run)
    return "+" in run or run.endswith("=") or bool(head and head.group(1).lower() in NOT_SECRET)


# A line of a wrapped base64 block, with what may open one: a diff marker, a line number, a comment or quote marker.
_BLOCK_LINE = lazy(
    r"^[ \t]*(?:[+\- ]|\d{1,7}→)?[ \t]*(?:(?:#|//|--|;|\*|%|>)[ \t]?){0,3}([A-Za-z0-9+/]{40,}={0,2})[ \t]*$",
    MULTILINE,
)
_BLOCKS: list[tuple[str, list[tuple[int, int]]]] = []  # the last text's data blocks: every run of a text asks


def _in_data_block(match: re.Match[str]) -> bool:
    """Whether the run is a line of a wrapped base64 block whose first line opens a picture, a font, compressed data or
    public DER (a certificate): the block is data, every line of it."""
    text = match.string
    if not _BLOCKS or _BLOCKS[0][0] is not text:
        _BLOCKS[:] = [(text, _data_blocks(text))]
    return any(start <= match.start() < end for start, end in _BLOCKS[0][1])


def _data_blocks(text: str) -> list[tuple[int, int]]:
    if "\n" not in text:
        return []
    blocks: list[tuple[re.Match[str], re.Match[str]]] = []
    first: re.Match[str] | None = None
    last: re.Match[str] | None = None
    for line in _block_lines(text):
        if last is not None and line.start() == last.end() + 1:
            last = line
            continue
        if first is not None and last is not None and last is not first:
            blocks.append((first, last))
        first = last = line
    if first is not None and last is not None and last is not first:
        blocks.append((first, last))
    return [(a.start(), b.end()) for a, b in blocks if _opens_data(text, a)]


def _block_lines(text: str) -> Iterator[re.Match[str]]:
    """:data:`_BLOCK_LINE`'s matches in ``text``, read only on the lines holding a word of 40 characters or more (as
    each of them does: most lines of a long text hold none)."""
    for start, end in long_word_lines(text, 40):
        yield from _BLOCK_LINE.finditer(text, start, end)


def _opens_data(text: str, first: re.Match[str]) -> bool:
    """Whether a block's first line opens data, or the line before it says the block is public (PuTTY's)."""
    body = first.group(1)
    before = text[text.rfind("\n", 0, max(0, first.start() - 1)) + 1 : first.start()]
    return body.startswith(_DATA) or _public_der(body[:96]) or "Public-Lines:" in before


_ARMOUR: list[tuple[str, list[int], list[int]]] = []  # the last text's BEGIN and END lines: every run of a text asks


def _inside_armour(match: re.Match[str]) -> bool:
    """Whether the run lies inside an armoured block that is no private key (a certificate, a public key, a PGP
    signature or message): public by design. The last BEGIN line before the run, and an END line between them, are
    looked up in the text's BEGIN and END lines, found once (searching back from each run read a long text again for
    every run of it: a sixth of the time of a `git log -p`)."""
    from bisect import bisect_right

    text, start = match.string, match.start()
    if not _ARMOUR or _ARMOUR[0][0] is not text:
        _ARMOUR[:] = [(text, _found_all(text, "-----BEGIN "), _found_all(text, "-----END "))]
    begins, ends = _ARMOUR[0][1], _ARMOUR[0][2]
    last = bisect_right(begins, start - len("-----BEGIN ")) - 1  # the last that ends before the run
    if last < 0:
        return False
    begin = begins[last]
    closed = bisect_right(ends, start - len("-----END ")) - 1
    if closed >= 0 and ends[closed] >= begin:
        return False
    return "PRIVATE" not in text[begin : text.find("\n", begin) % (len(text) + 1)]


def _found_all(text: str, literal: str) -> list[int]:
    """Where ``literal`` starts in ``text``, each place in order."""
    found: list[int] = []
    at = text.find(literal)
    while at >= 0:
        found.append(at)
        at = text.find(literal, at + 1)
    return found


def _digit(word: str) -> bool:
    return any(map(str.isdigit, word))


def _slash_or_plus(word: str) -> bool:
    return "/" in word or "+" in word


def _run_lines(text: str) -> list[tuple[int, int]]:
    """The lines where a bare token may stand: a word of 16 characters or more with a digit, as every one is (a text
    with none does not compile the run pattern: a prompt whose key a provider's rule withheld already; a long text's
    other lines cost the pattern nothing: it was a tenth of the time of a `git log -p`)."""
    return long_word_lines(text, SHORTEST, _digit)


def _base64_lines(text: str) -> list[tuple[int, int]]:
    """The lines where a base64 secret may stand: a word of 32 characters or more with `/` or `+`, as every one is."""
    return long_word_lines(text, 32, _slash_or_plus)


BARE: list[Rule] = [
    Rule("bare_token", lazy(_B64), 2, _base64, needs=(("+", "/"),), spans=_base64_lines),
    Rule("bare_token", lazy(_RUN), check=_bare, spans=_run_lines),
]
