"""The clock: the one home of reading "now", of writing a time as text (file-name stamps too), and of reading
ISO 8601 back. (``time.monotonic()`` and ``time.perf_counter()`` measure durations and deadlines, not the time
of day: they are read where they are needed.)

Every timestamp the bridge writes is UTC with a ``Z``, at the precision its file has always used:
seconds (packets, durable rules, rate-limit resets), milliseconds (the active memory's observations,
as the transcripts write theirs) or microseconds (``state.json`` and ``events.jsonl``, whose order
within a second matters). Reading accepts ``Z`` or ``z`` and any offset Python's ``fromisoformat``
reads.

On the hook hot path (the active memory stamps each observation): only ``time`` is imported here;
``datetime`` loads in the functions that need it.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

SECONDS = "%Y-%m-%dT%H:%M:%SZ"


def unix() -> float:
    """The current time as Unix seconds (``time.time()``)."""
    return time.time()


def utc_now() -> datetime:
    """The current time as an aware UTC datetime."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc)


def utc(fmt: str, seconds: float | None = None) -> str:
    """Unix ``seconds`` (now when None) as UTC in the strftime format ``fmt``: ``utc("%Y-%m-%d")``."""
    return time.strftime(fmt, time.gmtime(seconds))


def local(fmt: str, seconds: float | None = None) -> str:
    """Unix ``seconds`` (now when None) in this machine's time zone, in the strftime format ``fmt``."""
    return time.strftime(fmt, time.localtime(seconds))


def now() -> str:
    """The current UTC time to the second: ``2026-12-01T04:37:31Z``."""
    return iso(time.time())


def now_ms() -> str:
    """The current UTC time to the millisecond: ``2026-12-01T04:37:31.098Z`` (the transcripts' format)."""
    t = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


def now_us() -> str:
    """The current UTC time to the microsecond: ``2026-12-01T04:37:31.098765Z``."""
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def iso(seconds: float) -> str:
    """Unix ``seconds`` as UTC to the second: ``2026-12-01T04:37:31Z``."""
    return time.strftime(SECONDS, time.gmtime(seconds))


def iso_us(moment: datetime) -> str:
    """``moment`` as UTC to the microsecond, in :func:`now_us`'s format (a naive datetime is taken as UTC)."""
    from datetime import timezone

    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def stamp() -> str:
    """A file-name-safe UTC stamp that stays unique under a frozen clock: ``20261201T043731.098765Z-a1b2c3``."""
    import secrets
    from datetime import datetime, timezone

    t = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{t}-{secrets.token_hex(3)}"


def parse(text: str) -> datetime:
    """An ISO 8601 time (``Z`` or ``z`` for UTC); naive when it names no zone; ValueError when it is none."""
    from datetime import datetime

    text = text.strip()
    return datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)


def epoch(value: object) -> float | None:
    """Unix seconds of an ISO 8601 time, or None for anything that is not one."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return parse(value).timestamp()
    except ValueError:
        return None


def seconds_between(a: object, b: object) -> float:
    """Seconds between two ISO 8601 times, either way round (infinite when either is not one)."""
    try:
        return abs((parse(str(b)) - parse(str(a))).total_seconds())
    except (TypeError, ValueError):  # TypeError: one names a zone and the other does not
        return float("inf")
