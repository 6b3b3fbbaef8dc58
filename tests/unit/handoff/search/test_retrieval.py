"""Reciprocal rank fusion of the field rankings (measured against the sum; bench/eval_retrieval.py --fusion rrf)."""

from __future__ import annotations

from autopilot.handoff.search import index, retrieval


def hit(name: str, **score: float) -> dict:
    return {"name": name, "score": {"fts": 0.0, "path": 0.0, "symbol": 0.0, "causal": 0.0, "recency": 0.0, **score}}


def test_a_document_ranked_well_in_two_fields_beats_one_first_in_a_single_field():
    """Second in text and in evidence outranks first in text alone; a field a document scores 0 in does not count."""
    docs = [hit("a", fts=9.0), hit("b", fts=5.0, causal=3.0), hit("c", causal=4.0), hit("d")]
    retrieval._fuse(docs)  # type: ignore[arg-type]
    order = [d["name"] for d in sorted(docs, key=lambda d: -d["score"]["fused"])]
    assert order == ["b", "a", "c", "d"] and docs[3]["score"]["fused"] == 0.0


# --- A request brings in the work done in answer to it (issue 37: the person's own words, failed approaches).
def session_docs(repo):
    """One session as the active memory and a packet recorded it (two origins, one session id), a second request
    later in it, and another session: the documents, and the moment to search at."""
    from autopilot.handoff.sources.project import Project

    project = Project(str(repo))
    at = {"repoId": project.repo_id, "worktreeId": project.worktree_id, "branch": "main", "agent": "claude"}

    def doc(origin, ref, role, minute, text, session="s-1", **more):
        kind = "evidence" if origin.startswith("sha256:") else "observation"
        when = f"2026-11-30T10:{minute:02d}:00Z"
        return {**at, "kind": kind, "origin": origin, "ref": ref, "role": role, "session": session, "time": when,
                "text": text, **more}  # fmt: skip

    memory, packet = "memory:claude:s-1", "sha256:" + "a" * 64
    failed = {"status": "failed"}
    return [
        doc(memory, "q1", "memory.request", 0, "The yearly report takes ages on my ten year journal. Speed it up."),
        doc(
            memory,
            "e1",
            "memory.edit",
            1,
            "Edit src/ledger/monthly.py (monthly_totals, lru_cache)",
            links=[{"rel": "tested-by", "ref": "r1"}],
        ),  # fmt: skip
        doc(
            memory,
            "r1",
            "memory.run",
            2,
            "pytest tests/test_monthly.py\nE   TypeError: unhashable type: 'list'",
            outcome=failed,
            links=[{"rel": "tests", "ref": "e1"}],
        ),  # fmt: skip
        doc(packet, "E8", "approach", 3, "lru_cache is a dead end: entries is a list. Reverting it."),
        doc(memory, "q2", "memory.request", 4, "Now write the rows out as a spreadsheet file."),
        doc(memory, "e2", "memory.edit", 5, "Edit src/ledger/export.py (write_rows)"),
        doc("memory:claude:s-2", "e9", "memory.edit", 2, "Edit src/ledger/other.py (unrelated)", session="s-2"),
    ]


def test_a_matched_request_brings_in_its_sessions_work_until_the_next_request(git_repo):
    """The request's words find the edit, the failing run and the abandoned approach that answered it (from the
    active memory and the packet alike); not the work of the next request, nor another session's."""
    from autopilot.handoff.search import index

    for origin in ("memory:claude:s-1", "sha256:" + "a" * 64, "memory:claude:s-2"):
        index.add_documents([d for d in session_docs(git_repo) if d["origin"] == origin])
    answer = retrieval.search("yearly report takes ages", cwd=str(git_repo), now=1796000000.0)
    refs = {r["excerpt"].split()[0]: r for r in answer["results"]}
    assert len(refs) == len(answer["results"]) and {"The", "Edit", "pytest", "lru_cache"} == set(refs)
    assert refs["Edit"]["excerpt"].startswith("Edit src/ledger/monthly.py") and refs["lru_cache"]["kind"] == "evidence"
    request = refs.pop("The")
    assert all(r["via"] == {**r["via"], "rel": "answers", "rank": request["rank"]} for r in refs.values())


def test_without_a_matched_request_nothing_of_its_work_comes(git_repo):
    """Words of no request bring in no session's work: an unknown word still answers with nothing."""
    from autopilot.handoff.search import index

    index.add_documents([d for d in session_docs(git_repo) if d["origin"] == "memory:claude:s-1"])
    assert retrieval.search("zqxjv", cwd=str(git_repo), now=1796000000.0)["results"] == []
    spreadsheet = retrieval.search("spreadsheet file", cwd=str(git_repo), now=1796000000.0)["results"]
    assert [r["excerpt"].split()[0] for r in spreadsheet] == ["Edit", "Now"]  # the work, then what asked for it
    assert spreadsheet[0]["excerpt"] == "Edit src/ledger/export.py (write_rows)"


def test_which_approach_failed_ranks_the_attempt_its_failed_run_and_the_giving_up_first(git_repo):
    """Asked which approach failed, the attempt (an edit a failing run tested), that run and the approach given up
    rank above the request they answered: what the question asks for keeps its whole intent part, while the rest of
    what a request brings in ranks below it."""
    from autopilot.handoff.search import index

    for origin in ("memory:claude:s-1", "sha256:" + "a" * 64):
        index.add_documents([d for d in session_docs(git_repo) if d["origin"] == origin])
    answer = retrieval.search("which approach failed for the yearly report", cwd=str(git_repo), now=1796000000.0)
    first = [r["excerpt"].split()[0] for r in answer["results"]]
    assert first[3] == "The" and sorted(first[:3]) == ["Edit", "lru_cache", "pytest"], answer["results"]
    assert all(r["score"].get("intent") for r in answer["results"][:3])


def test_what_a_request_brings_in_ranks_below_it_unless_the_question_asks_for_it():
    """The brought-in documents are scaled under their request in their own order; an intent part stays whole."""
    request = {"score": {"total": 5.0}}
    brought = [
        {"score": retrieval._total({"causal": 8.0, "recency": 0.0})},
        {"score": retrieval._total({"causal": 4.0, "recency": 0.0})},
        {"score": retrieval._total({"causal": 2.0, "recency": 0.0, "intent": 3.0})},
    ]
    retrieval._below(brought, request)  # type: ignore[arg-type]
    totals = [d["score"]["total"] for d in brought]
    assert totals[0] < 5.0 and totals[1] < totals[0] and brought[2]["score"]["intent"] == 3.0
    assert totals[2] == round(3.0 + 2.0 * (5.0 - retrieval.LIFT_BELOW) / 8.0, 4)


def test_a_message_with_no_request_recorded_brings_in_only_what_follows_it_in_its_packet(git_repo):
    """Without the active memory's requests a turn has no known bounds: a matched message brings in the work after
    it in its own packet, not the work another packet of the same session holds."""
    from autopilot.handoff.search import index

    docs = [d for d in session_docs(git_repo) if d["origin"] == "memory:claude:s-1"]
    here = {k: docs[0][k] for k in ("repoId", "worktreeId", "branch", "agent")}
    first, second = "sha256:" + "b" * 64, "sha256:" + "c" * 64
    for origin, minute, words in ((first, 0, "The ledger importer chokes on semicolons"), (second, 5, "Unrelated")):
        index.add_documents(
            [
                {
                    **here,
                    "kind": "evidence",
                    "origin": origin,
                    "ref": "E1",
                    "role": "message",
                    "session": "s-3",
                    "time": f"2026-11-30T11:{minute:02d}:00Z",
                    "text": words,
                },  # fmt: skip
                {
                    **here,
                    "kind": "evidence",
                    "origin": origin,
                    "ref": "E2",
                    "role": "edit",
                    "session": "s-3",
                    "time": f"2026-11-30T11:{minute + 1:02d}:00Z",
                    "text": f"Edit src/ledger/x{minute}.py",
                },  # fmt: skip
            ]
        )
    found = retrieval.search("importer chokes on semicolons", cwd=str(git_repo), now=1796000000.0)["results"]
    assert [r["excerpt"] for r in found] == ["Edit src/ledger/x0.py", "The ledger importer chokes on semicolons"]


def test_a_bare_file_name_no_document_names_is_read_as_its_words(git_repo):
    """ "moment.js" names a library in a person's question: when no document names that file, its words find the
    documents saying "moment"; a path with folders no document names still answers with nothing."""
    from autopilot.handoff.search import index

    here = {k: session_docs(git_repo)[0][k] for k in ("repoId", "worktreeId", "branch", "agent")}
    text = "moment, the JS date library, adds 150 kB to the bundle: abandoning moment for Intl.DateTimeFormat"
    index.add_documents(
        [
            {
                **here,
                "kind": "evidence",
                "origin": "sha256:" + "d" * 64,
                "ref": "E1",
                "role": "approach",
                "session": "s-4",
                "time": "2026-11-30T12:00:00Z",
                "text": text,
            }
        ]  # fmt: skip
    )
    found = retrieval.search("why did we abandon moment.js", cwd=str(git_repo), now=1796000000.0)["results"]
    assert [r["excerpt"] for r in found] == [text]
    assert retrieval.search("web/src/moment.js", cwd=str(git_repo), now=1796000000.0)["results"] == []


# --- A turn's work ranks above what was said about it (issue 37, third session: the user's own words, failed
# approaches, conflicting outcomes). What a person typed ranks below the work it brought in, prose said twice is one
# result, a turn's side work yields to what broke and what fixed it, "why" keeps the agent's reasons first, and
# "does the fix hold" asks for the outcome.
NOW = 1796000000.0
PACKET = "sha256:" + "e" * 64


def docs_of(repo, session, rows):
    """Documents of one session (``rows``: origin, ref, role, minute, text, and more fields) at the repository."""
    from autopilot.handoff.sources.project import Project

    project = Project(str(repo))
    at = {"repoId": project.repo_id, "worktreeId": project.worktree_id, "branch": "main", "agent": "claude"}
    out = []
    for origin, ref, role, minute, text, *more in rows:
        kind = "evidence" if origin.startswith("sha256:") else "observation"
        out.append(
            {
                **at,
                "kind": kind,
                "origin": origin,
                "ref": ref,
                "role": role,
                "session": session,
                "time": f"2026-11-30T10:{minute:02d}:00Z",
                "text": text,
                **(more[0] if more else {}),
            }
        )
    return out


def add(docs):
    for origin in dict.fromkeys(d["origin"] for d in docs):
        index.add_documents([d for d in docs if d["origin"] == origin])


def turn(repo, memory="memory:claude:s-1", session="s-1"):
    """A request, its attempt and failing run, the fix, a passing re-run, a setup edit no word of the query holds."""
    return docs_of(
        repo,
        session,
        [
            (memory, "q1", "memory.request", 0, "The invoice totals are off by a cent for some customers."),
            (memory, "e0", "memory.edit", 1, "Edit tests/conftest.py (fixture)"),
            (
                memory,
                "r1",
                "memory.run",
                2,
                "pytest tests/test_tax.py\nFAILED test_cent",
                {"outcome": {"status": "failed"}, "links": [{"rel": "fixed-by", "ref": "e1"}]},
            ),
            (
                memory,
                "e1",
                "memory.edit",
                3,
                "Edit src/tax.py (round_half)",
                {"links": [{"rel": "fixes", "ref": "r1"}]},
            ),
            (
                memory,
                "r2",
                "memory.run",
                4,
                "pytest tests/test_tax.py\n3 passed",
                {"outcome": {"status": "passed"}},
            ),
        ],
    )


def first_words(results):
    return [r["excerpt"].split("\n")[0] for r in results]


def test_the_work_a_request_brought_in_ranks_above_the_request_and_its_copy_in_a_packet(git_repo):
    """The failing run and the fix the request's words found rank first; the request (and the packet's objective,
    the same words recorded again) follows them, shown once, with the work's ``via`` pointing at it."""
    docs = turn(git_repo)
    docs += docs_of(git_repo, "s-1", [(PACKET, "E1", "objective", 0, docs[0]["text"])])
    add(docs)
    results = retrieval.search("invoice totals off by a cent", cwd=str(git_repo), now=NOW)["results"]
    said = [r for r in results if r["role"] in ("memory.request", "objective")]
    assert len(said) == 1 and said[0].get("alsoIn") and said[0]["rank"] > 2, results
    assert set(first_words(results[:2])) == {"pytest tests/test_tax.py", "Edit src/tax.py (round_half)"}
    assert all(r["via"]["rank"] == said[0]["rank"] for r in results if r.get("via", {}).get("rel") == "answers")


def test_a_turns_side_work_ranks_below_what_broke_and_what_fixed_it(git_repo):
    """The setup edit and the passing re-run, brought in only by the request, rank below the failing run and the fix;
    asked whether it passes, the passing run is what the question asks for and ranks with the failure."""
    add(turn(git_repo))
    results = retrieval.search("invoice totals off by a cent", cwd=str(git_repo), now=NOW)["results"]
    order = [r["pointer"]["ref"] for r in results]
    assert order.index("r1") < order.index("r2") and order.index("e1") < order.index("e0"), order
    assert max(order.index("r1"), order.index("e1")) < min(order.index("r2"), order.index("e0")), order
    outcome = retrieval.search("are the invoice totals passing", cwd=str(git_repo), now=NOW)["results"]
    ranked = [r["pointer"]["ref"] for r in outcome]
    assert set(ranked[:2]) == {"r1", "r2"}, ranked


def test_the_same_words_said_again_are_one_result_but_each_run_is_its_own(git_repo):
    """A request typed again in a second session is shown once (``alsoIn`` names the other); two runs printing the
    same output are two outcomes, both shown."""
    first = docs_of(git_repo, "s-1", [("memory:claude:s-1", "q1", "memory.request", 0, "What is banker's rounding?")])
    again = docs_of(git_repo, "s-2", [("memory:claude:s-2", "q1", "memory.request", 9, "What is banker's rounding?")])
    runs = docs_of(
        git_repo,
        "s-3",
        [
            (
                "memory:claude:s-3",
                "r1",
                "memory.run",
                1,
                "pytest tests/test_rounding.py\n1 passed",
                {"outcome": {"status": "passed"}},
            ),
            (
                "memory:claude:s-3",
                "r2",
                "memory.run",
                5,
                "pytest tests/test_rounding.py\n1 passed",
                {"outcome": {"status": "passed"}},
            ),
        ],
    )
    add(first + again + runs)
    said = retrieval.search("banker's rounding", cwd=str(git_repo), now=NOW)["results"]
    assert [r["excerpt"] for r in said] == ["What is banker's rounding?"] and said[0]["alsoIn"] == ["memory:claude:s-1"]
    ran = retrieval.search("test_rounding", cwd=str(git_repo), now=NOW)["results"]
    assert sorted(r["pointer"]["ref"] for r in ran) == ["r1", "r2"]


def test_the_agents_words_rank_below_their_turns_work_unless_asked_why(git_repo):
    """A message that found its turn ranks below the work it brought in; asked "why", its reasons come first."""
    memory = PACKET  # no request recorded: the message's turn is what follows it in its packet
    add(
        docs_of(
            git_repo,
            "s-5",
            [
                (PACKET, "E1", "message", 0, "Caching the parsed statements is the wrong tool: statements change."),
                (
                    memory,
                    "e1",
                    "edit",
                    1,
                    "Edit src/statements.py (load)",
                    {"links": [{"rel": "tested-by", "ref": "r1"}]},
                ),
                (
                    memory,
                    "r1",
                    "test",
                    2,
                    "pytest tests/test_statements.py\nFAILED",
                    {"outcome": {"status": "failed"}, "links": [{"rel": "tests", "ref": "e1"}]},
                ),
            ],
        )
    )
    plain = retrieval.search("caching parsed statements", cwd=str(git_repo), now=NOW)["results"]
    assert plain[0]["role"] != "message" and any(r["role"] == "message" for r in plain), plain
    why = retrieval.search("why not caching parsed statements", cwd=str(git_repo), now=NOW)
    assert why["results"][0]["role"] == "message" and "reason" in why["intent"]


def test_does_the_fix_hold_asks_for_the_outcome(git_repo):
    """ "hold" is no word of the evidence: it asks whether an outcome stands, as "still working" does, so the query
    is not left unanswered for a word no document holds, and the pass and the later failure are both shown."""
    memory = "memory:claude:s-6"
    add(
        docs_of(
            git_repo,
            "s-6",
            [
                (
                    memory,
                    "r1",
                    "memory.run",
                    1,
                    "pytest tests/test_export.py\n4 passed",
                    {"outcome": {"status": "passed"}, "subject": ["command:pytest"]},
                ),
                (
                    memory,
                    "r2",
                    "memory.run",
                    8,
                    "pytest tests/test_export.py\nFAILED test_export",
                    {"outcome": {"status": "failed"}, "subject": ["command:pytest"]},
                ),
            ],
        )
    )
    answer = retrieval.search("did the test_export fix hold", cwd=str(git_repo), now=NOW)
    assert "outcome" in answer["intent"] and "hold" not in answer["unmatched"] + answer["searched"]
    refs = [r["pointer"]["ref"] for r in answer["results"]]
    assert refs[:2] == ["r2", "r1"] and answer["conflicts"], answer


def test_side_work_gets_a_smaller_share_than_the_ends_of_the_problem():
    """A passing re-run or a setup edit a request brought in gets SIDE_SHARE of its share; a failing run, a fix, an
    approach given up, or a pass asked for ("is it passing") gets all of it."""

    def doc(role, status=None, rels=()):
        data = {"links": [{"rel": r, "ref": "x"} for r in rels], **({"outcome": {"status": status}} if status else {})}
        return {"role": role, "_data": data}

    assert 0 < retrieval.SIDE_SHARE < 1
    side = [doc("memory.run", "passed", ["tests"]), doc("memory.edit", rels=["tested-by"]), doc("memory.edit")]
    ends = [doc("memory.run", "failed", ["fixed-by"]), doc("memory.edit", rels=["fixes"]), doc("approach")]
    assert [retrieval._side(d, set()) for d in side] == [retrieval.SIDE_SHARE] * 3  # type: ignore[arg-type]
    assert [retrieval._side(d, set()) for d in ends] == [1.0] * 3  # type: ignore[arg-type]
    assert retrieval._side(side[0], {"outcome"}) == 1.0  # type: ignore[arg-type]
