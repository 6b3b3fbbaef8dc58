"""Rules across the share ref: what this project's person approved, as records to push; what a pull found, into
this machine's durable log.

**Out** (``share push --rules``): every rule and decision approved here for this repository (not the ones for
every project, which are the person's own; not the ones that came from the team, whose records are the team's)
becomes a record (:func:`autopilot.knowledge.share.layout.rule_record`) named by its hash, the same bytes however
often it is pushed; a revoked one whose record is already shared gets a revocation record.

**In** (``share pull``): each rule record becomes a rule of this repository in the durable log, proposed through
the ``shared`` channel with an id derived from its share id (pulling again adds nothing). It is approved here, as
the team's, only when a commit that brought it is signed by a signer HEAD's allowed_signers lists
(:mod:`.trust`): the log records the signer, the key, the commit and which allowed_signers blob said so, and the
hooks deliver it labelled as shared and signed. Otherwise it stays a candidate, for a person here to approve
with their passphrase (``durable approve``) or not. A signed revocation revokes it here (delivered sessions get
"no longer applies"); an unsigned one, or one of a rule a person here approved as their own, is only reported:
a person here decides.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.digest import sha256_hex
from autopilot.knowledge.durable.store import Log
from autopilot.knowledge.durable.view import APPROVED, CANDIDATE, KINDS, REVOKED, SHARED, SIGNED, applies
from autopilot.knowledge.share import layout

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Rule, View
    from autopilot.knowledge.share.shapes import Arrived, Outgoing, Record, RulesPulled, Seal

GOOD = "good"


def local_id(kind: str, share: str, repo_id: str) -> str:
    """The durable-log id of a shared rule in one repository here."""
    return KINDS.get(kind, "R") + "-" + sha256_hex(f"shared\0{share}\0{repo_id}".encode())[:12]


def _own(rule: Rule, repo_id: str) -> bool:
    """Whether a rule is this repository's and was proposed here (not one the team shared)."""
    project = rule.get("project")
    return (
        isinstance(project, dict)
        and project.get("repoId") == repo_id
        and (rule.get("proposed") or {}).get("channel") != SHARED
    )


def record_of(rule: Rule, rules: dict[str, Rule]) -> bytes:
    """The share record of an approved rule (what it supersedes named by that rule's share id)."""
    old = rules.get(rule.get("supersedes") or "")
    decision = rule.get("approved") or {}
    return layout.rule_record(
        str(rule.get("kind") or "rule"),
        str(rule.get("text") or ""),
        rule["id"],
        str(decision.get("person") or ""),
        str(decision.get("at") or ""),
        share_of(old, rules) if old is not None else None,
    )


def share_of(rule: Rule, rules: dict[str, Rule]) -> str | None:
    """The share id of a rule: the team's for one that came from the team, its record's for one approved here."""
    if (rule.get("proposed") or {}).get("channel") == SHARED:
        share = ((rule.get("source") or {}).get("share") or {}).get("id")
        return str(share) if share else None
    if rule.get("approved") is None:
        return None
    return layout.share_id(record_of(rule, rules))


def outgoing(view: View, repo_id: str, shared: set[str]) -> list[Outgoing]:
    """The records ``share push --rules`` adds: ``{"path", "data", "rule", "action", "text"}`` (``shared``: the
    paths already on the share ref, so a revocation goes only with a rule the team has)."""
    rules = view["rules"]
    out: list[Outgoing] = []
    for rid, rule in sorted(rules.items(), key=lambda kv: ((kv[1].get("approved") or {}).get("at") or "", kv[0])):
        if not applies(rule, repo_id) or rule.get("approved") is None:
            continue  # another project's, or never approved (a rejected candidate is nobody's business)
        if _own(rule, repo_id) and rule["status"] == APPROVED:
            data = record_of(rule, rules)
            out.append(
                {"path": layout.rule_path(data), "data": data, "rule": rid, "action": "rule", "text": rule["text"]}
            )
        if rule["status"] != REVOKED:
            continue
        share = share_of(rule, rules)
        if share is None or layout.path_of(share) not in shared:
            continue
        revoked = rule.get("revoked") or {}
        if revoked.get("channel") == SIGNED:
            continue  # the team's own revocation, come back
        data = layout.revocation_record(
            share, rid, str(revoked.get("person") or ""), str(revoked.get("at") or ""), revoked.get("reason")
        )
        out.append(
            {"path": layout.rule_path(data), "data": data, "rule": rid, "action": "revoke", "text": rule["text"]}
        )
    return out


def incoming(
    records: dict[str, Record],
    trust: dict[str, Seal],
    project: dict[str, str],
    remote: str,
    signers: str | None,
) -> RulesPulled:
    """Bring a pull's rule records (path -> record) into the durable log; what was delivered, left as a candidate,
    revoked, or is waiting for a person here (``trust``: path -> the best signature of a commit that brought it)."""
    log = Log()
    repo_id = project["repoId"]
    rules = log.view()["rules"]
    by_share = {layout.share_of_path(p): (p, r) for p, r in records.items()}
    revocations = {p: r for p, r in records.items() if r["type"] == "revoke"}
    withdrawn = {r["rule"] for p, r in revocations.items() if trust[p]["status"] == GOOD}
    own = {share_of(r, rules): rid for rid, r in rules.items() if _own(r, repo_id) and r.get("approved")}
    done: RulesPulled = {"delivered": [], "candidates": [], "revoked": [], "waiting": []}
    ordered = sorted(
        ((p, r) for p, r in records.items() if r["type"] == "rule"),
        key=lambda pr: (pr[1]["origin"]["approvedAt"], pr[0]),
    )
    for path, record in ordered:
        share = layout.share_of_path(path)
        rid = local_id(record["kind"], share, repo_id)
        seal = trust[path]
        if share in own:
            continue  # this machine's own rule, come back
        if rid not in rules:
            if share in withdrawn:
                continue  # revoked by the team before it ever reached this machine
            old = record["supersedes"]
            if old in own:
                supersedes: str | None = own[old]
            elif old in by_share:
                supersedes = local_id(by_share[old][1]["kind"], old, repo_id)
            else:
                supersedes = None
            source = {
                "id": share,
                "originId": record["origin"]["id"],
                "approvedBy": record["origin"]["approvedBy"],
                "approvedAt": record["origin"]["approvedAt"],
                "commit": seal["commit"],
                "by": seal["by"],
                "machine": seal["machine"],
                "remote": remote,
            }
            rules[rid] = log.receive_shared(
                rid, record["kind"], record["text"], source=source, project=project, supersedes=supersedes
            )
        row = _said(seal, rid, share)
        row["text"] = rules[rid]["text"]
        if rules[rid]["status"] == CANDIDATE and seal["status"] == GOOD and share not in withdrawn:
            rules[rid] = _decide(log, "approve", rid, seal, signers)
            done["delivered"].append(row)
        elif rules[rid]["status"] == CANDIDATE:
            done["candidates"].append(row)
    for path, record in sorted(revocations.items()):
        seal = trust[path]
        target = by_share.get(record["rule"])
        kind = target[1]["kind"] if target else "rule"
        rid = local_id(kind, record["rule"], repo_id)
        row = _said(seal, rid, record["rule"])
        row["reason"] = record.get("reason")
        mine = own.get(record["rule"])
        if mine is not None:  # the team revoked a rule this machine's person approved: theirs to decide
            if rules[mine]["status"] == APPROVED:
                row["id"], row["why"] = mine, "a rule you approved here: revoke it yourself"
                done["waiting"].append(row)
            continue
        rule = rules.get(rid)
        if rule is None or rule["status"] not in (CANDIDATE, APPROVED):
            continue
        if seal["status"] == GOOD:
            rules[rid] = _decide(log, "revoke", rid, seal, signers, reason=record.get("reason"))
            done["revoked"].append(row)
        else:
            row["why"] = f"the revocation is {seal['status']}: a person here decides"
            done["waiting"].append(row)
    return done


def _decide(log: Log, action: str, rid: str, seal: Seal, signers: str | None, reason: str | None = None) -> Rule:
    """``action`` on ``rid`` as the signer git verified on the commit that brought it (the signed channel)."""
    signer, key = str(seal["signer"] or ""), str(seal["key"] or "")
    return log.decide_signed(
        action, rid, signer=signer, key=key, commit=seal["commit"], signers=signers or "", reason=reason
    )


def _said(seal: Seal, rid: str, share: str) -> Arrived:
    """How a record arrived: its signature's status and signer, the commit, who and where it says it is from."""
    return {
        "id": rid,
        "share": share,
        "signature": seal["status"],
        "signer": seal.get("signer"),
        "commit": seal["commit"],
        "by": seal["by"],
        "machine": seal["machine"],
    }
