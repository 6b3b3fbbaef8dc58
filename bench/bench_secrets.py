"""The secret corpus as whole processes: how many credential shapes leave, and what withholding them costs.

Builds the corpus of ``tests/support/secret_corpus.py`` (173 shapes; every value fake, made at
run time) in a throwaway repository, then runs real ``codex-bridge`` processes: ``plan`` (the goal
carries every token), ``review`` and ``verdict`` (diffs with new files, key files changed in the
middle, lines git puts in hunk headers, a renamed and a copied .env, a copy of a gitignored .env,
file names, commit messages; the last message carries every shape) against the scripted
Responses server, and the Claude and Codex handoffs (intake, raw read, export, import) over transcripts that carry every
shape. It counts the shapes found in each place: request bodies, packets and evidence indexes,
intakes, raw read, import contexts, the plan file, stdout and stderr. The goal is 0.

Costs, measured in the same run: a review of the corpus repository against a review of a
repository laid out the same way with harmless text (the extra work is redaction and finding
secret files: renames, copies, key files by content), both whole processes; and ``redact()``
in process on this repository's own history (``git log -p``), against the redactor as it was
before issue 11 (``redact.py`` at 86018f8, loaded from git history).

Usage: .venv/bin/python bench/bench_secrets.py [--runs N] [--codex]   (prints Markdown tables)
  --codex: the codex-cli backend with the real codex binary from tests/agents (else openai)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO))

from tests.support import secret_corpus as sc  # noqa: E402
from tests.support.loop import APPROVE, PLAN  # noqa: E402

from autopilot.redact import redact  # noqa: E402
from autopilot.scripted.responses_server import ResponsesServer, reply_json  # noqa: E402


def environment(root: Path, server: ResponsesServer, codex: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOPILOT_", "OPENAI_", "CLAUDE_"))}
    for var, sub in (("AUTOPILOT_HOME", "autopilot"), ("CODEX_HOME", "codex"), ("CLAUDE_CONFIG_DIR", "claude")):
        (root / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(root / sub)
    env.update(
        HOME=str(root / "home"),
        PYTHONPATH=str(REPO / "src"),
        AUTOPILOT_MODEL="gpt-6.2-sol",
        GIT_AUTHOR_NAME="b",
        GIT_AUTHOR_EMAIL="b@b",
        GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@b",
    )
    if codex:
        from tests.support.agents import AGENTS, write_codex_config

        write_codex_config(root / "codex", server.url)
        env.update(AUTOPILOT_BACKEND="codex-cli", AUTOPILOT_CODEX_BIN=str(AGENTS / "codex"), FAKE_OPENAI_KEY="x")
    else:
        env.update(AUTOPILOT_BACKEND="openai", OPENAI_BASE_URL=server.url, OPENAI_API_KEY="sk-bench-not-a-key")
    return env


def runner(env: dict[str, str]):
    def run(args: list[str], cwd: Path) -> tuple[int, str, str]:
        proc = subprocess.run(
            [sys.executable, "-m", "autopilot", *args], cwd=cwd, env=env, capture_output=True, text=True
        )
        return proc.returncode, proc.stdout, proc.stderr

    return run


def fresh_repo(root: Path, env: dict[str, str]) -> Path:
    repo = root / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    (repo / "README.md").write_text("# bench\n")
    sc.git(repo, "add", "-A")
    sc.git(repo, "commit", "-qm", "init")
    return repo


def leak_table(codex: bool) -> tuple[list[sc.Place], int]:
    with tempfile.TemporaryDirectory(prefix="bench-secrets-") as tmp, ResponsesServer() as server:
        root = Path(tmp)
        env = environment(root, server, codex)
        os.environ.update({k: env[k] for k in ("AUTOPILOT_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR")})
        repo = fresh_repo(root, env)
        places = sc.run_corpus(runner(env), server, repo, Path(env["AUTOPILOT_HOME"]))
        return places, len(sc.shapes())


def harmless(corpus: list[sc.Shape]) -> list[sc.Shape]:
    """The corpus's layout with every secret replaced by ordinary text of the same length."""
    out = []
    for s in corpus:
        text = re.sub(r"[A-Za-z0-9+/=_\-]{6,}", lambda m: "word" * (len(m.group(0)) // 4 + 1), s.text)
        token = "plain-" + "x" * min(40, len(s.token or "")) if s.token else None
        out.append(sc.Shape(s.name, text.replace("PRIVATE KEY", "PUBLIC NOTE"), token, ["unused-needle"], s.key))
    return out


def review_times(corpora: list[list[sc.Shape]], runs: int, codex: bool) -> list[list[float]]:
    """Whole `codex-bridge review` processes over one repository per corpus, interleaved run by run
    (so the machine's load drifts over all of them alike)."""
    with tempfile.TemporaryDirectory(prefix="bench-secrets-") as tmp, ResponsesServer() as server:
        setups = []
        for n, corpus in enumerate(corpora):
            root = Path(tmp) / str(n)
            env = environment(root, server, codex)
            repo = fresh_repo(root, env)
            run = runner(env)
            sc.before_plan(repo, corpus)
            server.push(reply_json(PLAN))
            assert run(["plan", "--goal", "bench"], repo)[0] == 0
            sc.after_plan(repo, corpus)
            setups.append((run, repo))
        times: list[list[float]] = [[] for _ in corpora]
        for _ in range(runs):
            for n, (run, repo) in enumerate(setups):
                server.push(reply_json(APPROVE))
                started = time.perf_counter()
                code, _, err = run(["review"], repo)
                times[n].append(time.perf_counter() - started)
                assert code == 0, err
        return times


BEFORE = "86018f8"  # the last commit before issue 11's redaction work


def previous_redact():
    """``redact()`` as it was at ``BEFORE``, loaded from git history (None in a clone without it)."""
    source = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{BEFORE}:src/autopilot/redact.py"], capture_output=True, text=True
    )
    if source.returncode != 0:
        return None
    module: dict[str, object] = {"__name__": "redact_before"}
    exec(compile(source.stdout, f"redact.py@{BEFORE}", "exec"), module)
    return module["redact"]


def redaction_speed() -> tuple[float, float | None, int]:
    """MB/s of redact() now and before issue 11, over this repository's own `git log -p`."""
    text = subprocess.run(
        ["git", "-C", str(REPO), "log", "-p", "--no-color", "-n", "200"],
        capture_output=True,
        text=True,
        errors="replace",
    ).stdout[: 2 << 20]
    before = previous_redact()
    best_now = best_before = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        redact(text)
        best_now = min(best_now, time.perf_counter() - started)
        if before is not None:
            started = time.perf_counter()
            before(text)  # type: ignore[operator]
            best_before = min(best_before, time.perf_counter() - started)
    mb = len(text) / 1e6
    return mb / best_now, (mb / best_before if before is not None else None), len(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="review processes timed per repository (default 7)")
    parser.add_argument("--codex", action="store_true", help="the codex-cli backend with the real codex binary")
    args = parser.parse_args()
    backend = "codex-cli (real codex 0.171.0)" if args.codex else "openai (the real SDK)"

    places, n_shapes = leak_table(args.codex)
    print(f"## Secret corpus: {n_shapes} shapes, backend {backend}\n")
    print("| place | characters | shapes found |")
    print("|---|---:|---:|")
    for p in places:
        print(f"| {p.name} | {len(p.text):,} | {len(p.leaked)}{' (' + ', '.join(p.leaked) + ')' if p.leaked else ''} |")
    leaked = sum(len(p.leaked) for p in places)
    print(f"| **total** | | **{leaked} of {n_shapes * len(places)} (shape, place) pairs** |\n")

    corpus = sc.shapes()
    dirty, clean = (
        statistics.median(t) * 1000 for t in review_times([corpus, harmless(corpus)], args.runs, args.codex)
    )
    now_mbs, before_mbs, size = redaction_speed()
    print("| cost | figure | baseline (same run) | ratio |")
    print("|---|---:|---:|---:|")
    print(
        f"| `codex-bridge review`, corpus repo, whole process | {dirty:.0f} ms | {clean:.0f} ms harmless repo |"
        f" {dirty / clean:.2f}x |"
    )
    before = f"{before_mbs:.2f} MB/s, redact.py at {BEFORE}" if before_mbs else f"({BEFORE} not in this clone)"
    ratio = f"{before_mbs / now_mbs:.2f}x the time" if before_mbs else ""
    print(f"| `redact()` on {size / 1e6:.1f} MB of `git log -p` | {now_mbs:.2f} MB/s | {before} | {ratio} |")
    print(json.dumps({"leaked": leaked, "shapes": n_shapes, "places": len(places)}))


if __name__ == "__main__":
    main()
