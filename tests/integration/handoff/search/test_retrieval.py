"""Search over sessions the real clients wrote: the fix and its proof, no unrelated history, staleness, conflicts."""

from __future__ import annotations

import json

import pytest

from autopilot.handoff.search import retrieval
from tests.support.handoff_env import git, run_json, worktree
from tests.support.search_project import MANIFEST, SESSIONS, export, headers_repo, install, write

STRICT = MANIFEST["files"]["afterCodexRegress"]


def search(bridge, where, *args):
    """Run `handoff search --json`; return the answer."""
    code, answer, err = run_json(bridge, "handoff", "search", *args, "--json", cwd=where)
    assert code == 0, err
    return answer


def by_packet(answer, pid):
    """The results that come from one packet."""
    return [r for r in answer["results"] if r["pointer"]["packet"] == pid]


@pytest.fixture
def project(bridge, git_repo):
    """The headers repo with Claude's fix session and the unrelated README session exported: (repo, fix, readme)."""
    repo = headers_repo(git_repo)
    return repo, export(bridge, "claude-fix", repo), export(bridge, "claude-readme", repo)


@pytest.fixture
def regressed(bridge, project):
    """Codex, later, in the same worktree, makes parse_header strict; its test run fails. (repo, fix, readme, codex)."""
    repo, fix, readme = project
    write(repo, STRICT)
    return repo, fix, readme, export(bridge, "codex-regress", repo)


def test_finds_the_earlier_fix_and_the_test_that_proved_it(bridge, regressed):
    """For the changed symbol, Claude's edit of parse_header is found, with the passing run it was tested by."""
    repo, fix, _, _ = regressed
    answer = search(bridge, repo, "parse_header")
    (edit,) = [r for r in by_packet(answer, fix) if r["role"] == "edit"]
    assert "if not line.strip():" in edit["excerpt"] and "parse_header" in edit["symbols"]
    (tested_by,) = [link["ref"] for link in edit["links"] if link["rel"] == "tested-by"]
    (proof,) = [r for r in by_packet(answer, fix) if r["pointer"]["ref"] == tested_by]
    assert (proof["role"], proof["outcome"]["status"]) == ("test", "passed")
    assert proof["outcome"]["basis"].startswith("the summary line '2 passed in ")
    assert edit["rank"] <= 5 and proof["rank"] <= 5


def test_error_text_finds_the_failure_and_what_fixed_it(bridge, project):
    """The error of the failing run leads to the edit that followed it and the run that then passed."""
    repo, fix, _ = project
    answer = search(bridge, repo, "ValueError: not enough values to unpack (expected 2, got 1)")
    roles = {(r["role"], (r["outcome"] or {}).get("status")) for r in by_packet(answer, fix)}
    assert {("test", "failed"), ("edit", "applied"), ("test", "passed")} <= roles


def test_unrelated_history_stays_out(bridge, regressed):
    """The README session is indexed (it is found for its own words) but never for parse_header or its error."""
    repo, _, readme, _ = regressed
    readme_session = SESSIONS["claude-readme"]
    for query in ("parse_header", "ValueError: no colon in header line", "headers.py"):
        assert [r for r in search(bridge, repo, query)["results"] if r["session"] == readme_session] == []
    assert {r["session"] for r in search(bridge, repo, "README intro")["results"]} == {readme_session}


def test_changed_file_makes_earlier_evidence_changed(bridge, regressed):
    """After Codex rewrote headers.py, Claude's edit and its proof are `changed`; Codex's own edit is `current`."""
    repo, fix, _, codex = regressed
    answer = search(bridge, repo, "parse_header")
    claude = {r["role"]: r for r in by_packet(answer, fix) if r["role"] in ("edit",)}
    (codex_edit,) = [r for r in by_packet(answer, codex) if r["role"] == "edit"]
    assert claude["edit"]["freshness"] == {
        "state": "changed",
        "reasons": ["changed since: headers.py"],
        "copy": False,
        "checked": ["source", "files"],
    }
    assert codex_edit["freshness"]["state"] == "current"


def test_deleted_source_is_unavailable_and_shown_as_a_copy(bridge, project):
    """Once Claude Code deletes the transcript, its evidence is still found: unavailable, the packet's copy."""
    repo, fix, _ = project
    transcript = install("claude-fix", repo)
    transcript.unlink()
    results = by_packet(search(bridge, repo, "parse_header"), fix)
    assert results and all(r["freshness"]["state"] == "unavailable" for r in results)
    assert all(r["freshness"]["copy"] and r["excerpt"] for r in results)
    assert results[0]["freshness"]["reasons"][0] == (
        f"the source {transcript} was deleted: the excerpt is the packet's copy"
    )


def test_rewritten_source_is_changed(bridge, project):
    """A transcript whose recorded bytes were altered makes its evidence `changed`, saying why."""
    repo, fix, _ = project
    transcript = install("claude-fix", repo)
    transcript.write_bytes(transcript.read_bytes().replace(b"parse_header", b"parse_HEADER", 1))
    (first, *_) = by_packet(search(bridge, repo, "parse_header"), fix)
    assert first["freshness"]["state"] == "changed"
    assert "changed in the bytes the packet was built from" in first["freshness"]["reasons"][0]


def test_later_failing_test_supersedes_the_earlier_pass_and_fixed_claim(bridge, regressed):
    """Codex's failing run is marked as superseding Claude's pass and its 'Fixed parse_header' claim; all stay shown."""
    repo, fix, _, codex = regressed
    answer = search(bridge, repo, "parse_header")
    (run,) = [r for r in by_packet(answer, codex) if r["role"] == "test"]
    passed = next(r for r in by_packet(answer, fix) if (r["outcome"] or {}).get("status") == "passed")
    claim = next(r for r in by_packet(answer, fix) if (r["outcome"] or {}).get("status") == "claimed-fixed")
    assert claim["excerpt"].startswith("Fixed parse_header:")
    assert passed["supersededBy"]["rank"] == claim["supersededBy"]["rank"] == run["rank"]
    assert {s["rank"] for s in run["supersedes"]} == {passed["rank"], claim["rank"]}
    (chain,) = answer["conflicts"]
    assert [(i["outcome"], i["status"]) for i in chain["items"]] == [
        ("failed", "superseded"),
        ("passed", "superseded"),
        ("claimed-fixed", "superseded"),
        ("failed", "standing"),
    ]
    times = [i["time"] for i in chain["items"]]
    assert times == sorted(times) and chain["standing"] == run["rank"]


def test_both_sides_of_a_conflict_are_shown_past_the_limit(bridge, regressed):
    """With --limit 1 the superseded pass and claim are still shown, marked as shown for the conflict."""
    repo, *_ = regressed
    results = search(bridge, repo, "parse_header", "--limit", "1")["results"]
    assert results[0]["supersedes"]
    assert {r["rank"] for r in results[1:]} >= {s["rank"] for s in results[0]["supersedes"]}
    assert {r.get("shownFor") for r in results[1:]} == {"conflict"}


@pytest.fixture
def elsewhere(bridge, project):
    """Codex's failing run happened in a sibling worktree on branch `feature`: (repo, fix, sibling, codex packet)."""
    repo, fix, _ = project
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "claude's fix")
    sibling = worktree(repo, "feature")
    write(sibling, STRICT)
    return repo, fix, sibling, export(bridge, "codex-regress", sibling)


def test_other_worktree_outcome_is_labelled_and_supersedes_nothing(bridge, elsewhere):
    """From main, the sibling's later failure is labelled other-worktree and listed apart; Claude's pass stands."""
    repo, fix, sibling, codex = elsewhere
    answer = search(bridge, repo, "parse_header", "--worktree", "all")
    (run,) = [r for r in by_packet(answer, codex) if r["role"] == "test"]
    passed = next(r for r in by_packet(answer, fix) if (r["outcome"] or {}).get("status") == "passed")
    assert (run["scope"], run["branch"], run["worktree"]) == ("other-worktree", "feature", str(sibling))
    assert "supersededBy" not in passed and "supersedes" not in run
    assert run["rank"] in {e["rank"] for e in passed["elsewhere"]}
    assert [i["outcome"] for c in answer["conflicts"] for i in c["items"]] == ["failed", "passed"]


def test_this_worktree_is_the_default_scope(bridge, elsewhere):
    """Without --worktree all, each worktree sees only its own evidence."""
    repo, fix, sibling, codex = elsewhere
    assert {r["pointer"]["packet"] for r in search(bridge, repo, "parse_header")["results"]} == {fix}
    here = search(bridge, sibling, "parse_header")["results"]
    assert {r["pointer"]["packet"] for r in here} == {codex}
    assert {r["scope"] for r in here} == {"this-worktree"}


def test_ranking_is_deterministic_and_explained(bridge, regressed):
    """The same query at the same moment gives the same answer; each score's parts add up to its total, best first."""
    repo, *_ = regressed
    first = retrieval.search("parse_header ValueError", cwd=str(repo), now=1_800_000_000.0)
    second = retrieval.search("parse_header ValueError", cwd=str(repo), now=1_800_000_000.0)
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)
    scores = [r["score"] for r in first["results"] if not r.get("shownFor")]
    for score in scores:
        parts = sum(v for k, v in score.items() if k != "total")
        assert set(score) == {"fts", "path", "symbol", "causal", "recency", "total"}
        assert abs(parts - score["total"]) < 1e-3
    assert [s["total"] for s in scores] == sorted((s["total"] for s in scores), reverse=True)


def test_exact_path_match_is_scored(bridge, project):
    """A query naming a file gives the edit of that file a `path` part; a symbol query a `symbol` part."""
    repo, fix, _ = project
    (edit,) = [r for r in by_packet(search(bridge, repo, "headers.py"), fix) if r["role"] == "edit"]
    assert edit["score"]["path"] > 0 and edit["paths"][0] == "headers.py"
    (edit,) = [r for r in by_packet(search(bridge, repo, "parse_header"), fix) if r["role"] == "edit"]
    assert edit["score"]["symbol"] > 0 and edit["score"]["path"] == 0


def test_agent_and_since_filter(bridge, regressed):
    """--agent keeps one agent's evidence; --since after everything leaves nothing, with a note."""
    repo, *_ = regressed
    assert {r["agent"] for r in search(bridge, repo, "parse_header", "--agent", "codex")["results"]} == {"codex"}
    late = search(bridge, repo, "parse_header", "--since", "2999-01-01")
    assert late["results"] == [] and late["notes"] == []


def test_human_output_by_default(bridge, regressed):
    """Without --json the answer is text for people: ranked results with quoted excerpts and the conflict."""
    repo, *_ = regressed
    code, out, err = bridge("handoff", "search", "parse_header", cwd=repo)
    assert code == 0, err
    assert out.startswith("10 result(s) for 'parse_header' in this worktree (branch main)")
    assert "\n#1 test — failed" in out and "   > Fixed parse_header:" in out
    assert "Conflicting outcomes (oldest first; the last one stands):" in out
