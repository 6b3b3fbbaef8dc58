"""The evidence index: one SQLite FTS5 database, a cache of what packets (and later checkpoints and observations) say.

Where: ``$AUTOPILOT_HOME/handoff/index/evidence.sqlite3`` (Python's own ``sqlite3``, no
server), with ``index.lock`` beside it. Its schema version is SQLite's ``user_version``,
brought up to date by the numbered migrations in :data:`MIGRATIONS`; an index from a newer
codex-autopilot is refused ("upgrade"), never written.

**A cache, never trusted.** Everything in it can be rebuilt: ``codex-bridge handoff reindex``
builds a new file from the packets under ``handoff/packets`` (each verified by its hash
first) and swaps it in. A file SQLite calls corrupt (not a database, malformed) is moved
aside to ``evidence.sqlite3.corrupt-<time>`` and rebuilt the same way, and the caller is
told. Packets written without passing through export (or removed by hand) are noticed by the
packets folder's mtime and caught up before a search. Every write holds ``index.lock`` and
opens the file afresh, so a swap never meets a writer of the old file.

**Documents.** One row per piece of evidence, with a ``kind``: ``evidence`` (a packet's, from
:mod:`.documents`), ``checkpoint`` and ``observation`` (the active-memory store's, fed through
:func:`add_documents`). ``add_documents(docs)`` takes a list of dicts:

=============  ==========================================================================
``kind``       required: ``checkpoint``, ``observation``, ``durable`` (a person's approved rule or
               decision, fed by ``autopilot.knowledge.durable.feed``), or ``evidence``
``origin``     required: a stable id of what the documents come from (a checkpoint file,
               a session's observation log); adding an origin again replaces its documents
``ref``        required: the document's id within its origin
``text``       required: the excerpt searched and shown (redacted here, bounded to 4,000 chars)
``role``       what it is: ``checkpoint``, ``edit``, ``test``, ``command``, ``message``, …
``agent``      ``claude`` or ``codex``; ``session``: the session or thread id
``repoId``, ``worktreeId``, ``worktree``, ``branch``   as ``sources.project`` names them
``time``       ISO-8601 (``Z`` or an offset); ``seq``: its order within the origin
``paths``      files it talks about (relative to the worktree); ``files``: those to check
               for freshness; ``symbols``: code names (more are taken from ``text``)
``outcome``    ``{"status": "passed"|"failed"|"no-tests"|"unknown"|"applied"|"claimed-fixed", …}``
``links``      ``[{"rel": "tested-by"|"tests"|"fixed-by"|"based-on", "ref": …}]`` within the origin
``subject``    keys a later outcome must share to supersede this one (``path:…``,
               ``symbol:…``, ``command:…``); default: its paths and symbols
``source``     ``{"path": file, "hash": {"ranges": [[start, end]], "sha256": …}}``: what
               freshness checks (the file gone: ``unavailable``; other bytes: ``changed``)
``git``        ``{"head": sha, "dirty": {path: "git-blob:…"}}``: the files as they were
``pointer``    where exactly it is (line, offset, bytes, event)
``task``       ``{"id", "title"}``: the autopilot task the session was on (``handoff search --task``)
=============  ==========================================================================

``remove_origin(origin)`` drops an origin's documents. ``reindex`` keeps the documents of
other kinds when the old file is readable; after a corrupt file is replaced they are gone,
and :func:`generation` changes, so their owner knows to feed them again.
"""

from __future__ import annotations

# The C module the sqlite3 package wraps: the package adds datetime adapters and imports datetime and
# collections (~3 ms of every search) for nothing this index stores. Same classes, same connect().
import _sqlite3 as sqlite3
import os

from autopilot import clock
from autopilot.errors import BridgeError
from autopilot.fsutil import held
from autopilot.handoff.packets import shared
from autopilot.handoff.packets.store import archive_folder, in_archive, load, packets_folder
from autopilot.handoff.search import terms
from autopilot.paths import handoff_folder, joined

# A search loads this module: typing (~2 ms), pathlib (~4 ms) and contextlib (~1 ms with collections and functools)
# stay off it. The search's paths are strings (index_file); writers load what they need where they need it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from pathlib import Path
    from typing import Any

    from autopilot.handoff.memory.shapes import FedRef
    from autopilot.handoff.packets.shapes import Origin
    from autopilot.handoff.search.shapes import Built, Document, Stats
    from autopilot.handoff.sources.project import Project

FILE = "evidence.sqlite3"
TEXT_MAX = 4000
LOCK_TIMEOUT_S = 120.0
WAIT_FOR_WRITER = "wait for it to finish (a reindex of many packets takes minutes), then try again"
KINDS = ("evidence", "checkpoint", "observation", "durable")
REQUEST = "memory.request"  # a request a person typed, as the hooks recorded it: where a turn of a session begins
# SQLite's codes for a file that is not (or no longer) a database it can read.
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB


class IndexCorrupt(Exception):
    """The index file is not a database SQLite can read; it must be moved aside and rebuilt."""


def index_dir() -> Path:
    """``$AUTOPILOT_HOME/handoff/index`` (the archive's ``index`` inside ``packets.store.archived()``)."""
    from pathlib import Path

    return Path(index_folder())


def index_path() -> Path:
    """The index file."""
    from pathlib import Path

    return Path(index_file())


def index_folder() -> str:
    """:func:`index_dir` as a string (what a search uses: no pathlib)."""
    return joined(archive_folder() if in_archive() else handoff_folder(), "index")


def index_file() -> str:
    """:func:`index_path` as a string."""
    return joined(index_folder(), FILE)


def corrupt(exc: BaseException) -> bool:
    """Whether an sqlite3 error means the file itself is damaged (not merely busy or locked)."""
    if not isinstance(exc, sqlite3.DatabaseError) or isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return int(code) & 0xFF in _CORRUPT_CODES
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text or "corrupt" in text


# --- migrations --------------------------------------------------------------------------------


TRIGGER_INSERT = """
CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO docs_fts(rowid, terms, pterms, sterms) VALUES (new.id, new.terms, new.pterms, new.sterms);
END;
"""
TRIGGER_DELETE = """
CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO docs_fts(docs_fts, rowid, terms, pterms, sterms)
    VALUES ('delete', old.id, old.terms, old.pterms, old.sterms);
END;
"""
COLUMNS = "kind, origin, ref, role, agent, session, repo_id, worktree_id, branch, ts, seq, outcome, text, paths, "
COLUMNS += "symbols, data, terms, pterms, sterms"


def m001_documents(db: sqlite3.Connection) -> None:
    """Documents, their FTS5 index (external content, kept in step by triggers), packets, meta."""
    db.executescript(
        f"""
        CREATE TABLE docs (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL,
            origin TEXT NOT NULL,
            ref TEXT NOT NULL,
            role TEXT NOT NULL,
            agent TEXT, session TEXT, repo_id TEXT, worktree_id TEXT, branch TEXT,
            ts REAL, seq INTEGER, outcome TEXT,
            text TEXT NOT NULL, paths TEXT NOT NULL, symbols TEXT NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX docs_origin ON docs(origin, ref);
        CREATE VIRTUAL TABLE docs_fts USING fts5(
            text, paths, symbols, content='docs', content_rowid='id', tokenize="{terms.TOKENIZER}"
        );
        CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
            INSERT INTO docs_fts(rowid, text, paths, symbols) VALUES (new.id, new.text, new.paths, new.symbols);
        END;
        CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
            INSERT INTO docs_fts(docs_fts, rowid, text, paths, symbols)
            VALUES ('delete', old.id, old.text, old.paths, old.symbols);
        END;
        CREATE TABLE origins (origin TEXT PRIMARY KEY, kind TEXT NOT NULL, docs INTEGER NOT NULL, added REAL);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        """
    )


def m002_source_checks(db: sqlite3.Connection) -> None:
    """Remember each source file's verdict with its size and mtime, so a search hashes a transcript once."""
    db.execute(
        "CREATE TABLE source_checks (path TEXT NOT NULL, want TEXT NOT NULL, size INTEGER, mtime_ns INTEGER, "
        "state TEXT NOT NULL, reason TEXT, PRIMARY KEY (path, want))"
    )


def m003_redacted(db: sqlite3.Connection) -> None:
    """Redact what was indexed before paths, symbols and fed observations were (issue 21): every document again."""
    from autopilot.redact import Redactor

    redactor = Redactor()
    db.execute("PRAGMA secure_delete = ON")  # freed pages are zeroed: the old text does not linger in the file
    rows = db.execute(
        "SELECT id, kind, origin, ref, role, agent, session, repo_id, worktree_id, branch, ts, seq, outcome, "
        "text, paths, symbols, data FROM docs"
    ).fetchall()
    for row in rows:
        clean = [redactor(v) if isinstance(v, str) and n >= 13 else v for n, v in enumerate(row)]
        if clean != list(row):
            db.execute("DELETE FROM docs WHERE id = ?", (row[0],))  # the triggers keep the FTS index in step
            db.execute(
                "INSERT INTO docs (id, kind, origin, ref, role, agent, session, repo_id, worktree_id, branch, ts, "
                "seq, outcome, text, paths, symbols, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                clean,
            )
    db.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")  # merge away the segments with the old terms


def m004_terms(db: sqlite3.Connection) -> None:
    """Index terms, not raw words (issue 37): each word by its stem, each identifier whole and by its words, and the
    words people say for the errors a document holds (:func:`.terms.index_terms`); the text stays as it was."""
    have = {row[1] for row in db.execute("PRAGMA table_info(docs)")}
    for column in ("terms", "pterms", "sterms"):
        if column not in have:  # an index told it is older than it is keeps what it has
            db.execute(f"ALTER TABLE docs ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    for statement in ("DROP TRIGGER IF EXISTS docs_ai", "DROP TRIGGER IF EXISTS docs_ad", "DROP TABLE docs_fts"):
        db.execute(statement)
    db.execute(
        "CREATE VIRTUAL TABLE docs_fts USING fts5(terms, pterms, sterms, content='docs', content_rowid='id', "
        f'tokenize="{terms.TOKENIZER}")'
    )
    rows = db.execute("SELECT id, text, paths, symbols, json_extract(data, '$.worktree') FROM docs").fetchall()
    db.executemany(
        "UPDATE docs SET terms = ?, pterms = ?, sterms = ? WHERE id = ?",
        (_terms(text, paths, symbols, top) + (rowid,) for rowid, text, paths, symbols, top in rows),
    )
    db.execute(TRIGGER_INSERT)
    db.execute(TRIGGER_DELETE)
    db.execute("INSERT INTO docs_fts(docs_fts) VALUES ('rebuild')")


def _terms(text: str, paths: str, symbols: str, worktree: object = None) -> tuple[str, str, str]:
    """A document's terms for its text, its paths and its symbols (the full-text index's three columns). The
    worktree's own path, which most documents hold, is not searched: its words name no evidence."""
    if isinstance(worktree, str) and len(worktree) > 1:
        text = text.replace(worktree, " ")
    return terms.index_terms(text), terms.index_terms(paths, expand=False), terms.index_terms(symbols, expand=False)


def m005_sessions(db: sqlite3.Connection) -> None:
    """Find a session's documents in time order: what a search brings in for the request a person typed (the work
    done in answer to it, :func:`.retrieval._follow_requests`) reads them by session and time."""
    db.execute("CREATE INDEX IF NOT EXISTS docs_session ON docs(session, ts)")
    # where a session's turns begin: a session of a million documents finds its requests without reading the rest
    db.execute(f"CREATE INDEX IF NOT EXISTS docs_requests ON docs(session, ts) WHERE role = '{REQUEST}'")


def m006_search_lookups(db: sqlite3.Connection) -> None:
    """Indexes a search reads through instead of scanning: a packet's documents in time order (the turn a matched
    message was said in, :func:`.retrieval._follow_requests`: ~200 whole rows read for 30 before), and the origins
    by kind with their counts (what the index holds, :func:`stats`: every origin row read before)."""
    db.execute("CREATE INDEX IF NOT EXISTS docs_origin_ts ON docs(origin, ts)")
    db.execute("CREATE INDEX IF NOT EXISTS origins_kind ON origins(kind, docs)")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    m001_documents,
    m002_source_checks,
    m003_redacted,
    m004_terms,
    m005_sessions,
    m006_search_lookups,
]
CURRENT_VERSION = len(MIGRATIONS)


def migrate(db: sqlite3.Connection) -> bool:
    """Bring an open index up to CURRENT_VERSION; refuse one from a newer codex-autopilot. True when any ran."""
    version = int(db.execute("PRAGMA user_version").fetchone()[0])
    if version > CURRENT_VERSION:
        raise BridgeError(
            f"the evidence index {index_path()} was written by a newer codex-autopilot (schema {version}, this one "
            f"reads up to {CURRENT_VERSION})",
            hint="upgrade codex-autopilot, or run `codex-bridge handoff reindex` to rebuild it for this version",
        )
    for number, step in enumerate(MIGRATIONS, start=1):
        if number > version:
            with db:
                step(db)
                db.execute(f"PRAGMA user_version = {number}")
    return version < CURRENT_VERSION


# --- opening, locking, rebuilding -------------------------------------------------------------


def _connect(path: str | Path) -> sqlite3.Connection:
    if os.path.isdir(path):  # SQLite says only "unable to open database file"; the user needs the path
        raise BridgeError(
            f"the evidence index {path} is a directory, not the index file",
            hint="move that directory away; the next search builds the index there again",
        )
    db = sqlite3.connect(os.fspath(path), timeout=30, isolation_level=None)
    db.execute("PRAGMA synchronous = NORMAL")
    return db


def _fts5_missing(exc: sqlite3.DatabaseError) -> BridgeError:
    return BridgeError(
        f"this Python's SQLite ({sqlite3.sqlite_version}) has no FTS5 full-text search: {exc}",
        hint="use a Python whose sqlite3 module includes FTS5 (python.org, Debian/Ubuntu and Homebrew builds do)",
    )


def write_lock() -> AbstractContextManager[None]:
    """Hold ``index.lock``: every writer, and the swap of a rebuilt file, takes it."""
    from contextlib import contextmanager  # writers only: a search that writes nothing does not load contextlib

    return contextmanager(_write_lock)()


def _write_lock() -> Iterator[None]:
    folder = index_dir()
    folder.mkdir(parents=True, exist_ok=True)
    # filelock (~50 ms) loads only here: a search that writes nothing never takes the lock
    with held(folder / "index.lock", LOCK_TIMEOUT_S, hint=WAIT_FOR_WRITER):
        yield


def open_index(*, notes: list[str] | None = None) -> sqlite3.Connection:
    """The index, migrated and caught up with the packets folder; a corrupt file is moved aside and rebuilt."""
    path = index_file()
    for attempt in (1, 2):
        try:
            if not os.path.exists(path):
                built = rebuild(notes=notes)
                say(f"built the evidence index from {built['packets']} packet(s) ({path})", notes)
            db = _connect(path)
            try:
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                db.execute("SELECT count(*) FROM meta").fetchone()
                _check_size(db, path)
                if version != CURRENT_VERSION:
                    db.close()
                    from contextlib import closing

                    with write_lock(), closing(_connect(path)) as w:
                        migrate(w)
                    db = _connect(path)
                sync(db, notes=notes)
            except BaseException:
                db.close()
                raise
            return db
        except sqlite3.DatabaseError as exc:
            if not corrupt(exc) or attempt == 2:
                if unusable(exc) is exc:
                    raise
                raise unusable(exc) from exc
            recover(exc, notes=notes)
    raise AssertionError("unreachable")


def unusable(exc: sqlite3.DatabaseError) -> BaseException:
    """The error to show for an index SQLite refused and a rebuild did not cure (the original when it is a bug)."""
    text = str(exc).lower()
    if "fts5" in text:
        return _fts5_missing(exc)
    if "locked" in text or "busy" in text:
        return BridgeError(
            f"the evidence index {index_path()} is busy: {exc}",
            hint="another codex-bridge is writing it (a reindex takes minutes); try again when it is done",
        )
    if corrupt(exc):
        return BridgeError(
            f"the evidence index {index_path()} is still unreadable after a rebuild: {exc}",
            hint="check the disk, then run `codex-bridge handoff reindex`",
        )
    return exc


def _check_size(db: sqlite3.Connection, path: str) -> None:
    """A file shorter than the pages its header counts was cut short: corrupt, even where no query looks yet."""
    pages = int(db.execute("PRAGMA page_count").fetchone()[0])
    size = int(db.execute("PRAGMA page_size").fetchone()[0])
    if os.stat(path).st_size < pages * size:
        name = os.path.basename(path)
        raise sqlite3.DatabaseError(f"database disk image is malformed: {name} is shorter than its pages")


def recover(exc: BaseException, *, notes: list[str] | None = None) -> None:
    """Move a corrupt index aside (never delete it) and rebuild it from the packets."""
    from contextlib import suppress

    with write_lock():
        path = index_path()
        from autopilot.clock import stamp  # writers only, like the imports below

        aside = path.with_name(f"{FILE}.corrupt-{stamp()}")
        moved = False
        try:
            os.replace(path, aside)
            moved = True
        except FileNotFoundError:
            pass
        for suffix in ("-journal", "-wal", "-shm"):  # they belong to the moved file, not to the next one
            with suppress(FileNotFoundError):
                os.replace(f"{path}{suffix}", f"{aside}{suffix}")
    message = (
        f"the evidence index was corrupt ({exc}); moved aside to {aside.name} and rebuilt from the packets"
        if moved
        else f"the evidence index could not be read ({exc}); rebuilt from the packets"
    )
    say(message, notes)
    rebuild(notes=notes, keep_other_kinds=False)


def say(message: str, notes: list[str] | None) -> None:
    """A diagnostic for the person running the command: kept in ``notes`` when the caller collects them."""
    if notes is not None:
        notes.append(message)
    else:
        from autopilot.output import say as tell

        tell(message)


def rebuild(*, notes: list[str] | None = None, keep_other_kinds: bool = True) -> Built:
    """Build a new index from every packet into a temp file and swap it in; what it holds."""
    from contextlib import closing, suppress

    path = index_path()
    index_dir().mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
    with suppress(FileNotFoundError):
        tmp.unlink()
    count, documents, kept = 0, 0, 0
    skipped: list[str] = []
    try:
        with closing(sqlite3.connect(str(tmp), isolation_level=None)) as db:
            db.execute("PRAGMA journal_mode = OFF")  # a temp file: a crash discards it whole
            db.execute("PRAGMA synchronous = OFF")
            try:
                migrate(db)
            except sqlite3.OperationalError as exc:
                if "fts5" in str(exc).lower():
                    raise _fts5_missing(exc) from None
                raise
            db.execute("PRAGMA cache_size = -262144")  # 256 MiB while building
            db.execute("DROP TRIGGER docs_ai")  # full-text index built once at the end: much faster than row by row
            db.execute("BEGIN")
            for pid in _packet_ids():
                added = _add_packet(db, pid, skipped)
                if added is not None:
                    count += 1
                    documents += added
            db.execute("INSERT INTO docs_fts(docs_fts) VALUES ('rebuild')")
            # one segment: left as 'rebuild' leaves it, each later export paid ~150 ms of merging (measured)
            db.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")
            db.execute(TRIGGER_INSERT)
            db.execute("COMMIT")
            with write_lock():
                if keep_other_kinds and path.exists():
                    kept = _copy_other_kinds(db, path)
                from autopilot.clock import stamp

                _set_meta(db, "generation", stamp())
                _set_meta(db, "packets_mtime", str(_packets_mtime()))
                db.execute("PRAGMA journal_mode = DELETE")
                db.close()
                with open(tmp, "rb") as fh:
                    os.fsync(fh.fileno())
                with suppress(FileNotFoundError):
                    os.unlink(f"{path}-journal")  # a crashed writer's journal of the old file
                os.replace(tmp, path)
    finally:
        with suppress(FileNotFoundError):
            tmp.unlink()
    for why in skipped:
        say(why, notes)
    built: Built = {"packets": count, "documents": documents, "kept": kept, "skipped": len(skipped)}
    return built


def _copy_other_kinds(db: sqlite3.Connection, old: Path) -> int:
    """Carry checkpoint and observation documents over from a readable old index (0 when it is not)."""
    try:
        db.execute("ATTACH DATABASE ? AS old", (f"file:{old}?mode=ro",))
    except sqlite3.DatabaseError:
        return 0
    try:
        with db:
            cur = db.execute(f"INSERT INTO docs ({COLUMNS}) SELECT {COLUMNS} FROM old.docs WHERE kind != 'evidence'")
            db.execute("INSERT OR REPLACE INTO origins SELECT * FROM old.origins WHERE kind != 'evidence'")
        return int(cur.rowcount)
    except sqlite3.DatabaseError:
        return 0
    finally:
        try:  # noqa: SIM105 - not contextlib.suppress: writers import contextlib where they need it
            db.execute("DETACH DATABASE old")
        except sqlite3.DatabaseError:
            pass


# --- writing -----------------------------------------------------------------------------------


def _packet_ids() -> list[str]:
    folder = packets_folder()
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return []
    found = [n for n in names if n.endswith(".json") and not n.endswith(".evidence.json") and len(n) == 69]
    # oldest first, so document ids follow export order as they do when packets are added one by one
    found.sort(key=lambda n: (_mtime(os.path.join(folder, n)), n))
    return [f"sha256:{n[:-5]}" for n in found]


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return 0


def _packets_mtime() -> int:
    try:
        return os.stat(packets_folder()).st_mtime_ns
    except FileNotFoundError:
        return 0


def _set_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


def _meta(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return str(row[0]) if row else None


def _add_packet(db: sqlite3.Connection, pid: str, skipped: list[str]) -> int | None:
    """Index one packet (verified first) inside the caller's transaction; None when it was refused."""
    from autopilot.handoff.search.documents import (
        from_packet,  # writers only: a search that writes nothing never loads it
    )

    try:
        pid, packet, evidence = load(pid)
    except BridgeError as exc:
        skipped.append(f"not indexed: {exc}")
        return None
    docs = from_packet(pid, packet, evidence)
    pulled = shared.origin_of(pid)
    if pulled is not None:
        _as_shared(docs, *pulled)
    return _insert(db, docs, "evidence", pid)


def _as_shared(docs: list[Document], repo_id: str, origin: Origin) -> None:
    """A teammate's packet's documents, in the repository that pulled it: found in every worktree of it, labelled
    with their origin, with no source or file of this machine to check (they are another machine's)."""
    for doc in docs:
        doc["repoId"] = repo_id
        doc["worktreeId"] = shared.WORKTREE_PREFIX + str(doc.get("worktreeId") or "")
        doc["shared"] = origin
        doc.pop("source", None)
        doc["files"] = []


def _row(doc: Document) -> tuple[Any, ...]:
    from autopilot.clock import epoch
    from autopilot.digest import canonical

    data = {
        k: v
        for k, v in doc.items()
        if k not in ("kind", "origin", "ref", "role", "agent", "session", "repoId", "worktreeId", "branch", "text")
    }
    paths, symbols = "\n".join(doc.get("paths") or []), " ".join(doc.get("symbols") or [])
    return (
        doc["kind"],
        doc["origin"],
        doc["ref"],
        doc.get("role") or doc["kind"],
        doc.get("agent"),
        doc.get("session"),
        doc.get("repoId"),
        doc.get("worktreeId"),
        doc.get("branch"),
        epoch(doc.get("time")),
        doc.get("seq"),
        (doc.get("outcome") or {}).get("status"),
        doc["text"],
        paths,
        symbols,
        canonical(data).decode(),
        *_terms(doc["text"], paths, symbols, doc.get("worktree")),
    )


def _insert(db: sqlite3.Connection, docs: list[Document], kind: str, origin: str) -> int:
    db.execute("DELETE FROM docs WHERE origin = ?", (origin,))
    db.executemany(f"INSERT INTO docs ({COLUMNS}) VALUES ({', '.join('?' * 19)})", (_row(d) for d in docs))
    db.execute(  # added: whole seconds, as SQLite's strftime('%s', 'now') gave them (the REAL column holds either)
        "INSERT OR REPLACE INTO origins (origin, kind, docs, added) VALUES (?, ?, ?, ?)",
        (origin, kind, len(docs), int(clock.unix())),
    )
    return len(docs)


def writer() -> AbstractContextManager[sqlite3.Connection]:
    """A connection to write through, under the lock, opened afresh (a swapped-in file is the one written)."""
    from contextlib import contextmanager  # writers only: a search that writes nothing does not load contextlib

    return contextmanager(_writer)()


def _writer() -> Iterator[sqlite3.Connection]:
    from contextlib import closing

    with write_lock(), closing(_connect(index_file())) as db:
        migrate(db)
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def add_packet(pid: str) -> int:
    """Index one stored packet (its hash is verified first); the number of documents added."""
    if not index_path().exists():
        return rebuild()["documents"]
    skipped: list[str] = []
    try:
        with writer() as db:
            added = _add_packet(db, pid, skipped)
            _set_meta(db, "packets_mtime", str(_packets_mtime()))
    except sqlite3.DatabaseError as exc:
        if not corrupt(exc):
            raise
        recover(exc)
        return 0
    if added is None:
        raise BridgeError(skipped[0])
    return added


def add_documents(docs: list[Document]) -> int:
    """Add or replace documents (grouped by origin: an origin's old documents go); the number added."""
    from autopilot.redact import Redactor

    redactor = Redactor()
    clean: dict[str, list[Document]] = {}
    for doc in docs:
        missing = [k for k in ("kind", "origin", "ref", "text") if not doc.get(k)]
        if missing or doc.get("kind") not in KINDS:
            raise BridgeError(f"a search document needs kind ({', '.join(KINDS)}), origin, ref and text: {missing}")
        text = redactor(str(doc["text"]))[:TEXT_MAX]
        found = terms.symbols(text)
        rest = doc.copy()
        del rest["text"]
        rest = redactor.walk(rest)  # paths, symbols and subjects too: a symbol can be a token
        paths = list(rest.get("paths") or [])
        clean.setdefault(doc["origin"], []).append(
            {
                **rest,
                "text": text,
                "paths": paths or terms.paths(text),
                "symbols": list(dict.fromkeys(list(rest.get("symbols") or []) + found)),
                "subject": rest.get("subject") or [f"path:{p}" for p in paths],
            }
        )
    if not index_path().exists():
        rebuild()
    with writer() as db:
        return sum(_insert(db, group, group[0]["kind"], origin) for origin, group in clean.items())


def remove_origin(origin: str) -> int:
    """Drop every document of one origin; how many there were."""
    if not index_path().exists():
        return 0
    with writer() as db:
        n = db.execute("DELETE FROM docs WHERE origin = ?", (origin,)).rowcount
        db.execute("DELETE FROM origins WHERE origin = ?", (origin,))
    return int(n)


def sync(db: sqlite3.Connection, *, notes: list[str] | None = None) -> int:
    """Catch up with packets written or removed outside export (noticed by the folder's mtime); how many changed."""
    mtime = _packets_mtime()
    if _meta(db, "packets_mtime") == str(mtime):
        return 0
    on_disk = set(_packet_ids())
    indexed = {r[0] for r in db.execute("SELECT origin FROM origins WHERE kind = 'evidence'")}
    new, gone = sorted(on_disk - indexed), sorted(indexed - on_disk)
    skipped: list[str] = []
    with writer() as w:
        for pid in new:
            _add_packet(w, pid, skipped)
        for pid in gone:
            w.execute("DELETE FROM docs WHERE origin = ?", (pid,))
            w.execute("DELETE FROM origins WHERE origin = ?", (pid,))
        _set_meta(w, "packets_mtime", str(mtime))
    for why in skipped:
        say(why, notes)
    return len(new) + len(gone)


def synced(key: str) -> str | None:
    """The stamp an owner of other documents recorded under ``key`` when it last fed them (None: never)."""
    if not os.path.exists(index_file()):
        return None
    db = _connect(index_file())
    try:
        return _meta(db, key)
    finally:
        db.close()


def mark_synced(key: str, stamp: str) -> None:
    """Record the stamp of what an owner of other documents just fed under ``key``."""
    with writer() as w:
        _set_meta(w, key, stamp)


def generation() -> str | None:
    """An id that changes whenever the index is rebuilt (owners of other kinds re-feed it then)."""
    if not os.path.exists(index_file()):
        return None
    db = _connect(index_file())
    try:
        return _meta(db, "generation")
    except sqlite3.DatabaseError:
        return None
    finally:
        db.close()


def stats(db: sqlite3.Connection) -> Stats:
    """What the index holds: documents by kind, packets, schema version, file size.

    A packet's documents are counted from its origin row (one pass over the origins); an active-memory
    origin holds a session's checkpoints and observations together, so its documents are counted by
    their own kind (through the origin index: a few sessions, not the millions of evidence rows; CROSS JOIN
    keeps SQLite from scanning ``docs`` instead).
    """
    packets, evidence = db.execute("SELECT count(*), sum(docs) FROM origins WHERE kind = 'evidence'").fetchone()
    documents = {"evidence": int(evidence)} if packets else {}
    for kind, n in db.execute(  # `<` or `>`, not `!=`: two ranges of the origins_kind index, not a scan of the origins
        "SELECT d.kind, count(*) FROM origins o CROSS JOIN docs d ON d.origin = o.origin "
        "WHERE o.kind < 'evidence' OR o.kind > 'evidence' GROUP BY d.kind ORDER BY d.kind"
    ):
        documents[kind] = documents.get(kind, 0) + int(n)
    return {
        "path": index_file(),
        "schemaVersion": int(db.execute("PRAGMA user_version").fetchone()[0]),
        "documents": documents,
        "packets": int(packets),
        "bytes": os.stat(index_file()).st_size if os.path.exists(index_file()) else 0,
        "generation": _meta(db, "generation"),
    }


def sync_memory(project: Project, *, notes: list[str] | None = None) -> int:
    """Bring this worktree's active memory (checkpoints, observations) into the index; documents added.

    Each session is one origin (``memory:<agent>:<session>:<worktree id>``), re-indexed whole when its logs
    changed since the last sync (their sizes and times, kept in the index's meta table), so a search
    sees what the hooks recorded and the agents checkpointed a moment ago.
    """
    from autopilot.handoff.memory import observe

    added = 0
    for agent, session in observe.sessions_of(project.worktree):
        folder = observe.session_dir(project.worktree, agent, session)
        stamp = ",".join(_stamp(os.path.join(folder, name)) for name in (observe.LOG, observe.CHECKPOINTS))
        origin = f"memory:{agent}:{session}:{project.worktree_id}"
        key = f"synced:{origin}"
        db = _connect(index_file())
        try:
            if _meta(db, key) == stamp:
                continue
        finally:
            db.close()
        from autopilot.handoff.memory import feed  # only for a session whose logs changed since the last sync
        from autopilot.handoff.memory.store import SessionStore

        store = SessionStore(agent, session, project.worktree)
        docs: list[Document] = [
            {
                "session": doc["session"],
                "agent": doc["agent"],
                "worktree": doc["worktree"],
                "branch": doc["branch"],
                "kind": "checkpoint" if doc["kind"] == "memory.checkpoint" else "observation",
                "time": doc["time"],
                "text": doc["text"],
                "outcome": {"status": OUTCOMES.get(doc["outcome"], doc["outcome"])}
                if isinstance(doc["outcome"], str)
                else None,
                "ref": f"{origin}:{doc['ref'].get('log')}:{doc['ref'].get('index')}",
                "role": doc["kind"],
                "origin": origin,
                "pointer": _memory_pointer(doc["ref"]),
                "repoId": project.repo_id,
                "worktreeId": project.worktree_id,
                **({"task": task} if (task := doc.get("task")) else {}),
                **({"symbols": doc["symbols"]} if doc.get("symbols") else {}),
            }
            for doc in feed.documents(store)
            if str(doc.get("text") or "").strip()
        ]
        link_memory(docs)
        try:
            added += add_documents(docs) if docs else remove_origin(origin)
        except BridgeError as exc:
            say(f"the active memory of {agent} session {session[:8]} was not indexed ({exc})", notes)
            continue
        with writer() as w:
            _set_meta(w, key, stamp)
    return added


OUTCOMES = {"pass": "passed", "fail": "failed"}  # a run's outcome as the packets' documents spell it


def link_memory(docs: list[Document]) -> None:
    """Causal links between a session's edits and validation runs, in time order, as a packet's documents have them
    (and each run's subject, its command):
    an edit is ``tested-by`` the next run; a run ``tests`` the edits since the previous one and, when it failed, is
    ``fixed-by`` the edits after it, which say whom they fix (``fixes``). So an attempt, the run that showed it
    failed and what came after are found together (which approach failed, and what fixed it)."""
    runs = [n for n, d in enumerate(docs) if d.get("role") == "memory.run" and d.get("outcome")]
    for doc in docs:
        doc.setdefault("links", [])
    for at in runs:  # a run's subject is its command, as a packet's is: a later run of it can overturn it
        command = " ".join(str(docs[at].get("text") or "").split("\n", 1)[0].split())
        docs[at]["subject"] = [f"command:{command}"]
    previous = -1
    for at in runs:
        run = docs[at]
        edits = [d for d in docs[previous + 1 : at] if d.get("role") == "memory.edit"]
        run["links"] += [{"rel": "tests", "ref": e["ref"]} for e in edits]
        for e in edits:
            e["links"].append({"rel": "tested-by", "ref": run["ref"]})
        previous = at
    for i, at in enumerate(runs):
        run = docs[at]
        if (run.get("outcome") or {}).get("status") != "failed":
            continue
        until = runs[i + 1] if i + 1 < len(runs) else len(docs)
        fixes = [d for d in docs[at + 1 : until] if d.get("role") == "memory.edit"]
        run["links"] += [{"rel": "fixed-by", "ref": e["ref"]} for e in fixes]
        for e in fixes:
            e["links"].append({"rel": "fixes", "ref": run["ref"]})


def _memory_pointer(ref: FedRef) -> dict[str, Any]:
    """Where a memory document is: its log and index in the store, how it came (``via``: ``hook`` or
    ``recover``) and, for one rebuilt from the transcript, that file and line (the pointer's ``source``)."""
    out = {k: v for k, v in ref.items() if k != "source"}
    source = ref.get("source")
    if isinstance(source, dict) and source.get("transcript"):
        out["source"] = source["transcript"]
        out["line"] = source.get("line")
    return out


def _stamp(path: str) -> str:
    try:
        info = os.stat(path)
    except OSError:
        return "-"
    return f"{info.st_size}:{info.st_mtime_ns}"
