"""Reciprocal rank fusion of the field rankings (measured against the sum; bench/eval_retrieval.py --fusion rrf)."""

from __future__ import annotations

from autopilot.handoff.search import retrieval


def hit(name: str, **score: float) -> dict:
    return {"name": name, "score": {"fts": 0.0, "path": 0.0, "symbol": 0.0, "causal": 0.0, "recency": 0.0, **score}}


def test_a_document_ranked_well_in_two_fields_beats_one_first_in_a_single_field():
    """Second in text and in evidence outranks first in text alone; a field a document scores 0 in does not count."""
    docs = [hit("a", fts=9.0), hit("b", fts=5.0, causal=3.0), hit("c", causal=4.0), hit("d")]
    retrieval._fuse(docs)  # type: ignore[arg-type]
    order = [d["name"] for d in sorted(docs, key=lambda d: -d["score"]["fused"])]
    assert order == ["b", "a", "c", "d"] and docs[3]["score"]["fused"] == 0.0
