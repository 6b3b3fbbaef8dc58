"""Evidence search: candidates from FTS5, kept by how much of the query they cover, ranked by an explained score.

One project at a time (the repository the command runs in); ``--worktree this`` (the
default) keeps to this worktree, ``all`` adds the project's other worktrees, labelled. Steps:

1. The query's words, stopwords aside (``the``, ``what``, ``is``: they say how a question is
   asked; a query of nothing else finds nothing and says so). FTS5 counts the documents
   holding each, exactly up to 5,000; a word no document holds is named in the answer
   (``unmatched``). A document must hold one of the rarest known words to reach the
   coverage below, so only those are OR-ed into the MATCH, every word quoted; filters in
   SQL. Up to 5,000 matches are all ranked by bm25 and the best 100 go on; past that
   (common words), the newest 100 documents holding all of them (then any) go on, unranked
   by bm25 (it would read every match), and the answer says so.
2. *Coverage*: the share of the query's information (IDF-weighted) a candidate holds;
   below half it is left out, so a word shared by chance does not bring in unrelated history.
   A word no document holds weighs as much as the rarest word can: it is what made the query
   specific, so a query whose unknown words are most of it finds nothing; an unknown number,
   code, acronym or identifier weighs three times that (it names the one thing asked about).
   Quoted values are required, and those one line relates (``'EUR' == 'USD'``) as written.
3. *Causal links* (:mod:`.documents`): an edit that matched brings the test run that followed
   it; a failed test that matched brings the edits after it and the run that tested them; a
   "fixed" claim brings the run it was based on.
4. The score, every part in the answer: ``fts`` (FTS5 bm25, text/paths/symbols weighted
   1/2/2, times coverage; for common words the IDF weight of the words held), ``path`` and
   ``symbol`` (exact matches: a query path equal to or ending a document's path; a query
   symbol among the document's, case kept), ``causal`` (an edit or a test run linked to the
   other: evidence rather than prose; a linked document also gets a share of what brought
   it), ``recency`` (halving every 14 days), ``verbatim`` (the whole one-line query as
   written: a pasted error line), ``intent`` (what the question asks for). Ties (the documents a link lifted to one
   score): each one's own score, then newer first, then origin and reference, so equal inputs give equal order.
5. The same event exported in several packets is shown once (``alsoIn``), and so are the same words said twice
   (a packet's objective and the request it copies; a request typed again in another session); runs and edits
   that look alike are each their own evidence. A request, or the agent's message, that brought in its turn's
   work ranks below the best of that work (unless the question asks why, or which approach failed).
6. *Conflicts stay visible*: within one worktree and branch, a later run whose outcome
   contradicts an earlier one ("passed", a "fixed" claim, then "failed"; or the reverse) on
   the same subject (a command, a path, a symbol) *supersedes* it: both are shown, in time
   order, the earlier marked ``supersededBy``. Outcomes from another worktree or branch are
   labelled as such, listed under ``elsewhere``, and never supersede this worktree's.
7. *Freshness* of each result (:mod:`.freshness`).

Everything shown is evidence quoted from packets, never instructions.
"""

from __future__ import annotations

import _sqlite3 as sqlite3  # the sqlite3 package's C module, without its datetime and collections (index.py)
import math

from autopilot import clock, git
from autopilot.fastjson import parse_json
from autopilot.handoff.memory.observe import needs_redaction
from autopilot.handoff.packets import store
from autopilot.handoff.search import freshness, index, terms
from autopilot.handoff.search.query import Query, parse
from autopilot.handoff.sources.project import Project
from autopilot.handoff.transcripts import TRUST

TYPE_CHECKING = False  # typing costs ~2 ms to import; `handoff search` loads this module (bench/bench_search.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from autopilot.handoff.search.shapes import Answer, Brief, Conflict, Document, Here, Hit, Result, Stats

CANDIDATES = 100  # rows FTS5 ranks before coverage and links are looked at
RANK_ALL = 5000  # up to this many matches, all are ranked by bm25; past it, the newest NEWEST are
DF_CAP = RANK_ALL + 1
NEWEST = CANDIDATES
FOLLOW = 30  # the best matches whose causal links are followed
MIN_COVERAGE = 0.5
# A long question (LONG words or more) that names no identifier, number or code is a person describing something
# in their own words, some of which no evidence uses: it needs less of its information covered. Calibrated on the
# retrieval benchmark: the lowest floor at which no-answer precision holds (docs/BENCHMARKS.md, issue 37).
LONG = 5
MIN_COVERAGE_LONG = 0.35
VERBATIM = 4.0  # a result holding the whole one-line query as written (a pasted error line, a phrase)
DISTINCT_UNKNOWN = 3.0  # the weight of a number, code, acronym or identifier no document holds, in rarest words
PLAIN_UNKNOWN = 0.75  # the weight of a plain word no document holds in a long description, in rarest words
WEIGHTS = (1.0, 2.0, 2.0)  # bm25 column weights: text, paths, symbols
PATH_MATCH = 3.0
PATH_CHANGED = 3.0  # more for the edit of the file than for a mention of it
SYMBOL_MATCH = 3.0
PROSE_SHARE = 1 / 3  # the share of the path and symbol scores a message, a request or a checkpoint gets
EDITS = frozenset({"edit", "memory.edit"})  # the edited file is the document's first path
CODE_ROLES = EDITS | {"test", "command", "pending", "tool", "memory.run"}  # code and its runs, not prose about them
CAUSAL_BONUS = 2.0  # an edit or test run in an edit -> test -> outcome chain: evidence, not prose
PROBLEM_BONUS = 1.0  # more for a failing run and the edits that fixed it than for a pass or a test written
LINK_SHARE = 0.8
# A turn's work that is neither an end of its problem (a failing run, a fix) nor what the question asks for (the
# setup, the passing re-run) gets this part of the share: a person recalls a task by what broke and what fixed it.
# Measured on the retrieval benchmark at 1.0, 0.8, 0.7, 0.6 and 0.5 (docs/BENCHMARKS.md, issue 37): 0.7-0.8 best.
SIDE_SHARE = 0.75
LIFT_BELOW = 0.01  # a matched document lifted by a link stays this far below the document that linked it
RECENCY = 1.0
HALF_LIFE_DAYS = 14.0
LINKS_FROM = {  # which links of a matched document are followed, by its role
    "edit": ("tested-by",),
    "test": ("fixed-by", "tested-by", "tests"),
    "command": ("fixed-by",),
    "memory.edit": ("tested-by",),
    "memory.run": ("fixed-by", "tested-by", "tests"),
    "approach": ("gave-up-after",),
}
REQUESTS = frozenset({index.REQUEST})  # what a person typed, as the hooks recorded it
TURNS = REQUESTS | {"message", "approach"}  # what brings in its turn's work: a request, or the agent's words in it
WORK = CODE_ROLES | {"approach"}  # what a request brings in: the edits, runs and approaches done in answer to it
ANSWERS = 30  # the most documents one matched turn brings in (its first, in time order)
WORK_FIRST = 5  # a request (or message) that brought in its turn's work ranks below its best WORK_FIRST pieces
TURN_FOLLOW = 10  # the best matched requests and messages whose turns are brought in
RUNS = frozenset({"test", "memory.run"})  # a validation run: a packet's, or one the hooks recorded
INTENT_BONUS = 3.0  # what the question asks for: the fix ("what fixed X"), the outcome ("is X passing")
CLAIM_LINKS = ("based-on",)  # followed from any "fixed" claim, whatever its role
POSITIVE, NEGATIVE = ("passed", "claimed-fixed"), ("failed",)
_COLUMNS = (
    "d.id, d.kind, d.origin, d.ref, d.role, d.agent, d.session, d.worktree_id, d.branch, d.ts, d.text, d.data, "
    "d.paths, d.symbols, d.terms, d.pterms, d.sterms"
)


def search(
    text: str,
    *,
    cwd: str | None = None,
    limit: int = 10,
    worktree: str = "this",
    since: float | None = None,
    agent: str | None = None,
    now: float | None = None,
    feed: Callable[[Project, list[str]], Any] | None = None,
    task: str | None = None,
    archived: bool = False,
) -> Answer:
    """The ranked, explained answer to one query in the project around ``cwd``.

    ``feed(project, notes)`` brings documents a higher layer owns into the index first (the approved rules:
    ``autopilot.knowledge.durable.feed.sync``); they hold in every worktree of the project. ``archived``: search the
    packets ``handoff prune`` moved to the archive, and only them (handoff/search/retention.py).
    """
    if archived:
        with store.archived():
            answer = search(text, cwd=cwd, limit=limit, worktree=worktree, since=since, agent=agent, now=now, task=task)
        answer["archived"] = True
        return answer
    q = parse(text)
    project = Project(cwd)
    branch = _shown(git.branch(project.worktree))
    here: Here = {"repoId": project.repo_id, "worktreeId": project.worktree_id, "branch": branch}
    notes = list(q.notes)
    try:
        index.open_index(notes=notes).close()  # made (or rebuilt) before the memory joins it
        if not store.in_archive():  # the active memory is never archived
            index.sync_memory(project, notes=notes)
    except (OSError, sqlite3.DatabaseError) as exc:  # the packets' evidence still answers
        notes.append(f"the active memory was not brought into the index ({exc})")
    if feed is not None:
        feed(project, notes)
    for attempt in (1, 2):
        db = index.open_index(notes=notes)
        try:
            held = index.stats(db)
            moment = clock.unix() if now is None else now
            found = _run(db, q, here, limit, worktree, since, agent, moment, notes, held, task)
            found["index"] = held
            return found
        except sqlite3.DatabaseError as exc:
            if not index.corrupt(exc) or attempt == 2:
                if index.unusable(exc) is exc:
                    raise
                raise index.unusable(exc) from exc
            db.close()
            index.recover(exc, notes=notes)
        finally:
            db.close()
    raise AssertionError("unreachable")


def _shown(branch: str | None) -> str | None:
    """The current branch as the index keeps names (a credential in it withheld): the redactor loads only when the
    screen says the name may hold one, so a search on an ordinary branch does not pay for it."""
    if not branch or not needs_redaction(branch):
        return branch
    from autopilot.redact import redact

    return redact(branch)[0]


def _run(
    db: sqlite3.Connection,
    q: Query,
    here: Here,
    limit: int,
    worktree: str,
    since: float | None,
    agent: str | None,
    now: float,
    notes: list[str],
    held: Stats,
    task: str | None = None,
) -> Answer:
    total = sum(held["documents"].values())
    intent = {w for w in q.words if w in terms.FIX_WORDS or w in terms.OUTCOME_WORDS or w in terms.APPROACH_WORDS}
    searched = [w for w in q.words if w not in terms.STOPWORDS and w not in intent]
    if not searched and intent:  # "failed" alone: then it is what the user looks for
        searched, intent = [w for w in q.words if w in intent], set()
    term = {w: q.terms.get(w) or terms.stem(w) for w in searched}  # what the index holds for each word
    searched = list({term[w]: w for w in reversed(searched)}.values())[::-1]  # "report" and "reports": one term
    wants = {
        name
        for name, vocabulary in (
            ("fix", terms.FIX_WORDS),
            ("outcome", terms.OUTCOME_WORDS),
            ("approach", terms.APPROACH_WORDS),
        )
        if intent & vocabulary
    }
    if "approach" in wants:  # "which approach failed": a failure of the approach is asked for, not what stands now
        wants.discard("outcome")
    if any(w in terms.REASON_WORDS for w in q.words):  # "why ...": the agent's words giving the reason are asked for
        wants.add("reason")
    df = {w: _doc_count(db, term[w]) for w in searched}
    known = [w for w in searched if df[w]]
    unmatched = [w for w in searched if not df[w]]
    answer: Answer = {
        "trust": TRUST,
        "query": q.text,
        "words": q.words,
        "searched": searched,
        "unmatched": unmatched,
        "intent": sorted(wants),
        "paths": q.paths,
        "symbols": q.symbols,
        "scope": {"worktree": worktree, **here, "since": since, "agent": agent},
        "now": clock.iso(now),
        "results": [],
        "conflicts": [],
        "notes": notes,
    }
    if not searched:  # only stopwords
        notes.append(
            f"the query has only common words ({', '.join(q.words)}); they find nothing by themselves: "
            "search for words of an error, a path or a symbol"
        )
        return answer
    if unmatched:
        notes.append(f"no indexed document holds {', '.join(repr(w) for w in unmatched)}")
    # a person's own description: long, and naming no identifier, number or code (a pasted error names one)
    described = len(searched) >= LONG and not any(w in q.distinct for w in searched)
    floor = MIN_COVERAGE_LONG if described else MIN_COVERAGE
    # a word no document holds weighs what the rarest word would (df 0): it counts against every candidate; in a
    # description, a plain one weighs less (the person's own choice of word); a number, a code, an acronym or an
    # identifier none holds weighs more: it names the one thing asked about
    idf = {w: math.log(1 + (total - df[w] + 0.5) / (df[w] + 0.5)) for w in searched}
    for w in unmatched:
        idf[w] *= DISTINCT_UNKNOWN if w in q.distinct else (PLAIN_UNKNOWN if described else 1.0)
    mass = sum(idf.values())
    if sum(idf[w] for w in known) < floor * mass:
        notes.append(
            "no document can hold half of the query: "
            + ("none holds any of its words" if not known else "the words none holds are most of it")
        )
        return answer
    needed = _needed(known, df, idf, mass, floor)
    filters: list[str] = ["d.repo_id = ?"]
    params: list[Any] = [here["repoId"]]
    if worktree == "this":  # a person's approved rules hold in every worktree of the project
        # ... and so do the packets a teammate shared, which this repository pulled (worktree "shared:…")
        filters.append("(d.worktree_id = ? OR d.kind = 'durable' OR d.worktree_id LIKE 'shared:%')")
        params.append(here["worktreeId"])
    if agent:
        filters.append("d.agent = ?")
        params.append(agent)
    if since is not None:
        filters.append("d.ts >= ?")
        params.append(since)
    if task:  # the autopilot task the session was on (handoff/memory/autopilot.py), kept in the document's data
        filters.append("json_extract(d.data, '$.task.id') = ?")
        params.append(task)
    any_of, all_of = " OR ".join(f'"{term[w]}"' for w in needed), " AND ".join(f'"{term[w]}"' for w in needed)
    bm25 = sum(df[w] for w in needed) <= RANK_ALL
    if bm25:
        rows = _candidates(db, any_of, filters, params, ranked=True, limit=CANDIDATES)
    else:  # common words: the newest documents that hold them all (then any), not the whole history
        rows = _candidates(db, all_of, filters, params, ranked=False, limit=NEWEST)
        if len(rows) < CANDIDATES:
            seen = {row[0] for row in rows}
            more = _candidates(db, any_of, filters, params, ranked=False, limit=NEWEST)
            rows += [row for row in more if row[0] not in seen]
        notes.append(
            f"the query's words are common (more than {RANK_ALL:,} documents hold them): the newest {NEWEST} "
            "holding them were ranked (narrow it with more words, a path, a symbol or --since)"
        )
    answer["ranking"] = {
        "fts": "bm25 (text 1, paths 2, symbols 2) x coverage"
        if bm25
        else "the IDF weight of the query words held (common words: bm25 would read every match)",
        "documentCounts": f"exact up to {DF_CAP - 1:,}; above that a word counts as held by {DF_CAP:,}",
    }
    hits: dict[tuple[str, str], Hit] = {}
    loose = set(q.loose)
    # a bare file name none of the candidates names ("moment.js": a library) is only words, as a person meant it; a
    # path with folders stays a path (a file no session touched answers with nothing)
    named = [p for p in q.paths if "/" in p or any(_holds_path(p, row[12], row[10]) for row in rows)]
    for row in rows:
        has = set(f"{row[14]} {row[15]} {row[16]}".split())  # its terms: text, paths, symbols; no JSON parsed yet
        if any((q.terms.get(w) or terms.stem(w)) not in has for w in q.required):
            continue  # a quoted value ('JPY') is what makes the error that error
        if q.related and q.related not in terms.flat(row[10]):
            continue  # 'EUR' == 'USD' relates two values: both somewhere is not that
        for path in named:  # a path is matched whole: its words elsewhere in the text are not it
            if not _holds_path(path, row[12], row[10]):
                has -= {terms.term(t) for t in terms.WORD.findall(path) if terms.fold(t) not in loose}
        matched = [w for w in known if term[w] in has]  # stopwords are not among them: alone they bring in nothing
        coverage = sum(idf[w] for w in matched) / mass
        if coverage < floor:
            continue
        doc = _doc(row)
        relevance = -float(row[-1]) * coverage if bm25 else sum(idf[w] for w in matched)
        doc["score"] = _score(doc, q, relevance, now, wants, verbatim=bool(q.phrase and _holds(row[10], q.phrase)))
        doc["_own"] = doc["score"]["total"]
        doc["coverage"] = round(coverage, 4)
        doc["matched"] = matched
        hits[(doc["origin"], doc["ref"])] = doc
    _follow_links(db, hits, now, here, worktree, since, agent, wants)
    _follow_requests(db, hits, now, here, worktree, since, agent, wants)  # after: a causal link's share is surer
    if "approach" in wants:
        _attempts(hits)
    if FUSION:
        _fuse(list(hits.values()))
    ranked = _dedupe(sorted(hits.values(), key=_order))
    _supersede(ranked, here)
    if "outcome" in wants:  # "is X passing": the outcome that stands, then the one it overturned, first
        ranked.sort(key=_standing)
    shown = ranked[:limit]
    keys = {(d["origin"], d["ref"]) for d in shown}
    for d in list(shown):  # both sides of a conflict are shown, even past the limit
        for other in [d.get("_supersededBy"), *d.get("_supersedes", [])]:
            if other is not None and (other["origin"], other["ref"]) not in keys:
                other["shownFor"] = "conflict"
                shown.append(other)
                keys.add((other["origin"], other["ref"]))
    freshness.annotate(shown, db)
    for n, d in enumerate(shown, 1):
        d["_rank"] = n
    answer["results"] = [_public(d, n, here) for n, d in enumerate(shown, 1)]
    answer["conflicts"] = _conflicts(shown)
    answer["candidates"] = {
        "matching": sum(df[w] for w in needed),  # documents holding a needed word (at most; before filters)
        "ranked": len(rows),
        "kept": len(ranked),
        "shown": len(shown),
    }
    hidden = len(ranked) - len([d for d in shown if d.get("shownFor") != "conflict"])
    if hidden > 0:
        notes.append(f"{hidden} more result(s) past --limit {limit}")
    return answer


def _needed(known: list[str], df: dict[str, int], idf: dict[str, float], mass: float, floor: float) -> list[str]:
    """The rarest words a document must hold at least one of to reach ``floor`` (the others cannot, alone).

    Words are taken rarest first until the known words left carry less than ``floor`` of
    the query's information (``mass``, unknown words included): a document holding none of the
    taken words cannot pass, so leaving the common words out of the MATCH loses nothing and
    spares ranking their long lists.
    """
    taken, left = [], sum(idf[w] for w in known)
    for w in sorted(known, key=lambda w: (df[w], w)):
        if left < floor * mass:
            break
        taken.append(w)
        left -= idf[w]
    return taken


def _candidates(
    db: sqlite3.Connection, match: str, filters: list[str], params: list[Any], *, ranked: bool, limit: int
) -> list[tuple[Any, ...]]:
    """Documents matching ``match`` within the filters: the best by bm25 (lower is better), or the newest."""
    score, order = (
        (f"bm25(docs_fts, {', '.join(map(str, WEIGHTS))})", "r") if ranked else ("0.0", "docs_fts.rowid DESC")
    )
    # Ranked first by id and score alone, then the chosen rows read whole: sorting every match with its text and
    # data (up to RANK_ALL rows of a few kB each) cost more than the ranking itself. Ties keep the same order: the
    # sorter breaks them by the order the matches came in, which the select list does not change.
    best = db.execute(
        f"SELECT d.id, {score} AS r FROM docs_fts JOIN docs d ON d.id = docs_fts.rowid "
        f"WHERE docs_fts MATCH ? AND {' AND '.join(filters)} ORDER BY {order} LIMIT {limit}",
        [match, *params],
    ).fetchall()
    rows = _whole(db, [i for i, _ in best])
    return [(*rows[i], r) for i, r in best]


def _whole(db: sqlite3.Connection, ids: list[int]) -> dict[int, tuple[Any, ...]]:
    """The documents ``ids`` with every column of _COLUMNS, by id: read once chosen, as a document's text and data
    (a few kB, on overflow pages) cost more to read than choosing it did."""
    if not ids:
        return {}
    return {
        row[0]: row
        for row in db.execute(f"SELECT {_COLUMNS} FROM docs d WHERE d.id IN ({', '.join('?' * len(ids))})", ids)
    }


def _doc_count(db: sqlite3.Connection, word: str) -> int:
    """How many documents hold ``word``, counted up to DF_CAP (a common word's exact count costs a scan of it)."""
    found = db.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT {DF_CAP})", (f'"{word}"',)
    )
    return int(found.fetchone()[0])


def _doc(row: tuple[Any, ...]) -> Hit:
    # the columns of _COLUMNS, in order; fastjson, not orjson or the json package: a search spares their imports
    return {
        "id": row[0],
        "kind": row[1],
        "origin": row[2],
        "ref": row[3],
        "role": row[4],
        "agent": row[5],
        "session": row[6],
        "worktreeId": row[7],
        "branch": row[8],
        "ts": row[9],
        "text": row[10],
        "_data": parse_json(row[11]),  # type: ignore[typeddict-item]  # the canonical JSON _row wrote
    }


def _holds(text: str, phrase: str) -> bool:
    """Whether ``text`` holds ``phrase`` as written (both as :func:`terms.flat` makes them), not inside a word."""
    flat = terms.flat(text)
    at = flat.find(phrase)
    while at >= 0:
        end = at + len(phrase)
        if (at == 0 or not flat[at - 1].isalnum()) and (end == len(flat) or not flat[end].isalnum()):
            return True
        at = flat.find(phrase, at + 1)
    return False


def _score(
    doc: Hit, q: Query, relevance: float, now: float, wants: set[str], *, verbatim: bool = False
) -> dict[str, float]:
    data = doc["_data"]
    mine = data.get("paths", [])
    path = PATH_MATCH if any(_same_path(p, x) for p in q.paths for x in mine) else 0.0
    if path and doc["role"] in EDITS and mine and any(_same_path(p, mine[0]) for p in q.paths):
        path += PATH_CHANGED  # the edit of that file, not a mention of it
    symbol = SYMBOL_MATCH if set(q.symbols) & set(data.get("symbols", [])) else 0.0
    if doc["role"] not in CODE_ROLES:  # a message or a request naming it: prose about the code, not the code
        path, symbol = path * PROSE_SHARE, symbol * PROSE_SHARE
    causal = _chained(doc, wants)
    parts = {"fts": relevance, "path": path, "symbol": symbol, "causal": causal, "recency": _recency(doc, now)}
    if verbatim:
        parts["verbatim"] = VERBATIM
    if "outcome" in wants and _polarity(doc) and doc["role"] in CODE_ROLES:
        parts["intent"] = INTENT_BONUS  # "is X passing": the runs of X and their outcome
    elif "approach" in wants and (_polarity(doc) < 0 or doc["role"] == "approach"):
        parts["intent"] = INTENT_BONUS  # "which approach failed": the runs that showed it did, the words giving it up
    return _total(parts)


def _chained(doc: Hit, wants: frozenset[str] | set[str] = frozenset()) -> float:
    """The causal bonus of an edit or a test run linked to the other (an edit that was tested, a run testing one);
    more for the two ends of a failure and its fix (the failing run, the edits after it), what a person recalls."""
    links = doc["_data"].get("links") if doc["role"] in EDITS | RUNS else None
    if not links:
        return 0.0
    if _polarity(doc) < 0 and "outcome" not in wants:
        return CAUSAL_BONUS + PROBLEM_BONUS
    if "approach" not in wants and any(link["rel"] == "fixes" for link in links):  # an attempt is asked, not a fix
        return CAUSAL_BONUS + PROBLEM_BONUS
    return CAUSAL_BONUS


def _total(parts: dict[str, float]) -> dict[str, float]:
    parts = {k: round(v, 4) for k, v in parts.items()}
    parts["total"] = round(sum(parts.values()), 4)
    return parts


def _recency(doc: Hit, now: float) -> float:
    ts = doc.get("ts")
    if ts is None:
        return 0.0
    age_days = max(0.0, now - float(ts)) / 86400
    return float(RECENCY * 0.5 ** (age_days / HALF_LIFE_DAYS))


def _holds_path(query_path: str, paths: str, text: str) -> bool:
    """Whether a document (its paths, one a line, and its text) names ``query_path``."""
    return query_path in text or any(_same_path(query_path, p) for p in paths.split("\n") if p)


def _same_path(query_path: str, path: str) -> bool:
    a, b = query_path.strip("/"), path.strip("/")
    return a == b or b.endswith("/" + a) or a.endswith("/" + b)


def _follow_links(
    db: sqlite3.Connection,
    hits: dict[tuple[str, str], Hit],
    now: float,
    here: Here,
    worktree: str,
    since: float | None,
    agent: str | None,
    wants: set[str],
) -> None:
    """Bring in what the matches are causally linked to (two steps: a failed run, its fix, the run that proved it)."""
    frontier = sorted(hits.values(), key=_order)[:FOLLOW]  # a link from further down could not rank
    for _ in range(2):
        wanted: dict[tuple[str, str], tuple[Hit, str]] = {}
        for doc in frontier:
            for link in doc["_data"].get("links", []):
                if link["rel"] in LINKS_FROM.get(doc["role"], CLAIM_LINKS):
                    key = (doc["origin"], link["ref"])
                    if key in hits:  # a fix matched itself too: the better of its own causal score and this one
                        if link["rel"] == "fixed-by" and "outcome" not in wants:
                            _lift(hits[key], doc, link["rel"], wants)
                    elif key not in wanted:
                        wanted[key] = (doc, link["rel"])
        frontier = []
        found: dict[tuple[str, str], tuple[Any, ...]] = {}
        keys = sorted(wanted)
        for start in range(0, len(keys), 400):  # one query for them all (in chunks under SQLite's 999 variables)
            chunk = keys[start : start + 400]
            pairs = ", ".join("(?, ?)" for _ in chunk)
            flat = [v for key in chunk for v in key]
            for row in db.execute(  # a join, not `(origin, ref) IN (VALUES …)`: SQLite scans the index for that
                f"WITH w(o, r) AS (VALUES {pairs}) SELECT {_COLUMNS}, 0 FROM w "
                "JOIN docs d ON d.origin = w.o AND d.ref = w.r",
                flat,
            ):
                found[(row[2], row[3])] = row
        for (origin, ref), (parent, rel) in sorted(wanted.items()):
            if (origin, ref) not in found:
                continue
            doc = _doc(found[(origin, ref)])
            if (since is not None and (doc["ts"] or 0) < since) or (agent and doc["agent"] != agent):
                continue
            if worktree == "this" and doc["worktreeId"] != here["worktreeId"]:
                continue
            share = parent["score"]["fts"] + parent["score"]["path"] + parent["score"]["symbol"]
            causal = LINK_SHARE * share + _chained(doc, wants)
            parts = {"fts": 0.0, "path": 0.0, "symbol": 0.0, "causal": causal, "recency": _recency(doc, now)}
            if "fix" in wants and rel == "fixed-by":
                parts["intent"] = INTENT_BONUS  # "what fixed X": the edits that followed X's failure
            elif ("outcome" in wants and _polarity(doc)) or ("approach" in wants and _polarity(doc) < 0):
                parts["intent"] = INTENT_BONUS
            elif "approach" in wants and rel == "tests" and _polarity(parent) < 0:
                parts["intent"] = INTENT_BONUS  # the attempt a failed run tested
            doc["score"] = _total(parts)
            doc["_own"] = doc["score"]["total"]
            doc["_via"] = (parent, rel)
            doc["coverage"], doc["matched"] = 0.0, []
            hits[(origin, ref)] = doc
            frontier.append(doc)


def _follow_requests(
    db: sqlite3.Connection,
    hits: dict[tuple[str, str], Hit],
    now: float,
    here: Here,
    worktree: str,
    since: float | None,
    agent: str | None,
    wants: set[str],
) -> None:
    """Bring in the work done in answer to a matched request: a person recalls a task in the words they asked for it
    ("the yearly report takes ages"), which the edits and runs that answered it seldom hold. The work is every edit,
    run and abandoned approach of the request's session from the request to the session's next one, whatever
    recorded it (the active memory or a packet: the session id bridges them), ranked by the share of the request's
    score a linked document gets."""
    requests = [d for d in sorted(hits.values(), key=_order)[:FOLLOW] if d["role"] in TURNS and d["session"]]
    requests = requests[:TURN_FOLLOW]
    roles = ", ".join(f"'{r}'" for r in sorted(WORK))
    spans: dict[tuple[str, float], list[Hit]] = {}
    for parent in requests:
        session, start, origin = parent["session"], parent["ts"] or 0.0, None
        if parent["role"] not in REQUESTS:  # a message: the turn it was said in, from the request before it
            before = db.execute(
                f"SELECT max(ts) FROM docs WHERE session = ? AND ts <= ? AND role = '{index.REQUEST}'", (session, start)
            ).fetchone()[0]
            if before is None:  # no request recorded for it: what follows it in its own packet
                origin = parent["origin"]
            start = before if before is not None else start
        if (session, start) in spans:  # a better match brought this turn in already
            if _evidence_first(parent, wants):
                _after_work(hits, parent, spans[(session, start)])
            continue
        spans[(session, start)] = work = []
        after = db.execute(
            f"SELECT min(ts) FROM docs WHERE session = ? AND ts > ? AND role = '{index.REQUEST}'", (session, start)
        ).fetchone()[0]
        brought: list[Hit] = []
        lifted: list[Hit] = []
        chosen = db.execute(  # the turn's first ANSWERS by their ids and times alone, then those read whole
            f"SELECT d.id FROM docs d {'INDEXED BY docs_origin_ts' if origin else ''} "  # a packet: by time
            "WHERE d.session = ? AND d.ts >= ? AND d.ts < ? "
            f"AND d.repo_id = ? AND d.role IN ({roles}) {'AND d.origin = ?' if origin else ''} "
            f"ORDER BY d.ts, d.id LIMIT {ANSWERS}",
            (session, start, after if after is not None else math.inf, here["repoId"], *([origin] if origin else [])),
        ).fetchall()
        whole = _whole(db, [i for (i,) in chosen])
        rows = [(*whole[i], 0) for (i,) in chosen]
        for row in rows:
            key = (row[2], row[3])
            if key in hits:  # it matched itself too: the better of its own score and the request's share
                _lift(hits[key], parent, "answers", wants)
                if hits[key].get("_via", (None,))[0] is parent:
                    lifted.append(hits[key])
                continue
            doc = _doc(row)
            if (since is not None and (doc["ts"] or 0) < since) or (agent and doc["agent"] != agent):
                continue
            if worktree == "this" and doc["worktreeId"] != here["worktreeId"]:
                continue
            share = parent["score"]["fts"] + parent["score"]["path"] + parent["score"]["symbol"]
            parts = {
                "fts": 0.0,
                "path": 0.0,
                "symbol": 0.0,
                "causal": LINK_SHARE * share * _side(doc, wants) + _chained(doc, wants),
                "recency": _recency(doc, now),
            }
            if _wanted(doc, wants):
                parts["intent"] = INTENT_BONUS
            doc["score"] = _total(parts)
            doc["_own"] = doc["score"]["total"]
            doc["_via"] = (parent, "answers")
            doc["coverage"], doc["matched"] = 0.0, []
            hits[key] = doc
            brought.append(doc)
        _below(brought, parent)
        work += lifted + brought
        if _evidence_first(parent, wants):
            _after_work(hits, parent, lifted + brought)


def _side(doc: Hit, wants: set[str]) -> float:
    """The part of its request's share a piece of a turn's work gets: whole for an end of the problem (a failing run,
    a fix), an approach given up, or what the question asks for; SIDE_SHARE for the rest (setup, a passing re-run)."""
    whole = _chained(doc) > CAUSAL_BONUS or doc["role"] == "approach" or _wanted(doc, wants)
    return 1.0 if whole else SIDE_SHARE


def _evidence_first(prose: Hit, wants: set[str]) -> bool:
    """Whether a request or message of a turn ranks below the turn's work: yes for a request (the work answers it),
    and for the agent's words unless the question asks for them: why something was done or given up."""
    return prose["role"] in REQUESTS or (prose["role"] == "message" and not wants & {"approach", "reason"})


def _after_work(hits: dict[tuple[str, str], Hit], request: Hit, work: list[Hit]) -> None:
    """A request (or message) whose turn's work was brought in ranks just below the best WORK_FIRST of it: what was
    said tells why the work is there (each piece's ``via`` points at it), the work is the evidence that answers. The
    same words recorded elsewhere (a packet's objective is the session's first request) go down with it."""
    best = sorted((d["score"]["total"] for d in work), reverse=True)[:WORK_FIRST]
    ceiling = (best[-1] if best else 0.0) - LIFT_BELOW
    if ceiling <= 0 or ceiling >= request["score"]["total"]:
        return
    for same in [d for d in hits.values() if d["text"] == request["text"] and d["role"] not in CODE_ROLES]:
        total = same["score"]["total"]
        if total > ceiling:
            same["score"] = _total({k: v * ceiling / total for k, v in same["score"].items() if k != "total"})


def _below(brought: list[Hit], parent: Hit) -> None:
    """What a match brought in ranks below it, in the order of its own scores (what the words matched is surer),
    unless it is what the question asks for (its intent part is kept whole)."""
    top = max((d["score"]["total"] - d["score"].get("intent", 0.0) for d in brought), default=0.0)
    ceiling = parent["score"]["total"] - LIFT_BELOW
    if top <= ceiling or top <= 0:
        return
    for doc in brought:
        doc["score"] = _total(
            {k: v if k == "intent" else v * ceiling / top for k, v in doc["score"].items() if k != "total"}
        )


def _attempts(hits: dict[tuple[str, str], Hit]) -> None:
    """For "which approach failed": an edit that a failing run tested is an attempt, what the question asks for."""
    failed = {key for key, d in hits.items() if _polarity(d) < 0}
    for (origin, _), doc in hits.items():
        if doc["role"] not in EDITS or "intent" in doc["score"]:
            continue
        links = doc["_data"].get("links", [])
        if any(link["rel"] == "tested-by" and (origin, link["ref"]) in failed for link in links):
            parts = {k: v for k, v in doc["score"].items() if k != "total"}
            parts["intent"] = INTENT_BONUS
            doc["score"] = _total(parts)


def _wanted(doc: Hit, wants: set[str]) -> bool:
    """Whether a document is what the question asks for: a fix, an outcome, or an approach that failed."""
    links = doc["_data"].get("links", [])
    return (
        ("fix" in wants and any(link["rel"] == "fixes" for link in links))
        or ("outcome" in wants and _polarity(doc) != 0)
        or ("approach" in wants and (_polarity(doc) < 0 or doc["role"] == "approach"))
    )


def _lift(doc: Hit, parent: Hit, rel: str, wants: set[str]) -> None:
    """A matched document that a better match links to (the fix of the failure a query describes) gets the share of
    that match's score a linked one would, when it is more than its own causal score; never ranking above it."""
    share = LINK_SHARE * (parent["score"]["fts"] + parent["score"]["path"] + parent["score"]["symbol"])
    parts = {k: v for k, v in doc["score"].items() if k != "total"}
    rest = sum(v for k, v in parts.items() if k != "causal")
    causal = min(share + _chained(doc, wants), parent["score"]["total"] - LIFT_BELOW - rest)
    if causal <= doc["score"]["causal"] or doc is parent:
        return
    parts["causal"] = causal
    if "fix" in wants and rel == "fixed-by":
        parts["intent"] = INTENT_BONUS
    doc["score"] = _total(parts)
    doc["_via"] = (parent, rel)


# How the field scores are fused. The default adds them (each part weighted as above); reciprocal rank fusion of the
# field rankings (FUSION = True, `bench/eval_retrieval.py --fusion rrf`) was measured on the retrieval benchmark and
# lost: recall@5 0.80 against 0.83 overall, "what fixed" 0.71 against 0.88, conflicts 0.54 against 0.79 (a field
# that ranks a document first says nothing about by how much, and the causal field's margins are what those need).
FUSION = False
RRF_K = 60
FIELDS = {  # the field rankings fused: each a part (or parts) of the score, ranked on its own
    "text": ("fts", "verbatim"),
    "path": ("path",),
    "symbol": ("symbol",),
    "evidence": ("causal", "intent"),
}


def _fuse(hits: list[Hit]) -> None:
    """Reciprocal rank fusion of the field rankings: each field ranks the documents it scores (above 0), and a
    document's fused score is the sum of 1 / (RRF_K + its rank) over them; recency breaks ties."""
    fused = {id(d): 0.0 for d in hits}
    for parts in FIELDS.values():
        scored = [(sum(d["score"].get(p, 0.0) for p in parts), d) for d in hits]
        ranked = sorted((x for x in scored if x[0] > 0), key=lambda x: -x[0])
        for rank, (_, d) in enumerate(ranked, 1):
            fused[id(d)] += 1.0 / (RRF_K + rank)
    for d in hits:
        d["score"]["fused"] = round(fused[id(d)] + d["score"].get("recency", 0.0) * 1e-4, 6)


def _standing(doc: Hit) -> int:
    """0 for an outcome that overturned another and stands, 1 for the outcome a standing one overturned, else 2."""
    if doc.get("_supersedes") and not doc.get("_supersededBy"):
        return 0
    later = doc.get("_supersededBy")
    return 1 if later is not None and not later.get("_supersededBy") else 2


def _order(doc: Hit) -> tuple[Any, ...]:
    if FUSION:
        return (-doc["score"].get("fused", 0.0), -doc["score"]["total"], -(doc.get("ts") or 0), doc["origin"])

    return (-doc["score"]["total"], -doc.get("_own", 0.0), -(doc.get("ts") or 0), doc["origin"], doc["ref"])


def _dedupe(ranked: list[Hit]) -> list[Hit]:
    """One result per event: a transcript line exported in several packets, or recorded by the active memory
    too, is shown once (the best ranked; ``alsoIn`` names the other origins)."""
    seen: dict[tuple[str, Any], Hit] = {}
    out = []
    for doc in ranked:
        keys = _event_keys(doc["_data"])
        if doc["role"] not in CODE_ROLES and doc["text"]:  # the same words said again (a resumed or repeated
            keys.append(("said", doc["text"]))  # session): shown once; a repeated run or edit is evidence each time
        first = next((seen[k] for k in keys if k in seen), None)
        if first is not None:
            if doc["origin"] != first["origin"] and doc["origin"] not in first.get("alsoIn", []):
                first.setdefault("alsoIn", []).append(doc["origin"])
            continue
        for key in keys:
            seen[key] = doc
        out.append(doc)
    return out


def _event_keys(data: Document) -> list[tuple[str, Any]]:
    """The transcript events a document stands for: (transcript, event id) and (transcript, line) of each part."""
    pointer = data.get("pointer") or {}
    source = (data.get("source") or {}).get("path") or pointer.get("source")
    if not source:
        return []
    keys: list[tuple[str, Any]] = [(source, f"event:{pointer['event']}")] if pointer.get("event") else []
    for part in (pointer, data.get("resultPointer") or {}):
        if isinstance(part.get("line"), int):
            keys.append((source, part["line"]))
    return keys


def _scope(doc: Hit, here: Here) -> str:
    if doc["kind"] == "durable":
        return "project"
    if str(doc["worktreeId"] or "").startswith("shared:"):
        return "shared"
    if doc["worktreeId"] != here["worktreeId"]:
        return "other-worktree"
    return "this-worktree" if doc["branch"] == here["branch"] else "other-branch"


def _polarity(doc: Hit) -> int:
    """+1 for a passing run or a "fixed" claim, -1 for a failing run, 0 for anything else."""
    status = (doc["_data"].get("outcome") or {}).get("status")
    if status == "claimed-fixed":
        return 1
    if doc["role"] not in RUNS:
        return 0
    return 1 if status in POSITIVE else (-1 if status in NEGATIVE else 0)


def _supersede(ranked: list[Hit], here: Here) -> None:
    """Mark each outcome superseded by the first later test run, in the same worktree and branch, that contradicts it.

    A run contradicts an earlier outcome when their polarity differs (passed or "fixed", then
    failed; or failed, then passed) and they share a subject (a command, a path, a symbol).
    Only a test run supersedes: a "fixed" message is a claim, not proof. A contrary run in
    another worktree or branch is listed under ``elsewhere`` on both, and supersedes nothing.
    """
    del here  # scopes are compared between the two outcomes, not with the caller's
    sign = {id(d): _polarity(d) for d in ranked}
    outcomes = sorted((d for d in ranked if sign[id(d)]), key=_when)
    subjects = {id(d): set(d["_data"].get("subject") or []) for d in outcomes}
    for i, early in enumerate(outcomes):
        subject = subjects[id(early)]
        for late in outcomes[i + 1 :]:
            if late["role"] not in RUNS or sign[id(late)] == sign[id(early)]:
                continue
            if not subject & subjects[id(late)]:
                continue
            if (late["worktreeId"], late["branch"]) != (early["worktreeId"], early["branch"]):
                for a, b in ((early, late), (late, early)):
                    if all(x is not b for x in a.get("_elsewhere", [])):
                        a.setdefault("_elsewhere", []).append(b)
                continue
            early["_supersededBy"] = late
            late.setdefault("_supersedes", []).append(early)
            break


def _when(doc: Hit) -> tuple[Any, ...]:
    return (doc.get("ts") or 0, doc["origin"], doc.get("_data", {}).get("seq") or 0, doc["ref"])


def _pointer(doc: Hit) -> dict[str, Any]:
    data = doc["_data"]
    src = data.get("source") or {}
    out = {
        "kind": doc["kind"],
        "origin": doc["origin"],
        "packet": doc["origin"] if doc["kind"] == "evidence" else None,
        "ref": doc["ref"],
        "source": src.get("path"),
        "sourceSha256": recorded.get("sha256") if (recorded := src.get("hash")) else None,
        **(data.get("pointer") or {}),
    }
    if data.get("resultPointer"):
        out["result"] = data["resultPointer"]
    return out


def _brief(doc: Hit) -> Brief:
    return {
        "rank": doc.get("_rank"),
        "origin": doc["origin"],
        "ref": doc["ref"],
        "time": doc["_data"].get("time"),
        "outcome": (doc["_data"].get("outcome") or {}).get("status"),
        "worktree": doc["_data"].get("worktree"),
        "branch": doc["branch"],
    }


def _public(doc: Hit, rank: int, here: Here) -> Result:
    data = doc["_data"]
    out: Result = {
        "rank": rank,
        "score": doc["score"],
        "coverage": doc["coverage"],
        "matched": doc["matched"],
        "role": doc["role"],
        "kind": doc["kind"],
        "excerpt": doc["text"],
        "pointer": _pointer(doc),
        "session": doc["session"],
        "agent": doc["agent"],
        "worktree": data.get("worktree"),
        "branch": doc["branch"],
        "scope": _scope(doc, here),
        "time": data.get("time"),
        "outcome": data.get("outcome"),
        "paths": data.get("paths", []),
        "symbols": data.get("symbols", [])[:12],
        "links": data.get("links", []),
        "freshness": doc["freshness"],
    }
    if doc.get("changedFiles"):
        out["changedFiles"] = doc["changedFiles"]
    if data.get("approval"):
        out["approval"] = {**data["approval"], "label": "approved by a person (a rule to follow, not evidence)"}
    if data.get("shared"):
        out["shared"] = data["shared"]
    if isinstance(data.get("task"), dict):
        out["task"] = data["task"]
    if doc.get("_via"):
        parent, rel = doc["_via"]
        out["via"] = {"rel": rel, "rank": parent.get("_rank"), "origin": parent["origin"], "ref": parent["ref"]}
    if doc.get("alsoIn"):
        out["alsoIn"] = doc["alsoIn"]
    if doc.get("shownFor"):
        out["shownFor"] = doc["shownFor"]
    if doc.get("_supersededBy"):
        out["supersededBy"] = _brief(doc["_supersededBy"])
    if doc.get("_supersedes"):
        out["supersedes"] = [_brief(d) for d in doc["_supersedes"]]
    if doc.get("_elsewhere"):
        out["elsewhere"] = [
            {**_brief(d), "note": "another worktree or branch: shown, never superseding this one"}
            for d in doc["_elsewhere"]
        ]
    return out


def _conflicts(shown: list[Hit]) -> list[Conflict]:
    """Each chain of contradicting outcomes among the results, oldest first, ending with the one that stands."""
    rank = {(d["origin"], d["ref"]): n for n, d in enumerate(shown, 1)}
    out: list[Conflict] = []
    for head in shown:
        if not head.get("_supersedes") or head.get("_supersededBy"):
            continue
        chain, todo = [head], list(head["_supersedes"])
        while todo:
            doc = todo.pop()
            if all(doc is not c for c in chain):
                chain.append(doc)
                todo += doc.get("_supersedes", [])
        out.append(
            {
                "worktree": head["_data"].get("worktree"),
                "branch": head["branch"],
                "standing": rank.get((head["origin"], head["ref"])),
                "items": [
                    {
                        "rank": rank.get((d["origin"], d["ref"])),
                        "ref": d["ref"],
                        "origin": d["origin"],
                        "time": d["_data"].get("time"),
                        "role": d["role"],
                        "outcome": (d["_data"].get("outcome") or {}).get("status"),
                        "status": "superseded" if d.get("_supersededBy") else "standing",
                        "supersededBy": (
                            rank.get((d["_supersededBy"]["origin"], d["_supersededBy"]["ref"]))
                            if d.get("_supersededBy")
                            else None
                        ),
                    }
                    for d in sorted(chain, key=_when)
                ],
            }
        )
    return out
