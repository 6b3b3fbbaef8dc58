"""The durable-knowledge log: candidates proposed by anyone, approved or revoked by a named person only.

``$AUTOPILOT_HOME/durable/log.jsonl`` is the truth: one canonical JSON object a line, appended
under a lock and fsynced, each naming the sha256 of the line before it (``prev``), so an edited
or removed line breaks the chain and is reported, never silently believed. ``rules.json`` is
the current view, written atomically after every append and checked against the log on every
read (:mod:`.view`). Malformed lines are counted, not fatal.

A rule (``R-…``) or decision (``D-…``) moves ``candidate`` → ``approved`` → ``revoked``, or
``candidate`` → ``revoked`` (rejected), and an approved one becomes ``superseded`` when an
approved successor names it in ``supersedes``. Approving and revoking need a *person*: a
name, the approval passphrase only the person knows (:mod:`.secret`), and a deciding channel
(``dashboard`` or ``terminal``); :func:`agent_marker` names the environment variables that
show a call comes from inside an agent's own shell, where no decision is even asked for.
Texts are redacted before they are written; a text taken from a packet stays quoted evidence
until a person approves it.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from autopilot import clock
from autopilot.digest import canonical, sha256_hex
from autopilot.errors import BridgeError
from autopilot.handoff.memory.origin import (
    AGENT_ENV,  # the variables an agent's shell sets; a decision is never taken there
)
from autopilot.handoff.packets.store import load
from autopilot.handoff.sources.project import Project
from autopilot.knowledge.durable import managed
from autopilot.knowledge.durable.secret import sign, verify
from autopilot.knowledge.durable.view import (
    APPROVED,
    DECIDING_CHANNELS,
    ID,
    KINDS,
    PROPOSING_CHANNELS,
    SHARED,
    SIGNED,
    STATUSES,
    Reader,
    apply,
    replay,
)
from autopilot.redact import Redactor, redact

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Listing, Rule

MAX_TEXT = 2000
MAX_NAME = 80


def agent_marker(env: dict[str, str] | os._Environ[str] | None = None) -> str | None:
    """The first variable showing that this process runs inside an agent's shell, or None."""
    env = os.environ if env is None else env
    return next((name for name in AGENT_ENV if env.get(name)), None)


def check_id(value: Any) -> str:
    """``value`` when it is a rule or decision id (``R-`` or ``D-`` and 12 hex digits); anything else is refused."""
    if not isinstance(value, str) or not ID.fullmatch(value):
        raise BridgeError(
            f"{value!r} is not a durable-memory id", hint="ids look like R-0123456789ab (see `durable list`)"
        )
    return value


def project_scope(cwd: str | None) -> dict[str, str]:
    """The project a rule proposed in ``cwd`` holds in: its repository's root and identity (every worktree of it)."""
    project = Project(cwd)
    return {"root": project.root, "repoId": project.repo_id}


def redact_walk(value: dict[str, Any]) -> dict[str, Any]:
    """``value`` with every string in it redacted."""
    return Redactor().walk(value)


def check_person(name: Any) -> str:
    """The person's name, when it is one (2 to 80 printable characters)."""
    if not isinstance(name, str) or not 2 <= len(name.strip()) <= MAX_NAME or not name.strip().isprintable():
        raise BridgeError("a decision needs the name of the person taking it (2 to 80 printable characters)")
    return name.strip()


class Log(Reader):
    """The durable-knowledge log and its current view, in one directory (default :func:`home`)."""

    def _append(self, entry: dict[str, Any]) -> Rule:
        """Append one entry under the lock (chained to the last line), refresh the view, return the rule."""
        with self.locked():
            lines = self.lines()
            anchors = self.anchors()
            view = replay(lines, anchors)
            problem = apply(json.loads(json.dumps(view["rules"])), entry, anchors)  # a dry run on a copy
            if problem:
                raise BridgeError(f"refused: {problem}", hint="`codex-bridge durable list` shows each one's status")
            line = canonical({**entry, "seq": len(lines) + 1, "prev": view["lastHash"]})
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            view = replay([*lines, line], anchors)
            self.save(view)
        return view["rules"][entry["id"]]

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
        project: dict[str, str] | None = None,
    ) -> Rule:
        """Add a candidate (nothing is approved by proposing it); its text is redacted first.

        ``project`` (:func:`project_scope`) is the repository it holds in; None: every project.
        """
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
                "project": project,
                "at": at,
            }
        )

    def propose_from_packet(
        self, packet_ref: str, constraint: int, *, by: str, project: dict[str, str] | None = None
    ) -> Rule:
        """A candidate rule from one of a verified packet's constraints, pointing at its evidence."""
        pid, packet, _ = load(packet_ref)
        found = packet.get("constraints") or []
        if not isinstance(constraint, int) or not 0 <= constraint < len(found):
            raise BridgeError(f"packet {pid} has no constraint {constraint}", hint=f"give 0 to {len(found) - 1}")
        claim = found[constraint]
        repo = packet.get("repository") or {}
        if project is None and isinstance(repo.get("repoId"), str):
            project = {"root": str(repo.get("root") or ""), "repoId": repo["repoId"]}
        return self.propose(
            "rule",
            str(claim.get("text") or ""),
            by=by,
            channel="packet",
            why="a constraint the user stated in the handed-over session (evidence, until a person approves it)",
            source={"packet": pid, "constraint": constraint, "refs": claim.get("refs") or []},
            project=project,
        )

    def decide(
        self,
        action: str,
        rule_id: str,
        *,
        person: str,
        secret: str,
        channel: str,
        reason: str | None = None,
    ) -> Rule:
        """Approve or revoke, as a named person at a deciding channel who gave the approval passphrase.

        Everything is checked before the passphrase (so a malformed request costs no try), and the
        passphrase before anything is written (:func:`autopilot.knowledge.durable.secret.verify`, rate-limited).
        """
        if action not in ("approve", "revoke"):
            raise BridgeError(f"{action!r} is not a decision", hint="approve or revoke")
        if channel not in DECIDING_CHANNELS:
            raise BridgeError(
                f"a {action} can only be made by a person in the dashboard or at a terminal, not through {channel!r}"
            )
        name = check_person(person)
        entry: dict[str, Any] = {"action": action, "id": check_id(rule_id), "person": name, "channel": channel}
        view = self.view()
        rule = view["rules"].get(entry["id"])
        problem = apply(json.loads(json.dumps(view["rules"])), {**entry}) if rule is None else None
        if rule is not None and not (
            (action == "approve" and rule["status"] == "candidate")
            or (action == "revoke" and rule["status"] in ("candidate", APPROVED))
        ):
            problem = f"{rule['id']} is {rule['status']}" + (", not a candidate" if action == "approve" else "")
        if problem:
            raise BridgeError(f"refused: {problem}", hint="`codex-bridge durable list` shows each one's status")
        key = verify(secret)
        entry["at"] = clock.now()
        if action == "revoke":
            entry["reason"] = redact(reason)[0][:MAX_TEXT] if reason else None
        assert rule is not None
        entry["subject"] = rule.get("subject")
        return self._append(sign(key, entry))

    def receive_shared(
        self,
        rid: str,
        kind: str,
        text: str,
        *,
        source: dict[str, Any],
        project: dict[str, str],
        supersedes: str | None,
    ) -> Rule:
        """Add a rule a teammate shared through the git remote as a candidate of ``project`` (``rid``: the id
        :mod:`autopilot.knowledge.share.rules` derives from its share id, so pulling it again adds nothing)."""
        if kind not in KINDS or not ID.fullmatch(rid) or not rid.startswith(KINDS[kind]):
            raise BridgeError(f"{rid!r} is not a {kind} id")
        clean = redact(" ".join((text or "").split()))[0][:MAX_TEXT]
        old = self.view()["rules"].get(supersedes or "")
        if old is None or old["status"] != APPROVED:
            supersedes = None  # it replaces nothing in force here
        return self._append(
            {
                "action": "propose",
                "id": rid,
                "kind": kind,
                "text": clean,
                "why": "shared by a teammate through the project's git remote",
                "by": redact(str(source.get("approvedBy") or "a teammate"))[0][:MAX_NAME],
                "channel": SHARED,
                "source": {"share": redact_walk(source)},
                "supersedes": supersedes,
                "project": project,
                "at": clock.now(),
            }
        )

    def decide_signed(
        self, action: str, rid: str, *, signer: str, key: str, commit: str, signers: str, reason: str | None = None
    ) -> Rule:
        """Approve or revoke a shared rule as the teammate whose SSH signature on ``commit`` git verified against the
        allowed signers HEAD holds (blob ``signers``): the only decision taken without a person here."""
        if action not in ("approve", "revoke") or not signer.strip():
            raise BridgeError(f"{action!r} by {signer!r} is not a signed decision", hint="approve or revoke, signed")
        entry: dict[str, Any] = {
            "action": action,
            "id": check_id(rid),
            "person": signer.strip()[:MAX_NAME],
            "channel": SIGNED,
            "key": key,
            "commit": commit,
            "signers": signers,
            "at": clock.now(),
        }
        if action == "revoke":
            entry["reason"] = redact(reason)[0][:MAX_TEXT] if reason else None
        return self._append(entry)

    def listing(self, status: str | None = None) -> Listing:
        """Every rule and decision (newest first, optionally of one status), counts, the log's integrity, and the
        administrator's managed rules (``managed``: ``path``, ``rules``, ``refused``: why none are used)."""
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
            "managed": managed.load(),
            "anchors": view["anchors"],
        }
