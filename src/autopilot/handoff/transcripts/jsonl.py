"""One-pass JSONL scanning with a resumable per-file index, shared by the transcript readers.

A format reader (``claude_fold.py``, ``codex_fold.py``) supplies a *fold*; this module owns the
bytes: it reads the file once in large chunks, parses each line with orjson (an append of a few
MB: with the C scanner the json package uses, as orjson reads it, sparing orjson's import), numbers
lines from 1 with their byte offsets, counts malformed lines, and hands every JSON
object to the fold. The fold keeps whatever it needs in a state dict and says which
lines are *entries* (the meaningful rows a page shows). The whole result is an
:class:`Index`, saved under ``$AUTOPILOT_HOME/cache/transcripts/`` so the next call
can reuse it, or scan only the bytes appended since (transcripts are append-only).

Interface for a format reader::

    class MyFold:                      # satisfies the Fold protocol
        name = "codex"                 # cache namespace
        version = 1                    # bump when state layout or meaning changes
        def start(self) -> dict: ...   # fresh state
        def row(self, state, line, obj) -> bool: ...
            # fold one JSON object found on raw line ``line`` (1-based);
            # return True to record the line as an entry
        def oversize(self, state, line, head, tail, size) -> bool: ...
            # a line longer than max_line_bytes: only its first and last
            # HEAD_TAIL_BYTES are kept; return True to record it as an entry
        oversize_marks = re.compile(rb"...")   # optional: then oversize() also gets
            # ``marks``, the first matches of this pattern anywhere in the line
        def finish(self, state, lines) -> None: ...
            # optional: derive data from the whole file (it is saved with the index)
        skim_prefixes = (b'{"type":"',)   # optional, with skim():
        def skim(self, state, line, raw) -> bool | None: ...
            # a line starting with one of skim_prefixes and ending in "}" is offered
            # raw first; return True/False as row() would, or None to have it parsed.
            # Lines a fold skims are not checked for JSON validity beyond that framing,
            # which is the point: rows it never reads need not be parsed.

    index = scan(path, MyFold())       # build, reuse or extend the cached index
    index.state                        # the fold's state after the last line
    index.lines, index.malformed       # raw line count; {"invalid_json": n, ...}
    lines, next_before = index.page(before_line=None, limit=12)   # newest first
    with index.reader() as r:          # random access by raw line number
        r.load(line)                   # parsed object, or None if malformed/oversize
        r.raw(line)                    # bytes (bounded), for diagnostics

State values must be JSON-serialisable (dicts with str keys, lists, str, int, float,
bool, None; the index is written by json's C encoder, which would turn other keys into
strings), except that top-level values may also be ``array.array`` or ``bytearray`` for
bulk data; those are stored as raw bytes. A resumed scan calls
``row`` only for new lines, continuing from the saved state, so a fold must be a
pure left fold: its state after lines 1..n may depend on nothing but those lines.

Cache validity: an index is keyed by device and inode, and records a hash of the
file's head and the bytes just before the scanned end. If both still match and the
file only grew, the new bytes are scanned; if nothing changed it is reused; on any
other change (shrunk, rewritten, different head, new fold version) it is rebuilt.
A trailing line without a newline (a row being written, or a crash-truncated one) is
folded into the answer but never into the saved index, so it is rescanned later.
The index and its cache file live in :mod:`autopilot.handoff.transcripts.jsonl_index`; its names
are re-exported here.
"""

from __future__ import annotations

import os

from autopilot.config import autopilot_home
from autopilot.digest import sha256_hex
from autopilot.fastjson import lean_orjson, parse_json_line
from autopilot.handoff.transcripts.jsonl_index import (  # re-exported: readers use them from here
    CORE_VERSION,
    HEAD_TAIL_BYTES,
    MAX_LINE_BYTES,
    Index,
    LineReader,
    load,
    serialise,
    store,
)

TYPE_CHECKING = False  # typing costs ~3 ms to import, and every intake page loads this module
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import IO, Any

    from autopilot.handoff.transcripts.jsonl_index import Fold, State

__all__ = ["CORE_VERSION", "HEAD_TAIL_BYTES", "MAX_LINE_BYTES", "Index", "LineReader", "cache_dir", "scan"]

# Read in pieces that stay in the CPU's cache while they are split and parsed: 1 MB pieces cost a 10 MB first read
# 5-7 ms more of CPU (measured: a Claude transcript 59 -> 54 ms, a Codex rollout 81 -> 74 ms of scan).
CHUNK_BYTES = 128 << 10
SMALL_SCAN_BYTES = 512 << 10  # up to this many new bytes are parsed without orjson (measured crossover: its lean
# import, ~1 ms, against the C scanner's ~4 ms/MB more; a cached page imports neither)
MARKS_KEPT = 16  # matches of a fold's oversize_marks pattern kept per oversize line
MARK_CARRY = 512  # bytes kept across chunks so a mark split by a chunk edge is found
HEAD_HASH_BYTES = 4096
END_CHECK_BYTES = 64


def cache_dir() -> str:
    """Where indexes are kept: ``$AUTOPILOT_HOME/cache/transcripts`` (a str: pathlib, with the urllib.parse and
    ipaddress it imports, costs ~3 ms, a tenth of a cached intake page)."""
    return os.path.join(autopilot_home(), "cache", "transcripts")


def scan(
    path: str | os.PathLike[str], fold: Fold[State], *, cache: bool = True, max_line_bytes: int = MAX_LINE_BYTES
) -> Index[State]:
    """Index ``path`` with ``fold``, reusing or extending a cached index when the file only grew."""
    path = os.fspath(path)
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        head = fh.read(min(st.st_size, HEAD_HASH_BYTES))
        cache_file = os.path.join(cache_dir(), f"{fold.name}-{st.st_dev}-{st.st_ino}.idx") if cache else None
        index = load(cache_file, path, fold) if cache_file is not None else None
        if index is not None and _still_valid(index, fh, st, head):
            same = st.st_size == index.file_size and st.st_mtime_ns == index.mtime_ns
            index.status = "reused" if same else "extended"
        else:
            stale = cache_file is not None and os.path.exists(cache_file)
            index = Index(path, fold)
            index.status = "rebuilt" if stale else ("built" if cache else "uncached")
        index.path = path
        index.mtime_ns = st.st_mtime_ns
        index.head_len = len(head)
        index.head_hash = sha256_hex(head)
        snapshot = _Scanner(index, fold, fh, st.st_size, max_line_bytes).run(want_snapshot=cache)
    if cache_file is not None and snapshot is not None:  # a snapshot is taken only of an index that changed
        store(cache_file, snapshot)
    return index


def _still_valid(index: Index[Any], fh: IO[bytes], st: os.stat_result, head: bytes) -> bool:
    grew = st.st_size > index.file_size
    same = st.st_size == index.file_size and st.st_mtime_ns == index.mtime_ns
    if not (grew or same) or index.head_len > len(head):
        return False
    if sha256_hex(head[: index.head_len]) != index.head_hash:
        return False
    check = index.end_bytes
    fh.seek(index.end - len(check))
    return fh.read(len(check)) == check


class _Scanner:
    """The chunked line loop; kept in one place because it is the hot path."""

    def __init__(self, index: Index[Any], fold: Fold[Any], fh: IO[bytes], stop: int, max_line: int) -> None:
        self.index, self.fold, self.fh, self.stop, self.max_line = index, fold, fh, stop, max_line
        # How lines are read: run() picks orjson for a long scan, the C scanner for an append (its own import
        # spared); a line begun in one chunk and ended in the next, or the last one, is read the same way.
        self.loads: Callable[[bytes], object] = parse_json_line
        self.decode_error: type[ValueError] = ValueError

    def _bad(self, line: int, reason: str) -> None:
        index = self.index
        index.malformed[reason] = index.malformed.get(reason, 0) + 1
        if len(index.malformed_sample) < 20:
            index.malformed_sample.append(line)

    def _big(self, line: int, head: bytes, tail: bytes, size: int, marks: _Marks) -> None:
        index = self.index
        index.oversize.append(line)
        head, tail = head[:HEAD_TAIL_BYTES], tail[-HEAD_TAIL_BYTES:]
        if marks.pattern is None:
            entry = self.fold.oversize(index.state, line, head, tail, size)
        else:
            entry = self.fold.oversize(index.state, line, head, tail, size, marks.found)  # type: ignore[call-arg]
        if entry:
            index.entries.append(line)

    def _one(self, line: int, part: bytes, last: bool) -> None:
        try:
            obj = self.loads(part)
        except self.decode_error:
            if not part.strip():
                return
            if last:
                self._bad(line, "truncated")
                return
            try:
                part.decode("utf-8")
            except UnicodeDecodeError:
                self._bad(line, "invalid_utf8")
                return
            self._bad(line, "invalid_json")
            return
        if type(obj) is not dict:
            self._bad(line, "not_object")
        elif self.fold.row(self.index.state, line, obj):
            self.index.entries.append(line)

    def _single(self, line: int, part: bytes, marks: _Marks) -> None:
        """Fold one complete line outside the hot loop (the same steps as inside it)."""
        if len(part) > self.max_line:
            marks.feed(part)
            self._big(line, part[:HEAD_TAIL_BYTES], part[-HEAD_TAIL_BYTES:], len(part), marks)
            return
        prefixes = getattr(self.fold, "skim_prefixes", None) or ()
        if prefixes and part.startswith(prefixes) and part.endswith(b"}"):
            skimmed = self.fold.skim(self.index.state, line, part)  # type: ignore[attr-defined]
            if skimmed is not None:
                if skimmed:
                    self.index.entries.append(line)
                return
        self._one(line, part, last=False)

    def run(self, want_snapshot: bool) -> list[bytes] | None:
        """Scan from the index's end to ``stop``; return the index as saved at the last newline, if it changed."""
        index, fh, fold = self.index, self.fh, self.fold
        state, offsets, entries = index.state, index.offsets, index.entries
        row, max_line = fold.row, self.max_line
        prefixes = getattr(fold, "skim_prefixes", None) or ()
        skim = fold.skim if prefixes else None  # type: ignore[attr-defined]
        line = index.lines  # a saved index never includes a partial last line
        off = started = index.end
        fh.seek(off)
        remaining = self.stop - off
        loads: Callable[[bytes], object]
        decode_error: type[ValueError]
        if remaining > SMALL_SCAN_BYTES:  # orjson costs ~1 ms to import lean (fastjson.lean_orjson)
            orjson = lean_orjson()

            loads, decode_error = orjson.loads, orjson.JSONDecodeError
        else:  # an append: the C scanner reads a line as orjson does (~1.6 ms/MB slower, no import)
            loads, decode_error = parse_json_line, ValueError
        self.loads, self.decode_error = loads, decode_error
        index.scanned_bytes = max(0, remaining)
        pieces: list[bytes] = []  # a line still being read, in chunks
        pending = 0
        skipping = False  # inside an oversize line: keep only its head and tail
        big_head = big_tail = b""
        pattern = getattr(fold, "oversize_marks", None)
        marks = _Marks(pattern)
        while remaining > 0:
            chunk = fh.read(min(CHUNK_BYTES, remaining))
            if not chunk:
                break
            remaining -= len(chunk)
            nl = chunk.find(b"\n")
            if nl < 0:
                pending += len(chunk)
                if skipping:
                    big_tail = (big_tail + chunk)[-HEAD_TAIL_BYTES:]
                    marks.feed(chunk)
                else:
                    pieces.append(chunk)
                    if pending > max_line:
                        joined = b"".join(pieces)
                        big_head, big_tail = joined[:HEAD_TAIL_BYTES], joined[-HEAD_TAIL_BYTES:]
                        pieces, skipping, marks = [], True, _Marks(pattern, joined)
                continue
            if skipping:
                line += 1
                offsets.append(off)
                size = pending + nl
                marks.feed(chunk[:nl])
                self._big(line, big_head, (big_tail + chunk[:nl])[-HEAD_TAIL_BYTES:], size, marks)
                off += size + 1
                data = chunk[nl + 1 :]
                skipping, big_head, big_tail = False, b"", b""
            elif pieces:
                # Finish the line begun in earlier chunks with one join, so a long line is
                # never copied again together with the rest of this chunk.
                line += 1
                offsets.append(off)
                whole = b"".join([*pieces, chunk[:nl]])
                pieces = []
                off += len(whole) + 1
                self._single(line, whole, _Marks(pattern))
                del whole
                data = chunk[nl + 1 :]
            else:
                data = chunk
            pieces = []
            parts = data.split(b"\n")
            rest = parts.pop()
            for part in parts:
                line += 1
                offsets.append(off)
                size = len(part)
                off += size + 1
                if size > max_line:
                    self._big(line, part[:HEAD_TAIL_BYTES], part[-HEAD_TAIL_BYTES:], size, _Marks(pattern, part))
                    continue
                if skim is not None and part.startswith(prefixes) and part.endswith(b"}"):
                    skimmed = skim(state, line, part)
                    if skimmed is not None:
                        if skimmed:
                            entries.append(line)
                        continue
                try:
                    obj = loads(part)
                except decode_error:
                    self._one(line, part, last=False)
                    continue
                if type(obj) is not dict:
                    self._bad(line, "not_object")
                elif row(state, line, obj):
                    entries.append(line)
            pending = len(rest)
            if rest:
                pieces = [rest]
                if pending > max_line:
                    big_head, big_tail = rest[:HEAD_TAIL_BYTES], rest[-HEAD_TAIL_BYTES:]
                    pieces, skipping, marks = [], True, _Marks(pattern, rest)
        index.lines, index.end = line, off
        index.file_size = off
        fh.seek(max(0, off - END_CHECK_BYTES))
        index.end_bytes = fh.read(off - max(0, off - END_CHECK_BYTES))
        finish = getattr(fold, "finish", None)
        if finish is not None:
            finish(state, line)
        # the index as saved, when it changed (scan() writes nothing else): a reused one is not re-encoded
        changed = off != started or index.status != "reused"
        snapshot = serialise(index) if want_snapshot and changed else None
        if pending:  # a last line with no newline: fold it into this answer only
            line += 1
            offsets.append(off)
            index.lines, index.partial, index.file_size = line, True, off + pending
            if skipping:
                self._big(line, big_head, big_tail, pending, marks)
            else:
                self._one(line, b"".join(pieces), last=True)
            if finish is not None:
                finish(state, line)
        return snapshot


class _Marks:
    """The first matches of a fold's pattern in an oversize line that is read chunk by chunk."""

    def __init__(self, pattern: re.Pattern[bytes] | None, data: bytes = b"") -> None:
        self.pattern, self.carry = pattern, b""
        self.found: list[bytes] = []
        self.feed(data)

    def feed(self, data: bytes) -> None:
        """Look for the pattern in the next stretch of the line."""
        if self.pattern is None or len(self.found) >= MARKS_KEPT or not data:
            return
        buf = self.carry + data
        for match in self.pattern.finditer(buf):
            if match.end() <= len(self.carry):
                continue  # wholly inside the carry: found with the previous stretch
            self.found.append(match.group(0))
            if len(self.found) >= MARKS_KEPT:
                break
        self.carry = buf[-MARK_CARRY:]
