"""Test doubles shared by several test modules: a deterministic embedding model and passages of a docstore.
Tests import them from here (never from conftest, which pytest loads as a plugin, not a module)."""

from __future__ import annotations

import hashlib
import math
import re

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from indexing.stores.docstore import DocStore
from indexing.text import fold
from tools.passages import Passage


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


def passages_of(store: DocStore, *uids: str) -> list[Passage]:
    return [Passage.from_chunk(c) for uid in uids for c in store.chunks_of(uid)]


def tiny_library(base, tree):
    """A Library over `tree`, ingested into `base`/index with the fake embedder: the tiny index tests read."""
    from indexing.pipeline import ingest
    from indexing.settings import ScholarSettings
    from tools.library import Library

    settings = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                               nicknames_csv=base / "none.csv", chroma_url=None)
    embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
    ingest(settings, [tree], embed_model=embed, progress=False)
    return Library.open(settings, embed_model=embed)


class WordScorer:
    """A stand-in language model for the likelihood judge: a word is likely (-0.5) when the prompt holds it, or a
    word `paraphrases` maps it to, else unlikely (-6). Words in `priors` are what a model 'knows' from elsewhere:
    likely without a passage, but once it reads a passage it expects the passage's words, so they fall back to
    unlikely. Its calls are counted."""

    def __init__(self, priors: set[str] | frozenset[str] = frozenset(), paraphrases: dict[str, str] | None = None):
        self.priors = {p.lower() for p in priors}
        self.paraphrases = paraphrases or {}
        self.calls = 0

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[tuple[str, float]]:
        self.calls += 1
        seen = {w.lower() for w in re.findall(r"\w+", prompt)}
        out = []
        for piece in re.findall(r"\s*\S+", continuation):
            word = re.sub(r"\W", "", piece).lower()
            prior = word in self.priors and "Passage:" not in prompt
            likely = word in seen or prior or self.paraphrases.get(word, "") in seen
            out.append((piece, -0.5 if likely else -6.0))
        return out
