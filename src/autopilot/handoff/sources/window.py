"""The capped read of one transcript: the whole file when it fits, else its head and its newest bytes.

A transcript at or under the cap is read in place, through the readers' cached index. A
larger one is read as two spans: the first ``cap / 16`` bytes (where the first saved
objective is) and the last bytes up to the cap, each cut at line boundaries and copied to
a private temporary file under ``$AUTOPILOT_HOME/cache`` that the readers scan uncached
and that is deleted afterwards. Line numbers and byte offsets are translated back to the
real file, so every pointer is exact; the bytes between the spans are never parsed (only
their newlines are counted), and that is reported as a ``read_cap`` gap.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from autopilot.handoff.sources import HEAD_SHARE, gap
from autopilot.paths import autopilot_home

if TYPE_CHECKING:
    from autopilot.handoff.sources.shapes import Gap

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Span:
    """A stretch of a transcript as the readers see it: where to scan, and how to map back."""

    scan_path: str  # the file to scan: the transcript itself, or a private copy of a range of it
    real_path: str
    start: int  # byte offset of the span in the real file
    line_offset: int  # raw lines of the real file before the span
    cached: bool  # whether the readers may keep an index for scan_path

    def line(self, scanned_line: int) -> int:
        """The real file's line number for a line of the scanned span."""
        return scanned_line + self.line_offset

    def scanned(self, real_line: int) -> int:
        """The scanned span's line number for a real line number."""
        return real_line - self.line_offset


@dataclass(frozen=True)
class Window:
    """What a capped read covers: the tail (always), the head (only when the file was cut), the gap."""

    tail: Span
    head: Span | None
    gap: Gap | None
    size: int  # the file's size when the read began
    head_end: int = 0  # bytes of the head span (0: no head span)


def _boundary_after(fh, offset: int) -> int:  # type: ignore[no-untyped-def]
    """The offset just past the first newline at or after ``offset``."""
    fh.seek(offset)
    pos = offset
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            return pos
        nl = chunk.find(b"\n")
        if nl >= 0:
            return int(pos + nl + 1)
        pos += len(chunk)


def _newlines(fh, end: int) -> int:  # type: ignore[no-untyped-def]
    """How many newlines the first ``end`` bytes hold."""
    fh.seek(0)
    count, left = 0, end
    while left > 0:
        chunk = fh.read(min(_CHUNK, left))
        if not chunk:
            break
        count += chunk.count(b"\n")
        left -= len(chunk)
    return count


def _copy(fh, start: int, end: int, dest: str) -> None:  # type: ignore[no-untyped-def]
    fh.seek(start)
    left = end - start
    with open(dest, "wb") as out:
        os.fchmod(out.fileno(), 0o600)
        while left > 0:
            chunk = fh.read(min(_CHUNK, left))
            if not chunk:
                break
            out.write(chunk)
            left -= len(chunk)


@contextmanager
def read_window(path: str, cap: int) -> Iterator[Window]:
    """The spans to read of ``path`` under a ``cap``-byte budget (copies are removed on exit)."""
    size = os.path.getsize(path)
    if size <= cap:
        yield Window(Span(path, path, 0, 0, True), None, None, size)
        return
    home = autopilot_home() / "cache"
    home.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="window-", dir=home)
    try:
        with open(path, "rb") as fh:
            head_budget = max(1, cap // HEAD_SHARE)
            tail_start = _boundary_after(fh, size - (cap - head_budget))
            fh.seek(0)
            head_bytes = fh.read(min(head_budget, tail_start))
            head_end = head_bytes.rfind(b"\n") + 1
            tail_path = os.path.join(tmp, "tail.jsonl")
            _copy(fh, tail_start, size, tail_path)
            skipped_lines = _newlines(fh, tail_start)
            head = None
            if head_end:
                head_path = os.path.join(tmp, "head.jsonl")
                _copy(fh, 0, head_end, head_path)
                head = Span(head_path, path, 0, 0, False)
            head_lines = head_bytes[:head_end].count(b"\n")
        tail = Span(tail_path, path, tail_start, skipped_lines, False)
        hole = gap(
            "read_cap",
            f"the transcript is {size} bytes, over the {cap}-byte read cap: lines "
            f"{head_lines + 1}..{skipped_lines} were not read",
            fromLine=head_lines + 1,
            toLine=skipped_lines,
            skippedBytes=tail_start - head_end,
        )
        yield Window(tail, head, hole, size, head_end if head is not None else 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
