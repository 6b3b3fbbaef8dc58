"""Offering a handover before a rate limit: the windows as last seen, and the once-per-window offer.

Claude Code hands its status-line command its own plan windows (``rate_limits.five_hour`` /
``seven_day``, each ``used_percentage`` and ``resets_at``; seen with claude 2.1.332 on a subscription
login: none with an API key); ``codex/ratelimits.py`` reads Codex's from its rollouts. ``codex-bridge
statusline`` records both here (:func:`record`, Codex's at most once a minute), in
``$AUTOPILOT_HOME/handoff/limits.json``. When a window is at least :data:`THRESHOLD` percent used, the
next prompt or turn end in Claude Code (:func:`offer`, called by the hooks only when that file exists)
offers ``$handoff`` once per window and reset, with a packet of the session already exported for Codex
to preview: before Claude's own limit, to carry on in Codex; before Codex's, while Codex can still take
the work. No model is asked.

The file is small and rewritten whole (a temporary file, then ``os.replace``); one that cannot be read
is treated as absent. Kept lean: the status line runs this on every render.
"""

from __future__ import annotations

import os

from autopilot import clock
from autopilot.codex import ratelimits
from autopilot.fastjson import dumps, parse_json
from autopilot.handoff.memory import observe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeGuard

    from autopilot.handoff.memory.shapes import Limits, LimitWindow, SeenLimits

FILE = "limits.json"
THRESHOLD = 90.0  # percent used from which a handover is offered
CODEX_EVERY_S = 60.0  # how often the status line reads Codex's windows
OFFERS = "offers.json"  # in a session's memory: the windows it was already offered a handover for
NAMES = {"five_hour": "5-hour", "seven_day": "weekly"}


def path() -> str:
    """``$AUTOPILOT_HOME/handoff/limits.json``."""
    return os.path.join(observe.home(), "handoff", FILE)


def load() -> Limits:
    """The windows as last recorded, each checked (empty when none were or the file cannot be read; what is not
    as this module writes it, an edit by hand for one, is left out)."""
    try:
        with open(path(), encoding="utf-8") as fh:
            doc = parse_json(fh.read())
    except (OSError, ValueError, RecursionError):
        return {}
    found: Limits = {}
    if isinstance(doc, dict):
        claude, codex = _seen(doc.get("claude")), _seen(doc.get("codex"))
        if claude is not None:
            found["claude"] = claude
        if codex is not None:
            found["codex"] = codex
    return found


def _seen(value: object) -> SeenLimits | None:
    """One agent's record as read back, keeping the windows whose values are numbers; None when it is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("windows"), dict):
        return None
    at = value.get("at")
    windows: dict[str, LimitWindow] = {}
    for name, window in value["windows"].items():
        used = window.get("used") if isinstance(window, dict) else None
        resets = window.get("resetsAt") if isinstance(window, dict) else None
        if not _number(used) or not (resets is None or _number(resets)):
            continue
        windows[str(name)] = {"used": float(used), "resetsAt": None if resets is None else int(resets)}
    return {"windows": windows, "at": float(at) if _number(at) else 0.0}


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _write(doc: Limits) -> None:
    target = path()
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = f"{target}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(dumps(doc))
    os.replace(tmp, target)


def claude_windows(rate_limits: object) -> dict[str, LimitWindow]:
    """Claude's windows from the status line's ``rate_limits`` ({name: {"used", "resetsAt"}}); {} when absent."""
    out: dict[str, LimitWindow] = {}
    if not isinstance(rate_limits, dict):
        return out
    for key, name in NAMES.items():
        window = rate_limits.get(key)
        used = window.get("used_percentage") if isinstance(window, dict) else None
        if isinstance(used, (int, float)) and not isinstance(used, bool):
            resets = window.get("resets_at") if isinstance(window, dict) else None
            out[name] = {"used": float(used), "resetsAt": resets if isinstance(resets, int) else None}
    return out


def codex_windows() -> dict[str, LimitWindow]:
    """Codex's windows from its newest rollouts ({name: {"used", "resetsAt"}}); {} when none has them."""
    latest = ratelimits.latest()
    out: dict[str, LimitWindow] = {}
    if latest is None:
        return out
    for key, window in (("primary", latest["primary"]), ("secondary", latest["secondary"])):
        if window and not window["reset"]:
            out[ratelimits.NAMES[key]] = {"used": float(window["used_percent"]), "resetsAt": window["resets_at_unix"]}
    return out


def record(status_line: dict[str, Any], now: float | None = None) -> None:
    """Keep the windows the status line's input shows for Claude, and Codex's (read at most once a minute)."""
    now = clock.unix() if now is None else now
    doc = load()
    changed = False
    claude = claude_windows(status_line.get("rate_limits"))
    before = doc.get("claude")
    if claude and (before is None or before["windows"] != claude):
        doc["claude"] = {"windows": claude, "at": now}
        changed = True
    codex = doc.get("codex")
    if codex is None or now - codex["at"] >= CODEX_EVERY_S:
        try:
            doc["codex"] = {"windows": codex_windows(), "at": now}
        except Exception:  # unreadable rollouts never break the status line
            doc["codex"] = {"windows": {}, "at": now}
        changed = True
    if changed and ("claude" in doc or ("codex" in doc and doc["codex"]["windows"])):
        _write(doc)


def near(doc: Limits, now: float | None = None) -> list[tuple[str, str, float, int | None]]:
    """The windows at least THRESHOLD percent used that have not reset: (agent, window, used, resets at)."""
    now = clock.unix() if now is None else now
    out = []
    for agent, seen in (("claude", doc.get("claude")), ("codex", doc.get("codex"))):
        for name, window in (seen["windows"] if seen else {}).items():
            used, resets = window["used"], window["resetsAt"]
            if used < THRESHOLD or (resets is not None and resets <= now):
                continue  # not near its limit, or it has reset since
            out.append((agent, name, used, resets))
    return out


def due(session_dir: str, now: float | None = None) -> list[tuple[str, str, float, int | None]]:
    """The near-full windows this session was not offered a handover for yet."""
    offered = _offered(session_dir)
    return [w for w in near(load(), now) if _key(w) not in offered]


def _key(window: tuple[str, str, float, int | None]) -> str:
    return f"{window[0]}:{window[1]}:{window[3]}"


def _offered(session_dir: str) -> list[str]:
    try:
        with open(os.path.join(session_dir, OFFERS), encoding="utf-8") as fh:
            doc = parse_json(fh.read())
    except (OSError, ValueError, RecursionError):
        return []
    return [str(k) for k in doc] if isinstance(doc, list) else []


def mark_offered(session_dir: str, windows: list[tuple[str, str, float, int | None]]) -> None:
    """Remember that the session was offered a handover for these windows (until they reset)."""
    keys = list(dict.fromkeys([*_offered(session_dir), *(_key(w) for w in windows)]))[-50:]
    os.makedirs(session_dir, exist_ok=True)
    tmp = os.path.join(session_dir, f"{OFFERS}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(dumps(keys))
    os.replace(tmp, os.path.join(session_dir, OFFERS))


def _when(unix: int | None) -> str:
    if unix is None:
        return "reset time unknown"
    return "resets " + clock.utc("%Y-%m-%d %H:%M UTC", unix)


def offer_text(windows: list[tuple[str, str, float, int | None]], packet: str | None, why: str | None) -> str:
    """The person's notice: which window is nearly used, and the handover ready for it."""
    agent, name, used, resets = max(windows, key=lambda w: w[2])
    who = "Claude's" if agent == "claude" else "Codex's"
    head = f"codex-autopilot: {who} {name} limit is {used:g}% used ({_when(resets)})."
    if agent == "claude":
        head += " To carry on in Codex before it runs out, type $handoff (then $from-claude in Codex)."
    else:
        head += " If this session is to go to Codex, hand it over while Codex can still take it: type $handoff."
    ready = (
        f" A packet of this session is ready to preview: codex-bridge handoff inspect {packet}"
        if packet
        else f" (no packet was made: {why})"
    )
    return head + ready
