"""The Redactor a page shares: what it returned is not redacted twice, because redacting twice changes nothing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from autopilot import redact as redact_module
from autopilot.redact import Redactor, redact
from tests.support import secret_corpus

REPO = Path(__file__).resolve().parents[3]


def _texts() -> list[str]:
    shapes = [
        *secret_corpus.shapes(),
        *secret_corpus.audited(),
        *secret_corpus.unenumerated(),
        *secret_corpus.redteamed(),
        *secret_corpus.bare_and_short(),
    ]
    texts = []
    for shape in shapes:
        texts += [shape.text, secret_corpus.placed_in(shape), *([shape.token] if shape.token else [])]
    for path in sorted(REPO.glob("src/autopilot/redact/*.py")):  # code full of the words secrets are named by
        body = path.read_text(encoding="utf-8")
        texts += [body[i : i + 2000] for i in range(0, len(body), 2000)]
    return texts


def test_redacting_what_was_redacted_changes_nothing_and_finds_nothing():
    """Every text of the secret corpus (credentials of every shape, placed as they are found) and of the redactor's
    own code: its redaction, redacted again, is the same text, and nothing more is counted."""
    texts = _texts()
    assert len(texts) > 1000
    for text in texts:
        once, _ = redact(text, Counter())
        again, found = redact(once, Counter())
        assert (again, sum(found.values())) == (once, 0), text[:80]


def test_a_walk_over_redacted_strings_redacts_none_of_them_again(monkeypatch):
    """An answer whose long strings the same redactor already made: walking it redacts none of them again, and the
    counts stay those of the first pass."""
    texts = [t for t in _texts() if len(t) > redact_module.MEMO_CHARS][:200]
    redactor = Redactor()
    answer = {"entries": [{"text": redactor(t)} for t in texts]}
    counts = dict(redactor.counts)
    assert sum(counts.values()) > 50
    calls = []
    real = redact_module.redact
    monkeypatch.setattr(redact_module, "redact", lambda text, counts: calls.append(text) or real(text, counts))
    assert redactor.walk(answer) == answer
    assert [c for c in calls if len(c) > redact_module.MEMO_CHARS] == []
    assert dict(redactor.counts) == counts
