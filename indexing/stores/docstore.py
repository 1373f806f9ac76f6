"""The metadata index: documents, segments, chunks and the ingest manifest in one SQLite file.

Chroma holds vectors and BM25 holds term statistics; everything a tool shows a reader (text, Pali, titles,
neighbouring chunks, segment ranges) is read from here by key, never by re-scanning the corpus.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from indexing.models import Chunk, SourceDocument

SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY, sutta_id TEXT, title TEXT, title_pali TEXT, collection TEXT, book TEXT,
    grp INTEGER, group_title TEXT, blurb TEXT, source_path TEXT, kind TEXT, n_segments INTEGER, headers TEXT
);
CREATE INDEX IF NOT EXISTS documents_sutta ON documents(sutta_id);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source_path);
CREATE TABLE IF NOT EXISTS segments (
    seg_id TEXT, doc_id TEXT, ord INTEGER, en TEXT, pali TEXT, page INTEGER, heading TEXT,
    PRIMARY KEY (doc_id, ord)
);
CREATE INDEX IF NOT EXISTS segments_id ON segments(seg_id);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, doc_id TEXT, chunk_index INTEGER, source_path TEXT, data TEXT
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, chunk_index);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks(source_path);
CREATE TABLE IF NOT EXISTS manifest (
    source_path TEXT PRIMARY KEY, content_hash TEXT, status TEXT, reason TEXT, chunk_ids TEXT, ingested_at REAL
);
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS parallels (
    grp INTEGER, kind TEXT, uid TEXT, section TEXT, partial INTEGER
);
CREATE INDEX IF NOT EXISTS parallels_uid ON parallels(uid);
"""
# Columns added after the first release, with their defaults: an older docstore gains them when it is opened.
_ADDED_COLUMNS = {"documents": {"basket": "TEXT DEFAULT ''", "translator": "TEXT DEFAULT ''",
                                "aliases": "TEXT DEFAULT '[]'"}}


@dataclass
class DocumentRecord:
    doc_id: str
    sutta_id: str | None
    title: str
    title_pali: str
    collection: str
    book: str
    group: int | None
    group_title: str
    blurb: str
    source_path: str
    kind: str
    n_segments: int
    headers: dict[str, str]
    basket: str = ""
    translator: str = ""
    aliases: list[str] = field(default_factory=list)


@dataclass
class SegmentRecord:
    seg_id: str | None
    doc_id: str
    ord: int
    en: str
    pali: str
    page: int | None = None
    heading: str = ""


@dataclass
class ParallelRecord:
    """One text related to another in SuttaCentral's parallels table (see indexing.sources.parallels)."""

    kind: str  # parallels | mentions | retells
    uid: str  # the other text: `dn22`, `ma98`, `pli-tv-bu-pm`
    section: str  # its part, when only a part is related: `132`, `2-5`
    partial: bool  # marked `~`: partial or resembling
    own_section: str = ""  # the part of the text asked about


@dataclass
class ManifestEntry:
    source_path: str
    content_hash: str
    status: str  # ok | skipped
    reason: str
    chunk_ids: list[str]
    ingested_at: float


_CHUNK_FIELDS = [f.name for f in fields(Chunk)]
# Named, so documents written before `basket` and `translator` existed read the same way.
_DOC_COLUMNS = ("doc_id, sutta_id, title, title_pali, collection, book, grp, group_title, blurb, source_path, kind, "
                "n_segments, headers, basket, translator, aliases")
_DOC_FIELDS = [f.name for f in fields(DocumentRecord)][:12]  # the row's first columns, in order


class DocStore:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # One connection shared by threads (Chainlit/FastAPI workers); SQLite serialises, we guard the cursor.
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA)
        for table, columns in _ADDED_COLUMNS.items():
            have = {r[1] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            for name, decl in columns.items():
                if name not in have:
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
        self._lock = threading.RLock()

    def close(self) -> None:
        self._conn.close()

    # ---- writes ------------------------------------------------------------------------------
    def replace_sources(
        self, items: Iterable[tuple[str, Iterable[SourceDocument], Iterable[Chunk], ManifestEntry | None]]
    ) -> None:
        """Several files in one transaction, each with its manifest entry: one commit per embedding group instead of
        two per file, and the manifest can never claim a file whose chunks are not there."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                for source_path, docs, chunks, entry in items:
                    self._write_source(source_path, docs, chunks)
                    if entry is not None:
                        self._record(entry)
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def _write_source(self, source_path: str, docs: Iterable[SourceDocument], chunks: Iterable[Chunk]) -> None:
        self._delete_source(source_path)
        for doc in docs:
            self._conn.execute(
                f"INSERT OR REPLACE INTO documents ({_DOC_COLUMNS}) VALUES ({','.join('?' * 16)})",
                (doc.doc_id, doc.sutta_id, doc.title, doc.title_pali, doc.collection, doc.book, doc.group,
                 doc.group_title, doc.blurb, doc.source_path, doc.kind, len(doc.units),
                 json.dumps(doc.headers, ensure_ascii=False), doc.basket, doc.translator,
                 json.dumps(doc.aliases, ensure_ascii=False)),
            )
            self._conn.executemany(
                "INSERT OR REPLACE INTO segments VALUES (?,?,?,?,?,?,?)",
                [(u.ref, doc.doc_id, i, u.text, u.pali, u.page, u.heading) for i, u in enumerate(doc.units)],
            )
        self._conn.executemany(
            "INSERT OR REPLACE INTO chunks VALUES (?,?,?,?,?)",
            [(c.chunk_id, c.doc_id, c.chunk_index, c.source_path, json.dumps(asdict(c), ensure_ascii=False))
             for c in chunks],
        )

    def delete_source(self, source_path: str) -> list[str]:
        with self._lock:
            self._conn.execute("BEGIN")
            ids = self.chunk_ids_for_source(source_path)
            self._delete_source(source_path)
            self._conn.execute("DELETE FROM manifest WHERE source_path=?", (source_path,))
            self._conn.execute("COMMIT")
            return ids

    def _delete_source(self, source_path: str) -> None:
        doc_ids = [r[0] for r in self._conn.execute("SELECT doc_id FROM documents WHERE source_path=?", (source_path,))]
        self._conn.executemany("DELETE FROM segments WHERE doc_id=?", [(d,) for d in doc_ids])
        self._conn.execute("DELETE FROM documents WHERE source_path=?", (source_path,))
        self._conn.execute("DELETE FROM chunks WHERE source_path=?", (source_path,))

    def record(self, entry: ManifestEntry) -> None:
        with self._lock:
            self._record(entry)

    def _record(self, entry: ManifestEntry) -> None:
        self._conn.execute(
            "INSERT OR REPLACE INTO manifest VALUES (?,?,?,?,?,?)",
            (entry.source_path, entry.content_hash, entry.status, entry.reason, json.dumps(entry.chunk_ids),
             entry.ingested_at),
        )

    def replace_parallels(self, rows: Iterable[tuple[int, str, str, str, bool]]) -> int:
        """Swap the whole parallels table: (group, kind, uid, section, partial) rows; returns how many."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                self._conn.execute("DELETE FROM parallels")
                cur = self._conn.executemany("INSERT INTO parallels VALUES (?,?,?,?,?)",
                                             [(g, k, u, s, int(p)) for g, k, u, s, p in rows])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            return cur.rowcount

    def set_info(self, key: str, value: object) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO info VALUES (?,?)", (key, json.dumps(value)))

    # ---- reads -------------------------------------------------------------------------------
    def info(self, key: str, default: object = None) -> object:
        row = self._query("SELECT value FROM info WHERE key=?", (key,))
        return json.loads(row[0][0]) if row else default

    def manifest(self) -> dict[str, ManifestEntry]:
        rows = self._query("SELECT * FROM manifest")
        return {r[0]: ManifestEntry(r[0], r[1], r[2], r[3], json.loads(r[4] or "[]"), r[5]) for r in rows}

    def chunk_ids_for_source(self, source_path: str) -> list[str]:
        return [r[0] for r in self._query("SELECT chunk_id FROM chunks WHERE source_path=?", (source_path,))]

    def sources_of(self, chunk_ids: Iterable[str]) -> set[str]:
        ids = list(chunk_ids)
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._query(f"SELECT DISTINCT source_path FROM chunks WHERE chunk_id IN ({marks})", tuple(part))
            found.update(r[0] for r in rows)
        return found

    def chunk_count(self) -> int:
        return self._query("SELECT COUNT(*) FROM chunks")[0][0]

    def all_chunk_ids(self) -> set[str]:
        return {r[0] for r in self._query("SELECT chunk_id FROM chunks")}

    def document(self, doc_id: str) -> DocumentRecord | None:
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE doc_id=?", (doc_id,))
        return _doc(rows[0]) if rows else None

    def document_by_sutta_id(self, sutta_id: str) -> DocumentRecord | None:
        """The default translation of a text by its display ID (an alternative's doc_id carries `@translator`)."""
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE sutta_id=? COLLATE NOCASE "
                           "ORDER BY instr(doc_id, '@') > 0, doc_id", (sutta_id,))
        return _doc(rows[0]) if rows else None

    def documents(self) -> list[DocumentRecord]:
        return [_doc(r) for r in self._query(f"SELECT {_DOC_COLUMNS} FROM documents")]

    def translations(self, sutta_id: str) -> list[DocumentRecord]:
        """Every document of one text, the default translation first, then the alternatives."""
        rows = self._query(f"SELECT {_DOC_COLUMNS} FROM documents WHERE sutta_id=? COLLATE NOCASE "
                           "ORDER BY instr(doc_id, '@') > 0, doc_id", (sutta_id,))
        return [_doc(r) for r in rows]

    def alternative_doc_ids(self) -> dict[str, list[str]]:
        """Default doc_id -> the doc_ids of other translations of the same text (`thig1.1` -> [`thig1.1@soma`])."""
        found: dict[str, list[str]] = {}
        for (doc_id,) in self._query("SELECT doc_id FROM documents WHERE instr(doc_id, '@') > 0 ORDER BY doc_id"):
            found.setdefault(doc_id.partition("@")[0], []).append(doc_id)
        return found

    def parallels(self, uid: str) -> list[ParallelRecord]:
        """The texts related to `uid` in SuttaCentral's table, each once per relation, in the table's order. A text
        is related in several groups when SuttaCentral lists each side's view: the groups that list `uid` first
        are its own view (which of its parallels are full, which partial) and are read first, so their verdict
        is the one kept."""
        rows = self._query(
            "SELECT o.kind, o.uid, o.section, o.partial, m.section, m.partial FROM parallels m "
            "JOIN parallels o ON o.grp = m.grp AND o.uid != m.uid "
            "WHERE m.uid = ? ORDER BY m.rowid != (SELECT MIN(f.rowid) FROM parallels f WHERE f.grp = m.grp), "
            "o.grp, o.rowid", (uid,))
        seen: set[tuple] = set()
        out: list[ParallelRecord] = []
        for kind, other, section, partial, own_section, own_partial in rows:
            key = (kind, other, section, own_section)
            if key not in seen:
                seen.add(key)
                out.append(ParallelRecord(kind, other, section, bool(partial or own_partial), own_section))
        return out

    def segments(self, doc_id: str) -> list[SegmentRecord]:
        rows = self._query("SELECT * FROM segments WHERE doc_id=? ORDER BY ord", (doc_id,))
        return [SegmentRecord(*r) for r in rows]

    def english_texts(self) -> list[str]:
        """The English of every segment, in no order: for vocabulary read over the whole library at once."""
        return [r[0] or "" for r in self._query("SELECT en FROM segments", ())]

    def opening_and_heading_segments(self, first: int) -> list[SegmentRecord]:
        """The first `first` segments of every document and every section heading (`*.0`), by document and order:
        what a sutta card is made of, read in one pass instead of one query per document."""
        rows = self._query("SELECT * FROM segments WHERE ord < ? OR (seg_id LIKE '%.0' AND length(en) < 160) "
                           "ORDER BY doc_id, ord", (first,))
        return [SegmentRecord(*r) for r in rows]

    def segment(self, seg_id: str) -> SegmentRecord | None:
        """A segment of the default translation (other translations share its ID)."""
        rows = self._query("SELECT * FROM segments WHERE seg_id=? ORDER BY instr(doc_id, '@') > 0", (seg_id,))
        return SegmentRecord(*rows[0]) if rows else None

    def chunk(self, chunk_id: str) -> Chunk | None:
        rows = self._query("SELECT data FROM chunks WHERE chunk_id=?", (chunk_id,))
        return _chunk(rows[0][0]) if rows else None

    def chunks(self, chunk_ids: list[str]) -> list[Chunk]:
        """In the order asked; unknown IDs are dropped."""
        if not chunk_ids:
            return []
        marks = ",".join("?" * len(chunk_ids))
        rows = self._query(f"SELECT chunk_id, data FROM chunks WHERE chunk_id IN ({marks})", tuple(chunk_ids))
        found = {r[0]: _chunk(r[1]) for r in rows}
        return [found[c] for c in chunk_ids if c in found]

    def chunks_of(self, doc_id: str, lo: int = 0, hi: int = 1 << 30) -> list[Chunk]:
        rows = self._query(
            "SELECT data FROM chunks WHERE doc_id=? AND chunk_index BETWEEN ? AND ? ORDER BY chunk_index",
            (doc_id, lo, hi),
        )
        return [_chunk(r[0]) for r in rows]

    def iter_chunks(self) -> Iterator[Chunk]:
        for (data,) in self._query("SELECT data FROM chunks ORDER BY doc_id, chunk_index"):
            yield _chunk(data)

    def counts(self) -> dict:
        docs = self._query("SELECT COUNT(*) FROM documents")[0][0]
        chunks = self._query("SELECT COUNT(*) FROM chunks")[0][0]
        # texts count once (the default translation); other translations are counted by translator
        by_book = dict(self._query("SELECT book, COUNT(*) FROM documents WHERE sutta_id IS NOT NULL "
                                   "AND instr(doc_id, '@') = 0 GROUP BY book"))
        by_kind = dict(self._query("SELECT kind, COUNT(*) FROM documents GROUP BY kind"))
        per: dict[str, dict] = {"basket": {}, "collection": {}, "translator": {}}
        for level in per:
            # a text is counted once, by its default translation (or by each translator, per translator);
            # chunks are counted whoever translated them
            texts = "d.doc_id" if level == "translator" else "CASE WHEN instr(d.doc_id, '@') = 0 THEN d.doc_id END"
            rows = self._query(
                f"SELECT d.{level}, COUNT(DISTINCT {texts}), COUNT(c.chunk_id) FROM documents d "
                f"LEFT JOIN chunks c ON c.doc_id = d.doc_id WHERE d.sutta_id IS NOT NULL GROUP BY d.{level}")
            per[level] = {key or "": {"documents": n_docs, "chunks": n_chunks} for key, n_docs, n_chunks in rows}
        return {"documents": docs, "chunks": chunks, "suttas_by_collection": by_book, "documents_by_kind": by_kind,
                "by_basket": per["basket"], "by_collection": per["collection"], "by_translator": per["translator"]}

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._conn.execute(sql, params).fetchall()


def _doc(row: tuple) -> DocumentRecord:
    return DocumentRecord(**dict(zip(_DOC_FIELDS, row[:12])), headers=json.loads(row[12] or "{}"),
                          basket=row[13] or "", translator=row[14] or "", aliases=json.loads(row[15] or "[]"))


def _chunk(data: str) -> Chunk:
    raw = json.loads(data)
    return Chunk(**{k: raw.get(k) for k in _CHUNK_FIELDS if k in raw})


def now() -> float:
    return time.time()
