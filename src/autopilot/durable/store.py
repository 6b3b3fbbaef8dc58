"""The durable-knowledge log: candidates proposed by anyone, approved or revoked by a named person only.

``$AUTOPILOT_HOME/durable/log.jsonl`` is the truth: one canonical JSON object a line, appended
under a lock and fsynced, each naming the sha256 of the line before it (``prev``), so an edited
or removed line breaks the chain and is reported, never silently believed. ``rules.json`` is
the current view, written atomically after every append and rebuilt from the log whenever
its recorded last hash is not the log's. Malformed lines are counted, not fatal.

A rule (``R-…``) or decision (``D-…``) moves ``candidate`` → ``approved`` → ``revoked``, or
``candidate`` → ``revoked`` (rejected), and an approved one becomes ``superseded`` when an
approved successor names it in ``supersedes``. Approving and revoking need a *person*: a
name, the same name typed again to confirm, and a deciding channel (``dashboard`` or
``terminal``); :func:`agent_marker` names the environment variables that show a call comes
from inside an agent's own shell, where no decision is taken. Texts are redacted before
they are written; a text taken from a packet stays quoted evidence until a person approves it.
"""

from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from autopilot import clock, paths
from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.fsutil import atomic_write
from autopilot.packets.store import load
from autopilot.redact import redact
from autopilot.run.state import held

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

KINDS = {"rule": "R", "decision": "D"}
CANDIDATE, APPROVED, REVOKED, SUPERSEDED = "candidate", "approved", "revoked", "superseded"
STATUSES = (CANDIDATE, APPROVED, REVOKED, SUPERSEDED)
DECIDING_CHANNELS = ("dashboard", "terminal")  # where a person decides; agents reach neither
PROPOSING_CHANNELS = ("dashboard", "terminal", "cli", "packet")
GENESIS = "0" * 64
ID = re.compile(r"[RD]-[0-9a-f]{12}")
MAX_TEXT = 2000
MAX_NAME = 80
LOCK_TIMEOUT_S = 30.0
# Set in the shell an agent's tools run in: Claude Code's Bash tool (CLAUDECODE), Codex's
# sandboxed commands (CODEX_SANDBOX*) and its thread variables. A decision is never taken there.
AGENT_ENV = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CODEX_SANDBOX",
    "CODEX_SANDBOX_NETWORK_DISABLED",
    "CODEX_THREAD_ID",
)


def home() -> Path:
    """Where durable knowledge lives: ``$AUTOPILOT_HOME/durable``."""
    return paths.autopilot_home() / "durable"


def agent_marker(env: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """The first variable showing that this process runs inside an agent's shell, or None."""
    env = os.environ if env is None else env
    return next((name for name in AGENT_ENV if env.get(name)), None)


def check_id(value: Any) -> str:
    """``value`` when it is a rule or decision id (``R-`` or ``D-`` and 12 hex digits); anything else is refused."""
    if not isinstance(value, str) or not ID.fullmatch(value):
        raise BridgeError(
            f"{value!r} is not a durable-memory id", hint="ids look like R-0123456789ab (see `memory list`)"
        )
    return value


def check_person(name: Any, confirm: Any) -> str:
    """The person's name, when it is one (2 to 80 printable characters) and was typed the same twice."""
    if not isinstance(name, str) or not 2 <= len(name.strip()) <= MAX_NAME or not name.strip().isprintable():
        raise BridgeError("a decision needs the name of the person taking it (2 to 80 printable characters)")
    if not isinstance(confirm, str) or confirm.strip() != name.strip():
        raise BridgeError("the confirmation does not match the name", hint="type your name again, exactly")
    return name.strip()


def replay(lines: list[bytes]) -> dict[str, Any]:
    """The view the log's lines give: every rule by id, and what is wrong with the log (never raised)."""
    rules: dict[str, dict[str, Any]] = {}
    malformed, refused, breaks = 0, [], []
    prev = GENESIS
    for number, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError
        except ValueError:
            malformed += 1
            prev = sha256_hex(line)
            continue
        if entry.get("prev") != prev:
            breaks.append(number)
        prev = sha256_hex(line)
        problem = _apply(rules, entry)
        if problem:
            refused.append({"line": number, "why": problem})
    return {
        "rules": rules,
        "lastHash": prev,
        "lines": len(lines),
        "integrity": {
            "ok": not (malformed or refused or breaks),
            "malformedLines": malformed,
            "refusedLines": refused,
            "chainBreaks": breaks,
        },
    }


def _apply(rules: dict[str, dict[str, Any]], e: dict[str, Any]) -> str | None:
    """Apply one log entry to ``rules``; say why it cannot apply (the entry is then ignored)."""
    action, rid = e.get("action"), e.get("id")
    if not isinstance(rid, str) or not ID.fullmatch(rid):
        return "no valid id"
    if action == "propose":
        if rid in rules:
            return f"{rid} was proposed twice"
        rules[rid] = {
            "id": rid,
            "kind": e.get("kind"),
            "text": e.get("text"),
            "why": e.get("why"),
            "status": CANDIDATE,
            "proposed": {"by": e.get("by"), "channel": e.get("channel"), "at": e.get("at")},
            "source": e.get("source"),
            "supersedes": e.get("supersedes"),
            "supersededBy": None,
            "approved": None,
            "revoked": None,
        }
        return None
    rule = rules.get(rid)
    if rule is None:
        return f"{action} of {rid}, which was never proposed"
    if e.get("channel") not in DECIDING_CHANNELS or not e.get("person"):
        return f"{action} of {rid} without a person at a deciding channel"
    decision = {"person": e["person"], "channel": e["channel"], "at": e.get("at")}
    if action == "approve":
        if rule["status"] != CANDIDATE:
            return f"{rid} is {rule['status']}, not a candidate"
        rule.update(status=APPROVED, approved=decision)
        old = rules.get(rule["supersedes"] or "")
        if old is not None and old["status"] == APPROVED:
            old.update(status=SUPERSEDED, supersededBy=rid)
        return None
    if action == "revoke":
        if rule["status"] not in (CANDIDATE, APPROVED):
            return f"{rid} is {rule['status']} and cannot be revoked"
        rule.update(status=REVOKED, revoked={**decision, "reason": e.get("reason")})
        return None
    return f"unknown action {action!r}"


class Log:
    """The durable-knowledge log and its current view, in one directory (default :func:`home`)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.dir = folder or home()
        self.path = self.dir / "log.jsonl"
        self.view_path = self.dir / "rules.json"
        self.lock_path = self.dir / "log.lock"

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        with held(self.lock_path, LOCK_TIMEOUT_S):
            yield

    def _lines(self) -> list[bytes]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        return [line for line in data.split(b"\n") if line.strip()]

    def _last_hash(self) -> str:
        """The sha256 of the log's last line, reading only its tail."""
        try:
            with open(self.path, "rb") as fh:
                size = fh.seek(0, os.SEEK_END)
                back = min(size, 1 << 16)
                fh.seek(size - back)
                tail = fh.read()
        except FileNotFoundError:
            return GENESIS
        lines = [line for line in tail.split(b"\n") if line.strip()]
        if not lines:
            return GENESIS
        if back == size or tail.count(b"\n") > 1:
            return sha256_hex(lines[-1])
        return sha256_hex(self._lines()[-1])  # one line longer than 64 KiB: read it whole

    def _stat(self) -> list[int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return [st.st_size, st.st_mtime_ns]

    def view(self) -> dict[str, Any]:
        """The current view; rebuilt from the log (and saved) unless it was made from the log as it is now.

        "As it is now": the same last-line hash, size and modification time, so an edit anywhere
        in the log (not only at its end) makes the next read replay it and report the broken chain.
        """
        stat = self._stat()
        if stat is None:
            return replay([])  # no log yet: nothing to save
        try:
            saved = json.loads(self.view_path.read_bytes())
            if isinstance(saved, dict) and saved.get("logStat") == stat and saved.get("lastHash") == self._last_hash():
                return saved
        except (OSError, ValueError):
            pass
        with self._locked():
            return self._save(replay(self._lines()))

    def _save(self, view: dict[str, Any]) -> dict[str, Any]:
        """Write the view with the log's size and mtime it was made from; return it."""
        view = {**view, "logStat": self._stat()}
        atomic_write(self.view_path, json.dumps(view, sort_keys=True) + "\n")
        return view

    def _append(self, entry: dict[str, Any]) -> dict[str, Any]:
        """Append one entry under the lock (chained to the last line), refresh the view, return the rule."""
        with self._locked():
            lines = self._lines()
            view = replay(lines)
            problem = _apply(json.loads(json.dumps(view["rules"])), entry)  # a dry run on a copy
            if problem:
                raise BridgeError(f"refused: {problem}", hint="`codex-bridge memory list` shows each one's status")
            line = canonical({**entry, "seq": len(lines) + 1, "prev": view["lastHash"]})
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            view = replay([*lines, line])
            self._save(view)
        rule: dict[str, Any] = view["rules"][entry["id"]]
        return rule

    def propose(
        self,
        kind: str,
        text: str,
        *,
        by: str,
        channel: str,
        why: str | None = None,
        source: dict[str, Any] | None = None,
        supersedes: str | None = None,
    ) -> dict[str, Any]:
        """Add a candidate (nothing is approved by proposing it); its text is redacted first."""
        if kind not in KINDS:
            raise BridgeError(f"{kind!r} is not a kind of durable knowledge", hint="use rule or decision")
        if channel not in PROPOSING_CHANNELS:
            raise BridgeError(f"{channel!r} is not a channel", hint=", ".join(PROPOSING_CHANNELS))
        clean = redact(" ".join((text or "").split()))[0]
        if not 3 <= len(clean) <= MAX_TEXT:
            raise BridgeError(f"the text must be 3 to {MAX_TEXT} characters, not {len(clean)}")
        if supersedes is not None:
            old = self.view()["rules"].get(check_id(supersedes))
            if old is None or old["status"] != APPROVED:
                raise BridgeError(
                    f"{supersedes} is {old['status'] if old else 'unknown'}: only an approved one can be superseded"
                )
        at = clock.now()
        rid = KINDS[kind] + "-" + sha256_hex(f"{kind}\0{clean}\0{at}\0{os.urandom(8).hex()}".encode())[:12]
        return self._append(
            {
                "action": "propose",
                "id": rid,
                "kind": kind,
                "text": clean,
                "why": redact(why)[0][:MAX_TEXT] if why else None,
                "by": redact(by)[0][:MAX_NAME] if by else "unnamed",
                "channel": channel,
                "source": source,
                "supersedes": supersedes,
                "at": at,
            }
        )

    def propose_from_packet(self, packet_ref: str, constraint: int, *, by: str) -> dict[str, Any]:
        """A candidate rule from one of a verified packet's constraints, pointing at its evidence."""
        pid, packet, _ = load(packet_ref)
        found = packet.get("constraints") or []
        if not isinstance(constraint, int) or not 0 <= constraint < len(found):
            raise BridgeError(f"packet {pid} has no constraint {constraint}", hint=f"give 0 to {len(found) - 1}")
        claim = found[constraint]
        return self.propose(
            "rule",
            str(claim.get("text") or ""),
            by=by,
            channel="packet",
            why="a constraint the user stated in the handed-over session (evidence, until a person approves it)",
            source={"packet": pid, "constraint": constraint, "refs": claim.get("refs") or []},
        )

    def decide(
        self,
        action: str,
        rule_id: str,
        *,
        person: str,
        confirm: str,
        channel: str,
        reason: str | None = None,
    ) -> dict[str, Any]:
        """Approve or revoke, as a named person at a deciding channel (the name typed twice)."""
        if action not in ("approve", "revoke"):
            raise BridgeError(f"{action!r} is not a decision", hint="approve or revoke")
        if channel not in DECIDING_CHANNELS:
            raise BridgeError(
                f"a {action} can only be made by a person in the dashboard or at a terminal, not through {channel!r}"
            )
        name = check_person(person, confirm)
        entry: dict[str, Any] = {"action": action, "id": check_id(rule_id), "person": name, "channel": channel}
        entry["at"] = clock.now()
        if action == "revoke":
            entry["reason"] = redact(reason)[0][:MAX_TEXT] if reason else None
        return self._append(entry)

    def listing(self, status: str | None = None) -> dict[str, Any]:
        """Every rule and decision (newest first, optionally of one status), counts and the log's integrity."""
        if status is not None and status not in STATUSES:
            raise BridgeError(f"{status!r} is not a status", hint=", ".join(STATUSES))
        view = self.view()
        rules = sorted(view["rules"].values(), key=lambda r: r["proposed"]["at"] or "", reverse=True)
        counts = {s: sum(r["status"] == s for r in rules) for s in STATUSES}
        return {
            "rules": [r for r in rules if status is None or r["status"] == status],
            "counts": counts,
            "integrity": view["integrity"],
            "log": str(self.path),
        }
