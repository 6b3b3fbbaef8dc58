"""One repository's share ref on this machine: its remote, its lock, what was verified, and a tree read and checked.

:class:`Share` is what ``push``, ``pull`` and ``list`` work on: the repository around ``cwd`` (any worktree of
it: the refs are the repository's), the remote chosen once, a lock in the repository's git directory (one share
operation at a time per clone: two on the same clone would race for the same refs), and a small state file
under ``$AUTOPILOT_HOME/share/`` (which files of the remote's tree were verified and imported, by object id, so
a pull reads and hashes only what changed; a file changed on the remote has a new object id and is checked
again).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from autopilot.digest import sha256_hex
from autopilot.fsutil import atomic_write, held
from autopilot.handoff.sources.project import Project
from autopilot.knowledge.share import gitops, layout
from autopilot.paths import autopilot_home

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from autopilot.knowledge.share.shapes import Refusal, State

LOCK_TIMEOUT_S = 900.0  # a push waits for the others of this clone (each holds it for its network round trips)
MAX_NEW_BYTES = 2 << 30  # read from one remote tree in one pull


class Share:
    """The share ref of the repository around ``cwd``, through ``remote`` (None: the usual one)."""

    def __init__(self, cwd: str | None, remote: str | None) -> None:
        self.project = Project(cwd)
        self.repo = self.project.worktree
        self.remote = gitops.remote(self.repo, remote)
        self.dir = autopilot_home() / "share" / sha256_hex(self.project.repo_id.encode())[:24]
        self.state_path = self.dir / "state.json"
        self.lock_path = Path(self.project.common_dir) / "codex-autopilot-share.lock"

    def locked(self) -> AbstractContextManager[None]:
        """Hold this clone's share lock."""
        return held(self.lock_path, LOCK_TIMEOUT_S)

    def state(self) -> State:
        """What the last pull verified (``verified``: path -> object id; ``tip``; ``pulledAt``)."""
        try:
            found = json.loads(self.state_path.read_bytes())
        except (OSError, ValueError):
            return {"verified": {}}
        verified = found.get("verified") if isinstance(found, dict) else None
        if not isinstance(verified, dict):
            return {"verified": {}}
        state: State = {"verified": {p: o for p, o in verified.items() if isinstance(p, str) and isinstance(o, str)}}
        for key in ("tip", "pulledAt"):
            if isinstance(found.get(key), str):
                state[key] = found[key]
        seen = found.get("firstSeen")
        if isinstance(seen, dict):
            state["firstSeen"] = {c: t for c, t in seen.items() if isinstance(c, str) and isinstance(t, str)}
        return state

    def save(self, state: State) -> None:
        """Write the state file (atomically)."""
        self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(self.state_path, json.dumps(state, sort_keys=True) + "\n")

    def identity(self) -> dict[str, str]:
        """The repository a pull brings things into: its root and identity on this machine."""
        return {"root": self.project.root, "repoId": self.project.repo_id}

    def entries(self, commit: str | None) -> dict[str, str]:
        """Our files in ``commit``'s tree (path -> object id) whose names, modes and sizes pass; {} for None."""
        if commit is None:
            return {}
        return layout.scan(gitops.tree_entries(self.repo, commit, layout.MAX_FILES), commit)[0]

    def files(self, commit: str | None) -> dict[str, str]:
        """Every plain file under our folders in ``commit``'s tree (path -> blob), refused ones too: what a commit
        made on top of it keeps, but for what it replaces (a push never drops a teammate's file it cannot read)."""
        if commit is None:
            return {}
        ours, _, refused = layout.scan(gitops.tree_entries(self.repo, commit, layout.MAX_FILES), commit)
        return {**{p: r["oid"] for p, r in refused.items() if r["oid"]}, **ours}

    def verified(
        self, commit: str, known: dict[str, str]
    ) -> tuple[dict[str, str], dict[str, bytes], int, dict[str, Refusal]]:
        """Read and check a remote tree: (path -> object id of the files that pass, the bytes of those not in
        ``known`` with the same object id, how many unknown entries were ignored, the refused files by path). A file
        that fails refuses itself (and its packet's other half); a tree past a share ref's bounds raises
        :class:`layout.Refused`."""
        kind = gitops.object_type(self.repo, commit)
        if kind != "commit":
            raise layout.Refused(f"the remote's {gitops.REF} points at a {kind}, not a commit: refused")
        listed = gitops.tree_entries(self.repo, commit, layout.MAX_FILES)
        ours, ignored, refused = layout.scan(listed, commit)
        sizes = {path: size for _, _, _, size, path in listed}
        new = {p for p, oid in ours.items() if known.get(p) != oid}
        for path in list(new):  # an evidence index is checked against its packet, and a packet with its index
            hexid = path.rsplit("/", 1)[1].split(".", 1)[0]
            if path.startswith("packets/"):
                new |= {f"packets/{hexid}.json", f"packets/{hexid}.evidence.json"}
        total = sum(sizes[p] for p in new)
        if total > MAX_NEW_BYTES:
            raise layout.Refused(f"{layout.where(commit)} brings {total:,} new bytes, over {MAX_NEW_BYTES:,}: refused")
        data = gitops.blobs(self.repo, sorted({ours[p] for p in new}))
        contents = {p: data[ours[p]] for p in new}
        order = sorted(new, key=lambda p: (not layout.PACKET.fullmatch(p), p))  # packets before their indexes
        for path in order:
            if path not in ours:
                continue  # refused with its other half
            try:
                layout.check(path, contents[path], contents)
            except layout.FileRefused as exc:
                halves = [path]
                if path.startswith("packets/"):  # a packet and its evidence index stand or fall together
                    hexid = path.rsplit("/", 1)[1].split(".", 1)[0]
                    halves = [f"packets/{hexid}.json", f"packets/{hexid}.evidence.json"]
                for half in halves:
                    why = exc.why if half == path else f"its other half {path} was refused"
                    refused[half] = layout.refusal(half, ours.pop(half, None), exc.kind, why)
                    contents.pop(half, None)
        return ours, contents, ignored, refused
