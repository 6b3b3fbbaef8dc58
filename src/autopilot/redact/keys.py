"""Key material without its BEGIN line: bodies cut out of a key, tails, base64-wrapped and DER keys.

Found line by line (runs of whole base64 lines) and token by token (base64 that opens like a
private key), never by a backtracking regex, so the cost is one pass over the text.
"""

from __future__ import annotations

from autopilot.patterns import MULTILINE, lazy
from autopilot.redact import PLACEHOLDER, Counts
from autopilot.redact.rules import HUNK, NUMBERED, mixed_case

TYPE_CHECKING = False  # binascii and collections.abc load when first needed (a prompt's redaction pays per import)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable

_LONG_B64 = lazy(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{40}")
# What may open a body line after its indentation: a comment or quote marker (`# `, `// `, `-- `,
# `; `, ` * `, `% `, a mail or Markdown `> `), up to three deep.
_MARK = r"(?:(?:#|//|--|;|\*|%|>)[ \t]?){0,3}"
# A line break written inside a string: `\n`, escaped again in JSON inside JSON (`\\n`), or more.
_ESCAPED_BREAK = r"(?:\\{1,3}r)?\\{1,3}n"
# One whole line of a base64 body: an optional line number, diff marker, indentation, comment
# marker or quotes around it. Lines end at real line breaks or at the literal `\n` of a string in
# code or JSON, and the first may start a quoted string (`"private_key": "MIIE…\n…`). A line of
# string concatenation keeps its escaped break, quote and operator (`"MIIE…\n" +`).
_BODY_LINE = lazy(
    r"(?:^|(?<=\\n)|(?<=[\"']))"
    + HUNK
    + NUMBERED
    # a diff marker, never right after a hunk header: what follows `@@ … @@ ` is a line as it was (a `+` there
    # is the body's own first character)
    + r"(?:(?<!@)(?<!@ )(?<!@\t)[+\- ])?[ \t]*"
    + _MARK
    + r"[\"']?([A-Za-z0-9+/]{8,}={0,2})(?:"
    + _ESCAPED_BREAK
    + r")?[\"']?[ \t]*[+,.&\\]?[ \t]*(?=\r?$|"
    + _ESCAPED_BREAK
    + r")",
    MULTILINE,
)
_SEPARATOR = lazy(r"\r?\n|" + _ESCAPED_BREAK)
_KEY_END = lazy(r"[+\- ]?[ \t]*" + _MARK + r"[\"']?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PUBLIC_END = lazy(r"[+\- ]?[ \t]*" + _MARK + r"[\"']?-----END ")
# Base64 that opens a key file or a base64-wrapped one: PEM armour (`-----BEGIN`), an OpenSSH
# key (`openssh-key-v1`), a PuTTY key file; DER keys start with "M" (an ASN.1 SEQUENCE).
_KEY_TOKEN = lazy(
    r"(?<![A-Za-z0-9+/])(?:LS0tLS1CRUdJTi|b3BlbnNzaC1rZXktdjE|UHVUVFktVXNlci1LZXktRmlsZS|M[A-Za-z0-9+/]{3})"
    r"[A-Za-z0-9+/]{36,}={0,2}"
)
# Base64 that opens a picture or a document: ordinary data, never key material.
_NOT_KEY = ("iVBORw0KGg", "/9j/", "R0lGOD", "UklGR", "PHN2Zy", "PD94bWw", "JVBERi0", "AAABAA", "Qk0", "d09GR")
# ASN.1 object ids of password-protected keys (PKCS#5 PBES2, PKCS#12 PBE).
_ENCRYPTED_KEY_OIDS = (b"\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d", b"\x2a\x86\x48\x86\xf7\x0d\x01\x0c\x01")


def _decoded_head(b64: str) -> bytes:
    import binascii

    head = b64[:96]
    try:
        return binascii.a2b_base64(head[: len(head) // 4 * 4])
    except (binascii.Error, ValueError):
        return b""


def opens_private_key(b64: str) -> bool:
    """Whether base64 text begins with a private key: PEM or PuTTY text, an OpenSSH or a DER key.

    DER is read far enough to tell a private key (a SEQUENCE whose first field is a small version
    INTEGER: PKCS#1, PKCS#8, SEC1, PKCS#12, or an encrypted PKCS#8) from a certificate or a public
    key (a SEQUENCE that opens with another SEQUENCE), so public material stays readable.
    """
    if b64.startswith(("b3BlbnNzaC1rZXktdjE", "UHVUVFktVXNlci1LZXktRmlsZS")):
        return True
    raw = _decoded_head(b64)
    if b64.startswith("LS0tLS1CRUdJTi"):
        return b"PRIVATE KEY" in raw
    if len(raw) < 8 or raw[0] != 0x30:
        return False
    n = 2 + (raw[1] - 0x80 if raw[1] > 0x80 else 0)  # skip the SEQUENCE's length
    body = raw[n : n + 4]
    if len(body) == 4 and body[0] == 0x02 and body[1] == 0x01 and body[2] in (0, 1, 3):
        return body[3] in (0x02, 0x04, 0x30)
    return any(oid in raw for oid in _ENCRYPTED_KEY_OIDS)


_LOWER_RUN = lazy(r"[a-z]{9}")


def _random_line(line: str) -> bool:
    """Whether a base64 line looks random, as key material does: long, mixed case and digits, no long word."""
    return len(line) >= 40 and mixed_case(line) and not _LOWER_RUN.search(line)


def opens_public_der(b64: str) -> bool:
    """Whether base64 text begins with public DER: a SEQUENCE opening with a SEQUENCE (a certificate, a public key)."""
    raw = _decoded_head(b64)
    if len(raw) < 8 or raw[0] != 0x30 or any(oid in raw for oid in _ENCRYPTED_KEY_OIDS):
        return False
    n = 2 + (raw[1] - 0x80 if raw[1] > 0x80 else 0)
    return raw[n : n + 1] == b"\x30"


def _run_kind(text: str, run: list[re.Match[str]], after: int) -> tuple[str | None, int]:
    """What a run of base64 lines is (``private_key``, ``key_material`` or None) and where it ends."""
    first = run[0].group(1)
    end = _KEY_END.match(text, after)
    if end is not None:  # the tail of a PEM key: body lines and the END line
        return "private_key", end.end()
    if _PUBLIC_END.match(text, after) or first.startswith(_NOT_KEY):
        return None, 0  # a certificate or public key block, or a picture: public data
    start = run[0].start()
    previous = text[text.rfind("\n", 0, max(0, start - 1)) + 1 : start]
    if "-----BEGIN " in previous or "Public-Lines:" in previous:
        return None, 0  # public: an armoured block that is not a private key, a PuTTY key's public lines
    if "Private-Lines:" in previous or opens_private_key(first):
        return "private_key", run[-1].end(1)
    if opens_public_der(first):
        return None, 0  # a certificate or a public key whose BEGIN line is not in the text
    # The middle of a key: lines of one width (64 in PEM, 70 in OpenSSH) of mixed-case base64.
    widths: dict[int, int] = {}
    for match in run:
        if _random_line(match.group(1)):
            width = len(match.group(1))
            widths[width] = widths.get(width, 0) + 1
    return ("key_material", run[-1].end(1)) if widths and max(widths.values()) >= 2 else (None, 0)


def key_bodies(text: str, counts: Counts) -> str:
    """Key material whose BEGIN line is not in ``text``: bodies cut out of a key, tails, base64-wrapped keys.

    A run of whole base64 lines is a key when it ends at an END line, follows a PuTTY
    ``Private-Lines:`` line, opens like a private key, or has two or more long lines of mixed
    case and digits (the middle of a PEM or OpenSSH key in a diff hunk). Single base64 tokens
    that open like a private key (``client-key-data: LS0t…``) are redacted where they stand.
    """
    if "PRIVATE KEY" not in text and "Private-Lines" not in text and not _LONG_B64.search(text):
        return text
    lines = list(_BODY_LINE.finditer(text)) if _body_may_count(text) else []
    out, pos, i = [], 0, 0
    while i < len(lines):
        j = i
        while j + 1 < len(lines) and _SEPARATOR.fullmatch(text, lines[j].end(), lines[j + 1].start()):
            j += 1
        run, i = lines[i : j + 1], j + 1
        after = lines[j].end()
        if (sep := _SEPARATOR.match(text, after)) is not None:
            after = sep.end()
        kind, end = _run_kind(text, run, after)
        if kind is not None:
            start = run[0].start(1)
            # Inside a string (after its quote or an escaped break) a body line may open with "+" or "//" (base64 has
            # both), which the line pattern reads as a diff or comment marker: there they are the key's, and go with it.
            opens = start
            while opens > pos and text[opens - 1] in "+/":
                opens -= 1
            if opens < start and (text[opens - 1 : opens] in ('"', "'") or text[opens - 2 : opens] == "\\n"):
                start = opens
            out += [text[pos:start], PLACEHOLDER.format(kind=kind)]
            counts[kind] += 1
            pos = end
    text = "".join(out) + text[pos:] if out else text
    if "PRIVATE KEY" in text:  # an END line alone
        text, n = _LONE_END.subn(PLACEHOLDER.format(kind="private_key"), text)
        counts["private_key"] += n
    if _opens_like_a_key(text) and _LONG_B64.search(text):
        text = _KEY_TOKEN.sub(_token_replacer(counts), text)
    return text


def _opens_like_a_key(text: str) -> bool:
    """Whether ``text`` holds one of the literals a :data:`_KEY_TOKEN` match opens with (else it is not compiled)."""
    return "M" in text or any(head in text for head in _KEY_TOKEN_HEADS)


_KEY_TOKEN_HEADS = ("LS0tLS1CRUdJTi", "b3BlbnNzaC1rZXktdjE", "UHVUVFktVXNlci1LZXktRmlsZS")
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_TAIL_CANDIDATES = 64  # past this many places a key could open at, the pattern is simply run


def _body_may_count(text: str) -> bool:
    """Whether a run of body lines in ``text`` may be withheld; False only when none can be.

    Without an END line or PuTTY's ``Private-Lines``, a run is withheld when it has two lines or more, or when
    its first line opens like a private key. A text of one line (no line break and no backslash, so no escaped
    break) holds at most one body line, and it ends the text: when no base64 run ending there opens like a key,
    nothing is withheld and :data:`_BODY_LINE`, this module's longest pattern, is not compiled (a prompt that
    ends with an API key).
    """
    if "\n" in text or "\\" in text or "PRIVATE KEY" in text or "Private-Lines" in text:
        return True
    # After the line's base64: `={0,2}`, a quote, blanks, one of `+,.&`, blanks, a carriage return. Stripping
    # those from the end may also strip a `+` of the base64 itself: each such end is tried.
    end = len(text.rstrip(" \t\r\"'+,.&"))
    ends = [end]
    while end < len(text) and text[end] == "+":
        end += 1
        ends.append(end)
    tried = 0
    for stop in ends:
        body = stop
        while body > 0 and text[body - 1] == "=" and stop - body < 2:
            body -= 1
        start = body
        while start > 0 and text[start - 1] in _B64_CHARS:
            start -= 1
        for at in range(start, body - 7):
            if text[at] in "MbUL":
                tried += 1
                if tried > _TAIL_CANDIDATES or opens_private_key(text[at:stop]):
                    return True
    return False


_LONE_END = lazy(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")


def _token_replacer(counts: Counts) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if not opens_private_key(match.group(0)):
            return match.group(0)
        counts["private_key"] += 1
        return PLACEHOLDER.format(kind="private_key")

    return replace
