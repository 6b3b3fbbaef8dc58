"""``codex-bridge share repair``: the files of the remote's share ref that are refused, mended for the whole team.

A file changed on the remote (its bytes no longer what its name says) or one that is no file of this format is
refused by every pull until it is gone. Repair fetches the ref, checks it as a pull does, and makes one commit on
top of it: each refused packet or evidence index this machine holds a good copy of (the same content address, in
its packet store) is replaced by that copy; every other refused file is left out, but a rule record of a later
version of the format, which a newer codex-bridge reads, is kept. The commit adds nothing else and is pushed as
``share push`` pushes (merging what the remote gained meanwhile). Whoever shared a file left out can push it again.
"""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from autopilot.handoff.packets import store
from autopilot.knowledge.share import gitops, layout, trust
from autopilot.knowledge.share.push import send
from autopilot.knowledge.share.ref import Share
from autopilot.output import one_line, say

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import Repaired


def repair(cwd: str | None, remote: str | None) -> Repaired:
    """Mend the remote's share ref: refused files replaced by good copies from here, or left out; what was done."""
    share = Share(cwd, remote)
    with share.locked():
        tip = gitops.fetch(share.repo, share.remote)
        answer: Repaired = {
            "remote": share.remote,
            "ref": gitops.REF,
            "refused": [],
            "replaced": [],
            "removed": [],
            "kept": [],
            "commit": None,
            "sent": False,
        }
        if tip is None:
            return answer
        try:
            _, _, _, refused = share.verified(tip, share.state().get("verified") or {})
        finally:
            gitops.delete_ref(share.repo, gitops.FETCHED)
        answer["refused"] = list(refused.values())
        files = share.files(tip)
        copies = _copies(sorted(refused))
        kind = gitops.object_format(share.repo)
        for path, r in sorted(refused.items()):
            if path in copies:
                if gitops.blob_id(copies[path], kind) != files.get(path):  # not a good half of a bad packet
                    answer["replaced"].append(path)
            elif r["kind"] == layout.NEWER:
                answer["kept"].append(path)
            else:
                files.pop(path, None)
                answer["removed"].append(path)
        if not answer["replaced"] and not answer["removed"]:
            return answer
        paths = sorted(copies)
        oids = gitops.write_blobs(share.repo, [(copies[p], None) for p in paths])
        files.update(zip(paths, oids, strict=True))
        mine = gitops.resolve(share.repo, gitops.REF)
        parents = [tip]
        if mine is not None and not gitops.is_ancestor(share.repo, mine, tip):
            for path, oid in share.files(mine).items():  # what this clone has not sent yet goes too
                files.setdefault(path, oid)
            parents.append(mine)
        host = one_line(socket.gethostname() or "unknown", 80)
        message = (
            f"codex-autopilot share: repair: {len(answer['replaced'])} replaced, {len(answer['removed'])} left out\n\n"
            f"{trust.MACHINE}: {host}\n"
        )
        tree = gitops.write_tree(share.repo, files)
        commit = gitops.commit(share.repo, tree, parents, message, sign=gitops.signing(share.repo) is not None)
        gitops.update_ref(share.repo, gitops.REF, commit, mine)
        say(
            f"repairing {share.remote} {gitops.REF}: {len(answer['replaced'])} file(s) replaced by the good copy "
            f"here, {len(answer['removed'])} left out"
        )
        sent = send(share, commit)
        answer["commit"], answer["sent"] = sent["commit"], True
        return answer


def _copies(paths: list[str]) -> dict[str, bytes]:
    """Good copies of refused packet files from this machine's packet store, by tree path (a packet only with its
    evidence index, each checked as a pull checks it)."""
    found: dict[str, bytes] = {}
    for path in paths:
        if not path.startswith("packets/"):
            continue
        hexid = path.rsplit("/", 1)[1].split(".", 1)[0]
        halves = {f"packets/{hexid}.json": store.packets_dir() / f"{hexid}.json"}
        halves[f"packets/{hexid}.evidence.json"] = store.packets_dir() / f"{hexid}.evidence.json"
        try:
            contents = {p: f.read_bytes() for p, f in halves.items()}
            for p in halves:  # the packet first: its evidence index is checked against it
                layout.check(p, contents[p], contents)
        except (OSError, layout.FileRefused, ValueError):
            continue
        found[path] = contents[path]
    return found
