"""The identifiers an edit changed, for its observation: so a symbol changed in any edit of a session is findable.

An edit observation records its path, tool and result; this adds ``names``: the definitions the edit
sits in (by indentation: the nearest definition above its first line that is less indented, then each
around that one, innermost first), then the definitions, code-shaped identifiers (``parse_header``,
``RateCache``) and calls (``migrate(``) in the text it replaced and the text it wrote, in that order,
each once, at most :data:`NAMES_MAX`. ``handoff search`` indexes them as the edit's symbols.

Where the text comes from: Claude Code's ``Edit``/``MultiEdit`` input (``old_string``, ``new_string``)
and ``Write``'s ``content``; an ``apply_patch`` body's hunks for that file (``@@`` headers, context,
removed and added lines). The enclosing definitions come from the file before the edit when the hook
has it (Claude Code's ``tool_response.originalFile``), else from the file on disk (just edited, when a
hook runs; as it is now, when ``handoff recover`` reads an old session): the lines above an edit are
the same before and after it.

**Bounded and safe at rest, without the redactor.** At most :data:`NAMES_SCAN` characters of text and
:data:`SOURCE_READ` bytes of a file are read, :data:`ENCLOSING_LINES` lines above the edit looked
through. The text of an edit can hold a credential (``token = "ghp_…"``), and a fragment of one can
look like an identifier; loading the redactor (tens of milliseconds) on every edit would triple a
hook's cost, so a name is kept only when it is *word-shaped* (:func:`word_shaped`): parts of letters
joined by ``_`` or case changes, few digits, no long run of capitals: what people name things, not
what generators make (tests/unit/handoff/memory/test_names.py runs the redactor's credential formats and
random tokens through it). A name is at most :data:`NAME_CHARS` characters.

Hot path: it imports only ``os``, ``stat`` (which ``os`` imports) and :mod:`autopilot.text` (which
imports nothing), and :mod:`.observe` imports it
only when an edit is recorded (for Claude Code's hooks and Codex's: :mod:`.codex_hook` records through it too).
"""

from __future__ import annotations

import os
import stat

from autopilot.text import reads_generated

TYPE_CHECKING = False  # `typing` stays off the hot path
if TYPE_CHECKING:
    from typing import Any

NAMES_MAX = 24  # the identifiers an edit observation keeps
NAMES_SCAN = 20_000  # characters of an edit's text read for them
NAME_CHARS = 64
SOURCE_READ = 1 << 20  # the most of an edited file read to name the definitions an edit sits in
ENCLOSING_LINES = 2000  # lines above an edit looked through for them
ENCLOSING_CHARS = 50_000  # and at most this much text
DEFINERS = frozenset(
    {"def", "class", "function", "fn", "func", "interface", "struct", "enum", "trait", "impl", "module"}
)
MODIFIERS = (
    "export ", "default ", "async ", "pub ", "static ", "public ", "private ", "protected ", "abstract ", "final ",
)  # fmt: skip
_OPENERS = frozenset(w[0] for w in (*DEFINERS, *MODIFIERS))
# Words followed by "(" that are not calls anyone searches for: keywords and the like.
NOT_NAMES = frozenset(
    """if elif for while return print and or not in is with assert yield await lambda def class function switch
    catch typeof sizeof self this super new delete""".split()  # noqa: SIM905 (a quoted list reads worse)
)
# Programs' sources: a credential in one is a string literal (or a comment), which names are never taken from.
CODE_EXTENSIONS = frozenset(
    """py pyi pyx js jsx mjs cjs ts tsx mts cts go rs java kt kts scala groovy c h cc cpp cxx hpp hh hxx m mm cs fs
    swift rb php lua pl pm r jl ex exs erl hrl hs ml mli clj cljs dart vue svelte zig nim sol""".split()  # noqa: SIM905
)
_IDENT = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$"
# bytes.translate tables (a C loop over one byte per character: str.translate with a dict is ten times slower)
_WORDS = bytes(c if chr(c) in _IDENT else (1 if chr(c) == "(" else 32) for c in range(256))


def _tokens(text: str) -> list[str]:
    """The identifiers of ``text`` and each ``(`` as a token of its own (other characters separate them)."""
    raw = text.encode("ascii", "replace").translate(_WORDS).replace(b"\x01", b" ( ")
    return raw.decode("ascii").split()


def edit_names(path: str, changed: list[str], source: str | None = None, at: int = -1) -> list[str]:
    """The names of an edit of ``path``: the definitions its line ``at`` of ``source`` sits in, then those in the
    ``changed`` texts (what it replaced and what it wrote). Empty for a file that is not code (:func:`is_code`)."""
    if not is_code(path):
        return []
    found: list[str] = []
    if source and at >= 0:
        start = source.rfind("\n", 0, at) + 1
        line = next((x for x in source[start : start + 4096].split("\n") if x.strip()), "")
        above = source[max(0, start - ENCLOSING_CHARS) : start]
        above = above[above.find("\n") + 1 :] if start > ENCLOSING_CHARS else above  # whole lines only
        found += enclosing(code_only(above), len(line) - len(line.lstrip()))
    left = NAMES_SCAN
    texts = []
    for text in changed:
        if left <= 0:
            break
        texts.append(code_only(text[:left]))
        left -= len(text[:left])
    for text in texts:
        found += [n for n in (definition(line) for line in text.split("\n")) if n]
    calls: list[str] = []
    shaped: dict[str, bool] = {}
    for text in texts:
        tokens = _tokens(text)
        for n, token in enumerate(tokens):
            if token == "(":
                continue
            if token not in shaped:
                shaped[token] = (token[0].isalpha() or token[0] in "_$") and code_shaped(token)
                if shaped[token]:
                    found.append(token)
            if not shaped[token] and n + 1 < len(tokens) and tokens[n + 1] == "(":
                calls.append(token)
    kept: list[str] = []
    for name in dict.fromkeys(found + calls):
        if (name in found or (len(name) > 2 and name not in NOT_NAMES and name[0].isalpha())) and word_shaped(name):
            kept.append(name)
            if len(kept) >= NAMES_MAX:
                break
    return kept


def is_code(path: str) -> bool:
    """Whether ``path`` is a program's source (by its extension): names are taken only from those."""
    base = path.rsplit("/", 1)[-1]
    return "." in base and base.rsplit(".", 1)[1].lower() in CODE_EXTENSIONS


def code_only(text: str) -> str:
    """``text`` without its string literals and comments (each left as a blank, its newlines kept).

    Quotes ``'``, ``"``, ``\x60`` and tripled ``\'\'\'`` / ``\"\"\"``, with backslash escapes; a one-line string
    left open ends with its line; comments ``#``, ``//`` to the end of the line and ``/* */``.
    """
    raw = text.encode("ascii", "replace")  # one byte per character: the same offsets
    code, inside = raw.translate(_CODE_STOPS), raw.translate(_STRING_STOPS)
    out: list[str] = []
    quote = ""
    i = 0
    while True:
        j = (inside if quote else code).find(0, i)
        if j < 0:
            out.append(_gap(text[i:]) if quote else text[i:])
            return "".join(out)
        c = text[j]
        if not quote:
            out.append(text[i:j])
            if c in "'\"\x60":
                quote = text[j : j + 3] if text[j : j + 3] in ("'''", '"""') else c
                out.append(" ")
                i = j + len(quote)
            elif c == "#" or text.startswith("//", j):
                end = text.find("\n", j)
                out.append(" ")
                i = len(text) if end < 0 else end
            elif text.startswith("/*", j):
                end = text.find("*/", j + 2)
                end = len(text) if end < 0 else end + 2
                out.append(_gap(text[j:end]))
                i = end
            else:  # a "/" that opens no comment
                out.append(c)
                i = j + 1
            continue
        out.append(_gap(text[i:j]))
        if c == "\\":
            out.append(_gap(text[j : j + 2]))
            i = j + 2
        elif text.startswith(quote, j):
            out.append(" ")
            quote, i = "", j + len(quote)
        elif c == "\n" and quote in ("'", '"'):
            out.append("\n")
            quote, i = "", j + 1
        else:
            out.append(_gap(c))
            i = j + 1


def _gap(text: str) -> str:
    return " " + "\n" * text.count("\n")


_CODE_STOPS = bytes(0 if chr(c) in "'\"\x60#/" else c for c in range(256))  # where a string or a comment may start
_STRING_STOPS = bytes(0 if chr(c) in "'\"\x60\\\n" else c for c in range(256))  # where a string may end


def definition(line: str) -> str | None:
    """The name a line defines (``def f``, ``class C``, ``export async function f``, ``func (r *T) M``), else None."""
    rest = line.lstrip()
    if rest[:1] not in _OPENERS:  # most lines: no definition can start with their first letter
        return None
    stripped = True
    while stripped:
        stripped = False
        for modifier in MODIFIERS:
            if rest.startswith(modifier):
                rest, stripped = rest[len(modifier) :].lstrip(), True
    head, _, rest = rest.partition(" ")
    if head not in DEFINERS:
        return None
    rest = rest.lstrip()
    if head == "func" and rest.startswith("("):  # a Go method's receiver
        rest = rest[rest.find(")") + 1 :].lstrip()
    end = 0
    while end < len(rest) and rest[end] in _IDENT:
        end += 1
    name = rest[:end]
    return name if name and (name[0].isalpha() or name[0] in "_$") else None


def enclosing(head: str, indent: int) -> list[str]:
    """The definitions that a line indented by ``indent`` after ``head`` (a file's text up to it) sits in,
    innermost first: each the nearest definition above that is less indented than the one before."""
    names: list[str] = []
    for line in reversed(head.rsplit("\n", ENCLOSING_LINES)[-ENCLOSING_LINES:]):
        if indent <= 0:
            break
        name = definition(line)
        depth = len(line) - len(line.lstrip())
        if name is not None and depth < indent:
            names.append(name)
            indent = depth
    return names


def code_shaped(name: str) -> bool:
    """An inner ``_`` (``parse_header``) or a lower-to-upper change (``parseHeader``, ``ValueError``)."""
    if "_" in name.strip("_"):
        return True
    return not name.islower() and not name.isupper() and not name.istitle() and any(c.islower() for c in name)


def word_shaped(name: str) -> bool:
    """Whether ``name`` reads as a name people give, not a generated value that may be part of a credential.

    Its parts (split at ``_``, at lower-to-upper changes, before the last capital of a capital run
    followed by lower case, and between letters and digits) must be: at most one per 4 characters
    (and one more); at most 2 runs of digits, of at most 4 each; at most one short part with a
    capital (``getX``, not ``xKqW``); letter parts of at most 16 letters, capital runs of at most 5
    (10, or 16 between underscores, in a name of capitals only); no run of 5 consonants; and, past 8
    characters, letter parts 3 letters long on average, each of 5 letters or more with a vowel.
    """
    if not 2 <= len(name) <= NAME_CHARS or not name.isascii() or not (name[0].isalpha() or name[0] in "_$"):
        return False
    parts: list[str] = []
    for chunk in name.replace("$", "_").split("_"):
        start = 0
        for i in range(1, len(chunk)):
            a, b = chunk[i - 1], chunk[i]
            nxt = chunk[i + 1] if i + 1 < len(chunk) else ""
            if (
                (a.isdigit() != b.isdigit())
                or (a.islower() and b.isupper())
                or (a.isupper() and b.isupper() and nxt.islower())
            ):
                parts.append(chunk[start:i])
                start = i
        if chunk[start:]:
            parts.append(chunk[start:])
    digits = [p for p in parts if p.isdigit()]
    letters = [p for p in parts if not p.isdigit()]
    if len(digits) > 2 or any(len(p) > 4 for p in digits) or not letters:
        return False
    if len(parts) > 1 + len(name) // 4:  # generated values change case or class every few characters
        return False
    if sum(1 for p in letters if len(p) <= 2 and not p.islower()) > 1:
        return False
    constant = all(p.isupper() for p in letters)
    caps = (16 if len(letters) > 1 else 10) if constant else 5
    if any(len(p) > 16 or (p.isupper() and len(p) > caps) for p in letters):
        return False
    for part in letters:
        run = 0
        for c in part if len(part) > 5 or not part.isupper() else "":  # an acronym (HTTP) is not pronounced
            run = 0 if c in "aeiouyAEIOUY" else run + 1
            if run >= 5:
                return False
    if len(name) <= 8:
        return True
    last = name.rsplit("_", 1)[-1]
    if "_" in name and 16 <= len(last) <= 31 and last.isalnum() and reads_generated(last):  # the redactor's token body
        return False
    if sum(len(p) for p in letters) < 3 * len(letters):
        return False
    return all(len(p) < 5 or any(c in "aeiouyAEIOUY" for c in p) for p in letters)


def read_source(path: str, cwd: str | None = None) -> str | None:
    """The file at ``path`` (relative to ``cwd``) as text, its first SOURCE_READ bytes; None when unreadable."""
    full = path if os.path.isabs(path) or not cwd else os.path.join(cwd, path)
    try:
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO put there never holds the hook
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, SOURCE_READ).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def patch_sections(patch: str) -> dict[str, list[str]]:
    """The lines of an ``apply_patch`` body by the file they change (a moved file's lines under both paths)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in patch.split("\n"):
        if line.startswith("*** Move to: "):
            if current is not None:
                sections.setdefault(line[13:].strip(), current)
            continue
        if line.startswith("*** "):
            current = None
            for header in ("*** Add File: ", "*** Update File: "):
                if line.startswith(header):
                    current = sections.setdefault(line[len(header) :].strip(), [])
            continue
        if current is not None:
            current.append(line)
    return sections


def patch_names(path: str, lines: list[str], source: str | None) -> list[str]:
    """The names of one file's part of a patch: its ``@@`` headers' definitions, then as :func:`edit_names` for its
    removed and added lines (context lines only place it: at its first change, as the patched file reads)."""
    headers = [definition(line[2:].strip()) for line in lines if line.startswith("@@ ")]
    old = [line[1:] for line in lines if line[:1] == "-"]
    new = [line[1:] for line in lines if line[:1] == "+"]
    hunk: list[str] = []  # the first hunk as the patched file reads, and its context before the first change
    lead = -1
    for line in lines[1:] if lines[:1] and lines[0].startswith("@@") else lines:
        if line.startswith("@@"):
            break
        if line[:1] in ("-", "+") and lead < 0:
            lead = sum(len(x) + 1 for x in hunk)
        if line[:1] in (" ", "+"):
            hunk.append(line[1:])
    at = locate(source, "\n".join(hunk)) if source else -1
    names = [h for h in headers if h and word_shaped(h)] if is_code(path) else []
    for name in edit_names(path, ["\n".join(old), "\n".join(new)], source, at + max(lead, 0) if at >= 0 else -1):
        if name not in names:
            names.append(name)
    return names[:NAMES_MAX]


def locate(source: str, text: str) -> int:
    """Where ``text`` starts in ``source``: the whole of it, else its first line when that is distinctive; else -1."""
    if not text.strip():
        return -1
    at = source.find(text)
    line = next(x for x in text.split("\n") if x.strip())
    if at < 0 and line != text and len(line.strip()) >= 12:
        at = source.find(line)
    return at


def of_tool(path: str, args: dict[str, Any], response: object = None, cwd: str | None = None) -> list[str]:
    """The names of one file edit by Claude Code's ``Edit``, ``MultiEdit``, ``Write`` or ``NotebookEdit``.

    ``args`` is the tool's input, ``response`` its structured output (``originalFile``: the file before
    the edit) when known; otherwise the file is read from disk (``path``, relative to ``cwd``).
    """
    if not is_code(path):
        return []
    edits = [args] + [e for e in args.get("edits") or [] if isinstance(e, dict)]
    keys = ("old_string", "new_string", "content", "new_source")
    changed = [str(e[k]) for e in edits for k in keys if isinstance(e.get(k), str)]
    olds = [str(e["old_string"]) for e in edits if isinstance(e.get("old_string"), str) and e["old_string"].strip()]
    news = [str(e["new_string"]) for e in edits if isinstance(e.get("new_string"), str) and e["new_string"].strip()]
    original = response.get("originalFile") if isinstance(response, dict) else None
    if isinstance(original, str) and olds:
        return edit_names(path, changed, original, original.find(olds[0]))
    source = read_source(path, cwd) if news else None
    return edit_names(path, changed, source, locate(source, news[0]) if source else -1)


def of_patch(patch: str, cwd: str | None = None) -> dict[str, list[str]]:
    """The names of each file an ``apply_patch`` body changes (enclosing definitions from the files on disk)."""
    return {
        path: patch_names(path, lines, read_source(path, cwd) if any(x.startswith("@@") for x in lines) else None)
        for path, lines in patch_sections(patch).items()
        if is_code(path)
    }
