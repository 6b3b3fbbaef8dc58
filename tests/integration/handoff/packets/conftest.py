"""Fixtures: the work session exported as packets, in a repository it left edited."""

from __future__ import annotations

import pytest

from tests.support.claude_rows import Transcript
from tests.support.handoff_env import claude_session, edited_parser_repo, work_session


@pytest.fixture
def repo(git_repo):
    """A repo with parser.py committed and then edited, as the work session left it."""
    return edited_parser_repo(git_repo)


@pytest.fixture
def session(repo):
    """The work session installed as recorded in the repo; its id."""
    t = work_session(Transcript())
    claude_session(t, repo)
    return t.session
