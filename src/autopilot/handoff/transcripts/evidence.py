"""Bounded, redacted strings for transcript views: everything a reader emits goes through here.

Both transcript readers build their answers with one :class:`Evidence`: it redacts
every string (counting what it removed), cuts long strings keeping their beginning and
end, strips harness-injected ``<system-reminder>`` blocks, and supplies the label that
marks the whole answer as evidence rather than instruction.
"""

from __future__ import annotations

from autopilot.handoff.transcripts import TRUST as TRUST  # re-exported: defined where a search can read it cheaply
from autopilot.patterns import DOTALL, IGNORECASE, lazy
from autopilot.redact import PLACEHOLDER, Redactor, is_secret_path
from autopilot.text import clip_middle, middle_join, middle_split

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every intake page loads this module
if TYPE_CHECKING:
    import re
    from typing import Any

    from autopilot.redact.shapes import Redactions

OMITTED_SECRET = "[omitted: contents of a secret-bearing file]"
OMITTED_SECRET_OUTPUT = "[omitted: output of a command that reads a secret-bearing file]"
# The tool input keys that carry what a call writes into a file (Write, Edit, MultiEdit, NotebookEdit).
SECRET_CONTENT_KEYS = frozenset({"content", "new_string", "old_string", "edits", "new_source"})
# Redact this much past a cut, so a secret straddling the cut is still caught whole, and on to the end of the line it
# falls in (up to _LINE more): what the redactor reads across lines (a key body, joined literals, an encoded run)
# starts at a line, so a window judges the lines it shows as the whole string would. A string whose windows meet is
# redacted whole: only what a page shows is redacted (a page's long tool inputs and outputs were most of its cost).
_MARGIN = 1024
_LINE = 8 * 1024
_REMINDER = lazy(r"<system-reminder>.*?(?:</system-reminder>|\Z)\s*", DOTALL)
_KEY_BEGIN = lazy(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = lazy(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
# What separates the words of a command line that could be paths: blanks, quotes, pipes,
# redirections, and `=`/`:`, so `cat<.env`, `--env-file=.env` and `host:~/.ssh/id_rsa` give the path.
_COMMAND_WORDS = lazy(r"[\s'\"`|&;<>()=:,]+")
# Bare words is_secret_path accepts that are far likelier a search term or a commit message
# (`grep -r secret`, `pytest -k secrets`) than a file: as paths they need a `/` or `./`.
_COMMON_WORDS = frozenset({"secret", "secrets", "credentials"})
# Sentences of a request that read like rules: what packets and the active memory call constraints.
CONSTRAINT = lazy(
    r"\b(?:don'?t|do not|never|must(?:n't| not)?|only|without|avoid|keep|no longer|shouldn'?t|should not"
    r"|make sure|required?|always|at most|no more than|not allowed)\b",
    IGNORECASE,
)
SENTENCE = lazy(r"(?<=[.!?])\s+|\n+")
_BULLET = lazy(r"^\s*(?:[-*•]|\d+[.)])\s+")


class Evidence:
    """Redacts and bounds strings for one answer, and counts what it removed."""

    def __init__(self, max_chars: int | None = 2000) -> None:
        self.max_chars = max_chars  # None: no bound (``--full``)
        self.redactor = Redactor()
        self.reminders = 0  # <system-reminder> blocks stripped

    def text(self, value: str, limit: int | None = -1) -> str:
        """``value`` redacted and, past ``limit`` (default ``max_chars``), cut to its head and tail."""
        bound = self.max_chars if limit == -1 else limit
        if bound is None or len(value) <= bound:
            return clip_middle(self.redactor(value), bound)  # a placeholder may be longer than what it replaced
        head_n, tail_n = middle_split(bound)
        head_end, tail_start = head_n + _MARGIN, len(value) - tail_n - _MARGIN
        if head_end < tail_start:
            line_end = value.find("\n", head_end, head_end + _LINE)
            line_start = value.rfind("\n", max(0, tail_start - _LINE), tail_start)
            head_end, tail_start = (line_end + 1 or head_end), (line_start + 1 or tail_start)
        # What is cut is made of redacted pieces and the cut's mark: a later pass (the Codex intake walks its answer
        # once more) need not redact it again.
        if head_end >= tail_start:
            return self.redactor.made(clip_middle(self.redactor(value), bound))
        head = self._window(value[:head_end])[:head_n]
        tail = self._window(value[tail_start:])[-tail_n:] if tail_n else ""
        return self.redactor.made(middle_join(head, len(value) - head_n - tail_n, tail))

    def _window(self, part: str) -> str:
        """A window cut out of a longer string, redacted, without the end of a key begun before it."""
        # The private_key pattern needs the BEGIN line; a key that starts before the window
        # shows up in it as body lines and an END line, so drop all of that up to the END.
        end = _KEY_END.search(part) if "PRIVATE KEY" in part else None
        if end is not None and not _KEY_BEGIN.search(part, 0, end.start()):
            self.redactor.counts["private_key"] += 1
            part = PLACEHOLDER.format(kind="private_key") + part[end.end() :]
        return self.redactor(part)

    def prose(self, value: str, limit: int | None = -1, *, count: bool = True) -> str:
        """Like :meth:`text`, after removing ``<system-reminder>`` blocks the harness injected."""
        value, n = strip_reminders(value)
        self.reminders += n if count else 0
        return self.text(value.strip(), limit)

    def value(self, obj: Any, depth: int = 0) -> Any:
        """A JSON-like value with every string redacted and bounded (keys too)."""
        if isinstance(obj, str):
            return self.text(obj)
        if depth > 8:
            return "[omitted: nested too deep]"
        if isinstance(obj, dict):
            return {self.text(str(k), 200): self.value(v, depth + 1) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.value(v, depth + 1) for v in obj]
        return obj

    def summary(self) -> Redactions:
        """How many redactions were made, in total and by kind."""
        return self.redactor.summary()


def strip_reminders(value: str) -> tuple[str, int]:
    """``value`` without the ``<system-reminder>`` blocks Claude Code injects, and how many there were."""
    if "<system-reminder>" not in value:
        return value, 0
    return _REMINDER.subn("", value)


def sentences(text: str, pattern: re.Pattern[str]) -> list[str]:
    """The sentences (and lines, list markers dropped) of ``text`` that ``pattern`` matches, each once, in order."""
    found: list[str] = []
    for part in SENTENCE.split(text):
        part = _BULLET.sub("", part).strip()
        if len(part) > 3 and pattern.search(part) and part not in found:
            found.append(part)
    return found


def constraints_in(text: str) -> list[str]:
    """The sentences of a request that read like rules (must, never, only, without, keep...)."""
    return sentences(text, CONSTRAINT)


def secret_path(value: Any) -> bool:
    """Whether a tool input's path names a secret-bearing file (its contents are never copied)."""
    return isinstance(value, str) and is_secret_path(value)


def secret_command(value: Any) -> bool:
    """Whether a command line (or other tool input text) names a secret-bearing file, so its output may hold it."""
    return isinstance(value, str) and any(
        is_secret_path(word) and word.lower() not in _COMMON_WORDS for word in _COMMAND_WORDS.split(value) if word
    )


def tool_omission(args: dict[str, Any]) -> str | None:
    """What stands in for a Claude Code tool call's secret parts, or None when it touches no secret file.

    A call naming a secret-bearing file by path (Read, Write, Edit, Grep) gets ``OMITTED_SECRET``:
    what it wrote (``SECRET_CONTENT_KEYS``) and what it returned are dropped. A command line that
    names one (``cat .env``) gets ``OMITTED_SECRET_OUTPUT``: its output is dropped, the command shown.
    The intake and ``handoff raw read`` both ask here, so they omit the same things.
    """
    if secret_path(args.get("file_path")) or secret_path(args.get("notebook_path")) or secret_path(args.get("path")):
        return OMITTED_SECRET
    return OMITTED_SECRET_OUTPUT if secret_command(args.get("command")) else None
