"""Who brought each shared file, and whose signature a rule carries: the commits, their SSH signatures, the signers.

**Which commit brought a file.** A file of the shared tree was brought by the commit whose tree holds it
with those bytes while none of its parents' trees does (``git log -m --raw``: added or changed against
*every* parent). A merge that only unites its parents brings nothing, so the merges ``share push`` makes
when the remote moved never pass off a teammate's unsigned rule as their own signed one; a merge that adds
a file of its own (an "evil merge") brought it, and is judged like any commit.

**Whose signature counts.** A rule is trusted when a commit that brought it is signed with SSH by a signer the
*default branch's history* trusts (``.codex-autopilot/allowed_signers``, git's allowed-signers format), whatever
branch is checked out: the file's first version on that branch is the team's root of trust, and every later
version counts only as far as a signer already trusted signed the commit that made it (:func:`history`). A line
added in an unsigned commit, or in one signed only by the key it adds, is not trusted (the pull and ``share list``
say so, naming the commit and its author); a principal's new key is a new signer, vouched for like any other, and
``share list`` names it; removals count unsigned (dropping trust is always safe). The work tree's copy and any
copy on the share ref are never read. A key's validity window (``valid-after``, ``valid-before``) is judged
against when this machine first saw the commit (:func:`judged`: the share state's ``firstSeen``), never the date
the commit claims, which its author sets.

git checks the signature (``%G?``, the check ``git verify-commit`` makes, with ``gpg.ssh.allowedSignersFile``
pointing at the trusted lines, validity windows left out, and ``gpg.ssh.program`` at ``ssh-keygen``, whatever
this clone's config says); an OpenPGP or X.509 signature is never asked about (their programs are set to
``false``), so only an SSH signature by a listed principal is good.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from autopilot import clock
from autopilot.clock import iso
from autopilot.errors import BridgeError
from autopilot.knowledge.share import gitops
from autopilot.output import one_line

if TYPE_CHECKING:
    from autopilot.knowledge.share.shapes import NewSigner, Said, Signature, Signers

ALLOWED = ".codex-autopilot/allowed_signers"
MAX_SIGNERS_BYTES = 64 * 1024
MAX_COMMITS = 100_000
MACHINE = "Codex-Autopilot-Machine"
LABEL_CHARS = 120
WORK_TREE_NOTE = (
    f"{ALLOWED} in the work tree differs from the default branch's: only that branch's history (each signer added "
    "in a commit a signer already trusted signed) is trusted"
)


@contextmanager
def signers(repo: str, seen: dict[str, str] | None = None) -> Iterator[Signers]:
    """The signers the default branch's history trusts (:func:`history`), written to a private temporary file for
    git: ``{"file", "blob", "principals", "note", "windows", "newSigners", "seen"}`` (``file`` None: no signer is
    trusted, and ``note`` says why). ``seen``: when this machine first saw each commit, what validity windows are
    judged by (:func:`judged`)."""
    found: Signers = {
        "file": None, "blob": None, "principals": [], "note": None, "windows": {}, "newSigners": [], "seen": seen or {},
    }  # fmt: skip
    branch = default_branch(repo)
    lines, notes, added, blob = history(repo, branch)
    found["blob"] = blob
    if branch is None or blob is None:
        found["note"] = f"no {ALLOWED} is committed on the default branch: no shared rule is delivered here"
        yield found
        return
    found["principals"] = _principals("\n".join(lines).encode())
    found["newSigners"] = added
    found["windows"] = {fp: window for line in lines for fp, window in [_window(line)] if fp}
    here = os.path.join(gitops.text(repo, "rev-parse", "--show-toplevel"), ALLOWED)
    try:
        with open(here, "rb") as fh:
            if fh.read(MAX_SIGNERS_BYTES + 1) != gitops.blobs(repo, [blob])[blob]:
                notes.insert(0, WORK_TREE_NOTE)
    except OSError:
        pass
    found["note"] = "; ".join(notes) or None
    with tempfile.TemporaryDirectory(prefix="codex-autopilot-signers-") as tmp:
        path = os.path.join(tmp, "allowed_signers")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("".join(_without_window(line) + "\n" for line in lines))
        found["file"] = path if lines else None
        yield found


def default_branch(repo: str) -> str | None:
    """The ref of the default branch, whatever is checked out: the branch the remote's HEAD names (``origin/HEAD``),
    as this clone has it locally, else ``main`` or ``master``; None when there is none."""
    names = []
    head = git_line(repo, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if head and "/" in head:
        names.append(head.split("/", 1)[1])
    names += ["main", "master"]
    for name in names:
        if git_line(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{name}"):
            return f"refs/heads/{name}"
    return None


def _key_of(line: str) -> tuple[str, str, str] | None:
    """(principals, key type, key) of an allowed-signers line: options (between them) do not change who it is."""
    fields = line.split()
    types = [i for i, f in enumerate(fields) if f.startswith(("ssh-", "ecdsa-", "sk-"))]
    if not fields or not types or types[0] + 1 >= len(fields):
        return None
    return fields[0], fields[types[0]], fields[types[0] + 1]


def _lines(data: bytes) -> list[str]:
    return [
        line.strip()
        for line in data.decode("utf-8", "replace").splitlines()
        if line.strip() and not line.strip().startswith("#") and _key_of(line.strip())
    ]


def history(repo: str, branch: str | None) -> tuple[list[str], list[str], list[NewSigner], str | None]:
    """The allowed-signers lines the default branch's history trusts, notes for the person, the signers added (each
    by a commit an already-trusted signer signed), and the file's blob at the branch's tip.

    The file's first version on the branch is trusted as committed (the team's root of trust); every later version
    counts only as far as it is vouched for: a version that adds a line (a new principal, a principal's new key, or
    a wider validity) counts only when its commit is signed by a signer the version before trusted; otherwise only
    what it removed is taken (dropping trust needs no signature)."""
    if branch is None:
        return [], [], [], None
    blob = git_line(repo, "rev-parse", "--verify", "--quiet", f"{branch}:{ALLOWED}") or None
    out = gitops.git(
        repo, "log", "--first-parent", "--reverse", "--format=%H", f"--max-count={MAX_COMMITS}", branch, "--", ALLOWED,
        check=False,
    ).stdout.decode().split()  # fmt: skip
    trusted: list[str] = []
    notes: list[str] = []
    added: list[NewSigner] = []
    first = True
    for commit in out:
        found = git_line(repo, "rev-parse", "--verify", "--quiet", f"{commit}:{ALLOWED}")
        data = b""
        if found and gitops.object_type(repo, found) == "blob":
            data = gitops.blobs(repo, [found])[found][:MAX_SIGNERS_BYTES]
        now = _lines(data)
        if first:
            trusted, first = now, not now
            continue
        new = [line for line in now if line not in trusted]
        keys_now = {_key_of(line) for line in now}
        if not new:
            trusted = [line for line in trusted if _key_of(line) in keys_now]
            continue
        with tempfile.TemporaryDirectory(prefix="codex-autopilot-signers-") as tmp:
            earlier = os.path.join(tmp, "earlier_signers")
            with open(earlier, "w", encoding="utf-8") as fh:
                fh.write("".join(_without_window(line) + "\n" for line in trusted))
            seal = signatures(repo, [commit], earlier if trusted else None).get(commit)
        status = seal["status"] if seal else "unsigned"
        who = commits(repo, [commit]).get(commit, {"by": ""})["by"]
        old_keys = {_key_of(line) for line in trusted}
        if status == "good":
            for line in new:
                k = _key_of(line)
                if k is not None and k not in old_keys:
                    added.append({"principal": one_line(k[0], LABEL_CHARS), "key": fingerprint(k[2]),
                                  "commit": commit, "by": who, "signer": seal["signer"] if seal else None})  # fmt: skip
            trusted = now
            continue
        names = ", ".join(
            json.dumps(one_line(n, LABEL_CHARS)) for n in sorted({k[0] for k in map(_key_of, new) if k})[:5]
        )
        notes.append(
            f"{ALLOWED} on the default branch added {names} in commit {commit[:12]} by {who}, which no signer its "
            f"earlier version lists signed ({status}): not trusted (a key is trusted only when a signer already "
            "trusted signed the commit that added it)"
        )
        trusted = [line for line in trusted if _key_of(line) in keys_now]
    return trusted, notes, added, blob


def fingerprint(key: str) -> str:
    """An SSH public key's SHA256 fingerprint, as ssh-keygen and git print it."""
    try:
        raw = base64.b64decode(key + "=" * (-len(key) % 4))
    except ValueError:
        return ""
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def _window(line: str) -> tuple[str, tuple[str | None, str | None]]:
    """The key's fingerprint and its validity window (``valid-after``, ``valid-before`` as UTC ISO 8601, or None)."""
    k = _key_of(line)
    if k is None:
        return "", (None, None)
    options = line.split(k[1], 1)[0][len(k[0]) :]
    return fingerprint(k[2]), (_when(options, "valid-after"), _when(options, "valid-before"))


def _when(options: str, name: str) -> str | None:
    """An allowed-signers time option (``YYYYMMDD[HHMM[SS]][Z]``) as UTC ISO 8601 text."""
    for part in options.replace('"', "").split(","):
        part = part.strip()
        if part.startswith(name + "="):
            digits = part.split("=", 1)[1].rstrip("Zz")
            d = (digits + "000000")[:14] if len(digits) >= 8 else ""
            if d.isdigit():
                return f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}Z"
    return None


def _without_window(line: str) -> str:
    """The line without its validity options: git would judge them by the commit's own date, which its author sets;
    :func:`judged` judges them by when this machine first saw the commit."""
    k = _key_of(line)
    if k is None:
        return line
    options = line.split(k[1], 1)[0][len(k[0]) :].strip()
    kept = [o for o in options.split(",") if o and not o.strip().startswith(("valid-after", "valid-before"))]
    return " ".join([k[0], *([",".join(kept)] if kept else []), k[1], k[2]])


def judged(found: dict[str, Signature], allowed: Signers) -> dict[str, Signature]:
    """``found`` with each good signature outside its key's validity window, judged against when this machine first
    saw the commit (``allowed["seen"]``; unseen: now), turned ``expired``."""
    now = clock.now()
    for commit, sig in found.items():
        if sig["status"] != "good":
            continue
        after, before = allowed["windows"].get(str(sig.get("key") or ""), (None, None))
        at = allowed["seen"].get(commit) or now
        if (before and at >= before) or (after and at < after):
            found[commit] = {**sig, "status": "expired", "signer": None}
    return found


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
