"""The share ref's format and the push's redaction gate, without git: records, names, and every corpus credential."""

from __future__ import annotations

import json

import pytest

from autopilot.digest import canonical
from autopilot.knowledge.share import layout, push
from autopilot.redact import redact
from tests.support.secret_corpus import audited, shapes, unenumerated

PACKET = {
    "schema": "codex-autopilot/handoff-packet",
    "objective": {"text": "Make the parser accept an empty header.", "refs": ["E1"]},
    "evidence": [{"ref": "E1", "excerpt": "pytest -q\n3 passed"}, {"ref": "E2", "excerpt": "All three pass."}],
    "source": {"agent": "claude", "transcript": "/home/dev/.claude/projects/x/1.jsonl"},
}
CORPUS = [s for s in shapes() + audited() + unenumerated() if redact(s.text)[0] != s.text]


@pytest.mark.parametrize("shape", CORPUS, ids=[s.name for s in CORPUS])
def test_every_corpus_credential_planted_in_a_packet_is_refused(shape):
    """A credential the redactor removes alone, planted as one string of a packet, refuses the push."""
    planted = json.loads(json.dumps(PACKET))
    planted["evidence"][1]["excerpt"] = shape.text
    with pytest.raises(push.Credential):
        push._clean("packet", planted)


def test_a_clean_packet_passes_the_gate():
    """A packet whose every string is already redacted passes."""
    push._clean("packet", PACKET)


def test_a_rule_record_is_canonical_and_named_by_its_hash():
    """A rule record passes its own checks, and its path is its sha256."""
    data = layout.rule_record("rule", "Run ruff.", "R-0123456789ab", "Ada", "2026-12-01T10:00:00Z", None)
    assert layout.rule_problem(data) is None and layout.share_of_path(layout.rule_path(data)) == layout.share_id(data)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"type": "approve"}, "neither rule nor revoke"),
        ({"text": ""}, "not a rule's"),
        ({"extra": 1}, "fields are not a rule's"),
        ({"supersedes": "../x"}, "not a shared rule's id"),
        ({"version": 2}, "upgrade"),
    ],
)
def test_a_malformed_rule_record_is_refused(change, why):
    """A record of another type, an empty text, an extra field, a bad supersedes or a newer version is refused."""
    record = json.loads(layout.rule_record("rule", "Run ruff.", "R-0123456789ab", "Ada", "2026-12-01T10:00:00Z", None))
    assert why in str(layout.rule_problem(canonical({**record, **change})))


def test_a_record_not_in_canonical_form_is_refused():
    """The same record with spaces after its separators is not the record its hash names."""
    data = layout.rule_record("rule", "Run ruff.", "R-0123456789ab", "Ada", "2026-12-01T10:00:00Z", None)
    assert "canonical" in str(layout.rule_problem(json.dumps(json.loads(data), sort_keys=True).encode()))


def test_a_file_that_changed_after_its_check_is_never_stored_as_a_blob(tmp_path):
    """A packet file whose bytes differ from the ones checked is refused when it is written to git."""
    import subprocess

    from autopilot.errors import BridgeError
    from autopilot.knowledge.share import gitops

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    checked = tmp_path / "packet.json"
    checked.write_bytes(b'{"objective":"swapped after the redactor saw it"}')
    with pytest.raises(BridgeError, match="changed while it was being shared"):
        gitops.write_blobs(str(tmp_path), [(b'{"objective":"what the redactor saw"}', str(checked))])
    ids = gitops.write_blobs(str(tmp_path), [(checked.read_bytes(), str(checked)), (b"record", None)])
    assert len(ids) == 2 and all(len(i) == 40 for i in ids)
