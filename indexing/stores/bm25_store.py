"""BM25 over chunk texts with bm25s, using our Pali-aware tokenizer on both sides.

llama-index-retrievers-bm25 tokenizes with PyStemmer's English stemmer and ignores a custom tokenizer (the
parameter is deprecated), and a reload would silently use that default again. We keep bm25s itself and
persist the tokenizer's identity beside the index; a mismatch on load refuses to serve rather than
returning quietly worse results.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import bm25s
import numpy as np

from indexing.errors import IndexingError
from indexing.text import tokenize

log = logging.getLogger(__name__)

TOKENIZER_ID = "scholar-fold-lightstem-v1"


@dataclass
class BM25Hit:
    chunk_id: str
    score: float


class BM25Store:
    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self._bm25: bm25s.BM25 | None = None
        self._ids: list[str] = []

    @property
    def ready(self) -> bool:
        return self._bm25 is not None and bool(self._ids)

    def build(self, items: list[tuple[str, str]]) -> None:
        """items: (chunk_id, searchable text). Rebuilt whole: ~11k chunks index in a couple of seconds."""
        self._ids = [cid for cid, _ in items]
        corpus_tokens = [tokenize(text) or ["_empty_"] for _, text in items]
        model = bm25s.BM25()
        if corpus_tokens:
            model.index(corpus_tokens, show_progress=False)
        self._bm25 = model

    def save(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self._bm25 is None:
            return
        if self._ids:  # bm25s cannot save an empty index; an empty ids.json says "nothing to search"
            self._bm25.save(str(self.directory), show_progress=False)
        (self.directory / "ids.json").write_text(json.dumps(self._ids))
        # written last: its presence with the current ID is what marks the index as complete
        (self.directory / "tokenizer.json").write_text(json.dumps({"tokenizer": TOKENIZER_ID}))

    def stored_tokenizer(self) -> str | None:
        """The tokenizer the persisted index was built with; None when there is no index."""
        meta = self.directory / "tokenizer.json"
        if not meta.exists():
            return None
        try:
            return json.loads(meta.read_text()).get("tokenizer")
        except ValueError:
            return "unreadable"

    def load(self) -> BM25Store:
        found = self.stored_tokenizer()
        if found is None:
            raise IndexingError(f"no BM25 index at {self.directory}: run `scholar ingest`")
        if found != TOKENIZER_ID:
            raise IndexingError(
                f"BM25 index at {self.directory} was built with tokenizer {found!r}, this code uses "
                f"{TOKENIZER_ID!r}: re-run `scholar ingest` to rebuild it"
            )
        self._ids = json.loads((self.directory / "ids.json").read_text())
        self._bm25 = bm25s.BM25.load(str(self.directory), show_progress=False, mmap=False) if self._ids else None
        return self

    def search(self, query: str, k: int = 20, allowed: set[str] | None = None) -> list[BM25Hit]:
        if not self.ready:
            return []
        tokens = [t for t in tokenize(query) if t in self._vocab()]
        if not tokens:
            return []
        assert self._bm25 is not None  # ready
        scores = self._bm25.get_scores(tokens)
        if allowed is not None:
            mask = np.fromiter((cid in allowed for cid in self._ids), dtype=bool, count=len(self._ids))
            scores = np.where(mask, scores, 0.0)
        k = min(k, len(self._ids))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [BM25Hit(self._ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def vocabulary(self) -> list[str]:
        """Every token the index holds (for fuzzy matching a reader's spelling)."""
        return list(self._vocab()) if self.ready else []

    def document_frequency(self, token: str) -> tuple[int, int]:
        """(chunks containing this already-tokenized word, all chunks); (0, 0) when there is no index."""
        if not self.ready:
            return 0, 0
        n = len(self._ids)
        tid = self._vocab().get(token)
        if tid is None:
            return 0, n
        assert self._bm25 is not None  # ready
        indptr = self._bm25.scores["indptr"]  # CSC matrix: one column per vocabulary token
        return int(indptr[tid + 1] - indptr[tid]), n

    def _vocab(self) -> dict:
        assert self._bm25 is not None  # only asked once the index is ready
        return self._bm25.vocab_dict
