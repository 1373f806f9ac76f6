"""`scholar ingest`: discover -> read -> chunk -> write the docstore and BM25 -> embed into Chroma, incrementally.

Two phases under one lock. The lexical phase makes everything but the vectors complete (docstore, BM25 English and
Pali, names, cards' text): seconds to a minute for the whole library, after which the chat can serve. The semantic
phase (indexing/semantic.py) then embeds what has no vector yet, batch by batch, each batch durable once written.

Each source file is a unit of work recorded in the manifest (content hash -> chunk IDs) once its chunks are in the
docstore; a vector is owed for every docstore chunk that Chroma lacks, so a run stopped anywhere in the semantic
phase (kill -9 included) is resumed by the next, which embeds only what is missing. A flag in the docstore marks a
lexical phase in progress: a run that finds it set first deletes vectors no chunk owns and always rebuilds BM25.
"""

from __future__ import annotations

import logging
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from indexing.cards import refresh_cards
from indexing.chunking import chunk_document
from indexing.embeddings import build_embed_model, embed_model_name, settings_for_index
from indexing.errors import IndexingError, SourceError
from indexing.lock import ingest_lock
from indexing.models import Chunk, SourceDocument
from indexing.pali_index import needs_rebuild as pali_needs_rebuild
from indexing.pali_index import rebuild_pali_index
from indexing.progress import write_progress
from indexing.semantic import current_progress, embed_missing
from indexing.settings import ScholarSettings
from indexing.sources.parallels import parallels_rows, read_parallels, table_for, table_hash
from indexing.sources.router import Reader, content_hash, discover
from indexing.sources.suttacentral import find_tree_root
from indexing.stores.bm25_store import TOKENIZER_ID, BM25Store
from indexing.stores.chroma_store import ChromaStore
from indexing.stores.docstore import DocStore, ManifestEntry, now

if TYPE_CHECKING:  # importing llama_index costs seconds; a no-op re-ingest should not pay it
    from llama_index.core.base.embeddings.base import BaseEmbedding

log = logging.getLogger(__name__)

# Files are written to the docstore together until a group holds this many chunks: fewer SQLite transactions.
WRITE_GROUP_CHUNKS = 512
# Set while a run is changing the stores; a run that finds it set was interrupted and reconciles them first.
DIRTY_KEY = "ingest_in_progress"


@dataclass
class IngestReport:
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks_written: int = 0  # chunks written to the docstore
    chunks_reused: int = 0  # re-read chunks whose text is unchanged: their vectors were kept, not re-embedded
    chunks_embedded: int = 0  # vectors made for chunks in this run (new, changed, or owed by a stopped run)
    chunks_removed: int = 0
    parallels: int = 0  # rows of the parallels table written in this run (0 when it did not change)
    seconds: float = 0.0
    lexical_seconds: float = 0.0  # until everything but the vectors was complete (when the chat can serve)
    parse_seconds: float = 0.0
    embed_seconds: float = 0.0
    chroma_seconds: float = 0.0
    docstore_seconds: float = 0.0
    bm25_seconds: float = 0.0  # the English BM25 (tokenising included)
    pali_seconds: float = 0.0  # the Pali BM25
    bm25_rebuilt: bool = False
    open_seconds: float = 0.0  # opening the stores (Chroma's import and client on a first call)
    parallels_seconds: float = 0.0
    cards_embedded: int = 0
    cards_seconds: float = 0.0  # everything about cards, their embedding included
    cards_embed_seconds: float = 0.0

    def summary(self) -> str:
        rate = self.chunks_embedded / self.embed_seconds if self.embed_seconds else 0.0
        return (
            f"{self.files_seen} files: {self.files_ingested} ingested, {self.files_unchanged} unchanged, "
            f"{len(self.skipped)} skipped, {self.files_removed} removed; {self.chunks_written} chunks written "
            f"({self.chunks_reused} of them kept their vectors), {self.chunks_removed} removed; "
            f"{self.chunks_embedded} chunks embedded ({rate:.1f}/s); {self.cards_embedded} sutta cards embedded; "
            f"{self.seconds:.1f}s (lexical index complete at {self.lexical_seconds:.1f}s, "
            f"embedding {self.embed_seconds + self.cards_embed_seconds:.1f}s)"
        )


@dataclass
class _Pending:
    path: Path
    digest: str
    docs: list[SourceDocument]
    chunks: list[Chunk]


class Indexes:
    """The three stores under one index directory."""

    def __init__(self, settings: ScholarSettings):
        self.settings = settings
        settings.index_dir.mkdir(parents=True, exist_ok=True)
        self.docstore = DocStore(settings.index_dir / "docstore.sqlite")
        self.chroma = ChromaStore(settings.index_dir / "chroma", settings.chroma_collection, settings.chroma_url)
        self.bm25 = BM25Store(settings.index_dir / "bm25")


def ingest(
    settings: ScholarSettings,
    paths: list[Path] | None = None,
    *,
    embed_model: BaseEmbedding | None = None,
    indexes: Indexes | None = None,
    progress: bool = True,
    wait: bool = False,
    semantic: bool = True,
) -> IngestReport:
    """Bring the index up to date with `paths` (default: the configured corpus): the lexical phase, then (unless
    `semantic` is False) the vectors. Another run on the same index directory makes this one raise
    IngestRunningError, or with `wait` start once the other has finished."""
    with ingest_lock(settings.index_dir, wait=wait):
        started = time.perf_counter()
        indexes = indexes or Indexes(settings)
        report = IngestReport(open_seconds=time.perf_counter() - started)
        settings = _lexical(settings, paths, indexes, report)
        report.lexical_seconds = time.perf_counter() - started
        if semantic:
            models: list[BaseEmbedding] = [embed_model] if embed_model is not None else []

            def get_model() -> BaseEmbedding:  # built only when a vector is owed
                if not models:
                    models.append(build_embed_model(settings))
                return models[0]

            made = embed_missing(settings, indexes.docstore, indexes.chroma, get_model, progress)
            report.chunks_embedded, report.embed_seconds = made.chunks_embedded, made.embed_seconds
            report.chroma_seconds += made.chroma_seconds
            report.cards_embedded, report.cards_embed_seconds = made.cards_embedded, made.cards_embed_seconds
            report.cards_seconds += made.cards_seconds
        else:  # how far the vectors are, for the chat and health until a run embeds them
            write_progress(settings.index_dir, current_progress(settings, indexes.docstore, indexes.chroma))
        report.seconds = time.perf_counter() - started
        indexes.docstore.set_info("last_ingest", {"at": now(), "summary": report.summary()})
        log.info("ingest: %s", report.summary())
        return report


def _lexical(settings: ScholarSettings, paths: list[Path] | None, indexes: Indexes,
             report: IngestReport) -> ScholarSettings:
    """Everything but the vectors: docstore, manifest, BM25 (English and Pali), parallels, cards' text. Returns the
    settings whose embedding model the index is embedded with."""
    store = indexes.docstore
    roots = [Path(p).resolve() for p in (paths or settings.corpus_paths)]
    for root in roots:
        if not root.exists():
            raise IndexingError(f"corpus path {root} does not exist (set SCHOLAR_CORPUS_PATHS)")

    recorded = store.info("embed_model")
    if "embed_backend" not in settings.model_fields_set:
        # An index keeps the backend it was built with unless another is asked for by name: a new default must
        # not cost a whole-library re-embedding of vectors that were fine (torch's and ONNX's agree to 1e-6).
        settings = settings_for_index(settings, recorded)
    model_name = embed_model_name(settings)
    if recorded and recorded != model_name:
        # Vectors of two models are not comparable: every chunk vector goes and is owed again (the cards' carry
        # their model in their digest). The chunks themselves are unchanged: nothing is read again.
        log.warning("embedding model changed (%s -> %s): re-embedding everything", recorded, model_name)
        indexes.chroma.delete_ids(sorted(indexes.chroma.ids()))
    store.set_info("embed_model", model_name)  # what queries are embedded with, from the first vector on

    # A previous lexical phase stopped before it finished: delete the vectors no chunk owns first.
    dirty = bool(store.info(DIRTY_KEY))
    if dirty:
        _reconcile(indexes, report)
    manifest = store.manifest()

    todo: list[tuple[Path, Reader, str]] = []
    seen: set[str] = set()
    trees: dict[Path, Path | None] = {}  # the tree root of each folder, found once a run and not once a file
    outside = report.skipped.append  # links out of the corpus: reported, never read nor recorded
    for path, reader in discover(roots, on_outside=lambda link, why: outside((str(link), why))):
        report.files_seen += 1
        key = str(path)
        seen.add(key)
        try:
            digest = content_hash(path, trees)
        except OSError as exc:
            store.set_info(DIRTY_KEY, True)
            _skip(indexes, report, key, "", f"unreadable: {exc.strerror or exc}")
            continue
        entry = manifest.get(key)
        if entry and entry.content_hash == digest:
            report.files_unchanged += 1
            continue
        todo.append((path, reader, digest))

    gone = [key for key in manifest if key not in seen and any(Path(key).is_relative_to(r) for r in roots)]
    if todo or gone:
        store.set_info(DIRTY_KEY, True)  # cleared only once Chroma, docstore and BM25 agree again
    for key in gone:
        removed = store.delete_source(key)
        indexes.chroma.delete_ids(removed)
        report.files_removed += 1
        report.chunks_removed += len(removed)

    if todo:
        _process(todo, settings, indexes, report)
    t0 = time.perf_counter()
    _load_parallels(roots, store, report)
    report.parallels_seconds = time.perf_counter() - t0

    if todo or gone or dirty or indexes.bm25.stored_tokenizer() != TOKENIZER_ID \
            or pali_needs_rebuild(settings.index_dir):
        _reconcile(indexes, report)
        _rebuild_bm25(indexes, report)
        report.bm25_rebuilt = True
    # The cards' text and BM25 now; their vectors are the semantic phase's. No model is needed for this.
    cards = refresh_cards(settings, store, lambda: build_embed_model(settings),
                          docs_changed=bool(todo or gone or dirty), embed=False)
    report.cards_seconds = cards.seconds
    store.set_info(DIRTY_KEY, False)  # after the cards: a run stopped before them redoes them
    return settings


def _skip(indexes: Indexes, report: IngestReport, key: str, digest: str, reason: str) -> None:
    log.warning("skipped %s: %s", Path(key).name, reason)
    report.skipped.append((key, reason))
    indexes.chroma.delete_ids(indexes.docstore.delete_source(key))
    indexes.docstore.record(ManifestEntry(key, digest, "skipped", reason, [], now()))


def _parse(path: Path, reader: Reader, settings: ScholarSettings) -> tuple[list[SourceDocument], list[Chunk]]:
    docs = reader(path, settings)
    chunks = [c for d in docs for c in chunk_document(d, settings.chunk_target_chars, settings.chunk_max_chars)]
    return docs, chunks


def _process(todo, settings, indexes: Indexes, report: IngestReport) -> None:
    t0 = time.perf_counter()
    parsed: deque[_Pending] = deque()
    for path, reader, digest in todo:
        key = str(path)
        try:
            docs, chunks = _parse(path, reader, settings)
        except SourceError as exc:
            _skip(indexes, report, key, digest, str(exc))
            continue
        except Exception as exc:  # a reader bug must not stop a 3,000-file run; the reason is recorded
            log.exception("reader failed on %s", path)
            _skip(indexes, report, key, digest, f"{type(exc).__name__}: {exc}")
            continue
        if not chunks:
            _skip(indexes, report, key, digest, "no text found")
            continue
        parsed.append(_Pending(path, digest, docs, chunks))
    report.parse_seconds = time.perf_counter() - t0

    group: list[_Pending] = []
    while parsed:
        group.append(parsed.popleft())  # popped, so written groups are freed as the run goes
        if sum(len(p.chunks) for p in group) >= WRITE_GROUP_CHUNKS or not parsed:
            _write_group(group, indexes, report)
            group = []


def _write_group(group: list[_Pending], indexes: Indexes, report: IngestReport) -> None:
    """Chroma first (vectors of changed text deleted, kept vectors given their chunks' new metadata), then the
    docstore with the manifest in one transaction. Killed anywhere in here, the files are not in the manifest yet
    and the next run redoes them; deletes and upserts make the redo idempotent. The new chunks' vectors are owed
    from then on, and the semantic phase makes them."""
    chunks = [c for p in group for c in p.chunks]
    t0 = time.perf_counter()
    kept = _unchanged_vectors(indexes, chunks)
    report.chunks_reused += len(kept)
    old = {cid for p in group for cid in indexes.docstore.chunk_ids_for_source(str(p.path))}
    indexes.chroma.delete_ids(sorted(old - set(kept)))
    if kept:
        kept_chunks = [c for c in chunks if c.chunk_id in kept]
        indexes.chroma.upsert(kept_chunks, [kept[c.chunk_id] for c in kept_chunks])
    t1 = time.perf_counter()
    report.chroma_seconds += t1 - t0

    stamp = now()
    indexes.docstore.replace_sources(
        (str(p.path), p.docs, p.chunks,
         ManifestEntry(str(p.path), p.digest, "ok", "", [c.chunk_id for c in p.chunks], stamp))
        for p in group
    )
    report.docstore_seconds += time.perf_counter() - t1
    report.files_ingested += len(group)
    report.chunks_written += len(chunks)


def _load_parallels(roots: list[Path], store: DocStore, report: IngestReport) -> None:
    """SuttaCentral's parallels table, read once whenever it changes (a hash in the docstore says when)."""
    for root in roots:
        tree = find_tree_root(root) if root.is_dir() else None
        path = table_for(tree) if tree is not None else None
        if path is None:
            continue
        digest = table_hash(path)
        if store.info("parallels_hash") == digest:
            return
        try:
            groups = read_parallels(path)
        except SourceError as exc:
            log.warning("%s", exc)
            return
        report.parallels = store.replace_parallels(parallels_rows(groups))
        store.set_info("parallels_hash", digest)
        return


def _unchanged_vectors(indexes: Indexes, chunks: list[Chunk]) -> dict[str, list[float]]:
    """Vectors already stored for chunks whose embedded text is unchanged: a file re-read for a new reader version
    (or a metadata change) keeps them instead of paying the model again. Chunk IDs hash the text, so an unchanged
    ID is the same passage; the title and heading that go into the embedding are compared too."""
    stored = indexes.docstore.chunks([c.chunk_id for c in chunks])
    if not stored:
        return {}
    wanted = {c.chunk_id: c.embedding_text() for c in chunks}
    same = [c.chunk_id for c in stored if wanted.get(c.chunk_id) == c.embedding_text()]
    return indexes.chroma.vectors(same) if same else {}


def _reconcile(indexes: Indexes, report: IngestReport) -> None:
    """Delete the vectors no chunk owns (a run killed between the writes leaves some); the vectors chunks lack
    are owed, and the semantic phase makes them."""
    extra = sorted(indexes.chroma.ids() - indexes.docstore.all_chunk_ids())
    if extra:
        log.info("removing %d orphaned vectors", len(extra))
        indexes.chroma.delete_ids(extra)
        report.chunks_removed += len(extra)


def _rebuild_bm25(indexes: Indexes, report: IngestReport) -> None:
    t0 = time.perf_counter()
    chunks = list(indexes.docstore.iter_chunks())  # read once for both indexes
    indexes.bm25.build([(c.chunk_id, c.embedding_text()) for c in chunks])
    indexes.bm25.save()
    t1 = time.perf_counter()
    rebuild_pali_index(chunks, indexes.settings.index_dir)
    report.bm25_seconds += t1 - t0
    report.pali_seconds += time.perf_counter() - t1
