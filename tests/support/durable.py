"""Durable rules for tests: proposed, approved and revoked through the real log, as the person would.

The person's approval passphrase is :data:`PASSPHRASE`, stored by :func:`person` with a cheap scrypt
cost (the record carries its own cost; ``durable secret`` never writes one this cheap) so that tests
deciding many rules stay fast. An attacker's tests never call :func:`person`'s secret.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autopilot.knowledge.durable import secret
from autopilot.knowledge.durable.store import Log, project_scope

NAME = "Ada Lovelace"
PASSPHRASE = "correct horse battery staple"
CHEAP = {"n": 2**10, "r": 8, "p": 1}


def person(passphrase: str = PASSPHRASE) -> None:
    """The person has set their approval passphrase (once; a cheap record for tests)."""
    if secret.record() is None:
        secret.write_record(passphrase, cost=CHEAP)


def propose(text: str, repo: Path | None, *, kind: str = "rule", supersedes: str | None = None) -> str:
    """A candidate for ``repo``'s project (None: every project); its id."""
    scope = project_scope(str(repo)) if repo is not None else None
    rule = Log().propose(kind, text, by="test", channel="cli", supersedes=supersedes, project=scope)
    return str(rule["id"])


def approve(rid: str, name: str = NAME, channel: str = "terminal") -> dict[str, Any]:
    """Approve ``rid`` as ``name`` with the person's passphrase."""
    person()
    return Log().decide("approve", rid, person=name, secret=PASSPHRASE, channel=channel)


def revoke(rid: str, name: str = NAME, reason: str | None = None) -> dict[str, Any]:
    """Revoke ``rid`` as ``name`` with the person's passphrase."""
    person()
    return Log().decide("revoke", rid, person=name, secret=PASSPHRASE, channel="terminal", reason=reason)


def approved(text: str, repo: Path | None, **kw: Any) -> str:
    """A rule proposed and approved at once; its id."""
    rid = propose(text, repo, **kw)
    approve(rid)
    return rid
