"""Git plumbing for the share ref: fetch it, push it, read its tree and blobs, write blobs, trees and commits.

Only our own refs are written (:data:`REF`, what this clone shares; :data:`INCOMING`, the remote's as last
verified; :data:`FETCHED`, the remote's as just fetched and not yet verified); never a branch, the index or
the work tree: a tree is built in a temporary index file of its own. Every git call has a deadline; the
network ones (:func:`fetch`, :func:`push`) a long one, and they may ask for credentials at the person's
terminal as ``git fetch`` would.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from typing import TYPE_CHECKING

from autopilot.errors import EXIT_INFRA, BridgeError
from autopilot.git import GitTimeout, run_git_bytes, stream_git

if TYPE_CHECKING:
    import subprocess

REF = "refs/codex-autopilot/share"
INCOMING = "refs/codex-autopilot/incoming"
FETCHED = "refs/codex-autopilot/fetched"
LOCAL_TIMEOUT_S = 120.0
NETWORK_TIMEOUT_S = 600.0
_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
REMOTE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,99}")


class Unreachable(BridgeError):
    """The remote could not be reached (offline, moved, refused us): what is local stays, nothing was lost."""

    exit_code = EXIT_INFRA


def git(
    repo: str,
    *args: str,
    data: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
    timeout: float = LOCAL_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``repo`` (bytes in, bytes out); a failure becomes a BridgeError naming the command.

    git may ask for credentials at the person's terminal, as ``git fetch`` would (see the module's docstring).
    """
    try:
        proc = run_git_bytes(repo, *args, data=data, env=env, timeout=timeout, prompt=True)
    except GitTimeout as exc:
        raise Unreachable(str(exc), hint="check the remote and the network, then try again") from None
    if check and proc.returncode != 0:
        raise BridgeError(f"git {' '.join(args[:2])} failed in {repo}: {_err(proc)}")
    return proc


def _err(proc: subprocess.CompletedProcess[bytes]) -> str:
    return proc.stderr.decode("utf-8", "replace").strip()[:400]


def text(repo: str, *args: str) -> str:
    """git's stdout as text, stripped."""
    return git(repo, *args).stdout.decode("utf-8", "replace").strip()


def resolve(repo: str, ref: str) -> str | None:
    """The commit ``ref`` names, or None when it does not exist."""
    proc = git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
    out = proc.stdout.decode().strip()
    return out if proc.returncode == 0 and _OID.fullmatch(out) else None


def object_type(repo: str, oid: str) -> str:
    """The type git gives an object (commit, tree, blob, tag)."""
    return text(repo, "cat-file", "-t", oid)


def remote(repo: str, given: str | None) -> str:
    """The remote to share through: ``given``, else the current branch's upstream remote, else origin, else the only
    one; one that is not configured here is refused (a name is never taken as an option or a URL)."""
    names = [n for n in text(repo, "remote").splitlines() if n]
    if given is not None:
        if given not in names or not REMOTE_NAME.fullmatch(given):
            raise BridgeError(
                f"{given!r} is not a git remote of this repository",
                hint=f"give one of: {', '.join(names) or '(none: add one with git remote add)'}",
            )
        return given
    branch = git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).stdout.decode().strip()
    upstream = git(repo, "config", "--get", f"branch.{branch}.remote", check=False).stdout.decode().strip()
    for name in (upstream, "origin", *(names if len(names) == 1 else [])):
        if name in names:
            if not REMOTE_NAME.fullmatch(name):
                raise BridgeError(f"the remote's name {name!r} is not one share uses", hint="rename it, or add another")
            return name
    if not names:
        raise BridgeError(
            "this repository has no git remote to share through",
            hint="add the team's remote (git remote add origin URL), or pass --remote",
        )
    raise BridgeError("this repository has several remotes", hint=f"choose one with --remote ({', '.join(names)})")


def fetch(repo: str, name: str) -> str | None:
    """Fetch the remote's share ref into :data:`FETCHED`; its commit, or None when the remote has none yet."""
    proc = git(
        repo,
        "fetch",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-recurse-submodules",
        "--quiet",
        name,
        f"+{REF}:{FETCHED}",
        check=False,
        timeout=NETWORK_TIMEOUT_S,
    )
    if proc.returncode != 0:
        said = _err(proc)
        if "couldn't find remote ref" in said:
            return None
        raise Unreachable(
            f"could not fetch {REF} from {name}: {said}",
            hint="check the remote and the network; everything here stays as it was",
        )
    found = git(repo, "rev-parse", "--verify", "--quiet", FETCHED, check=False).stdout.decode().strip()
    return found if _OID.fullmatch(found) else None  # whatever it names: a pull checks that it is a commit


def push(repo: str, name: str) -> bool:
    """Push :data:`REF` to the remote (never forced): True when it went, False when the remote moved (rejected)."""
    proc = git(
        repo,
        "push",
        "--porcelain",
        "--no-verify",
        name,
        f"{REF}:{REF}",
        check=False,
        timeout=NETWORK_TIMEOUT_S,
    )
    out = proc.stdout.decode("utf-8", "replace")
    line = next((x for x in out.splitlines() if f":{REF}\t" in x), "")
    if proc.returncode == 0 and line[:1] in (" ", "*", "=", "+"):
        return True
    if line.startswith("!") and ("rejected" in line or "fetch first" in line or "non-fast-forward" in line):
        return False  # the remote moved (another push won the race, or its ref lock was held): fetch and merge
    raise Unreachable(f"could not push {REF} to {name}: {_err(proc) or out.strip()[:400]}")


def is_ancestor(repo: str, older: str, newer: str) -> bool:
    """Whether ``older`` is ``newer`` or one of its ancestors."""
    return git(repo, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def update_ref(repo: str, ref: str, new: str, old: str | None) -> bool:
    """Point ``ref`` at ``new`` only if it still points at ``old`` (None: only if it does not exist yet)."""
    proc = git(repo, "update-ref", "-m", "codex-autopilot share", ref, new, old or "", check=False)
    return proc.returncode == 0


def delete_ref(repo: str, ref: str) -> None:
    """Remove one of our refs (no error when it is not there)."""
    git(repo, "update-ref", "-d", ref, check=False)


def tree_entries(repo: str, commit: str, limit: int) -> list[tuple[str, str, str, int, str]]:
    """(mode, type, object id, size, path) of every file in ``commit``'s tree, recursively; more than ``limit``
    entries is refused (a hostile tree could be as large as it likes)."""
    proc = stream_git(repo, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
    assert proc.stdout is not None
    found: list[tuple[str, str, str, int, str]] = []
    buffer = b""
    try:
        while chunk := proc.stdout.read(1 << 16):
            buffer += chunk
            *items, buffer = buffer.split(b"\0")
            for item in items:
                head, _, path = item.partition(b"\t")
                mode, kind, oid, size = (head.split() + [b"", b"", b"", b""])[:4]
                found.append(
                    (mode.decode(), kind.decode(), oid.decode(), int(size) if size.isdigit() else -1, _name(path))
                )
                if len(found) > limit:
                    raise BridgeError(f"the shared tree of {commit[:12]} has more than {limit:,} files: refused")
    finally:
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    if proc.returncode != 0:
        raise BridgeError(f"git ls-tree {commit[:12]} failed in {repo}")
    return found


def _name(path: bytes) -> str:
    """A path from a tree as text (bytes that are not UTF-8 shown as escapes: such a name is refused anyway)."""
    return path.decode("utf-8", "backslashreplace")


def blobs(repo: str, oids: list[str]) -> dict[str, bytes]:
    """The contents of the blobs ``oids`` (read in one ``git cat-file --batch``); sizes were checked by the caller."""
    if not oids:
        return {}
    proc = git(repo, "cat-file", "--batch", data="".join(f"{o}\n" for o in oids).encode(), timeout=NETWORK_TIMEOUT_S)
    out, pos, found = proc.stdout, 0, {}
    for oid in oids:
        end = out.index(b"\n", pos)
        head = out[pos:end].split()
        if len(head) != 3 or head[1] != b"blob":
            raise BridgeError(f"object {oid} is not a blob")
        size = int(head[2])
        found[oid] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return found


def object_format(repo: str) -> str:
    """The repository's object format: sha1 or sha256."""
    return text(repo, "rev-parse", "--show-object-format")


def blob_id(data: bytes, kind: str) -> str:
    """The id git gives ``data`` as a blob in a repository of object format ``kind``, without writing it."""
    digest = hashlib.sha256() if kind == "sha256" else hashlib.sha1()  # noqa: S324 - git's own object ids
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def write_blobs(repo: str, contents: list[tuple[bytes, str | None]]) -> list[str]:
    """Store each content as a blob; their ids, in order. A content with a file that holds it (a packet in its store)
    is hashed from that file, and its id must be the one its bytes give: a file changed meanwhile is refused."""
    if not contents:
        return []
    kind = object_format(repo)
    with tempfile.TemporaryDirectory(prefix="codex-autopilot-share-") as tmp:
        names, wanted = [], []
        for n, (data, source) in enumerate(contents):
            wanted.append(blob_id(data, kind))
            if source is None:
                source = os.path.join(tmp, str(n))
                with open(source, "wb") as fh:
                    fh.write(data)
            names.append(source)
        out = git(repo, "hash-object", "-w", "--no-filters", "--stdin-paths", data=("\n".join(names) + "\n").encode())
    found = out.stdout.decode().split()
    changed = [names[n] for n, (got, want) in enumerate(zip(found, wanted, strict=True)) if got != want]
    if changed:
        raise BridgeError(f"{changed[0]} changed while it was being shared: nothing was pushed", hint="run it again")
    return found


def write_tree(repo: str, entries: dict[str, str]) -> str:
    """A tree holding ``entries`` (path -> blob id, mode 100644), built in a temporary index (never the work tree's)."""
    with tempfile.TemporaryDirectory(prefix="codex-autopilot-share-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        listing = "".join(f"100644 {oid}\t{path}\n" for path, oid in sorted(entries.items()))
        git(repo, "update-index", "--add", "--index-info", data=listing.encode(), env=env)
        return text_env(repo, env, "write-tree")


def text_env(repo: str, env: dict[str, str], *args: str) -> str:
    """git's stdout as text, with ``env``."""
    return git(repo, *args, env=env).stdout.decode().strip()


def signing(repo: str) -> str | None:
    """The SSH signing key this clone's git config names (``gpg.format ssh`` and ``user.signingkey`` or a default key
    command), or None: commits are then unsigned, and rules in them arrive as candidates elsewhere."""

    def get(key: str) -> str:
        return git(repo, "config", "--get", key, check=False).stdout.decode().strip()

    if get("gpg.format") != "ssh":
        return None
    return get("user.signingkey") or get("gpg.ssh.defaultKeyCommand") or None


def commit(repo: str, tree: str, parents: list[str], message: str, *, sign: bool) -> str:
    """A commit of ``tree`` on ``parents`` by this clone's git identity, signed with its SSH key when ``sign``."""
    args = ["commit-tree", tree, *[a for p in parents for a in ("-p", p)], "-F", "-"]
    if sign:
        args.insert(1, "-S")
    proc = git(repo, *args, data=message.encode(), check=False)
    if proc.returncode != 0:
        said = _err(proc)
        hint = (
            "set your name and email for git (git config user.name, git config user.email)"
            if "tell me who you are" in said.lower() or "empty ident" in said.lower()
            else "check gpg.format, user.signingkey and your SSH key (git commit -S works the same way)"
            if sign
            else None
        )
        raise BridgeError(f"could not make the share commit: {said}", hint=hint)
    return proc.stdout.decode().strip()
