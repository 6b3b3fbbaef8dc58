"""Approved rules and decisions in the evidence index, so ``handoff search`` finds them, labelled as approved.

Each repository's rules in force (its own and those for every project) are one origin of the index,
``durable:<repository id>``, re-indexed whole when the durable log changed since the last search (its
size and modification time, kept in the index's meta table); a revoked or superseded rule leaves with
the next search. Candidates are never indexed. A search whose log is unchanged pays one ``stat`` and
one meta read, and loads nothing else from here (``tests/integration/test_hot_path.py``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs ~2 ms to import, and every search passes here
if TYPE_CHECKING:
    from autopilot.handoff.search.shapes import Document
    from autopilot.handoff.sources.project import Project

ROLES = {"rule": "approved-rule", "decision": "approved-decision"}


def _stamp(path: str) -> str:
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def sync(project: Project, notes: list[str]) -> int:
    """Bring the approved rules of ``project`` into the index when the log changed; documents added."""
    import _sqlite3 as sqlite3  # the sqlite3 package's C module (handoff/search/index.py)

    from autopilot.errors import BridgeError
    from autopilot.handoff.memory import observe
    from autopilot.handoff.search import index

    stamp = _stamp(os.path.join(observe.home(), *observe.DURABLE_LOG))
    origin = f"durable:{project.repo_id}"
    key = f"synced:{origin}"
    if index.synced(key) == stamp:
        return 0
    from autopilot.knowledge.durable.view import APPROVED, Reader, applies

    view = Reader().view()
    docs: list[Document] = []
    for rid, rule in sorted(view["rules"].items()):
        if rule["status"] != APPROVED or not applies(rule, project.repo_id):
            continue
        decision = rule.get("approved") or {}
        kind = str(rule.get("kind") or "rule")
        person, at = str(decision.get("person") or ""), str(decision.get("at") or "")
        approval = {"id": rid, "kind": kind, "person": person, "at": at, "scope": rule.get("project")}
        said = f"{kind} approved by {person} at {at}"
        if (
            decision.get("channel") == "signed"
        ):  # a teammate's, delivered by their signed commit (knowledge/durable/view.py)
            approval.update(channel="signed", commit=decision.get("commit"), key=decision.get("key"))
            said = f"{kind} shared by the team, signed by {person} in commit {str(decision.get('commit'))[:12]}"
        docs.append(
            {
                "kind": "durable",
                "origin": origin,
                "ref": rid,
                "role": ROLES.get(kind, "approved-rule"),
                "text": f"{said}: {rule.get('text')}",
                "repoId": project.repo_id,
                "time": at,
                "approval": approval,
            }
        )
    try:
        added = index.add_documents(docs) if docs else index.remove_origin(origin)
    except (BridgeError, OSError, sqlite3.DatabaseError) as exc:  # the evidence still answers
        notes.append(f"the approved rules were not brought into the index ({exc})")
        return 0
    index.mark_synced(key, stamp)
    return added
