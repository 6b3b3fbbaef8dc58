"""The whole corpus (400+ shapes: providers' formats, evasions, prose and names) leaks through no view.

``tests/integration/test_secret_corpus.py`` runs the corpus through requests to Codex, packets, intakes, imports
and the CLI's output. This test runs the same scenario on a branch named with tokens, then adds files named with
tokens to the work tree (dirty paths a packet records and its drift shows), exports again, pushes every packet to
the team's remote (a bare repository), and reads every view that shows those names: the dashboard's API through a
real dashboard process (overview, runs, sources, the packets and each packet's view with its live drift, a session,
the search), the CLI's ``handoff inspect`` and ``handoff search``, every object and ref of the remote, and every
file under ``$AUTOPILOT_HOME`` (names included). Any shape found fails the test, naming the shape and the place.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.dashboard import Dashboard
from tests.support.handoff_env import git
from tests.support.secret_corpus import leaked, name_safe, run_corpus, shapes


def test_the_corpus_has_four_hundred_shapes_and_evasions_prose_and_names():
    """At least 400 shapes, each with needles of 8 characters or more; evasions, prose and names among them."""
    corpus = shapes()
    names = [s.name for s in corpus]
    assert len(corpus) >= 400 and len(set(names)) == len(names)
    assert all(s.needles and all(len(n) >= 8 for n in s.needles) for s in corpus)
    assert sum(n.startswith("prose:") for n in names) >= 12
    assert sum(n.startswith("a token as a") for n in names) >= 4
    assert sum("escape" in n or "entit" in n or "continuation" in n or "base64" in n for n in names) >= 8


def ref_safe(token: str) -> bool:
    """Whether git takes a token as a component of a branch's name."""
    bad = ("..", "~", "^", ":", "?", "*", "[", "\\", " ", "@{", "//")
    return (
        name_safe(token) and not any(b in token for b in bad) and not token.startswith((".", "-"))
        and not token.endswith((".", ".lock")) and len(token) <= 200
    )  # fmt: skip


def remote_text(remote: Path) -> str:
    """What the team's remote holds of ours: every object the share ref reaches (blobs, trees, commits and their
    messages), and every ref's name."""
    listed = subprocess.run(
        ["git", "-C", str(remote), "rev-list", "--objects", "refs/codex-autopilot/share"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ids = "".join(line.split(" ", 1)[0] + "\n" for line in listed.splitlines() if line)
    objects = subprocess.run(
        ["git", "-C", str(remote), "cat-file", "--batch"], input=ids.encode(), capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    refs = subprocess.run(["git", "-C", str(remote), "for-each-ref"], capture_output=True, text=True).stdout
    return listed + objects + "\n" + refs


def every_file(home: Path) -> str:
    """Every file under the home, its path and its bytes (decoded leniently)."""
    return "\n".join(
        str(p.relative_to(home)) + "\n" + p.read_bytes().decode("utf-8", "replace")
        for p in sorted(home.rglob("*"))
        if p.is_file()
    )


@pytest.mark.slow
def test_no_shape_reaches_a_view_that_shows_names_the_dashboard_or_the_remote(openai_env, git_repo, bridge):
    """On a branch named with tokens and with files named with tokens: 0 shapes in any view."""
    corpus = shapes()
    home = Path(os.environ["AUTOPILOT_HOME"])
    tokens = [s.token for s in corpus if s.token and ref_safe(s.token)]
    branch = "wip/" + "/".join(tokens[:60])
    git(git_repo, "checkout", "-q", "-b", branch)
    remote = git_repo.parent / "team.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(git_repo, "remote", "add", "origin", str(remote))
    git(git_repo, "config", "user.name", "corpus")
    git(git_repo, "config", "user.email", "corpus@example.com")

    places = {p.name: p for p in run_corpus(lambda a, cwd: bridge(*a, cwd=cwd), openai_env, git_repo, home)}
    assert not {name: p.leaked for name, p in places.items() if p.leaked}

    dirty = git_repo / "names-dirty"
    dirty.mkdir()
    for n, s in enumerate(corpus):
        if s.token and name_safe(s.token):
            (dirty / f"{s.token}.txt").write_text(f"dirty {n}\n")
    session = next(Path(os.environ["CLAUDE_CONFIG_DIR"]).rglob("*.jsonl")).stem  # the corpus's Claude session
    code, out, err = bridge(
        "handoff", "export", "--from", "claude", "--session", session, "--to", "codex", cwd=git_repo
    )
    assert code == 0, err
    pid = json.loads(out)["packet"]

    texts: dict[str, str] = {}

    def cli(place: str, *args: str) -> str:
        code, out, err = bridge(*args, cwd=git_repo)
        assert code == 0, f"{args}: {err[-2000:]}"
        texts[place] = texts.get(place, "") + out + err
        return out

    cli("handoff inspect", "handoff", "inspect", pid)
    cli("handoff search", "handoff", "search", "found")
    cli("handoff search --json", "handoff", "search", "found", "--json")
    packets = json.loads(cli("handoff packets", "handoff", "packets"))["packets"]
    for packet in packets:
        cli("share push", "share", "push", packet["packet"])
    texts["the team's remote (every object and ref)"] = remote_text(remote)

    with Dashboard(git_repo) as dash:
        texts["dashboard /api/overview"] = json.dumps(dash.get("/api/overview"))
        texts["dashboard /api/runs"] = json.dumps(dash.get("/api/runs"))
        texts["dashboard /api/sources/claude"] = json.dumps(dash.get("/api/sources/claude"))
        texts["dashboard /api/sources/claude/<session>"] = json.dumps(dash.get(f"/api/sources/claude/{session}"))
        listed = dash.get("/api/packets")
        texts["dashboard /api/packets"] = json.dumps(listed)
        texts["dashboard /api/packets/<id> (live drift)"] = "\n".join(
            json.dumps(dash.get(f"/api/packets/{quote(p['packet'], safe='')}")) for p in listed["packets"]
        )
        texts["dashboard /api/search"] = json.dumps(dash.get("/api/search?q=found"))
        texts["dashboard /api/memory/active"] = json.dumps(dash.get("/api/memory/active"))
    texts["every file under AUTOPILOT_HOME, names included"] = every_file(home)

    assert branch.split("/")[1] in git(git_repo, "branch", "--show-current")  # the views really had it to show
    assert "names-dirty/" in texts["handoff inspect"] + texts["dashboard /api/packets/<id> (live drift)"]
    assert "refs/codex-autopilot/share" in texts["the team's remote (every object and ref)"]
    if os.environ.get("DEBUG_LEAKS"):  # where each leak stands, to read
        by = {s.name: s for s in corpus}
        with open(os.environ["DEBUG_LEAKS"], "w") as fh:
            for place, text in texts.items():
                for name in leaked(corpus, text):
                    at = min(text.find(n) for n in by[name].needles if n in text)
                    fh.write(f"{place} | {name} | {text[max(0, at - 200) : at + 60]!r}\n")
    assert {place: leaked(corpus, text) for place, text in texts.items() if leaked(corpus, text)} == {}
