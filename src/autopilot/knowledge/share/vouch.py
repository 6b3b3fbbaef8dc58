"""Whether a rule the durable log says the team signed still verifies against this repository, as a session is given it.

``share pull`` approves a teammate's rule through the ``signed`` channel after git verified the commit that brought
it. The log line it writes names that commit and the key; a line written by anything else can name them too (a
commit that does not exist, a key nobody trusts). So the hooks check each such rule before delivering it: the commit
is in this repository, it holds the rule's record (``rules/<hash>.json``), and its SSH signature is good by that key,
a signer the default branch's history trusts, within the key's validity as of when this machine first saw the
commit (:mod:`.trust`). What fails is not delivered, and the person is told. A few git calls, only at a turn that
delivers rules and only when a shared rule is in force.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from autopilot.errors import BridgeError
from autopilot.knowledge.share import gitops, layout, trust
from autopilot.knowledge.share.ref import Share

if TYPE_CHECKING:
    from autopilot.knowledge.durable.shapes import Claim


def vouch(worktree: str, claims: list[Claim]) -> set[str]:
    """The ids of ``claims`` (a shared rule's id, its commit, key and share id) that verify in ``worktree``'s
    repository; nothing verifies outside a repository, or when git cannot answer."""
    try:
        share = Share(worktree, None)
    except BridgeError:
        return set()
    repo = share.repo
    wanted = [c for c in claims if c["commit"] and c["share"].startswith("sha256:")]
    if not wanted:
        return set()
    asked = "".join(f"{c['commit']}^{{commit}}\n{c['commit']}:{layout.path_of(c['share'])}\n" for c in wanted)
    try:
        answers = gitops.git(repo, "cat-file", "--batch-check", data=asked.encode()).stdout.decode().splitlines()
    except BridgeError:
        return set()
    present = {c["id"] for n, c in enumerate(wanted) if not answers[2 * n].endswith("missing")
               and not answers[2 * n + 1].endswith("missing")}  # fmt: skip
    commits = sorted({c["commit"] for c in wanted if c["id"] in present})
    if not commits:
        return set()
    seen = share.state().get("firstSeen") or {}
    with trust.signers(repo, dict(seen)) as allowed:
        checked = trust.judged(trust.signatures(repo, commits, allowed["file"]), allowed)
    good = set()
    for claim in wanted:
        sig = checked.get(claim["commit"])
        if claim["id"] in present and sig and sig["status"] == "good" and sig["key"] == claim["key"]:
            good.add(claim["id"])
    return good
