"""What the two local sources share: paging a session, observing it for a packet, pointers and gaps.

:class:`LocalSource` drives a transcript reader (its cached fold and its intake renderer)
through a capped :func:`~autopilot.handoff.sources.window.read_window`, turns the reader's
entries into the common event shape (the subclass's ``normalize``), and adds what a
packet needs on top: exact byte pointers, the hash of every byte read, the first saved
objective even when it is older than the event window, and a gap for each limit that bit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from autopilot.errors import BridgeError
from autopilot.handoff.sources import Limits, first_objective, gap, graph, hash_ranges
from autopilot.handoff.sources.project import Project, require_match
from autopilot.handoff.sources.window import Span, Window, read_window
from autopilot.handoff.transcripts.evidence import TRUST
from autopilot.handoff.transcripts.jsonl import Index

if TYPE_CHECKING:
    from autopilot.handoff.sources.shapes import (
        Coverage,
        Event,
        Facts,
        Gap,
        Listing,
        Observed,
        Page,
        Pointer,
        Session,
        SessionRow,
    )
    from autopilot.handoff.transcripts.shapes import ClaudeIntake, CodexIntake
    from autopilot.redact.shapes import Redactions

FoldState = TypeVar("FoldState", bound="Mapping[str, object]")
Answer = TypeVar("Answer", bound="ClaudeIntake | CodexIntake")

OLDEST_PAGE = 200  # entries read from the start of a session to find its first objective
_EXIT = re.compile(r"^(?:Exit code|Process exited with code)\s*(-?\d+)", re.M)


def listing(
    agent: str,
    root: str,
    project: Project,
    mine: list[SessionRow],
    siblings: list[SessionRow],
    coverage: Coverage,
    *,
    latest: bool,
    note: str,
) -> Listing:
    """A local listing as ``handoff list`` prints it: this worktree's sessions newest first (the newest alone
    when ``latest``), the other worktrees' apart; each row's ``modified`` only sorts and is dropped."""
    mine.sort(key=lambda r: (r.get("lastTimestamp") or "", r["modified"]), reverse=True)
    if latest:
        mine = mine[:1]
    for row in mine + siblings:
        row.pop("modified")
    return {
        "trust": TRUST,
        "from": agent,
        "source": "local",
        "root": root,
        "project": project.identity(),
        "sessions": mine,
        "otherWorktrees": siblings,
        "coverage": coverage,
        "note": note,
    }


def over_read_cap(row: SessionRow, size: int, limits: Limits) -> bool:
    """Whether a listed session is too large to summarise; if so its row says why."""
    if size <= limits.max_read_bytes:
        return False
    row["note"] = f"larger than the {limits.max_read_bytes}-byte read cap: summary not read"
    return True


def exit_code(text: str) -> int | None:
    """The exit code a tool result reports in its first lines, if it says."""
    found = _EXIT.search(text[:400])
    return int(found.group(1)) if found else None


class LocalSource(Generic[FoldState, Answer]):
    """A session source backed by local transcript files and one of the transcript readers (its fold, its answer)."""

    agent = ""

    # -- supplied by each agent's source ----------------------------------------------------------

    def locate(self, session_id: str) -> str:
        """The transcript file of ``session_id``."""
        raise NotImplementedError

    def probe(self, path: str) -> Mapping[str, object]:
        """Identity from the head of a transcript (at least ``cwd``) without reading all of it."""
        raise NotImplementedError

    def scan(self, span: Span) -> Index[FoldState]:
        """The reader's (cached) index of a span."""
        raise NotImplementedError

    def intake(self, span: Span, **kwargs: Any) -> Answer:
        """The reader's answer for a span."""
        raise NotImplementedError

    def normalize(self, answer: Answer, index: Index[FoldState], span: Span) -> list[Event]:
        """The answer's entries as common events, oldest first."""
        raise NotImplementedError

    def session(self, answer: Answer, path: str) -> Session:
        """Session metadata in the common shape."""
        raise NotImplementedError

    def extras(self, answer: Answer, index: Index[FoldState], span: Span, path: str) -> tuple[Facts, list[Gap]]:
        """Agent-specific facts a packet uses (edits, checkpoints, turn state, subagents), and their gaps."""
        raise NotImplementedError

    # -- shared -------------------------------------------------------------------------------------

    @staticmethod
    def pointer(index: Index[Any], span: Span, line: int) -> Pointer:
        """The exact place of a scanned line in the real file: line, byte offset and length."""
        start, length = index.span(line)
        return {"line": span.line(line), "offset": span.start + start, "bytes": length}

    def selected(self, project: Project, session_id: str) -> tuple[str, Mapping[str, object]]:
        """The transcript of an explicitly named session, refused unless it belongs to this worktree."""
        path = self.locate(session_id)
        probe = self.probe(path)
        require_match(project, probe.get("cwd"), f"{self.agent} session {session_id}")
        return path, probe

    def read(self, project: Project, session_id: str, *, before: int | None, limit: int, limits: Limits) -> Page:
        """One page of a session's events, newest first, with its metadata and coverage."""
        path, _ = self.selected(project, session_id)
        with read_window(path, limits.max_read_bytes) as w:
            span = w.tail
            index = self.scan(span)
            bound = index.lines + 1 if before is None else span.scanned(before)
            if bound < 1:
                raise BridgeError(
                    f"--before {before} is older than the part of the transcript read "
                    f"(the read cap keeps lines from {span.line(1)} on)",
                    hint="raise AUTOPILOT_HANDOFF_MAX_READ_BYTES to page further back",
                )
            answer = self.intake(span, before_line=bound, limit=limit, max_chars=limits.excerpt_chars)
            events = self.normalize(answer, index, span)
            nxt = answer["nextBeforeLine"]
            coverage = self.coverage(answer, index, w, limits, window=False)
        events.reverse()
        return {
            "trust": TRUST,
            "from": self.agent,
            "source": "local",
            "transcript": path,
            "session": self.session(answer, path),
            "beforeLine": before,
            "limit": limit,
            "nextBeforeLine": span.line(nxt) if nxt else None,
            "events": events,
            "coverage": coverage,
            "redactions": _redactions(answer),
        }

    def observe(self, project: Project, session_id: str, limits: Limits) -> Observed:
        """Everything a packet takes from one session, within the coverage limits."""
        path, _ = self.selected(project, session_id)
        with read_window(path, limits.max_read_bytes) as w:
            span = w.tail
            index = self.scan(span)
            answer = self.intake(
                span, before_line=index.lines + 1, limit=limits.window_events, max_chars=limits.excerpt_chars
            )
            events = self.normalize(answer, index, span)
            first = first_objective(events)
            windowed = len(index.entries) > limits.window_events
            if w.head is not None or windowed:
                first = self._oldest_objective(w.head or span, limits) or (first if not windowed else None)
            ranges = [[0, w.head_end]] if w.head is not None else []
            ranges.append([span.start, span.start + index.file_size])
            facts, extra_gaps = self.extras(answer, index, span, path)
            observed: Observed = {
                "agent": self.agent,
                "kind": "local",
                "transcript": path,
                "session": self.session(answer, path),
                "hash": {
                    "algorithm": "sha256",
                    "ranges": ranges,
                    "fileBytes": w.size,
                    "sha256": hash_ranges(path, ranges),
                },
                "events": events,
                "totalEvents": len(index.entries),
                "firstObjective": first,
                "coverage": self.coverage(answer, index, w, limits, window=True),
                "redactions": _redactions(answer),
                "graph": graph(events),
                **facts,
            }
            observed["coverage"].setdefault("gaps", []).extend(extra_gaps)
        return observed

    def _oldest_objective(self, span: Span, limits: Limits) -> Event | None:
        index = self.scan(span)
        if not index.entries:
            return None
        last = index.entries[min(OLDEST_PAGE, len(index.entries)) - 1]
        answer = self.intake(span, before_line=last + 1, limit=OLDEST_PAGE, max_chars=limits.excerpt_chars)
        return first_objective(self.normalize(answer, index, span))

    def coverage(self, answer: Answer, index: Index[FoldState], w: Window, limits: Limits, window: bool) -> Coverage:
        """Gaps (what is missing and why) and the deliberate omissions, for one read."""
        span = w.tail
        gaps = [w.gap] if w.gap else []
        malformed = dict(index.malformed)
        truncated = malformed.pop("truncated", 0)
        if truncated:
            gaps.append(
                gap(
                    "truncated",
                    f"line {span.line(index.lines)} is incomplete (a crash mid-write, or a "
                    "row still being written); every event before it is intact",
                    line=span.line(index.lines),
                )
            )
        if malformed:
            gaps.append(
                gap(
                    "malformed_lines",
                    "lines that are not JSON objects were skipped",
                    counts=malformed,
                    sample=[span.line(n) for n in index.malformed_sample],
                )
            )
        if index.oversize:
            gaps.append(
                gap(
                    "oversize_lines",
                    "rows too large to parse are shown by placeholder only",
                    lines=[span.line(n) for n in index.oversize[:20]],
                    count=len(index.oversize),
                )
            )
        if window and len(index.entries) > limits.window_events:
            kept = index.entries[len(index.entries) - limits.window_events]
            gaps.append(
                gap(
                    "event_window",
                    f"only the newest {limits.window_events} events are kept (plus the first saved objective)",
                    omittedEvents=len(index.entries) - limits.window_events,
                    keptFromLine=span.line(kept),
                )
            )
        either: ClaudeIntake | CodexIntake = answer
        diagnostics = either.get("diagnostics")
        unknown = (
            diagnostics.get("unknownTypes") or diagnostics.get("unknownRowTypes") or {}
            if diagnostics is not None
            else {}
        )
        return {
            "gaps": gaps,
            "omitted": diagnostics["omitted"] if diagnostics is not None else {},
            "unknown": unknown,
            "lines": span.line(index.lines),
            "index": diagnostics["index"] if diagnostics is not None else None,
        }


def _redactions(answer: ClaudeIntake | CodexIntake) -> Redactions | None:
    """What a reader redacted (an answer cut short before its last pass has no count)."""
    return answer.get("redactions")
