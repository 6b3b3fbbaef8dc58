"""Page bounds shared by the Claude and Codex intakes: their defaults, and the one check of them."""

from __future__ import annotations

from autopilot.errors import BridgeError

DEFAULT_LIMIT = 12  # entries per page
DEFAULT_MAX_CHARS = 2000  # characters kept per string, head and tail
MAX_LIMIT = 500
MIN_MAX_CHARS = 80  # below this a cut string is mostly its "…[n chars omitted]…" marker


def check(*, before_line: int | None, limit: int, max_chars: int | None) -> None:
    """Nothing, or a BridgeError naming the option to change (``max_chars`` None means strings uncut)."""
    if before_line is not None and before_line < 1:
        raise BridgeError(
            f"--before-line {before_line} is not a raw line number; pass the previous page's nextBeforeLine"
        )
    if not 1 <= limit <= MAX_LIMIT:
        raise BridgeError(f"--limit {limit} is out of range; use 1 to {MAX_LIMIT}")
    if max_chars is not None and max_chars < MIN_MAX_CHARS:
        raise BridgeError(f"--max-chars {max_chars} is too small; use at least {MIN_MAX_CHARS}, or --full")
