"""The secret corpus, end to end: 100+ credential shapes never reach Codex nor land in a packet.

The corpus (``tests/support/secret_corpus.py``) is placed in diffs (new files, key files changed
in the middle, lines that git puts in hunk headers, a renamed and a copied .env, a copy of a
gitignored .env), file names, commit messages, the plan's goal, Claude's last message, and a
Claude transcript and a Codex rollout (typed, said, run, read, written, committed). Real
`codex-bridge plan`, `review` and `verdict` run against the scripted Responses server through the
openai backend, then the Claude and Codex handoffs (intake, raw read, export, import). Any shape
found in a request body, a packet or an output fails the test, naming the shape and the place.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.secret_corpus import run_corpus, shapes


def test_the_corpus_has_at_least_170_credential_shapes():
    """The corpus the issues ask for (60, an audit's, issue 21's classes): each with something that must never leave."""
    corpus = shapes()
    assert len(corpus) >= 170 and all(s.needles and all(len(n) >= 8 for n in s.needles) for s in corpus)
    assert len({s.name for s in corpus}) == len(corpus)


@pytest.mark.slow
def test_no_credential_of_the_corpus_leaves_or_lands_in_a_packet(openai_env, git_repo, bridge):
    """No shape reaches a request body, a packet, an intake, raw read, an import context or the plan file."""
    places = run_corpus(
        lambda args, cwd: bridge(*args, cwd=cwd), openai_env, git_repo, Path(os.environ["AUTOPILOT_HOME"])
    )
    by_name = {p.name: p for p in places}
    # Each place really carried the corpus's surroundings (the test cannot pass on empty text).
    assert "corpus/shape-00.txt" in by_name["review request body"].text
    assert "Done. I used these:" in by_name["verdict request body"].text
    assert "Rotate the leaked credentials" in by_name["plan request body"].text
    assert "names-base/" in by_name["plan request body"].text
    for name in ("claude intake", "claude raw read", "codex intake", "packets and evidence indexes",
                 "handoff list, read, packets, inspect"):  # fmt: skip
        assert "The config holds" in by_name[name].text, name
    assert {p.name: p.leaked for p in places if p.leaked} == {}
    assert len(places) == 12
