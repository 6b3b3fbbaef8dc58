"""The secret corpus through the codex-cli backend: the real `codex` sends nothing of it to the model server.

The same run as ``tests/integration/test_secret_corpus.py`` (plan, review, verdict, then the
Claude and Codex handoffs), with `codex exec` as the backend talking to the scripted Responses
server: what the real binary puts in its requests (our prompt, its own instructions, the
environment) holds none of the 100+ shapes.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.secret_corpus import run_corpus

pytestmark = pytest.mark.e2e


def test_the_real_codex_sends_no_credential_of_the_corpus(codex_server, git_repo, bridge):
    """Plan, review and verdict through `codex exec`: no shape in any request the real binary made."""
    places = run_corpus(
        lambda args, cwd: bridge(*args, cwd=cwd), codex_server, git_repo, Path(os.environ["AUTOPILOT_HOME"])
    )
    by_name = {p.name: p for p in places}
    assert "corpus/shape-00.txt" in by_name["review request body"].text  # the diff went through codex
    assert "Done. I used these:" in by_name["verdict request body"].text
    assert {p.name: p.leaked for p in places if p.leaked} == {}
