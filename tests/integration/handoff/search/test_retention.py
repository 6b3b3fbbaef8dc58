"""Retention: `handoff prune` moves old packets and their index rows to an archive that `search --archived` finds."""

from __future__ import annotations

from freezegun import freeze_time

from autopilot.handoff.packets import store
from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, edited_parser_repo, run_json, work_session


def export_two(bridge, git_repo):
    """Two packets of the same work session (the second made after the first); their ids, oldest first."""
    repo = edited_parser_repo(git_repo)
    t = work_session(Transcript())
    claude_session(t, repo)
    ids = []
    for when in ("2026-12-01 10:00:00", "2026-12-20 10:00:00"):
        with freeze_time(when):
            code, out, err = run_json(
                bridge, "handoff", "export", "--from", "claude", "--session", t.session, "--to", "codex", cwd=repo
            )
        assert code == 0, err
        ids.append(out["packet"])
    return repo, ids


def test_prune_moves_old_packets_and_reports_what_moved(bridge, git_repo):
    """Packets older than the cutoff move to the archive with their evidence index, and the answer lists them."""
    repo, (old, new) = export_two(bridge, git_repo)
    with freeze_time("2027-01-10"):
        code, moved, err = run_json(bridge, "handoff", "prune", "--older-than", "30", "--json", cwd=repo)
    assert code == 0, err
    assert [m["packet"] for m in moved["moved"]] == [old] and moved["kept"] == 1
    assert moved["indexRows"]["removed"] > 0 and moved["indexRows"]["archived"] == moved["indexRows"]["removed"]
    hexid = old.removeprefix("sha256:")
    assert not (store.packets_dir() / f"{hexid}.json").exists()
    with store.archived():
        assert (store.packets_dir() / f"{hexid}.json").exists() and store.load(old)[0] == old


def test_keep_holds_the_newest_packets_whatever_their_age(bridge, git_repo):
    """--keep N never moves the N newest packets."""
    repo, (old, new) = export_two(bridge, git_repo)
    with freeze_time("2028-01-01"):
        code, moved, _ = run_json(bridge, "handoff", "prune", "--older-than", "1", "--keep", "1", "--json", cwd=repo)
    assert code == 0 and [m["packet"] for m in moved["moved"]] == [old]


def test_search_archived_finds_what_moved_and_plain_search_no_longer_does(bridge, git_repo):
    """After a prune the moved packet's evidence is found with --archived only."""
    repo, (old, new) = export_two(bridge, git_repo)
    with freeze_time("2028-01-01"):
        run_json(bridge, "handoff", "prune", "--older-than", "1", "--json", cwd=repo)
    code, plain, err = run_json(bridge, "handoff", "search", "parse_header", "--json", cwd=repo)
    assert code == 0, err
    assert not [r for r in plain["results"] if r["pointer"].get("packet") in (old, new)]
    code, found, err = run_json(bridge, "handoff", "search", "parse_header", "--archived", "--json", cwd=repo)
    assert code == 0, err
    shown = {r["pointer"].get("packet") for r in found["results"]}
    assert found["archived"] is True and found["results"] and shown <= {old, new}


def test_a_bad_age_is_refused(bridge, git_repo):
    """A negative age is a clear error, and nothing moves."""
    code, _, err = bridge("handoff", "prune", "--older-than", "-3", cwd=git_repo)
    assert code != 0 and "negative" in err
