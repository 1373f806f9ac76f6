"""The semantic phase of an ingest: embed every vector the index owes, batch by batch, and say how far it is.

A vector is owed for each docstore chunk Chroma lacks, and for each sutta card vector whose text or model changed.
They are embedded in groups of EMBED_GROUP_CHUNKS; each group is upserted as soon as it is made, so it is durable
and searchable at once, and a stop loses at most the group under way. The order of the owed chunks is a function of
the docstore alone (sutta texts before the Vinaya, default translations before others, then by file and position),
so a resumed run embeds exactly the groups a clean run would have embedded after those already stored, and ends
with the same vectors. After every group the progress record (indexing/progress.py) is rewritten.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tqdm import tqdm

from indexing.cards import cards_dir, load_cards, open_card_vectors, refresh_cards
from indexing.embeddings import embed_texts
from indexing.models import Chunk
from indexing.progress import SemanticProgress, read_progress, write_progress
from indexing.stores.chroma_store import ChromaStore
from indexing.stores.docstore import DocStore

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

# Chunks embedded and stored together: large enough for few Chroma calls, small enough that a stop loses little
# and the chat sees new vectors often.
EMBED_GROUP_CHUNKS = 512


@dataclass
class SemanticReport:
    chunks_embedded: int = 0
    embed_seconds: float = 0.0  # the model, for chunks
    chroma_seconds: float = 0.0
    cards_embedded: int = 0
    cards_seconds: float = 0.0
    cards_embed_seconds: float = 0.0


def current_progress(settings: ScholarSettings, docstore: DocStore, chroma: ChromaStore,
                     owed: int | None = None) -> SemanticProgress:
    """The progress record as the stores stand (`owed`: the passages known to lack a vector). Card vectors count
    as done when the cards' marker says they are complete; otherwise as the cards' text refresh left them (its
    `pending`: a card changed by a name table alone keeps its old vector in the store, which must not count), or
    by their number where it did not say."""
    total = docstore.chunk_count()
    done = total - owed if owed is not None else min(total, chroma.count())
    marker = cards_dir(settings) / "inputs.json"
    if marker.exists():
        cards_total = 2 * int(json.loads(marker.read_text()).get("cards", 0))
        cards_done = cards_total
    else:
        cards_total = 2 * len(load_cards(cards_dir(settings)))
        cards_done = min(cards_total, open_card_vectors(settings).count())
        text_marker = cards_dir(settings) / "text.json"
        pending = json.loads(text_marker.read_text()).get("pending") if text_marker.exists() else None
        if pending:
            cards_done = min(cards_done, max(0, cards_total - int(pending)))
    previous = read_progress(settings.index_dir)
    record = SemanticProgress(chunks_done=done, chunks_total=total, cards_done=cards_done, cards_total=cards_total,
                              rate=previous.rate if previous else 0.0)
    record.state = "complete" if record.complete else "embedding"
    return record


def embed_missing(settings: ScholarSettings, docstore: DocStore, chroma: ChromaStore,
                  get_model: Callable[[], BaseEmbedding], progress: bool) -> SemanticReport:
    """Embed the owed chunk and card vectors. A no-op (nothing owed) costs two counts and no model."""
    report = SemanticReport()
    total = docstore.chunk_count()
    owed: list[Chunk] = []
    if chroma.count() != total:
        have = chroma.ids()
        owed = sorted((c for c in docstore.iter_chunks() if c.chunk_id not in have), key=_order)
    record = current_progress(settings, docstore, chroma, owed=len(owed))
    cards_total = record.cards_total
    if record.complete:
        write_progress(settings.index_dir, record)
        return report
    record.pid = os.getpid()

    write_progress(settings.index_dir, record)
    started, made = time.perf_counter(), 0

    def stored(n: int, kind: str) -> None:
        nonlocal made
        made += n
        if kind == "chunks":
            record.chunks_done += n
        else:
            record.cards_done = min(cards_total, record.cards_done + n)
        record.rate = made / max(1e-6, time.perf_counter() - started)
        write_progress(settings.index_dir, record)

    if owed:
        log.info("embedding %d chunks (%d already have vectors)", len(owed), total - len(owed))
        _embed_chunks(chroma, get_model(), owed, report, progress, lambda n: stored(n, "chunks"))
    cards_report = refresh_cards(settings, docstore, get_model, docs_changed=False,
                                 on_vectors=lambda n: stored(n, "cards"))
    report.cards_embedded, report.cards_embed_seconds = cards_report.embedded, cards_report.embed_seconds
    report.cards_seconds = cards_report.seconds
    record.chunks_done, record.cards_done, record.state = total, cards_total, "complete"
    write_progress(settings.index_dir, record)
    return report


def _order(chunk: Chunk) -> tuple:
    """What is searched most is embedded first: the suttas, in their default translations."""
    return (chunk.basket not in ("", "sutta"), "@" in chunk.doc_id, chunk.source_path, chunk.chunk_index,
            chunk.chunk_id)


def _embed_chunks(chroma: ChromaStore, model: BaseEmbedding, owed: list[Chunk], report: SemanticReport,
                  progress: bool, on_group: Callable[[int], None]) -> None:
    # In a log file (CI, redirected output) every redraw is a new line: redraw rarely there.
    interval = 0.5 if sys.stderr.isatty() else 30.0
    with tqdm(total=len(owed), unit="chunk", desc="embedding", disable=not progress, smoothing=0.05,
              mininterval=interval) as bar:
        for start in range(0, len(owed), EMBED_GROUP_CHUNKS):
            group = owed[start : start + EMBED_GROUP_CHUNKS]
            t0 = time.perf_counter()
            vectors = embed_texts(model, [c.embedding_text() for c in group], bar.update)
            t1 = time.perf_counter()
            chroma.upsert(group, vectors)
            report.embed_seconds += t1 - t0
            report.chroma_seconds += time.perf_counter() - t1
            report.chunks_embedded += len(group)
            on_group(len(group))
