"""`scholar ingest`: discover -> read -> chunk -> embed -> write Chroma, docstore and BM25, incrementally.

Each source file is a unit of work recorded in the manifest (content hash -> chunk IDs) only after its chunks are
in both stores, so a run killed at any point is completed, not duplicated, by the next one.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path

from llama_index.core.base.embeddings.base import BaseEmbedding
from tqdm import tqdm

from indexing.chunking import chunk_document
from indexing.embeddings import build_embed_model, embed_model_name
from indexing.errors import IndexingError, SourceError
from indexing.models import Chunk, SourceDocument
from indexing.settings import ScholarSettings
from indexing.sources.router import content_hash, discover
from indexing.stores.bm25_store import BM25Store
from indexing.stores.chroma_store import ChromaStore
from indexing.stores.docstore import DocStore, ManifestEntry, now

log = logging.getLogger(__name__)

# Files are embedded together until a batch holds this many chunks: fewer, fuller encoder calls.
EMBED_GROUP_CHUNKS = 512


@dataclass
class IngestReport:
    files_seen: int = 0
    files_ingested: int = 0
    files_unchanged: int = 0
    files_removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    chunks_written: int = 0
    chunks_removed: int = 0
    seconds: float = 0.0
    embed_seconds: float = 0.0
    bm25_rebuilt: bool = False

    def summary(self) -> str:
        rate = self.chunks_written / self.seconds if self.seconds else 0.0
        return (
            f"{self.files_seen} files: {self.files_ingested} ingested, {self.files_unchanged} unchanged, "
            f"{len(self.skipped)} skipped, {self.files_removed} removed; {self.chunks_written} chunks written "
            f"({rate:.1f}/s), {self.chunks_removed} removed; {self.seconds:.1f}s (embedding {self.embed_seconds:.1f}s)"
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
) -> IngestReport:
    started = time.perf_counter()
    report = IngestReport()
    indexes = indexes or Indexes(settings)
    store = indexes.docstore
    roots = [Path(p).resolve() for p in (paths or settings.corpus_paths)]
    for root in roots:
        if not root.exists():
            raise IndexingError(f"corpus path {root} does not exist (set SCHOLAR_CORPUS_PATHS)")

    model_name = embed_model_name(settings)
    recorded = store.info("embed_model")
    manifest = store.manifest()
    if recorded and recorded != model_name:
        log.warning("embedding model changed (%s -> %s): re-embedding everything", recorded, model_name)
        manifest = {}

    todo: list[tuple[Path, object, str]] = []
    seen: set[str] = set()
    for path, reader in discover(roots):
        report.files_seen += 1
        key = str(path)
        seen.add(key)
        try:
            digest = content_hash(path)
        except OSError as exc:
            _skip(store, report, key, "", f"unreadable: {exc.strerror or exc}")
            continue
        entry = manifest.get(key)
        if entry and entry.content_hash == digest:
            report.files_unchanged += 1
            continue
        todo.append((path, reader, digest))

    # Files that were ingested from these roots and are gone now.
    for key in manifest:
        if key not in seen and any(Path(key).is_relative_to(r) for r in roots):
            removed = store.delete_source(key)
            indexes.chroma.delete_source(key)
            report.files_removed += 1
            report.chunks_removed += len(removed)

    if todo:
        model = embed_model or build_embed_model(settings)
        _process(todo, settings, indexes, model, report, progress)

    if todo or report.files_removed or not (settings.index_dir / "bm25" / "tokenizer.json").exists():
        _reconcile(indexes, report)
        _rebuild_bm25(indexes)
        report.bm25_rebuilt = True
    store.set_info("embed_model", model_name)
    report.seconds = time.perf_counter() - started
    store.set_info("last_ingest", {"at": now(), "summary": report.summary()})
    log.info("ingest: %s", report.summary())
    return report


def _skip(store: DocStore, report: IngestReport, key: str, digest: str, reason: str) -> None:
    log.warning("skipped %s: %s", key, reason)
    report.skipped.append((key, reason))
    store.delete_source(key)
    store.record(ManifestEntry(key, digest, "skipped", reason, [], now()))


def _process(todo, settings, indexes: Indexes, model: BaseEmbedding, report: IngestReport, progress: bool) -> None:
    pending: list[_Pending] = []
    bar = tqdm(total=None, unit="chunk", desc="embedding", disable=not progress, smoothing=0.1)

    def flush() -> None:
        nonlocal pending
        if not pending:
            return
        chunks = [c for p in pending for c in p.chunks]
        t0 = time.perf_counter()
        vectors = model.get_text_embedding_batch([c.embedding_text() for c in chunks]) if chunks else []
        report.embed_seconds += time.perf_counter() - t0
        offset = 0
        for item in pending:
            n = len(item.chunks)
            key = str(item.path)
            indexes.chroma.delete_source(key)
            if n:
                indexes.chroma.upsert(item.chunks, vectors[offset : offset + n])
            indexes.docstore.replace_source(key, item.docs, item.chunks)
            indexes.docstore.record(ManifestEntry(key, item.digest, "ok", "", [c.chunk_id for c in item.chunks], now()))
            offset += n
            report.files_ingested += 1
            report.chunks_written += n
        bar.update(len(chunks))
        pending = []

    for path, reader, digest in todo:
        try:
            docs = reader(path, settings)
        except SourceError as exc:
            _skip(indexes.docstore, report, str(path), digest, str(exc))
            indexes.chroma.delete_source(str(path))
            continue
        except Exception as exc:  # a reader bug must not stop a 3,000-file run; the reason is recorded
            log.exception("reader failed on %s", path)
            _skip(indexes.docstore, report, str(path), digest, f"{type(exc).__name__}: {exc}")
            indexes.chroma.delete_source(str(path))
            continue
        if not docs:
            _skip(indexes.docstore, report, str(path), digest, "no text found")
            continue
        chunks = [c for d in docs for c in chunk_document(d, settings.chunk_target_chars, settings.chunk_max_chars)]
        pending.append(_Pending(path, digest, docs, chunks))
        if sum(len(p.chunks) for p in pending) >= EMBED_GROUP_CHUNKS:
            flush()
    flush()
    bar.close()


def _reconcile(indexes: Indexes, report: IngestReport) -> None:
    """Chroma must hold exactly the docstore's chunks; a run killed between the two writes can leave extras."""
    wanted = indexes.docstore.all_chunk_ids()
    if indexes.chroma.count() == len(wanted):
        return
    extra = list(indexes.chroma.ids() - wanted)
    if extra:
        log.info("removing %d orphaned vectors", len(extra))
        indexes.chroma.delete_ids(extra)
        report.chunks_removed += len(extra)


def _rebuild_bm25(indexes: Indexes) -> None:
    items = [(c.chunk_id, c.embedding_text()) for c in indexes.docstore.iter_chunks()]
    indexes.bm25.build(items)
    indexes.bm25.save()
