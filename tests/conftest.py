"""Shared fixtures: isolated settings, a tiny SuttaCentral-shaped corpus and a fast deterministic embedding model.

Everything is built in tmp_path, so tests never touch var/index or the shared corpus.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import pytest
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from corpus import write_mini_corpus  # noqa: I001 - pytest puts tests/ on sys.path
from indexing.settings import ScholarSettings
from indexing.text import fold


def pytest_configure(config) -> None:
    # `import chainlit` writes .chainlit/ and .files/ into its app root (the working directory by default): keep
    # them out of the repository. `scholar chat` sets its own root for the child it starts.
    import os
    import tempfile

    os.environ.setdefault("CHAINLIT_APP_ROOT", tempfile.mkdtemp(prefix="chainlit-root-"))


# --------------------------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScholarSettings:
    """Settings with the index (and OCR cache) in tmp_path, ignoring any SCHOLAR_* env or .env of the developer."""
    import os

    for name in list(os.environ):
        if name.startswith("SCHOLAR_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return ScholarSettings(
        _env_file=None,
        index_dir=tmp_path / "index",
        corpus_paths=[tmp_path / "corpus"],
        chroma_url=None,
    )


# --------------------------------------------------------------------------------------------------------------
# embeddings
# --------------------------------------------------------------------------------------------------------------
class SimulatedKill(RuntimeError):
    """Raised by FakeEmbedding(fail_after=N) to stand in for a process killed mid-ingest."""


_WORD = re.compile(r"[a-z0-9]+")


def hash_vector(text: str, dim: int) -> list[float]:
    """Bag of folded words hashed into `dim` buckets: deterministic across processes, and texts sharing words
    get similar vectors, so dense search over it returns meaningful neighbours."""
    vector = [0.0] * dim
    for word in _WORD.findall(fold(text)):
        bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big") % dim
        vector[bucket] += 1.0
    vector[0] += 1e-3  # never the zero vector (cosine of it is undefined)
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


class FakeEmbedding(BaseEmbedding):
    dim: int = 64
    fail_after: int | None = None  # raise SimulatedKill on the batch call after this many succeeded
    _batch_calls: int = PrivateAttr(default=0)
    _texts_embedded: int = PrivateAttr(default=0)

    @property
    def batch_calls(self) -> int:
        return self._batch_calls

    @property
    def texts_embedded(self) -> int:
        return self._texts_embedded

    def reset_counts(self) -> None:
        self._batch_calls = 0
        self._texts_embedded = 0

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self.fail_after is not None and self._batch_calls >= self.fail_after:
            raise SimulatedKill(f"simulated kill after {self._batch_calls} embedding batches")
        self._batch_calls += 1
        self._texts_embedded += len(texts)
        return [hash_vector(t, self.dim) for t in texts]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return hash_vector(query, self.dim)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return hash_vector(query, self.dim)


@pytest.fixture
def fake_embed() -> FakeEmbedding:
    return FakeEmbedding(model_name="fake-hash-64", embed_batch_size=8)


# --------------------------------------------------------------------------------------------------------------
# a tiny SuttaCentral tree
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def mini_corpus(tmp_path: Path) -> Path:
    """The mini corpus of tests/corpus.py; returns the tree's root folder."""
    return write_mini_corpus(tmp_path / "corpus")


# --------------------------------------------------------------------------------------------------------------
# what an index holds, store by store
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def index_state():
    """A function settings -> dict of what each store holds: docstore chunks (id -> record), Chroma IDs, BM25 IDs
    (as a list, so duplicates show), documents and manifest statuses. Compare two of them to compare indexes."""
    from dataclasses import asdict

    from indexing.pipeline import Indexes

    def state(settings: ScholarSettings) -> dict:
        indexes = Indexes(settings)
        try:
            bm25_ids = json.loads((settings.index_dir / "bm25" / "ids.json").read_text())
            return {
                "chunks": {c.chunk_id: asdict(c) for c in indexes.docstore.iter_chunks()},
                "chroma": sorted(indexes.chroma.collection.get(include=[])["ids"]),
                "bm25": sorted(bm25_ids),
                "documents": sorted(d.doc_id for d in indexes.docstore.documents()),
                "segments": sum(len(indexes.docstore.segments(d.doc_id)) for d in indexes.docstore.documents()),
                "manifest": {Path(k).name: e.status for k, e in indexes.docstore.manifest().items()},
            }
        finally:
            indexes.docstore.close()

    return state
