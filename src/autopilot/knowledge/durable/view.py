"""The durable log's reading side: its entry kinds and statuses, and the view a replay of its lines gives.

Nothing here appends or decides: the hooks that deliver approved rules read through this module,
never through :mod:`.store` (which proposes and decides).

``log.jsonl`` is the truth. ``rules.json`` is a view derived from it, and never believed: every
read replays the log and compares. A view made from an earlier state of the log (a crash between
the append and the view's write) is rebuilt quietly (``integrity.view``: ``stale``); one that
disagrees with the log it claims to be made from (written by hand, or by anything but the bridge)
is rebuilt too, and the read says so (``edited``: ``integrity.ok`` is false and
``integrity.viewRebuilt`` explains), so whoever reads it first (``durable list``, the dashboard, a
session-start hook) tells the person.

A decision needs a person at a deciding channel, with one exception: a rule a teammate shared through
the project's git remote (proposed through :data:`SHARED`) may be approved or revoked through
:data:`SIGNED`, naming the signer, the key and the commit whose SSH signature git verified against the
allowed signers HEAD lists (``autopilot.knowledge.share``); that channel applies to nothing else.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from autopilot import paths
from autopilot.digest import canonical, sha256_hex
from autopilot.fsutil import atomic_write, held
from autopilot.knowledge.durable import anchor

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Anchors, Decision, Refused, Rule, View

Entry = dict[str, Any]  # one log line as written: checked field by field by apply() before anything believes it
KINDS = {"rule": "R", "decision": "D"}
CANDIDATE, APPROVED, REVOKED, SUPERSEDED = "candidate", "approved", "revoked", "superseded"
STATUSES = (CANDIDATE, APPROVED, REVOKED, SUPERSEDED)
DECIDING_CHANNELS = ("dashboard", "terminal")  # where a person decides; agents reach neither
SHARED = "shared"  # proposed by a teammate through the project's git remote (``codex-bridge share pull``)
SIGNED = "signed"  # decided by a teammate in a commit signed by a signer HEAD's allowed_signers lists
PROPOSING_CHANNELS = ("dashboard", "terminal", "cli", "packet")
GENESIS = "0" * 64
ID = re.compile(r"[RD]-[0-9a-f]{12}")
LOCK_TIMEOUT_S = 30.0
PASSPHRASE = "passphrase.json"  # the approval passphrase's hash (knowledge/durable/secret.py)
EDITED = (
    "rules.json disagreed with the log it claims to be made from (written by hand, or by something other than "
    "codex-bridge): it was rebuilt from the log, which is the truth"
)


def home() -> Path:
    """Where durable knowledge lives: ``$AUTOPILOT_HOME/durable``."""
    return paths.autopilot_home() / "durable"


def replay(lines: list[bytes], anchors: Anchors | None = None) -> View:
    """The view the log's lines give under ``anchors`` (:func:`anchor.judge`; None: no key is trusted): every rule by
    id, and what is wrong with the log (never raised)."""
    rules: dict[str, Rule] = {}
    malformed = 0
    refused: list[Refused] = []
    breaks: list[int] = []
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
        problem = apply(rules, entry, anchors)
        if problem:
            refused.append({"line": number, "why": problem})
    return {
        "rules": rules,
        "lastHash": prev,
        "lines": len(lines),
        "anchors": anchors or anchor.judge([]),
        "integrity": {
            "ok": not (malformed or refused or breaks),
            "malformedLines": malformed,
            "refusedLines": refused,
            "chainBreaks": breaks,
        },
    }


def subject(entry: Entry) -> str:
    """The hash a decision names to say which proposal it decides (its text, kind, scope and what it supersedes)."""
    return sha256_hex(canonical({k: v for k, v in entry.items() if k not in ("seq", "prev")}))


def unverified(e: Entry, rule: Rule, anchors: Anchors | None) -> str | None:
    """Why a person's decision is not the person's (None: its signature verifies by a trusted key, or by a key that
    waits for confirmation: the caller tells those apart by ``e["key"]``)."""
    key = e.get("key")
    if not e.get("sig") or not isinstance(key, str):
        return f"a {e.get('action')} of {rule['id']} without the person's signature"
    if e.get("subject") != rule.get("subject"):
        return f"a {e.get('action')} of {rule['id']} signed for another text than the one proposed"
    known = anchors is not None and (key in anchors["trusted"] or key in anchors["pending"])
    if not known:
        return f"a {e.get('action')} of {rule['id']} signed by {anchor.fingerprint(key)}, which is not an anchor"
    if not anchor.good_signature(key, e.get("sig"), anchor.signed_bytes(e)):
        return f"a {e.get('action')} of {rule['id']} whose signature does not verify (forged or edited)"
    return None


def apply(rules: dict[str, Rule], e: Entry, anchors: Anchors | None = None) -> str | None:
    """Apply one log entry (as the log holds it: checked here) to ``rules``; say why it cannot apply (the entry is
    then ignored). A person's decision applies only when it verifies by a trusted anchor (:func:`unverified`); one by
    an anchor waiting for confirmation is kept on the rule as ``pending`` and changes nothing."""
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
            "project": e.get("project"),
            "supersedes": e.get("supersedes"),
            "supersededBy": None,
            "approved": None,
            "revoked": None,
            "subject": subject(e),
        }
        return None
    rule = rules.get(rid)
    if rule is None:
        return f"{action} of {rid}, which was never proposed"
    decision: Decision = {"person": e.get("person"), "channel": e.get("channel"), "at": e.get("at")}
    if e.get("channel") == SIGNED:  # a teammate's signed decision: only ever on what the team shared
        if (rule.get("proposed") or {}).get("channel") != SHARED:
            return f"a signed {action} of {rid}, which was not shared through the git remote"
        if not (e.get("person") and e.get("commit") and e.get("key")):
            return f"a signed {action} of {rid} without its signer, key and commit"
        decision["signer"], decision["key"], decision["commit"] = e["person"], e["key"], e["commit"]
        decision["signers"] = e.get("signers")
    elif e.get("channel") not in DECIDING_CHANNELS or not e.get("person"):
        return f"{action} of {rid} without a person at a deciding channel"
    elif action in ("approve", "revoke"):
        problem = unverified(e, rule, anchors)
        if problem:
            return problem
        decision["key"] = e["key"]
        if anchors is not None and e["key"] not in anchors["trusted"]:
            rule.setdefault("pending", []).append({**decision, "action": action})
            return None
    if action == "approve":
        if rule["status"] != CANDIDATE:
            return f"{rid} is {rule['status']}, not a candidate"
        rule["status"], rule["approved"] = APPROVED, decision
        old = rules.get(rule["supersedes"] or "")
        if old is not None and old["status"] == APPROVED:
            old["status"], old["supersededBy"] = SUPERSEDED, rid
        return None
    if action == "revoke":
        if rule["status"] not in (CANDIDATE, APPROVED):
            return f"{rid} is {rule['status']} and cannot be revoked"
        rule["status"], rule["revoked"] = REVOKED, {**decision, "reason": e.get("reason")}
        return None
    return f"unknown action {action!r}"


def applies(rule: Rule, repo_id: str | None) -> bool:
    """Whether a rule holds in the repository ``repo_id`` (a rule with no project holds everywhere)."""
    project = rule.get("project")
    return not isinstance(project, dict) or project.get("repoId") == repo_id


class Reader:
    """The log and its view in one directory (default :func:`home`), read and checked, never decided on."""

    def __init__(self, folder: Path | None = None) -> None:
        self.dir = folder or home()
        self.path = self.dir / "log.jsonl"
        self.view_path = self.dir / "rules.json"
        self.lock_path = self.dir / "log.lock"

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the log's lock (appends and view writes take it)."""
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        with held(self.lock_path, LOCK_TIMEOUT_S):
            yield

    def lines(self) -> list[bytes]:
        """The log's non-empty lines."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        return [line for line in data.split(b"\n") if line.strip()]

    def view(self) -> View:
        """The view the log gives now, with ``integrity.view`` saying how ``rules.json`` compared.

        ``rules.json`` is read before the log, so an append landing between the two reads makes the
        saved view look older than the log (stale), never edited.
        """
        try:
            raw: bytes | None = self.view_path.read_bytes()
        except FileNotFoundError:
            raw = None
        except OSError:
            raw = b""
        lines = self.lines()
        anchors = self.anchors()
        fresh = replay(lines, anchors)
        state = self._compare(raw, fresh, lines, anchors)
        if state != "ok" and (lines or state == "edited"):
            with self.locked():
                self.save(fresh)
        fresh["integrity"]["view"] = state
        if state == "edited":
            fresh["integrity"]["ok"] = False
            fresh["integrity"]["viewRebuilt"] = EDITED
        return fresh

    def anchors(self) -> Anchors:
        """The approval keys of this directory, judged (:mod:`.anchor`)."""
        return anchor.load(self.dir)

    @staticmethod
    def _compare(raw: bytes | None, fresh: View, lines: list[bytes], anchors: Anchors) -> str:
        """``ok``, ``missing``, ``stale`` (made from an earlier log) or ``edited`` (disagrees with its own log)."""
        if raw is None:
            return "missing"
        try:
            saved = json.loads(raw)
        except ValueError:
            return "edited"
        if not isinstance(saved, dict):
            return "edited"
        if all(saved.get(k) == v for k, v in fresh.items()):
            return "ok"
        if saved.get("anchors") != fresh["anchors"]:
            return "stale"  # made under other anchors (a key set or confirmed since): the rules it shows may differ
        hashes = [sha256_hex(line) for line in lines]
        last = saved.get("lastHash")
        if last == GENESIS and not saved.get("rules"):
            return "stale"
        if isinstance(last, str) and last in hashes[:-1]:
            earlier = replay(lines[: hashes.index(last) + 1], anchors)
            if all(saved.get(k) == v for k, v in earlier.items()):
                return "stale"
        return "edited"

    def save(self, view: View) -> View:
        """Write ``view`` as ``rules.json`` (atomically); return it. The caller holds :meth:`locked`."""
        atomic_write(self.view_path, json.dumps(view, sort_keys=True) + "\n")
        return view
