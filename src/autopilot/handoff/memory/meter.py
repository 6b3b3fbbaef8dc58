"""What the memory injected into each session: bytes, characters and estimated tokens, from its own records.

Every injection the hooks make is recorded in the session's active-memory folder: the changed facts in
``injections.jsonl`` (``memory.inject``) and the approved rules in ``rules.jsonl``
(``durable.deliver``), each record with the bytes and characters of the text it added to the
session's context. This module adds them up per session, for ``codex-bridge report``, so a person
sees what memory costs beside what Codex costs. Tokens are an estimate, characters / 4 (the packets'
estimate), not a tokenizer count. Read-only; a line that cannot be read is counted, never fatal.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import orjson

from autopilot.handoff.memory import observe

CHARS_PER_TOKEN = 4  # the same estimate as packets.refs.CHARS_PER_TOKEN
KINDS = (("facts", observe.INJECTIONS, "injection"), ("rules", observe.RULES, "rules"))


def estimate(chars: int) -> int:
    """The tokens ``chars`` characters of English and code are estimated as (rounded up)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def _session(folder: Path, worktree: str | None, since: str | None) -> dict[str, Any] | None:
    """One session's totals (None when nothing of it was injected at or after ``since``)."""
    agent, _, session = folder.name.partition("-")
    out: dict[str, Any] = {"agent": agent, "session": session, "worktree": worktree, "malformed": 0}
    times: list[str] = []
    for name, file, kind in KINDS:
        count = size = chars = 0
        try:
            data = (folder / file).read_bytes()
        except FileNotFoundError:
            data = b""
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                rec = orjson.loads(raw)
            except orjson.JSONDecodeError:
                out["malformed"] += 1
                continue
            if not isinstance(rec, dict) or rec.get("kind") != kind:
                out["malformed"] += 1
                continue
            at = rec.get("at")
            if since is not None and (not isinstance(at, str) or at < since):
                continue
            b, c = rec.get("bytes"), rec.get("chars")
            if type(b) is not int or type(c) is not int or b <= 0:
                continue  # a reset that injected nothing, or a record from before sizes were kept
            count, size, chars = count + 1, size + b, chars + c
            times.append(at if isinstance(at, str) else "")
        out[name] = {"injections": count, "bytes": size, "chars": chars, "tokens": estimate(chars)}
    if not times and not out["malformed"]:
        return None
    out["bytes"] = out["facts"]["bytes"] + out["rules"]["bytes"]
    out["tokens"] = estimate(out["facts"]["chars"] + out["rules"]["chars"])
    out["first"], out["last"] = (min(times), max(times)) if times else (None, None)
    return out


def injected(since: str | None = None, root: str | None = None) -> dict[str, Any]:
    """Per session (newest last injection last), what the memory injected at or after ``since``, and the total."""
    base = Path(root if root is not None else os.path.join(observe.home(), "handoff", "active"))
    sessions = []
    try:
        trees = sorted(p for p in base.iterdir() if p.is_dir())
    except OSError:
        trees = []
    for tree in trees:
        try:
            worktree: str | None = (tree / observe.WORKTREE_FILE).read_text(encoding="utf-8").strip() or None
        except OSError:
            worktree = None
        for folder in sorted(p for p in tree.iterdir() if p.is_dir() and p.name.split("-")[0] in observe.AGENTS):
            found = _session(folder, worktree, since)
            if found is not None:
                sessions.append(found)
    sessions.sort(key=lambda s: (s["last"] or "", s["agent"], s["session"]))
    chars = sum(s["facts"]["chars"] + s["rules"]["chars"] for s in sessions)
    return {
        "since": since,
        "sessions": sessions,
        "total": {
            "sessions": len(sessions),
            "injections": sum(s["facts"]["injections"] + s["rules"]["injections"] for s in sessions),
            "bytes": sum(s["bytes"] for s in sessions),
            "chars": chars,
            "tokens": estimate(chars),
            "malformed": sum(s["malformed"] for s in sessions),
        },
        "method": f"bytes as recorded at each injection; tokens estimated as characters / {CHARS_PER_TOKEN}",
    }


def table(found: dict[str, Any], codex_input: int) -> list[str]:
    """The sessions as a table for people, under the Codex spend, with the total against Codex's input tokens."""
    total = found["total"]
    if not found["sessions"]:
        return ["", "Memory injected: nothing recorded" + (" in that time" if found.get("since") else "")]
    heads = ("injections", "facts B", "rules B", "bytes", "~tokens")
    rows = [
        (
            f"{s['agent']} {s['session'][:8]} {os.path.basename(s['worktree'] or '?')}",
            f"{s['facts']['injections'] + s['rules']['injections']:,}",
            f"{s['facts']['bytes']:,}",
            f"{s['rules']['bytes']:,}",
            f"{s['bytes']:,}",
            f"{s['tokens']:,}",
        )
        for s in found["sessions"]
    ]
    facts = sum(s["facts"]["bytes"] for s in found["sessions"])
    rules = sum(s["rules"]["bytes"] for s in found["sessions"])
    rows.append(
        ("total", f"{total['injections']:,}", f"{facts:,}", f"{rules:,}", f"{total['bytes']:,}", f"{total['tokens']:,}")
    )
    width = max(len("session"), *(len(r[0]) for r in rows))
    widths = [max(len(h), *(len(r[i + 1]) for r in rows)) for i, h in enumerate(heads)]

    def line(cells: tuple[str, ...]) -> str:
        return f"{cells[0]:<{width}}  " + "  ".join(f"{c:>{w}}" for c, w in zip(cells[1:], widths, strict=True))

    out = ["", "Memory injected by session (facts and approved rules; ~tokens = characters / 4, an estimate)"]
    out += [line(("session", *heads)), *(line(r) for r in rows[:-1]), "-" * len(line(rows[-1])), line(rows[-1])]
    if codex_input:
        out.append(
            f"memory injected ~{total['tokens']:,} tokens into agents' contexts; Codex was sent {codex_input:,} "
            f"input tokens ({total['tokens'] / codex_input:.1%} of that)"
        )
    if total["malformed"]:
        out.append(f"{total['malformed']} injection records could not be read and were skipped")
    return out
