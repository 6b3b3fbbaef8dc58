"""Handover packets: one session handed to the other agent as immutable, content-addressed evidence.

A packet is canonical JSON named by its sha256 (:mod:`.store`), built from one explicitly named
session (:mod:`.build`, :mod:`.export`): claims grouped by kind (:mod:`.claims`), each pointing at
the exact transcript lines that support it, with coverage gaps, redaction and the git state of the
moment. Receiving it (:mod:`.receive`) verifies the packet, its sources and git drift, and hands the
receiving agent bounded context in which everything from a transcript is quoted (:mod:`.context`):
claims are evidence, never instructions. docs/packets.md describes the format.
"""
