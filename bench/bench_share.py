"""Benchmark `codex-bridge share`: push and pull 1,000 packets through a real bare remote, against plain git.

Usage: ``.venv/bin/python bench/bench_share.py [--packets 1000] [--runs 3] [--keep DIR]``

One real session (a Claude transcript in the shape the pinned claude writes, in a real git repository) is
exported as a packet; ``--packets`` variants of it are sealed as real packets (each its own objective and
session id, canonical bytes named by their sha256, the evidence index bound by hash). Then, for each of
``--runs`` rounds, on a fresh bare remote and fresh clones with homes of their own (Ada's and Bob's
machines):

- **push**: the whole ``codex-bridge share push ID...`` process sending all of them (verify each, run the
  redactor over every text, write the blobs and one commit, push), against the same transfer by plain git
  measured alongside: ``git hash-object -w --stdin-paths`` of the same files, ``update-index`` and
  ``write-tree``, ``commit-tree`` and ``git push`` to a bare remote of its own;
- **pull**: the whole ``codex-bridge share pull`` process on the other machine (fetch, check every name,
  size and hash, verify every packet, store them, record their origin, index their evidence), against
  ``git fetch`` of the same ref and ``git cat-file --batch`` of all its blobs;
- **one more**: pushing one packet onto the 1,000 and pulling it (what a day looks like), against
  ``git push`` and ``git fetch`` of one commit;
- **in-process**: the same push and pull as function calls (``share.push.push``, ``share.pull.pull``), so the
  process's start-up is told apart.

Prints medians and ratios; asserts nothing (benchmarks are not tests).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

REF = "refs/codex-autopilot/share"


def sh(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, data: bytes | None = None) -> bytes:
    """Run a command (it must succeed); its stdout."""
    return subprocess.run(args, cwd=cwd, env=env, input=data, capture_output=True, check=True).stdout


def homes(root: Path) -> dict[str, str]:
    """A machine's environment: homes of its own under ``root``, this checkout importable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "CODEX_"))}
    for var in ("AUTOPILOT_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "HOME"):
        (root / var.lower()).mkdir(parents=True, exist_ok=True)
        env[var] = str(root / var.lower())
    env["PYTHONPATH"] = str(REPO / "src")
    return env


@contextmanager
def machine(env: dict[str, str]) -> Iterator[None]:
    """This process as the machine whose homes ``env`` names (the previous homes back afterwards)."""
    old = {k: os.environ.get(k) for k in ("AUTOPILOT_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "HOME")}
    os.environ.update({k: env[k] for k in old})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def team(root: Path) -> tuple[Path, Path, Path]:
    """A bare remote with one commit on main, and two clones of it (Ada's and Bob's)."""
    remote = root / "remote.git"
    sh("git", "init", "-q", "--bare", "-b", "main", str(remote))
    seed = root / "seed"
    sh("git", "clone", "-q", str(remote), str(seed))
    (seed / "README.md").write_text("# project\n")
    sh("git", "-C", str(seed), "add", ".")
    sh("git", "-C", str(seed), "-c", "user.name=S", "-c", "user.email=s@x", "commit", "-qm", "start")
    sh("git", "-C", str(seed), "push", "-q", "origin", "main")
    clones = []
    for name in ("a", "b"):
        clone = root / name / "project"
        sh("git", "clone", "-q", str(remote), str(clone))
        sh("git", "-C", str(clone), "config", "user.name", name.upper())
        sh("git", "-C", str(clone), "config", "user.email", f"{name}@example.com")
        clones.append(clone)
    return remote, clones[0], clones[1]


def packets(clone: Path, env: dict[str, str], n: int) -> list[str]:
    """``n`` sealed packets of ``clone``'s project in the home ``env`` names: one real export, then variants."""
    from tests.support.claude_rows import Transcript, text, tool_use
    from tests.support.handoff_env import claude_session

    with machine(env):
        t = Transcript(session=str(uuid.uuid4()))
        t.user("Make the parser accept an empty header. Never change the public API of parse().")
        t.assistant(tool_use("Bash", {"command": "pytest -q tests/test_parser.py"}, "toolu_t1"))
        t.result("toolu_t1", "Exit code 1\nFAILED tests/test_parser.py::test_empty - ValueError: no colon")
        t.assistant(tool_use("Edit", {"file_path": "parser.py", "old_string": "a", "new_string": "b"}, "toolu_e1"))
        t.result("toolu_e1", "The file has been updated successfully.")
        t.assistant(tool_use("Bash", {"command": "pytest -q tests/test_parser.py"}, "toolu_t2"))
        t.result("toolu_t2", "3 passed in 0.02s")
        t.assistant(text("All three pass. Next: add a regression test for the empty header."))
        claude_session(t, clone)
        out = sh(sys.executable, "-m", "autopilot", "handoff", "export", "--from", "claude", "--session", t.session,
                 "--to", "codex", cwd=clone, env=env)  # fmt: skip
        from autopilot.handoff.packets import store

        _, template, evidence = store.load(json.loads(out)["packet"])
        ids = []
        for k in range(n):
            packet = json.loads(json.dumps(template))
            packet["objective"]["text"] = f"Task {k}: make the parser accept an empty header."
            packet["source"]["sessionId"] = str(uuid.UUID(int=k + 1))
            ids.append(store.store(packet, evidence)[0])
        return ids


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    """Wall milliseconds of one process (it must succeed)."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    took = (time.perf_counter() - start) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:6]} failed: {proc.stderr.decode()[-800:]}")
    return took


def plain_push(files: list[Path], root: Path) -> float:
    """Milliseconds plain git takes to store ``files`` as blobs, add them to the plain tree, commit and push."""
    remote, clone = root / "plain.git", root / "plain"
    if not remote.exists():
        sh("git", "init", "-q", "--bare", str(remote))
        sh("git", "init", "-q", str(clone))
        sh("git", "-C", str(clone), "remote", "add", "origin", str(remote))
    env = {**os.environ, "GIT_INDEX_FILE": str(root / "plain-index")}
    parent = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", REF], capture_output=True, text=True
    ).stdout.strip()
    start = time.perf_counter()
    oids = sh("git", "-C", str(clone), "hash-object", "-w", "--stdin-paths",
              data="".join(f"{f}\n" for f in files).encode()).decode().split()  # fmt: skip
    info = "".join(f"100644 {o}\tpackets/{f.name}\n" for o, f in zip(oids, files, strict=True))
    sh("git", "-C", str(clone), "update-index", "--add", "--index-info", data=info.encode(), env=env)
    tree = sh("git", "-C", str(clone), "write-tree", env=env).decode().strip()
    parents = ["-p", parent] if parent else []
    commit = sh("git", "-C", str(clone), "-c", "user.name=P", "-c", "user.email=p@x", "commit-tree", tree,
                *parents, "-m", "plain").decode().strip()  # fmt: skip
    sh("git", "-C", str(clone), "update-ref", REF, commit)
    sh("git", "-C", str(clone), "push", "-q", "origin", f"{REF}:{REF}")
    return (time.perf_counter() - start) * 1000


def plain_pull(root: Path) -> float:
    """Milliseconds plain git takes to fetch the plain share ref and read every blob it brought."""
    clone = root / "plain-pull"
    if not clone.exists():
        sh("git", "init", "-q", str(clone))
    before = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--verify", "--quiet", REF], capture_output=True, text=True
    ).stdout.strip()
    start = time.perf_counter()
    sh("git", "-C", str(clone), "fetch", "-q", str(root / "plain.git"), f"+{REF}:{REF}")
    if before:
        listing = sh("git", "-C", str(clone), "diff-tree", "-r", before, REF).decode().splitlines()
        oids = "".join(line.split()[3] + "\n" for line in listing)
    else:
        listing = sh("git", "-C", str(clone), "ls-tree", "-r", REF).decode().splitlines()
        oids = "".join(line.split()[2] + "\n" for line in listing)
    sh("git", "-C", str(clone), "cat-file", "--batch", data=oids.encode())
    return (time.perf_counter() - start) * 1000


def files_of(env: dict[str, str], ids: list[str]) -> list[Path]:
    """The packet and evidence files of ``ids`` in the home ``env`` names."""
    folder = Path(env["AUTOPILOT_HOME"]) / "handoff" / "packets"
    return [folder / f"{p.removeprefix('sha256:')}{ext}" for p in ids for ext in (".json", ".evidence.json")]


def one_round(root: Path, n: int) -> dict[str, float]:
    """One fresh team: every figure of the round, in milliseconds."""
    remote, a, b = team(root)
    env_a, env_b = homes(root / "a"), homes(root / "b")
    ids = packets(a, env_a, n + 1)
    bulk, extra = ids[:n], ids[n]
    bridge = [sys.executable, "-m", "autopilot"]
    out: dict[str, float] = {}
    out["push"] = timed([*bridge, "share", "push", *bulk], a, env_a)
    out["plain push"] = plain_push(files_of(env_a, bulk), root)
    out["bytes"] = float(sum(f.stat().st_size for f in files_of(env_a, bulk)))
    out["pull"] = timed([*bridge, "share", "pull"], b, env_b)
    out["plain pull"] = plain_pull(root)
    out["push one more"] = timed([*bridge, "share", "push", extra], a, env_a)
    out["plain push one"] = plain_push(files_of(env_a, [extra]), root)
    out["pull one more"] = timed([*bridge, "share", "pull"], b, env_b)
    out["plain pull one"] = plain_pull(root)
    out.update(in_process(root, remote, a, env_a, bulk))
    return out


def in_process(root: Path, remote: Path, a: Path, env_a: dict[str, str], bulk: list[str]) -> dict[str, float]:
    """The same push (of the 1,000, to a fresh remote) and pull (on a fresh machine) as calls in this process."""
    from autopilot.knowledge.share.pull import pull
    from autopilot.knowledge.share.push import push

    fresh = root / "inproc.git"
    sh("git", "init", "-q", "--bare", str(fresh))
    sh("git", "-C", str(a), "remote", "add", "inproc", str(fresh))
    c = root / "c" / "project"
    sh("git", "clone", "-q", str(remote), str(c))
    sh("git", "-C", str(c), "remote", "add", "inproc", str(fresh))
    env_c = homes(root / "c")
    out = {}
    for name, env, call in (
        ("in-process push", env_a, lambda: push(str(a), "inproc", bulk, with_rules=False, dry_run=False)),
        ("in-process pull", env_c, lambda: pull(str(c), "inproc")),
    ):
        with machine(env):
            start = time.perf_counter()
            call()
            out[name] = (time.perf_counter() - start) * 1000
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packets", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="keep the scratch directories here")
    args = parser.parse_args()
    rounds = []
    for r in range(args.runs):
        root = (args.keep / f"round-{r}") if args.keep else Path(tempfile.mkdtemp(prefix="bench-share-"))
        root.mkdir(parents=True, exist_ok=True)
        try:
            rounds.append(one_round(root, args.packets))
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v:,.0f}" for k, v in rounds[-1].items()), flush=True)
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    load = os.getloadavg()[0]
    n = args.packets
    print(
        f"\n{n:,} packets, {med['bytes'] / 1e6:.1f} MB of packet files; median of {args.runs} rounds; load {load:.1f}"
    )
    rows = [
        (
            "share push of all (whole process)",
            med["push"],
            med["plain push"],
            "plain git: hash-object, tree, commit, push",
        ),
        ("share pull of all (whole process)", med["pull"], med["plain pull"], "plain git: fetch, cat-file every blob"),
        ("share push, in-process", med["in-process push"], med["plain push"], ""),
        ("share pull, in-process", med["in-process pull"], med["plain pull"], ""),
        ("share push of one more", med["push one more"], med["plain push one"], "plain git: the same for one packet"),
        ("share pull of one more", med["pull one more"], med["plain pull one"], "plain git: fetch one commit, read it"),
    ]
    for name, ours, base, what in rows:
        print(f"{name:38s} {ours:9,.0f} ms   baseline {base:8,.0f} ms   {ours / base:5.1f}x   {what}")
    print(f"per packet: push {med['push'] / n:.1f} ms, pull {med['pull'] / n:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
