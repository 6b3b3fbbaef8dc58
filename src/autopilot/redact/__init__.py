"""Credential redaction: every string that leaves the machine or lands in a packet passes here.

Each match is replaced by a typed placeholder ``[REDACTED:<kind>]`` and counted, so a
reader knows something was removed and of what kind. Redaction is idempotent: a
placeholder never matches a pattern. Every pattern runs in time linear in the text
(``tests/unit/test_redact_speed.py``): names are taken atomically, quantifiers inside a
line are bounded, and key bodies are found line by line, never by a backtracking regex.
Pattern-based redaction is a strong filter, not a guarantee; results of reads of
secret-bearing files are dropped elsewhere (see ``is_secret_path`` and ``KEY_FILE_LINES``).

Known formats are :mod:`.tokens` (by shape), :mod:`.named` (by name), :mod:`.shell` (by command
line), :mod:`.keys` (key bodies) and :mod:`.material` (JWKs, wallet keys, seed phrases); what nobody
listed is :mod:`.generic`'s (a generated-looking value where a credential stands: a credential-like
name, a URL's user part, a password option, a config's password field), :mod:`.bare`'s (a generated-looking token
standing alone, whatever its prefix) and :mod:`.prose`'s (a credential said in a sentence or a note); evasions and
encodings (escapes, continued lines, joined literals, base64) are undone by :mod:`.decode`.

Importing this package compiles no pattern: those modules load on the first redaction, so a command
that only asks ``is_secret_path`` (a search, a listing) does not pay for them; and each of their ~150
regular expressions (~20 ms to compile in all) is compiled only when a text first needs it
(:mod:`.patterns`), so redacting a page of prose compiles a handful.
"""

from __future__ import annotations

from autopilot.redact.files import (
    ENV_FILE_LINE,
    KEY_FILE_LINES,
    PLACEHOLDER,
    Counts,
    is_key_file_text,
    is_public_path,
    is_secret_path,
    secret_diffs,
)

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every process that redacts loads this package
if TYPE_CHECKING:
    from typing import Any, TypeVar

    from autopilot.redact.shapes import Redactions

    _Shape = TypeVar("_Shape")  # a JSON-like value: redaction changes its strings, never its shape

__all__ = [
    "ENV_FILE_LINE",
    "Counts",
    "KEY_FILE_LINES",
    "PLACEHOLDER",
    "Redactor",
    "is_env_file_text",
    "is_key_file_text",
    "is_public_path",
    "is_secret_path",
    "opens_private_key",
    "redact",
]


def redact(text: str, counts: Counts | None = None, *, decode: bool = True) -> tuple[str, Counts]:
    """Return ``text`` with credentials replaced by typed placeholders, and the counts by kind (``decode``: also
    withhold a base64, hex or escaped run whose decoded text holds one)."""
    counts = Counts() if counts is None else counts
    if not text:
        return text, counts
    plan = _PLAN or _plan()
    apply_all = plan.apply_all
    # A zero-width character inside a token or a percent-encoded token would hide it from every pattern.
    text = plan.undo_evasions(text, counts, plan.tokens)
    if decode:  # a secret cut into joined string literals, or across continued lines, is judged whole
        text = plan.split_literals(text, counts, _plain)
        text = plan.joined_lines(text, counts, _plain)
    if "diff --git" in text:  # an agent's `git diff` output: a secret-bearing file's diff goes whole
        text = secret_diffs(text, counts)
    lowered = text.lower()
    apply_hinted = plan.apply_hinted
    text = apply_all(plan.private_key, text, lowered, counts)
    # Key bodies without their BEGIN line next, before any other pattern cuts them into pieces.
    text = plan.key_bodies(text, counts)
    # Token shapes before names with values, so `API_KEY=sk-…` is reported as the token it is.
    text = apply_hinted(plan.shapes, text, lowered, counts)
    text = apply_hinted(plan.named_global, text, lowered, counts)
    text = plan.apply_local(plan.named, text, lowered, counts)
    # The generic rule last: what the named rules withheld is a placeholder by now, not a value to judge.
    text = apply_hinted(plan.generic, text, lowered, counts)
    text = plan.seed_phrases(text, counts)
    if decode:  # a secret written in an encoding (base64, hex) or in escapes (JSON, HTML, URL) is judged decoded
        text = plan.decoded_lines(plan.encoded_secrets(text, counts, _plain), counts, _plain)
    return text, counts


class _Plan:
    """The rule modules' functions and rule lists in the order :func:`redact` runs them, gathered on its first call (a
    page redacts hundreds of short strings: importing names and joining lists on every call cost a tenth of it)."""

    def __init__(self) -> None:
        from autopilot.redact.bare import BARE
        from autopilot.redact.decode import decoded_lines, encoded_secrets, joined_lines, split_literals, undo_evasions
        from autopilot.redact.generic import GENERIC
        from autopilot.redact.keys import key_bodies
        from autopilot.redact.material import MATERIAL, seed_phrases
        from autopilot.redact.named import NAMED
        from autopilot.redact.prose import PROSE
        from autopilot.redact.rules import Hints, apply_all, apply_hinted, apply_local
        from autopilot.redact.shell import SHELL
        from autopilot.redact.tokens import PRIVATE_KEY, TOKENS

        self.undo_evasions, self.split_literals, self.encoded_secrets = undo_evasions, split_literals, encoded_secrets
        self.joined_lines, self.decoded_lines = joined_lines, decoded_lines
        self.key_bodies, self.seed_phrases, self.apply_all, self.apply_local = (
            key_bodies,
            seed_phrases,
            apply_all,
            apply_local,
        )
        self.apply_hinted = apply_hinted
        self.tokens, self.private_key, self.shapes = TOKENS, [PRIVATE_KEY], Hints(MATERIAL + TOKENS)
        self.named = NAMED + SHELL + PROSE  # prose last: what code assigns is a placeholder by then
        self.named_global = Hints([rule for rule in self.named if not rule.local])
        self.generic = Hints(GENERIC + BARE)


_PLAN: _Plan | None = None


def _plan() -> _Plan:
    global _PLAN
    _PLAN = _Plan()
    return _PLAN


def _plain(text: str, counts: Counts) -> tuple[str, Counts]:
    """:func:`redact` of a decoded run (not decoded again)."""
    return redact(text, counts, decode=False)


def opens_private_key(text: str) -> bool:
    """Whether ``text`` holds the BEGIN line of a private key (see :func:`.keys.opens_private_key`)."""
    from autopilot.redact.keys import opens_private_key as opens

    return opens(text)


def is_env_file_text(text: str) -> bool:
    """Whether file contents read like a ``.env`` file with a secret in it (see :func:`.envfile.is_env_file_text`)."""
    from autopilot.redact.envfile import is_env_file_text as judge

    return judge(text)


# A Redactor remembers what it made of short strings: a page repeats its keys and ids many times
# ("line", "turnId", a thread id: 243 strings, 133 distinct, in a Codex intake page).
MEMO_CHARS = 200
MEMO_ENTRIES = 4096


class Redactor:
    """Redacts many strings and keeps one running count of what it removed."""

    def __init__(self) -> None:
        self.counts: Counts = Counts()
        self._memo: dict[str, tuple[str, Counts]] = {}
        self._made: set[str] = set()  # long strings this redactor returned

    def __call__(self, text: str) -> str:
        """Redact one string, adding to the running counts (each occurrence counts, a repeated one too)."""
        known = self._memo.get(text)
        if known is None:
            if len(text) > MEMO_CHARS:
                # A string this redactor made is returned as it is: redacting it again changes nothing (redaction is
                # idempotent; tests/unit/redact/test_redactor.py holds it on the secret corpus), and an answer walked
                # once more after its fields were redacted (the Codex intake's last pass) paid for its longest
                # strings twice, a quarter of a page.
                if text in self._made:
                    return text
                made = redact(text, self.counts)[0]
                if len(self._made) < MEMO_ENTRIES:
                    self._made.add(made)
                return made
            known = redact(text, Counts())
            if len(self._memo) < MEMO_ENTRIES:
                self._memo[text] = known
        if known[1]:
            self.counts.update(known[1])
        return known[0]

    def made(self, text: str) -> str:
        """``text`` (redacted strings joined by what holds no secret: a cut's mark), remembered as this redactor's own
        so a later call returns it as it is; returned."""
        if len(text) > MEMO_CHARS and len(self._made) < MEMO_ENTRIES:
            self._made.add(text)
        return text

    def walk(self, value: _Shape) -> _Shape:
        """Redact every string inside a JSON-like value (keys included); the value keeps its shape."""
        return self._walk(value)  # type: ignore[no-any-return]  # the same shape, strings redacted

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {self(k) if isinstance(k, str) else k: self._walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._walk(v) for v in value]
        return value

    def summary(self) -> Redactions:
        """How many redactions were made, in total and by kind."""
        return {"total": sum(self.counts.values()), "by_kind": dict(sorted(self.counts.items()))}
