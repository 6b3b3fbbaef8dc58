"""knowledge/durable/shapes.py: the rules, decisions and view the durable log really makes have the shapes' keys."""

from __future__ import annotations

from autopilot.knowledge.durable import shapes
from autopilot.knowledge.durable.store import Log
from tests.support.durable import approve, propose, revoke
from tests.support.shapes import mismatches


def test_a_proposed_approved_and_revoked_rule_is_a_rule_with_its_decisions():
    """A rule through its life, as the log replays it: a Rule, its proposal a Proposed, each decision a Decision."""
    rid = propose("Keep the CSV output byte for byte.", None)
    rule = Log().view()["rules"][rid]
    assert mismatches(rule, shapes.Rule) == [] and mismatches(rule["proposed"], shapes.Proposed) == []
    approve(rid)
    revoke(rid, reason="the CSV is gone")
    rule = Log().view()["rules"][rid]
    assert rule["status"] == "revoked" and mismatches(rule, shapes.Rule) == []
    assert rule["approved"] is not None and mismatches(rule["approved"], shapes.Decision) == []
    assert rule["revoked"] is not None and mismatches(rule["revoked"], shapes.Decision) == []


def test_the_view_and_its_integrity_have_their_shapes():
    """rules.json as the reader gives it: a View whose integrity is an Integrity."""
    propose("Never push to main.", None)
    view = Log().view()
    assert mismatches(view, shapes.View) == [] and mismatches(view["integrity"], shapes.Integrity) == []


def test_the_listing_has_its_shape():
    """`durable list`'s answer, managed rules included, is a Listing whose managed part is a Managed."""
    propose("Never push to main.", None)
    listing = Log().listing()
    assert mismatches(listing, shapes.Listing) == [] and mismatches(listing["managed"], shapes.Managed) == []


def test_the_check_finds_a_missing_and_an_unknown_key():
    """The check can fail: a rule without its status and with a key the shape does not declare."""
    rid = propose("Keep commits small.", None)
    rule = dict(Log().view()["rules"][rid])
    del rule["status"]
    rule["colour"] = "blue"
    assert mismatches(rule, shapes.Rule) == ["missing status", "unknown colour"]
