"""The retrieval benchmark: the labelled corpus installed as a user's sessions, searched three ways, scored.

What it does, in order (:func:`run`):

1. Generates the corpus (``tests/fixtures/make_retrieval_corpus.py``: 56 sessions of Claude Code and
   Codex over a month, two worktrees) and checks its digest against ``queries.json``'s, so a change to
   the stories is seen (the labels point at their lines).
2. Builds the project: a git repository with the files as the month began, committed, a second
   worktree on ``feature/fx-rates``, and each worktree's files as the month left them.
3. Installs every session where its client keeps it (``$CLAUDE_CONFIG_DIR/projects/<key>/``,
   ``$CODEX_HOME/sessions/YYYY/MM/DD/``), then, for each, does what the plugin does for a user:
   ``handoff recover`` (the active memory the hooks record) and ``handoff export`` (a packet, as a
   handover writes one). The evidence index holds both.
4. Answers every query of ``tests/fixtures/retrieval/queries.json`` three ways:
   - ``engine``: ``handoff search`` (``retrieval.search``, ``--worktree all``, a fixed "now");
   - ``grep``: ``grep -r -i -n -F QUERY`` over the folders holding the raw transcripts and rollouts
     (files in name order), each matching line a result, in grep's order;
   - ``bm25``: plain FTS5 over the same documents the engine ranks: the query's words OR-ed, each
     quoted, ordered by ``bm25()`` (no coverage, no links, no path or symbol score).
5. Scores each answer's first results against the relevant events (a result finds an event when it
   points at one of the event's lines; one event is found once however many results point at it):
   recall@1 and recall@5 (events found in the first k, over min(k, relevant events)), MRR (1 / the
   rank of the first relevant result), and for queries with no answer, no-answer precision (the
   share answered with nothing at all).

Everything is deterministic: the corpus is generated, the clock of the ranking is fixed, the project's
path is always as long (:func:`work_root`), ties are broken by time and reference, and grep runs with
``LC_ALL=C``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from tests.fixtures import make_retrieval_corpus as corpus
from tests.support.handoff_env import claude_key, git, run_json
from tests.support.repo import FIXTURES

QUERIES = FIXTURES / "retrieval" / "queries.json"
NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc).timestamp()
K = 5
SHOWN = 10  # results asked of each method (recall@5 looks at the first 5)
METHODS = ("engine", "bm25", "grep")
KINDS = (
    "exact-error",
    "error-paraphrase",
    "path",
    "symbol",
    "what-fixed",
    "approach-failed",
    "conflict",
    "no-answer",
)


@dataclass
class Installed:
    """The project and the sessions as the benchmark installed them."""

    root: Path
    worktrees: dict[str, Path]
    files: dict[str, str]  # installed transcript path -> corpus file name
    folders: list[Path]  # where the raw transcripts are (what grep searches)
    manifest: dict[str, Any]
    exported: int = 0
    recovered: int = 0


@dataclass
class Scored:
    """One method's answer to one query, scored."""

    query: dict[str, Any]
    method: str
    found: list[list[str]]  # per result (in rank order), the labels it points at
    empty: bool
    recall1: float = 0.0
    recall5: float = 0.0
    rr: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def load_queries() -> dict[str, Any]:
    """The labelled queries (``queries``) and the corpus digest they were labelled against."""
    return dict(json.loads(QUERIES.read_text(encoding="utf-8")))


# ---- the labels of the kinds whose relevance is a rule ---------------------------------------------

DEFINITION = re.compile(r"^(\s*)(?:export\s+)?(?:async\s+)?(?:def|class|function|interface)\s+([A-Za-z_]\w*)", re.M)


def derived(kind: str, query: str) -> list[str]:
    """The relevant events of an exact-error, path or symbol query, by the rule queries.json states, from the stories.

    exact-error: every failing run whose output holds the text (case aside); path: every edit or write of
    the file (a path that ends it counts), and a ``git mv`` naming it; symbol: every edit whose old or new
    text holds the name or that sits inside its definition, every write holding it, every failing run
    whose output names it, and a search (``rg``) for it.
    """
    from tests.fixtures.retrieval import stories as source

    stories = source.stories()
    corpus.play(stories, source.FILES)
    steps = [step for story in stories for step in story.steps if step.label]
    out: list[str] = []
    for step in steps:
        if kind == "exact-error":
            hit = step.kind == "run" and bool(step.code) and query.lower() in step.output.lower()
        elif kind == "path":
            hit = (step.kind in ("edit", "write") and (step.path == query or step.path.endswith("/" + query))) or (
                step.kind == "run" and step.text.startswith("git mv ") and query in step.text.split()
            )
        else:
            hit = (
                (step.kind == "edit" and (query in step.old or query in step.new or query in _enclosing(step)))
                or (step.kind == "write" and query in step.new)
                or (step.kind == "run" and bool(step.code) and query in step.output)
                or (step.kind == "run" and step.text.startswith("rg ") and query in step.text)
            )
        if hit:
            out.append(str(step.label))
    return sorted(set(out))


def _enclosing(step: corpus.Step) -> list[str]:
    """The definitions (outermost first) the edited text sits in, in the file as it was."""
    at = step.before.find(step.old)
    names: list[tuple[str, int]] = []
    for match in DEFINITION.finditer(step.before[: at + 1] if at >= 0 else ""):
        indent = len(match.group(1))
        names = [(n, i) for n, i in names if i < indent] + [(match.group(2), indent)]
    return [n for n, _ in names]


# ---- installing ------------------------------------------------------------------------------------


def _write_tree(work: Path, files: dict[str, str]) -> None:
    for rel, body in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(body, encoding="utf-8")


def install(root: Path, bridge: Any) -> Installed:
    """Generate the corpus under ``root``, build the project, install and index every session."""
    generated = root / "corpus"
    manifest = corpus.build(generated)
    main = root / "ledger"
    main.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(main)], check=True)
    _write_tree(main, manifest["initialFiles"])
    stamp = {"GIT_AUTHOR_DATE": "2026-11-01T09:00:00Z", "GIT_COMMITTER_DATE": "2026-11-01T09:00:00Z"}
    os.environ.update(stamp)
    try:
        git(main, "add", ".")
        git(main, "commit", "-qm", "ledger as the month began")
        fx = root / "ledger-fx"
        git(main, "worktree", "add", "-q", "-b", manifest["branches"]["fx"], str(fx))
    finally:
        for key in stamp:
            os.environ.pop(key, None)
    worktrees = {"main": main, "fx": fx}
    for name, work in worktrees.items():
        _write_tree(work, manifest["finalFiles"][name])
    real = {manifest["roots"][name]: str(work) for name, work in worktrees.items()}
    placeholder = re.compile("|".join(re.escape(p) for p in sorted(real, key=len, reverse=True)))
    files: dict[str, str] = {}
    claude_root = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "projects"
    codex_root = Path(os.environ["CODEX_HOME"]) / "sessions"
    for s in manifest["sessions"]:
        text = (generated / s["file"]).read_text(encoding="utf-8")
        text = placeholder.sub(lambda m: real[m.group(0)], text)  # one pass: a path put in is never replaced again
        work = worktrees[s["worktree"]]
        if s["agent"] == "claude":
            dest = claude_root / claude_key(work) / Path(s["file"]).name
        else:
            day = s["start"][:10].split("-")
            dest = codex_root / day[0] / day[1] / day[2] / Path(s["file"]).name
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(text, encoding="utf-8")
        end = datetime.fromisoformat(s["start"].replace("Z", "+00:00")).timestamp() + 3600
        os.utime(dest, (end, end))
        files[str(dest)] = s["file"]
    done = Installed(root, worktrees, files, [claude_root, codex_root], manifest)
    for s in manifest["sessions"]:
        work = worktrees[s["worktree"]]
        other = "codex" if s["agent"] == "claude" else "claude"
        code, _, err = bridge("handoff", "recover", "--from", s["agent"], "--session", s["session"], cwd=work)
        assert code == 0, f"recover {s['key']}: {err}"
        done.recovered += 1
        code, _, err = run_json(
            bridge, "handoff", "export", "--from", s["agent"], "--session", s["session"], "--to", other, cwd=work
        )
        assert code == 0, f"export {s['key']}: {err}"
        done.exported += 1
    return done


# ---- the three methods -----------------------------------------------------------------------------


class Labels:
    """Which labelled events a (file, line) belongs to."""

    def __init__(self, installed: Installed) -> None:
        self.by_line: dict[tuple[str, int], list[str]] = {}
        for label, where in installed.manifest["labels"].items():
            for line in where["lines"]:
                self.by_line.setdefault((where["file"], line), []).append(label)
        self.files = installed.files

    def at(self, path: str | None, lines: list[int]) -> list[str]:
        """The labels of the events at ``lines`` of the installed transcript ``path``."""
        name = self.files.get(str(path)) if path else None
        if name is None:
            return []
        out: list[str] = []
        for line in lines:
            out += [x for x in self.by_line.get((name, line), []) if x not in out]
        return out


def engine(installed: Installed, labels: Labels, text: str) -> tuple[list[list[str]], dict[str, Any]]:
    """``handoff search`` from the main worktree, every worktree, a fixed moment: each result's labels."""
    from autopilot.handoff.search import retrieval

    answer = retrieval.search(text, cwd=str(installed.worktrees["main"]), worktree="all", limit=SHOWN, now=NOW)
    found = []
    for result in answer["results"]:
        if result.get("shownFor") == "conflict" and result["rank"] > SHOWN:
            continue
        found.append(labels.at(*_pointer_lines(result["pointer"])))
    return found, {"notes": answer["notes"], "unmatched": answer.get("unmatched", [])}


def _pointer_lines(pointer: dict[str, Any]) -> tuple[str | None, list[int]]:
    """The transcript and the lines a result's pointer names (its own, and its tool result's)."""
    lines = [pointer.get("line")] + [(pointer.get("result") or {}).get("line")]
    return pointer.get("source"), [int(x) for x in lines if isinstance(x, int)]


def bm25(installed: Installed, labels: Labels, text: str) -> tuple[list[list[str]], dict[str, Any]]:
    """Plain FTS5 over the engine's own documents: the query's words OR-ed, ranked by ``bm25()``."""
    from autopilot.handoff.search import index, terms

    words = terms.words(text)[:24]
    if not words:
        return [], {}
    db = sqlite3.connect(str(index.index_path()))
    try:
        rows = db.execute(
            "SELECT d.data, d.kind FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid WHERE docs_fts MATCH ? "
            f"ORDER BY bm25(docs_fts), d.ts, d.kind, d.seq, d.ref LIMIT {SHOWN}",
            (" OR ".join(f'"{w}"' for w in words),),
        ).fetchall()
    finally:
        db.close()
    found = []
    for data, kind in rows:
        doc = json.loads(data)
        if kind == "evidence":
            pointer = {**(doc.get("pointer") or {}), "source": (doc.get("source") or {}).get("path")}
            if doc.get("resultPointer"):
                pointer["result"] = doc["resultPointer"]
        else:
            pointer = doc.get("pointer") or {}
        found.append(labels.at(*_pointer_lines(pointer)))
    return found, {}


def grep(installed: Installed, labels: Labels, text: str) -> tuple[list[list[str]], dict[str, Any]]:
    """``grep -r -i -n -F`` the query over the raw transcripts; each matching line a result, in grep's order."""
    paths = sorted(installed.files)
    proc = subprocess.run(
        ["grep", "-i", "-n", "-F", "-e", text, "--", *paths],
        capture_output=True,
        env={**os.environ, "LC_ALL": "C"},
        check=False,
    )
    found = []
    for raw in proc.stdout.split(b"\n"):
        match = re.match(rb"^(.*?\.jsonl):(\d+):", raw)
        if match:
            found.append(labels.at(match.group(1).decode(), [int(match.group(2))]))
            if len(found) >= SHOWN:
                break
    return found, {}


# ---- scoring ---------------------------------------------------------------------------------------


def score(query: dict[str, Any], method: str, found: list[list[str]], extra: dict[str, Any]) -> Scored:
    """Recall@1, recall@5 and reciprocal rank of one answer (no-answer queries: only whether it was empty)."""
    out = Scored(query, method, found, empty=not found, extra=extra)
    relevant = set(query["relevant"])
    if not relevant:
        return out
    seen: list[str] = []
    for labels_here in found[:K]:
        seen += [x for x in labels_here if x in relevant and x not in seen]
    out.recall1 = 1.0 if found and relevant & set(found[0]) else 0.0
    out.recall5 = min(1.0, len(seen) / min(K, len(relevant)))
    for rank, labels_here in enumerate(found, 1):  # MRR looks at every result shown
        if relevant & set(labels_here):
            out.rr = 1.0 / rank
            break
    return out


def summary(scored: list[Scored]) -> dict[str, dict[str, dict[str, float]]]:
    """Per method, per kind (and ``all`` for the queries with an answer): the measures."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for method in METHODS:
        mine = [s for s in scored if s.method == method]
        table: dict[str, dict[str, float]] = {}
        for kind in KINDS:
            group = [s for s in mine if s.query["kind"] == kind]
            if kind == "no-answer":
                table[kind] = {"n": len(group), "precision": _mean([float(s.empty) for s in group])}
            else:
                table[kind] = _measures(group)
        table["all"] = _measures([s for s in mine if s.query["relevant"]])
        out[method] = table
    return out


def _measures(group: list[Scored]) -> dict[str, float]:
    return {
        "n": len(group),
        "recall@1": _mean([s.recall1 for s in group]),
        "recall@5": _mean([s.recall5 for s in group]),
        "mrr": _mean([s.rr for s in group]),
        "answered": _mean([float(not s.empty) for s in group]),
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def work_root() -> Path:
    """A new folder for the project whose path is always as long and as plain (``/tmp/retrieval-<8 hex digits>``).

    The worktrees' paths are in the transcripts, so in the documents: a path of another length
    changes every document's length, and bm25 with it; a name with an inner ``_`` (``mkdtemp``'s
    ``mmi0o1_0``) would be read as a symbol of every document naming a file, and change the
    symbols column's statistics from one run to the next. The caller removes it.
    """
    while True:
        path = Path("/tmp") / f"retrieval-{secrets.token_hex(4)}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return path


def run(root: Path, bridge: Any) -> tuple[Installed, list[Scored]]:
    """Install the corpus under ``root`` (from :func:`work_root`) and answer every query with every method."""
    installed = install(root, bridge)
    doc = load_queries()
    assert installed.manifest["corpusSha256"] == doc["corpusSha256"], (
        "the generated corpus changed since queries.json was labelled: check the labels, then update corpusSha256 "
        f"to {installed.manifest['corpusSha256']}"
    )
    # a search from the other worktree brings its active memory into the index (each search syncs its own)
    from autopilot.handoff.search import retrieval

    retrieval.search("ledger", cwd=str(installed.worktrees["fx"]), now=NOW)
    labels = Labels(installed)
    missing = sorted({r for q in doc["queries"] for r in q["relevant"]} - set(installed.manifest["labels"]))
    assert not missing, f"queries.json names labels the stories do not have: {missing}"
    scored = []
    for query in doc["queries"]:
        for method, answer in (("engine", engine), ("bm25", bm25), ("grep", grep)):
            found, extra = answer(installed, labels, query["query"])
            scored.append(score(query, method, found, extra))
    return installed, scored


def table(figures: dict[str, dict[str, dict[str, float]]]) -> str:
    """The figures as a Markdown table: one row per kind, recall@5 / recall@1 / MRR per method."""
    head = "| kind | queries | " + " | ".join(f"{m} R@5 | {m} R@1 | {m} MRR" for m in METHODS) + " |"
    lines = [head, "|---|---:|" + "---:|" * (3 * len(METHODS))]
    for kind in (*KINDS[:-1], "all"):
        row = [kind, str(int(figures["engine"][kind]["n"]))]
        for m in METHODS:
            f = figures[m][kind]
            row += [f"{f['recall@5']:.2f}", f"{f['recall@1']:.2f}", f"{f['mrr']:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    na = figures["engine"]["no-answer"]
    row = ["no-answer (precision: answered with nothing)", str(int(na["n"]))]
    for m in METHODS:
        row += [f"{figures[m]['no-answer']['precision']:.2f}", "", ""]
    lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)
