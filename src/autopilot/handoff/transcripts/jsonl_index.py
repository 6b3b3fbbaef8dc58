"""The per-file index of a JSONL scan: what it holds, random access to lines, and its cache file.

:mod:`autopilot.handoff.transcripts.jsonl` builds an :class:`Index` in one pass and keeps it under
``$AUTOPILOT_HOME/cache/transcripts/``; this module is the index itself and the Fold protocol a
format reader plugs into the scan (kept here so the two modules import one way). The cache file
is a magic line, a length-prefixed JSON header (file identity, counts, the fold's JSON
state) and the raw bytes of the ``array`` columns, written atomically.
"""

from __future__ import annotations

import os
import struct
from array import array
from bisect import bisect_left

from autopilot.fastjson import dumps, parse_json_line
from autopilot.fsutil import atomic_write

CORE_VERSION = 1
MAX_LINE_BYTES = 8 << 20  # parsing a line costs ~2-3x its size in memory; the budget is 64 MB
HEAD_TAIL_BYTES = 64 << 10  # what an oversize line keeps of its start and end
CACHE_KEEP = 256  # index files kept per cache directory; the least recently written go first
_MAGIC = b"APJSONLIDX\n"

# The types below exist for mypy only: ``typing`` costs ~3 ms to import, and every intake page loads this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import IO, Any, Generic, Protocol, TypeVar

    # A fold's state: its own shape (handoff/transcripts/shapes.py), a JSON object with ``array`` columns.
    State = TypeVar("State", bound=Mapping[str, object])

    class _Generic(Generic[State]):
        """``Index``'s base for mypy: generic in the fold's state."""

    class Fold(Protocol[State]):
        """What a format reader plugs into :func:`scan`."""

        name: str
        version: int

        def start(self) -> State:
            """A fresh state for an empty file."""
            ...

        def row(self, state: State, line: int, obj: Any) -> bool:
            """Fold one JSON object (a row as the file wrote it: the fold gives it its format's shape); True records
            the line as an entry."""
            ...

        def oversize(self, state: State, line: int, head: bytes, tail: bytes, size: int) -> bool:
            """Fold a line too large to parse, seen by its head and tail; True records an entry."""
            ...
else:
    State = Fold = "the fold's state and protocol are for mypy only"

    class _Generic:
        def __class_getitem__(cls, item: object) -> type:
            return cls


class Index(_Generic[State]):
    """One pass over a JSONL file: line offsets, entries, malformed lines and the fold's state."""

    def __init__(self, path: str, fold: Fold[State]) -> None:
        self.path = path
        self.fold_name = fold.name
        self.fold_version = fold.version
        self.lines = 0  # raw lines seen, the partial last line included
        self.end = 0  # byte offset just past the last newline-terminated line
        self.file_size = 0  # bytes scanned, the partial last line included
        self.offsets = array("q")  # start offset of every raw line (index 0 is line 1)
        self.entries = array("q")  # raw line numbers the fold marked as entries, ascending
        self.malformed: dict[str, int] = {}  # reason -> count
        self.malformed_sample: list[int] = []  # the first few malformed line numbers, to inspect
        self.oversize: list[int] = []  # line numbers too large to parse
        self.state: State = fold.start()
        self.status = "built"  # built | reused | extended | rebuilt | uncached
        self.partial = False  # the last line has no newline yet
        self.scanned_bytes = 0  # bytes read by this call's scan
        self.mtime_ns = 0
        self.head_len = 0  # how much of the file's head ``head_hash`` covers
        self.head_hash = ""
        self.end_bytes = b""  # the bytes just before ``end``, checked before extending

    @property
    def malformed_total(self) -> int:
        """How many lines could not be used as JSON objects."""
        return sum(self.malformed.values())

    def span(self, line: int) -> tuple[int, int]:
        """The byte offset and length (newline excluded) of raw line ``line``."""
        if not 1 <= line <= self.lines:
            raise IndexError(f"line {line} is outside 1..{self.lines}")
        start = self.offsets[line - 1]
        if line < self.lines:
            return start, self.offsets[line] - start - 1
        if self.partial:
            return start, self.file_size - start
        return start, self.end - start - 1

    def page(self, before_line: int | None = None, limit: int = 12) -> tuple[list[int], int | None]:
        """Entry lines before ``before_line`` (exclusive), newest first, and the next cursor."""
        entries = self.entries
        hi = len(entries) if before_line is None else bisect_left(entries, before_line)
        lo = max(0, hi - max(0, limit))
        chosen = list(entries[lo:hi])
        chosen.reverse()
        return chosen, (entries[lo] if lo > 0 and chosen else None)

    def reader(self) -> LineReader:
        """Open the file for random access to lines by number (``with index.reader() as r``: closed after)."""
        return LineReader(self, open(self.path, "rb"))  # noqa: SIM115 - the reader closes it on leaving the block


class LineReader:
    """Random access to a scanned file's lines through its index; a context manager that closes the file.

    A class rather than a ``contextlib.contextmanager`` generator: contextlib costs ~0.5 ms to import on every
    intake page.
    """

    def __init__(self, index: Index[Any], fh: IO[bytes]) -> None:
        self.index = index
        self._fh = fh

    def __enter__(self) -> LineReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.close()

    def raw(self, line: int, limit: int = MAX_LINE_BYTES) -> bytes:
        """The bytes of ``line``, cut to ``limit``."""
        start, length = self.index.span(line)
        self._fh.seek(start)
        return self._fh.read(min(length, limit))

    def size(self, line: int) -> int:
        """The length in bytes of ``line``."""
        return self.index.span(line)[1]

    def head_tail(self, line: int, keep: int = HEAD_TAIL_BYTES) -> tuple[bytes, bytes]:
        """The first and last ``keep`` bytes of ``line`` (both whole for a short line)."""
        start, length = self.index.span(line)
        self._fh.seek(start)
        if length <= 2 * keep:
            data = self._fh.read(length)
            return data, data
        head = self._fh.read(keep)
        self._fh.seek(start + length - keep)
        return head, self._fh.read(keep)

    def load(self, line: int) -> Any:
        """The JSON object on ``line`` (the format's reader gives it its row shape), or None when it is malformed or
        too large to parse."""
        start, length = self.index.span(line)
        if length > MAX_LINE_BYTES:
            return None
        self._fh.seek(start)
        try:  # orjson's reading, without its ~15 ms import for a page of lines (fastjson.parse_json_line)
            obj = parse_json_line(self._fh.read(length))
        except ValueError:
            return None
        return obj if type(obj) is dict else None


def add_line(ledger: bytearray, key: str, line: int) -> None:
    """Record ``key`` -> ``line`` in a ledger: a fold's map from an id (a tool call's) to a line, kept as raw bytes.

    A dict of every tool call's result was most of an index's JSON header (500 KB for a 200 MB transcript), read and
    written again on every append; the ledger is saved as a byte column instead, grows by what is added and is
    looked up a page's worth of times. Each record is ``\\n<key>\\t<line>``; a later record of a key wins.
    """
    ledger += b"\n%s\t%d" % (_ledger_key(key), line)


def find_line(ledger: bytearray, key: str) -> int | None:
    """The line last recorded for ``key`` in a ledger (:func:`add_line`), or None."""
    needle = b"\n%s\t" % _ledger_key(key)
    at = ledger.rfind(needle)
    if at < 0:
        return None
    start = at + len(needle)
    end = ledger.find(b"\n", start)
    return int(ledger[start : end if end >= 0 else len(ledger)])


def _ledger_key(key: str) -> bytes:
    raw = key.encode("utf-8", "surrogatepass")
    if b"\\" in raw or b"\t" in raw or b"\n" in raw:  # no client writes such an id: escaped, never misread
        raw = raw.replace(b"\\", b"\\\\").replace(b"\t", b"\\t").replace(b"\n", b"\\n")
    return raw


def serialise(index: Index[Any]) -> list[bytes]:
    """The cache file's bytes, in the pieces it is written in (joined, a 4 MB index was copied once more for nothing).
    The header is written by the C encoder the json package uses (orjson's ~15 ms import would be most of an append's
    cost), non-ASCII kept as UTF-8 so :func:`load` reads it without orjson."""
    state = {k: v for k, v in index.state.items() if not isinstance(v, (array, bytearray))}
    blobs: list[tuple[str, str, bytes]] = [
        ("offsets", "q", index.offsets.tobytes()),
        ("entries", "q", index.entries.tobytes()),
    ]
    for key, value in index.state.items():
        if isinstance(value, array):
            blobs.append(("state." + key, value.typecode, value.tobytes()))
        elif isinstance(value, bytearray):
            blobs.append(("state." + key, "bytearray", bytes(value)))
    header = {
        "core": CORE_VERSION,
        "fold": index.fold_name,
        "foldVersion": index.fold_version,
        "path": index.path,
        "lines": index.lines,
        "end": index.end,
        "fileSize": index.file_size,
        "mtimeNs": index.mtime_ns,
        "headLen": index.head_len,
        "headHash": index.head_hash,
        "endBytes": index.end_bytes.hex(),
        "malformed": index.malformed,
        "malformedSample": index.malformed_sample,
        "oversize": index.oversize,
        "state": state,
        "blobs": [[name, code, len(data)] for name, code, data in blobs],
    }
    head = dumps(header, ascii=False).encode()
    return [_MAGIC, struct.pack("<Q", len(head)), head, *(data for _, _, data in blobs)]


def load(cache_file: str, path: str, fold: Fold[State]) -> Index[State] | None:
    """The saved index for this file and fold, or None if missing, damaged or of another layout."""
    try:
        with open(cache_file, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    try:
        if not data.startswith(_MAGIC):
            return None
        pos = len(_MAGIC)
        (hlen,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        header = parse_json_line(data[pos : pos + hlen])
        if type(header) is not dict:
            return None
        pos += hlen
        view = memoryview(data)  # each column is copied once, into its array, not sliced out first
        layout = (header["core"], header["fold"], header["foldVersion"])
        if layout != (CORE_VERSION, fold.name, fold.version):
            return None  # another layout: rebuild
        index = Index(path, fold)
        state = header["state"]  # the fold's JSON, with its array columns put back below
        for name, code, size in header["blobs"]:
            chunk = view[pos : pos + size]
            pos += size
            value: array[int] | bytearray
            if code == "bytearray":
                value = bytearray(chunk)
            else:
                value = array(code)
                value.frombytes(chunk)
            if name == "offsets":
                index.offsets = value  # type: ignore[assignment]
            elif name == "entries":
                index.entries = value  # type: ignore[assignment]
            else:
                state[name.removeprefix("state.")] = value
        index.lines, index.end, index.file_size = header["lines"], header["end"], header["fileSize"]
        index.malformed, index.malformed_sample = header["malformed"], header["malformedSample"]
        index.oversize = header["oversize"]
        index.mtime_ns, index.head_len = header["mtimeNs"], header["headLen"]
        index.head_hash = header["headHash"]
        index.end_bytes = bytes.fromhex(header["endBytes"])
        index.state = state
        index.status = "reused"
        if pos != len(data) or len(index.offsets) != index.lines:
            return None
        return index
    except (ValueError, KeyError, TypeError, struct.error):
        return None  # a damaged cache file is rebuilt, never trusted


def store(cache_file: str, data: list[bytes]) -> None:
    """Write the index atomically; a cache that cannot be written is simply not kept."""
    try:
        atomic_write(cache_file, data, durable=False)
        _prune(os.path.dirname(cache_file))
    except OSError:
        pass


def _prune(directory: str) -> None:
    files = [e for e in os.scandir(directory) if e.name.endswith(".idx")]
    if len(files) <= CACHE_KEEP:
        return
    files.sort(key=lambda e: e.stat().st_mtime_ns)
    for entry in files[: len(files) - CACHE_KEEP]:
        try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs ~0.5 ms to import
            os.unlink(entry.path)
        except OSError:
            pass
