"""Dense vectors in Chroma (cosine space), written and queried through LlamaIndex's ChromaVectorStore.

Embedded persistent client by default; a `chroma run` server when SCHOLAR_CHROMA_URL is set. Chroma's own
default embedding function would download a model, so every vector is computed by us and passed in.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from indexing.errors import IndexingError
from indexing.models import Chunk

log = logging.getLogger(__name__)


@dataclass
class DenseHit:
    chunk_id: str
    score: float  # cosine similarity


def _client(persist_dir: Path, url: str | None):
    import chromadb
    from chromadb.config import Settings as ChromaConfig

    config = ChromaConfig(anonymized_telemetry=False)
    try:
        if url:
            parsed = urlparse(url)
            return chromadb.HttpClient(
                host=parsed.hostname or "127.0.0.1", port=parsed.port or 8000, ssl=parsed.scheme == "https",
                settings=config,
            )
        persist_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(persist_dir), settings=config)
    except Exception as exc:  # chromadb raises ValueError/ConnectionError/its own types
        raise IndexingError(f"cannot open Chroma ({url or persist_dir}): {exc}") from exc


class ChromaStore:
    def __init__(self, persist_dir: Path, collection: str = "canon", url: str | None = None):
        self.location = url or str(persist_dir)
        self._client = _client(Path(persist_dir), url)
        try:
            self.collection = self._client.get_or_create_collection(
                collection, metadata={"hnsw:space": "cosine"}, embedding_function=None
            )
        except Exception as exc:
            raise IndexingError(f"cannot open Chroma collection {collection!r} at {self.location}: {exc}") from exc
        self._vector_store = None

    @property
    def vector_store(self):
        # Built on first query: ingest only writes, and llama_index's import is seconds on a busy machine.
        if self._vector_store is None:
            from llama_index.vector_stores.chroma import ChromaVectorStore

            self._vector_store = ChromaVectorStore(chroma_collection=self.collection)
        return self._vector_store

    def upsert(self, chunks: list[Chunk], embeddings: list[list[float]]) -> None:
        if len(chunks) != len(embeddings):
            raise IndexingError(f"{len(chunks)} chunks but {len(embeddings)} embeddings")
        # Upsert, not ChromaVectorStore.add: a re-run after an interrupted ingest rewrites the same IDs
        # instead of failing or duplicating. The text lives in the docstore; Chroma keeps IDs, vectors, metadata.
        self.collection.upsert(
            ids=[c.chunk_id for c in chunks],
            embeddings=embeddings,
            metadatas=[_flat(c.metadata()) for c in chunks],
        )

    def delete_source(self, source_path: str) -> None:
        self.collection.delete(where={"source_path": source_path})

    def delete_ids(self, ids: list[str]) -> None:
        for start in range(0, len(ids), 5000):
            self.collection.delete(ids=ids[start : start + 5000])

    def ids(self) -> set[str]:
        found: set[str] = set()
        offset, page = 0, 5000
        while True:
            batch = self.collection.get(include=[], limit=page, offset=offset)["ids"]
            found.update(batch)
            if len(batch) < page:
                return found
            offset += page

    def count(self) -> int:
        return self.collection.count()

    def search(self, vector: list[float], k: int = 20, where: dict[str, str] | None = None) -> list[DenseHit]:
        from llama_index.core.vector_stores.types import (
            FilterOperator,
            MetadataFilter,
            MetadataFilters,
            VectorStoreQuery,
        )

        filters = None
        if where:
            filters = MetadataFilters(
                filters=[MetadataFilter(key=key, value=value, operator=FilterOperator.EQ)
                         for key, value in where.items()]
            )
        result = self.vector_store.query(VectorStoreQuery(query_embedding=vector, similarity_top_k=k, filters=filters))
        # LlamaIndex's adapter reports exp(-distance); in cosine space distance = 1 - cos, so undo it here and
        # every dense score in the project is a cosine similarity, whichever path produced it.
        return [
            DenseHit(cid, 1.0 + math.log(score) if score > 0 else -1.0)
            for cid, score in zip(result.ids or [], result.similarities or [])
        ]


def _flat(meta: dict) -> dict:
    return {k: v for k, v in meta.items() if isinstance(v, (str, int, float, bool))}
