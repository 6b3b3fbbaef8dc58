"""Who brought each shared file, and whose signature a rule carries: the commits, their SSH signatures, the signers.

**Which commit brought a file.** A file of the shared tree was brought by the commit whose tree holds it
with those bytes while none of its parents' trees does (``git log -m --raw``: added or changed against
*every* parent). A merge that only unites its parents brings nothing, so the merges ``share push`` makes
when the remote moved never pass off a teammate's unsigned rule as their own signed one; a merge that adds
a file of its own (an "evil merge") brought it, and is judged like any commit.

**Whose signature counts.** A rule is trusted when a commit that brought it is signed with SSH by a signer
listed in ``.codex-autopilot/allowed_signers`` (git's allowed-signers format) *as committed in this checkout's
HEAD*: the file is reviewed and merged like code. The copy in the work tree (uncommitted edits) and any copy
on the share ref are never read, so a key cannot vouch for itself by adding its own line in the commit it
signs. When the change that brought HEAD's file added a signer and no signer of the file's earlier version
signed it (an unsigned commit, or one signed only by the key it adds), the pull and ``share list`` say so: the
file is still trusted as committed, and the person checks that the change was reviewed.

git checks the signature (``%G?``, the check ``git verify-commit`` makes, with
``gpg.ssh.allowedSignersFile`` pointing at HEAD's file and ``gpg.ssh.program`` at ``ssh-keygen``, whatever
this clone's config says); an OpenPGP or X.509 signature is never asked about (their programs are set to
``false``), so only an SSH signature by a listed principal is good.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from autopilot.clock import iso
from autopilot.errors import BridgeError
from autopilot.knowledge.share import gitops
from autopilot.output import one_line

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import Said, Signature, Signers

ALLOWED = ".codex-autopilot/allowed_signers"
MAX_SIGNERS_BYTES = 64 * 1024
MAX_COMMITS = 100_000
MACHINE = "Codex-Autopilot-Machine"
LABEL_CHARS = 120


@contextmanager
def signers(repo: str) -> Iterator[Signers]:
    """HEAD's allowed signers, written to a private temporary file for git: ``{"file", "blob", "principals",
    "note"}`` (``file`` None: no signer is trusted, and ``note`` says why)."""
    found: Signers = {"file": None, "blob": None, "principals": [], "note": None}
    blob = gitops.git(repo, "rev-parse", "--verify", "--quiet", f"HEAD:{ALLOWED}", check=False).stdout.decode().strip()
    if not blob:
        found["note"] = f"no {ALLOWED} is committed in HEAD: no shared rule is delivered here, each is a candidate"
        yield found
        return
    if gitops.object_type(repo, blob) != "blob":
        found["note"] = f"{ALLOWED} in HEAD is not a file: no signer is trusted"
        yield found
        return
    size = int(gitops.text(repo, "cat-file", "-s", blob))
    if size > MAX_SIGNERS_BYTES:
        found["note"] = f"{ALLOWED} in HEAD is larger than {MAX_SIGNERS_BYTES // 1024} KiB: no signer is trusted"
        yield found
        return
    data = gitops.blobs(repo, [blob])[blob]
    found["blob"] = blob
    found["principals"] = _principals(data)
    here = os.path.join(gitops.text(repo, "rev-parse", "--show-toplevel"), ALLOWED)
    try:
        with open(here, "rb") as fh:
            if fh.read(MAX_SIGNERS_BYTES + 1) != data:
                found["note"] = f"{ALLOWED} in the work tree differs from HEAD's: only HEAD's (committed) is trusted"
    except OSError:
        pass
    with tempfile.TemporaryDirectory(prefix="codex-autopilot-signers-") as tmp:
        path = os.path.join(tmp, "allowed_signers")
        with open(path, "wb") as fh:
            fh.write(data)
        found["file"] = path
        changed = _unvouched_change(repo, tmp, data)
        if changed:
            found["note"] = f"{found['note']}; {changed}" if found["note"] else changed
        yield found


def _unvouched_change(repo: str, tmp: str, now: bytes) -> str | None:
    """Why the last change to HEAD's allowed_signers deserves a look (None: it added no signer, or a signer its earlier
    version lists signed it): a key added in an unsigned commit, or signed only by a key it adds itself, delivers rules
    like the others once it is in HEAD. It is still trusted (the file is reviewed like code); the person is told."""
    line = git_line(repo, "log", "-1", "--format=%H %P", "HEAD", "--", ALLOWED)
    if not line:
        return None
    commit, *parents = line.split()
    before = b""
    if parents:
        old = gitops.git(repo, "rev-parse", "--verify", "--quiet", f"{parents[0]}:{ALLOWED}", check=False)
        blob = old.stdout.decode().strip()
        if blob and gitops.object_type(repo, blob) == "blob":
            before = gitops.blobs(repo, [blob])[blob][:MAX_SIGNERS_BYTES]
    added = sorted(set(_principals(now)) - set(_principals(before)))
    if not added or not before:
        return None  # no signer added, or the file's first version (trusted as committed, like any code)
    earlier = os.path.join(tmp, "earlier_signers")
    with open(earlier, "wb") as fh:
        fh.write(before)
    seal = signatures(repo, [commit], earlier).get(commit) or {"status": "unsigned"}
    if seal["status"] == "good":
        return None
    who = commits(repo, [commit]).get(commit, {"by": ""})["by"]
    return (
        f"{ALLOWED} in HEAD added {', '.join(json.dumps(a) for a in added[:5])} in commit {commit[:12]} by {who}, "
        f"which no signer its earlier version lists signed ({seal['status']}): check that change was reviewed, since "
        "a listed key delivers the team's rules here"
    )


def git_line(repo: str, *args: str) -> str:
    """The first line git prints (empty when it fails)."""
    proc = gitops.git(repo, *args, check=False)
    return proc.stdout.decode("utf-8", "replace").strip().split("\n", 1)[0] if proc.returncode == 0 else ""


def _principals(data: bytes) -> list[str]:
    """The principals an allowed-signers file names (the first field of each line; comments skipped)."""
    out = []
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out += [one_line(p, LABEL_CHARS) for p in line.split()[0].split(",") if p]
    return out


def brought_by(repo: str, tip: str, wanted: dict[str, str]) -> dict[str, list[str]]:
    """For each path of ``wanted`` (path -> its object id at ``tip``), the commits that brought those bytes, newest
    first (added or changed against every parent; a root commit against nothing)."""
    out = gitops.git(
        repo,
        "log",
        "--format=%x1e%H %P",
        "--raw",
        "-m",
        "--root",
        "--no-renames",
        "--no-abbrev",
        "--no-color",
        f"--max-count={MAX_COMMITS + 1}",
        tip,
    ).stdout.decode("utf-8", "replace")
    seen: dict[tuple[str, str], int] = {}  # (commit, path) -> parents it differs from
    parents: dict[str, int] = {}
    order: list[str] = []
    for block in out.split("\x1e")[1:]:
        head, _, raw = block.partition("\n")
        ids = head.split()
        if not ids:
            continue
        commit = ids[0]
        if commit not in parents:
            parents[commit] = len(ids) - 1
            order.append(commit)
        for line in raw.splitlines():
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            fields = meta.split()
            if len(fields) >= 5 and fields[4][:1] in ("A", "M") and wanted.get(path) == fields[3]:
                seen[(commit, path)] = seen.get((commit, path), 0) + 1
    if len(order) > MAX_COMMITS:
        raise BridgeError(f"the shared history is longer than {MAX_COMMITS:,} commits: refused")
    found: dict[str, list[str]] = {}
    for commit in order:
        for path in wanted:
            if seen.get((commit, path), 0) >= max(1, parents[commit]):
                found.setdefault(path, []).append(commit)
    return found


def commits(repo: str, ids: list[str]) -> dict[str, Said]:
    """Who made each commit and from where, as it says (printable, bounded): ``by``, ``at``, ``machine``."""
    if not ids:
        return {}
    proc = gitops.git(repo, "cat-file", "--batch", data="".join(f"{c}\n" for c in ids).encode())
    data, pos = proc.stdout, 0
    out: dict[str, Said] = {}
    for commit in ids:
        end = data.index(b"\n", pos)
        size = int(data[pos:end].split()[2])
        body = data[end + 1 : end + 1 + size].decode("utf-8", "replace")
        pos = end + 1 + size + 1
        header, _, message = body.partition("\n\n")
        info: Said = {"by": "", "at": "", "machine": ""}
        for line in header.splitlines():
            if line.startswith("author "):
                who, _, when = line[7:].rpartition("> ")
                info["by"] = one_line(who + ">", LABEL_CHARS)
                info["at"] = _iso(when)
        for line in message.splitlines():
            if line.startswith(MACHINE + ":"):
                info["machine"] = one_line(line[len(MACHINE) + 1 :].strip(), LABEL_CHARS)
        out[commit] = info
    return out


def _iso(when: str) -> str:
    """A commit's ``<seconds> <zone>`` as UTC ISO 8601 text ("" when it is not that)."""
    seconds = when.split()[0] if when.split() else ""
    return iso(float(seconds)) if seconds.isdigit() else ""


def signatures(repo: str, ids: list[str], allowed: str | None) -> dict[str, Signature]:
    """For each commit: ``status`` (``good``: SSH-signed by a listed signer; ``unlisted``: signed by a key the file
    does not list; ``unsigned``; ``bad``), ``signer`` (the listed principal) and ``key`` (its fingerprint)."""
    if not ids:
        return {}
    config = [
        "-c",
        "gpg.ssh.program=ssh-keygen",
        "-c",
        "gpg.program=false",
        "-c",
        "gpg.x509.program=false",
        "-c",
        f"gpg.ssh.allowedSignersFile={allowed or os.devnull}",
    ]
    out = gitops.git(
        repo, *config, "log", "--no-walk=unsorted", "--format=%H%x1f%G?%x1f%GF%x1f%GS%x1e", *ids
    ).stdout.decode("utf-8", "replace")
    found: dict[str, Signature] = {}
    for record in out.split("\x1e"):
        fields = record.strip("\n").split("\x1f")
        if len(fields) != 4:
            continue
        commit, status, key, signer = fields
        state = {"G": "good", "U": "unlisted", "N": "unsigned"}.get(status, "bad")
        if state == "good" and (not signer or allowed is None):
            state = "unlisted"
        found[commit] = {
            "status": state,
            "signer": one_line(signer, LABEL_CHARS) if state == "good" else None,
            "key": one_line(key, LABEL_CHARS) or None,
        }
    return found
