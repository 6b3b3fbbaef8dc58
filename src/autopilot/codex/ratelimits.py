"""Codex's rate-limit windows as its rollouts last recorded them: how much of each is used, when it resets.

The Codex service sends a ChatGPT plan's windows as response headers (``x-codex-primary-*``, the 5-hour
window; ``x-codex-secondary-*``, the weekly one) and Codex writes them into every ``token_count`` event of
the rollout: ``payload.rate_limits = {limit_id, limit_name, primary: {used_percent, window_minutes,
resets_at}, secondary: {…}, plan_type, …}`` (verified on codex 0.171; a session without them, an API-key
login, records ``primary: null``). :func:`latest` returns the newest record that has a window.

The status line calls it on every render, so it stays quick: it imports only ``os`` and ``time`` (JSON
goes through the C scanner the json package itself uses, which spares ``re``); it lists only the day
folders of the last RECENT_DAYS days, newest file first, reads only the end of at most MAX_FILES
rollouts (FIRST_TAIL bytes, TAIL when needed) and only each one's newest token_count, and stops at the
first that has a window. A thread resumed more than RECENT_DAYS days after it started keeps writing to
its old folder and is not looked at.
"""

from __future__ import annotations

import os

from autopilot import clock, config
from autopilot.fastjson import parse_json

TYPE_CHECKING = False  # typing and pathlib cost milliseconds to import; this idiom keeps them off this path
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from autopilot.codex.shapes import RateLimits, Window

RECENT_DAYS = 8  # a weekly window that started before this has reset anyway
MAX_FILES = 24
FIRST_TAIL = 32 * 1024  # a turn's token_count is usually in its rollout's last few kB
TAIL = 256 * 1024
SUFFIXES = (".jsonl", ".jsonl.zst")  # codex/sessions.SUFFIXES
NAMES = {"primary": "5-hour", "secondary": "weekly"}  # what the Codex service's two windows are


def latest(codex_home: Path | str | None = None, *, now: float | None = None) -> RateLimits | None:
    """The newest rate-limit record under ``$CODEX_HOME/sessions``, or None when no recent rollout has one.

    ``{"rollout", "at", "limit_id", "limit_name", "plan_type", "primary", "secondary"}``; each window is
    None or ``{"used_percent", "left_percent", "window_minutes", "resets_at" (ISO, UTC), "resets_at_unix",
    "reset"}``. ``reset`` is true once the window has reset since the record (``left_percent`` is then 100).
    """
    now = clock.unix() if now is None else now
    sessions = os.path.join(os.fspath(codex_home), "sessions") if codex_home is not None else _sessions_dir()
    for _mtime, path in _recent(sessions, now)[:MAX_FILES]:
        found = _newest_record(path)
        if found is not None:
            return _describe(found, path, now)
    return None


def _sessions_dir() -> str:
    """Codex's sessions folder as ``config.reader_dir("codex_sessions_dir")`` says, without reading YAML.

    The environment variable, else ``$CODEX_HOME/sessions``, unless the config file names the key:
    only then is the config file parsed (YAML) to read it. A test keeps the two equal.
    """
    given = config.env("AUTOPILOT_CODEX_SESSIONS_DIR")
    if given:
        return os.path.expanduser(given)
    try:
        with open(config.env("AUTOPILOT_CONFIG") or os.path.join(config.autopilot_home(), "config.yaml"), "rb") as fh:
            named = b"codex_sessions_dir" in fh.read()
    except OSError:
        named = False
    if named:
        return os.fspath(config.reader_dir("codex_sessions_dir")[0])
    return os.path.join(config.codex_home(), "sessions")


def _desc(folder: str) -> list[str]:
    """The all-digit names in ``folder`` (years, months, days), largest first."""
    try:
        return sorted((n for n in os.listdir(folder) if n.isdigit()), reverse=True)
    except OSError:
        return []


def _recent(sessions: str, now: float) -> list[tuple[float, str]]:
    """The rollouts in the day folders (``YYYY/MM/DD``) of the last RECENT_DAYS days, newest mtime first."""
    cutoff = clock.local("%Y%m%d", now - RECENT_DAYS * 86400)
    found: list[tuple[float, str]] = []
    for year in _desc(sessions):
        if year < cutoff[:4]:
            break
        for month in _desc(os.path.join(sessions, year)):
            if year + month < cutoff[:6]:
                break
            for day in _desc(os.path.join(sessions, year, month)):
                if year + month + day < cutoff:
                    break
                try:
                    with os.scandir(os.path.join(sessions, year, month, day)) as entries:
                        for entry in entries:
                            if entry.name.startswith("rollout-") and entry.name.endswith(SUFFIXES):
                                found.append((entry.stat().st_mtime, entry.path))
                except OSError:
                    continue
    found.sort(reverse=True)
    return found


def _tail(path: str, limit: int) -> tuple[bytes, bool]:
    """The last ``limit`` bytes of a rollout from its first whole line on, and whether that is all of it
    (a ``.jsonl.zst`` is decompressed as a stream, keeping only its end)."""
    if path.endswith(".zst"):
        from autopilot.codex.sessions import open_rollout  # zstandard: only for a compressed rollout

        kept = b""
        with open_rollout(path) as stream:
            while chunk := stream.read(1 << 20):
                kept = (kept + chunk)[-limit:]
        whole = len(kept) < limit
    else:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            fh.seek(max(0, size - limit))
            kept = fh.read(limit)
        whole = size <= limit
    return (kept, True) if whole else (kept[kept.find(b"\n") + 1 :], False)


def _newest_record(path: str) -> dict[str, Any] | None:
    """The rate limits of the rollout's newest ``token_count`` event, when they have a window.

    Only the newest event counts: a session whose latest turn recorded no window (an API-key login) has
    none to give, so the file is passed over without reading further back. The tail is read small first
    (FIRST_TAIL), then up to TAIL when no token_count is in it.
    """
    for limit in (FIRST_TAIL, TAIL) if not path.endswith(".zst") else (TAIL,):
        try:
            tail, whole = _tail(path, limit)
        except Exception:  # gone, unreadable, or a damaged .zst: not a record
            return None
        end = len(tail)
        while (hit := tail.rfind(b'"token_count"', 0, end)) >= 0:
            start = tail.rfind(b"\n", 0, hit) + 1
            stop = tail.find(b"\n", hit)
            line, end = tail[start : stop if stop >= 0 else len(tail)], start
            try:
                event = parse_json(line.decode("utf-8", "replace"))
            except ValueError:
                continue  # a torn or damaged line: the one before may be whole
            if not isinstance(event, dict):
                continue
            payload = event.get("payload")
            if not isinstance(payload, dict) or payload.get("type") != "token_count":
                continue  # the words in some other event's text
            limits = payload.get("rate_limits")
            if isinstance(limits, dict) and _windows(limits):
                return {"at": event.get("timestamp"), **limits}
            return None
        if whole:
            return None
    return None


def _windows(limits: dict[str, Any]) -> list[str]:
    return [k for k in ("primary", "secondary") if isinstance(limits.get(k), dict)]


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _describe(record: dict[str, Any], path: str, now: float) -> RateLimits:
    at = record.get("at") if isinstance(record.get("at"), str) else None
    return {
        "rollout": path,
        "at": at,
        "limit_id": record.get("limit_id"),
        "limit_name": record.get("limit_name"),
        "plan_type": record.get("plan_type"),
        "primary": _window(record.get("primary"), at, now),
        "secondary": _window(record.get("secondary"), at, now),
    }


def _window(raw: object, at: str | None, now: float) -> Window | None:
    """One window of a record as Codex wrote it, with what is left of it ``now`` (None: no window)."""
    if not isinstance(raw, dict):
        return None
    used = _number(raw.get("used_percent")) or 0.0
    minutes = _number(raw.get("window_minutes"))
    resets = _number(raw.get("resets_at"))
    # Without a reset time, the window is over once its length has passed since the record.
    over = (
        resets <= now if resets is not None else bool(minutes and at and (clock.epoch(at) or 0.0) + minutes * 60 <= now)
    )
    return {
        "used_percent": used,
        "left_percent": 100.0 if over else max(0.0, round(100.0 - used, 2)),
        "window_minutes": int(minutes) if minutes is not None else None,
        "resets_at": clock.iso(resets) if resets is not None else None,
        "resets_at_unix": int(resets) if resets is not None else None,
        "reset": over,
    }


def window_name(key: str, window: Window) -> str:
    """What a person calls the window: ``5-hour``, ``weekly``, or its length."""
    minutes = window.get("window_minutes")
    if minutes == 300 or (minutes is None and key == "primary"):
        return "5-hour"
    if minutes == 10080 or (minutes is None and key == "secondary"):
        return "weekly"
    assert isinstance(minutes, int)
    return f"{minutes // 1440}-day" if minutes % 1440 == 0 else f"{minutes / 60:g}-hour"


def short_window(record: RateLimits | None, min_left: float) -> tuple[str, Window] | None:
    """The window (its name and itself) with less than ``min_left`` percent left, the emptiest first; else None."""
    if record is None:
        return None
    short = [
        (window_name(key, window), window)
        for key, window in (("primary", record["primary"]), ("secondary", record["secondary"]))
        if window and window["left_percent"] < min_left
    ]
    return min(short, key=lambda item: item[1]["left_percent"]) if short else None


def until(unix: int | None, now: float | None = None) -> str:
    """How long until ``unix``, for people (``in 2 h 05 min``); '' when unknown."""
    if unix is None:
        return ""
    seconds = max(0, int(unix - (clock.unix() if now is None else now)))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    if days:
        return f"in {days} d {hours} h"
    return f"in {hours} h {rest // 60:02d} min" if hours else f"in {max(1, rest // 60)} min"


def window_text(key: str, window: Window, now: float | None = None) -> str:
    """One window for people: ``5-hour window: 57% left, resets 2026-12-01 14:05 UTC (in 2 h 05 min)``."""
    name = window_name(key, window)
    if window["reset"]:
        return f"{name} window: reset since Codex last reported it"
    resets = window.get("resets_at")
    when = f", resets {resets[:16].replace('T', ' ')} UTC ({until(window['resets_at_unix'], now)})" if resets else ""
    return f"{name} window: {window['left_percent']:g}% left{when}"
