"""The open indexes every tool reads: docstore, BM25, Chroma and the embedding model, loaded once per process.

The dense side (embedding model + Chroma) is optional at run time: if it cannot load, the library keeps going on
BM25 and says why in `dense_error`, so a broken model install degrades search instead of breaking the chat. While
an ingest is still embedding (docs/first-run.md), `semantic_progress` says how far it is and the vectors embedded
since they were read are read again: dense search covers what is embedded so far.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from indexing.errors import IndexingError
from indexing.progress import SemanticProgress, read_progress
from indexing.settings import ScholarSettings
from indexing.stores.bm25_store import BM25Store
from indexing.stores.chroma_store import ChromaStore
from indexing.stores.docstore import DocStore
from indexing.vocabulary import BOOKS
from tools.errors import ToolError

if TYPE_CHECKING:
    from tools.search.aliases import AliasIndex
    from tools.search.bridges import Bridges
    from tools.search.cards import CardIndex
    from tools.search.names import NameMatcher
    from tools.search.rerank import Reranker
    from tools.texts.lookup import Catalog
    from tools.texts.rules import RuleIndex
    from tools.texts.translations import TranslationMap
    from tools.verification.evidence import EmbeddingScorer, EvidenceIndex
    from tools.verification.verifier import ClaimVerifier, Mode

log = logging.getLogger(__name__)

_OPEN: dict[tuple, Library] = {}
_OPEN_LOCK = threading.Lock()
QUERY_CACHE_SIZE = 2048
MATRIX_MAX_VECTORS = 300_000  # above this, query Chroma's HNSW index instead of holding every vector in memory


def _limit_threads(n: int) -> None:
    # Process-wide, so only done when this process loads the model to serve queries (never during ingest).
    if n <= 0:
        return
    torch = sys.modules.get("torch")  # loaded by the torch backend only; importing it here would cost seconds
    if torch is not None:
        torch.set_num_threads(n)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n)  # the BLAS behind the in-memory dense search, same reasoning
    except ImportError:
        pass


class Library:
    def __init__(
        self,
        settings: ScholarSettings,
        docstore: DocStore,
        bm25: BM25Store,
        chroma: ChromaStore | None,
        embed_model: BaseEmbedding | None,
        dense_error: str | None = None,
    ):
        self.settings = settings
        self.docstore = docstore
        self.bm25 = bm25
        self.chroma = chroma
        self.embed_model = embed_model
        self.dense_error = dense_error
        self._lock = threading.RLock()
        self._catalog: Catalog | None = None
        self._aliases: AliasIndex | None = None
        self._cards: CardIndex | None = None
        self._bridges: Bridges | None = None
        self._names: NameMatcher | None = None
        self._lowercase: frozenset[str] | None = None
        self._query_vectors: OrderedDict[str, list[float]] = OrderedDict()
        self._doc_chunk_ids: dict[str, list[str]] = {}
        self._collection_ids: dict[str, set[str]] | None = None
        self._bm25_rows: dict[str, int] | None = None
        self._basket_ids: dict[str, set[str]] | None = None
        self._verse_ids: frozenset[str] | None = None
        self._chunk_homes: dict[str, tuple[str, str, str]] | None = None
        self._translations: TranslationMap | None = None
        self._rules: RuleIndex | None = None
        self._matrix: tuple[list[str], dict[str, int], np.ndarray] | None = None
        self._matrix_failed = False
        self._evidence: EvidenceIndex | None = None
        self._scorer: EmbeddingScorer | None = None
        self._reranker: Reranker | None = None
        self._semantic: SemanticProgress | None = None
        self._semantic_read_at = 0.0

    @classmethod
    def open(
        cls, settings: ScholarSettings, embed_model: BaseEmbedding | None = None, dense: bool = True
    ) -> Library:
        """The process-wide library for these settings (and this embedding model, if one is passed)."""
        key = (settings.model_dump_json(), id(embed_model), dense)
        with _OPEN_LOCK:
            lib = _OPEN.get(key)
            if lib is None:
                lib = cls._load(settings, embed_model, dense)
                _OPEN[key] = lib
            return lib

    @classmethod
    def _load(cls, settings: ScholarSettings, embed_model: BaseEmbedding | None, dense: bool) -> Library:
        index_dir = settings.index_dir
        if not (index_dir / "docstore.sqlite").exists():
            raise ToolError(f"no index at {index_dir}: run `scholar ingest` first")
        docstore = DocStore(index_dir / "docstore.sqlite")
        try:
            bm25 = BM25Store(index_dir / "bm25").load()
        except IndexingError as exc:
            raise ToolError(str(exc)) from exc
        chroma, dense_error = None, None
        if dense:
            try:
                chroma = ChromaStore(index_dir / "chroma", settings.chroma_collection, settings.chroma_url)
                if embed_model is None:
                    from indexing.embeddings import build_embed_model, settings_for_index

                    # queries are embedded by the backend that embedded the index's chunks
                    embed_settings = settings_for_index(settings, docstore.info("embed_model"))
                    embed_model = build_embed_model(embed_settings, threads=max(0, settings.query_threads))
                    _limit_threads(settings.query_threads)
            except Exception as exc:  # model files, torch, Chroma: any failure means "BM25 only", reported
                dense_error = f"{type(exc).__name__}: {exc}"
                log.warning("dense retrieval unavailable, continuing with BM25 only: %s", dense_error)
                chroma, embed_model = None, None
        else:
            dense_error = "dense retrieval disabled"
            embed_model = None
        return cls(settings, docstore, bm25, chroma, embed_model, dense_error)

    @classmethod
    def forget(cls) -> None:
        """Drop every cached library and what it caches (tests build many tiny indexes in one process)."""
        with _OPEN_LOCK:
            for lib in _OPEN.values():
                lib.clear_caches()
            _OPEN.clear()

    def clear_caches(self) -> None:
        """Forget everything built from the stores on demand; the next use rebuilds it."""
        with self._lock:
            self._catalog, self._aliases, self._chunk_homes, self._collection_ids = None, None, None, None
            self._query_vectors.clear()
            self._doc_chunk_ids.clear()
            self._matrix, self._matrix_failed = None, False
            self._evidence, self._scorer, self._reranker = None, None, None
            self._cards, self._bridges, self._names, self._bm25_rows = None, None, None, None
            self._basket_ids, self._verse_ids, self._translations = None, None, None
            self._rules = None
            self._semantic = None
            self._lowercase = None

    def warm(self) -> Library:
        """Build the lazy parts now (catalog, alias index, chunk map, in-memory vectors): ~1-2 s on the full corpus
        that would otherwise land on the first user's first question."""
        _ = self.catalog, self.aliases, self.chunk_homes, self.cards, self.bridges, self.names, self.translations
        _ = self.rules
        if self.dense_ready:
            self.matrix()
        return self

    @property
    def dense_ready(self) -> bool:
        return self.chroma is not None and self.embed_model is not None

    def semantic_progress(self) -> SemanticProgress:
        """How far the semantic index is, from the ingest's progress record (re-read at most every
        `semantic_refresh_s` seconds). When it says vectors were added since the last reading, the in-memory
        vectors (passages and cards) are read again, so a process serving while the ingest embeds searches what
        is embedded so far without a restart. An index without a record counts its vectors."""
        now = time.monotonic()
        known = self._semantic
        if known is not None and (known.complete or now - self._semantic_read_at < self.settings.semantic_refresh_s):
            return known
        record = read_progress(self.settings.index_dir) or self._counted_progress()
        with self._lock:
            self._semantic, self._semantic_read_at = record, now
        if known is not None and (record.done, record.state) != (known.done, known.state):
            self._reload_vectors()
        return record

    def _counted_progress(self) -> SemanticProgress:
        total = self.docstore.chunk_count()
        try:
            done = self.chroma.count() if self.chroma is not None else 0
        except Exception:  # a remote Chroma gone away: nothing can be said to be embedded
            done = 0
        return SemanticProgress(chunks_done=min(done, total), chunks_total=total, state="complete"
                                if done >= total else "embedding")

    def _reload_vectors(self) -> None:
        log.info("new vectors in the semantic index: reading them")
        with self._lock:
            self._matrix, self._matrix_failed = None, False  # read again on the next dense search
            cards = self._cards
        if cards is not None and self.dense_ready:
            cards.reload_vectors(self.settings)

    def dense_coverage(self) -> float:
        """The share of passages dense search can find now: 1.0 on a complete index, 0.0 before the first vector
        (or with the dense side down)."""
        if not self.dense_ready:
            return 0.0
        return self.semantic_progress().chunk_fraction

    @property
    def catalog(self) -> Catalog:
        if self._catalog is None:
            from tools.texts.lookup import Catalog

            with self._lock:
                if self._catalog is None:
                    self._catalog = Catalog.build(self.docstore)
        return self._catalog

    @property
    def aliases(self) -> AliasIndex:
        if self._aliases is None:
            from tools.search.aliases import AliasIndex

            with self._lock:
                if self._aliases is None:
                    self._aliases = AliasIndex.build(self.docstore, self.settings.nicknames_csv,
                                                     self.settings.titles_csv, self.cards.cards)
        return self._aliases

    @property
    def translations(self) -> TranslationMap:
        if self._translations is None:
            from tools.texts.translations import TranslationMap

            with self._lock:
                if self._translations is None:
                    self._translations = TranslationMap.build(self.docstore)
        return self._translations

    @property
    def evidence(self) -> EvidenceIndex:
        """Per-sutta token views and word weights, shared by every claim check and grounding quote of the process."""
        if self._evidence is None:
            from tools.verification.evidence import EvidenceIndex

            with self._lock:
                if self._evidence is None:
                    self._evidence = EvidenceIndex(self.docstore, self.bm25, lowercase=lambda: self.lowercase_words)
        return self._evidence

    def verifier(self, *, dense: bool = False, llm=None, mode: Mode = "local") -> ClaimVerifier:
        """A claim verifier over the library's caches. `dense` adds the embedding model's second opinion (when the
        dense side is up); `llm` is the judge for modes llm and both."""
        from tools.verification.verifier import ClaimVerifier

        scorer = None
        if dense and self.embed_model is not None:
            from tools.verification.evidence import EmbeddingScorer

            with self._lock:
                if self._scorer is None:
                    self._scorer = EmbeddingScorer(self.embed_model)
                scorer = self._scorer
        return ClaimVerifier(self.evidence, scorer, llm=llm, mode=mode, tables=self)

    def reranker(self, llm=None) -> Reranker:
        """The reranker the settings ask for, built once (a cross-encoder load takes seconds). The `llm` reranker
        is built by the first call that passes an LLM; until then it is `none`."""
        from tools.search.rerank import build_reranker

        with self._lock:
            if self._reranker is None or (llm is not None and self._reranker.name == "none"):
                self._reranker = build_reranker(self.settings, llm)
            return self._reranker

    def _once(self, attr: str, build):
        """The value cached in `attr`, built on first use under the lock (one build per process)."""
        value = getattr(self, attr)
        if value is None:
            with self._lock:
                value = getattr(self, attr)
                if value is None:
                    value = build()
                    setattr(self, attr, value)
        return value

    @property
    def cards(self) -> CardIndex:
        """Sutta cards (titles, names, blurb, first lines), searched to find suttas as wholes."""
        from tools.search.cards import CardIndex

        return self._once("_cards", lambda: CardIndex.open(self.settings, dense=self.dense_ready))

    @property
    def bridges(self) -> Bridges:
        """Older-translation and Pali words -> this translation's, and the Pali index they search."""
        from tools.search.bridges import Bridges

        return self._once("_bridges", lambda: Bridges.load(self.bm25, self.settings.index_dir,
                                                           self.settings.bridges_file, self.settings.bridge_weight,
                                                           self.settings.query_tf_k3))

    @property
    def rules(self) -> RuleIndex:
        """The Vinaya's rules by topic (tools/texts/rules.py), read from the docstore once."""
        from tools.texts.rules import RuleIndex

        return self._once("_rules", lambda: RuleIndex.build(self.docstore))

    @property
    def names(self) -> NameMatcher:
        """Fuzzy, Pali and semantic matching of a sutta's name, over the alias index and the cards."""
        from tools.search.names import NameMatcher

        return self._once("_names", lambda: NameMatcher(self.aliases, self.cards, self.bridges))

    @property
    def lowercase_words(self) -> frozenset[str]:
        """Every word the library's English writes in lowercase, folded: a capitalised word outside it is a name
        ("Nanda", "Rājagaha"), one inside it a word a reader capitalised ("Discipline"). Read once (~0.6 s)."""
        from tools.language.words import lowercase_words

        return self._once("_lowercase", lambda: lowercase_words(self.docstore.english_texts()))

    def word_known(self, token: str) -> bool:
        """Whether any passage of the library uses the word (a BM25 token); an empty index cannot tell (True)."""
        df, n = self.bm25.document_frequency(token)
        return df > 0 or n == 0

    def embed_query(self, text: str) -> list[float]:
        """The query's vector, LRU-cached: the agent often searches the same words twice in a turn."""
        if not self.dense_ready:
            raise ToolError(f"dense retrieval unavailable: {self.dense_error}")
        with self._lock:
            hit = self._query_vectors.get(text)
            if hit is not None:
                self._query_vectors.move_to_end(text)
                return hit
        assert self.embed_model is not None  # dense_ready
        vector = list(self.embed_model.get_query_embedding(text))
        with self._lock:
            self._query_vectors[text] = vector
            while len(self._query_vectors) > QUERY_CACHE_SIZE:
                self._query_vectors.popitem(last=False)
        return vector

    def clear_query_cache(self) -> None:
        with self._lock:
            self._query_vectors.clear()

    def chunk_ids_of(self, doc_id: str) -> list[str]:
        with self._lock:
            ids = self._doc_chunk_ids.get(doc_id)
        if ids is None:
            ids = [c.chunk_id for c in self.docstore.chunks_of(doc_id)]
            with self._lock:
                self._doc_chunk_ids[doc_id] = ids
        return ids

    @property
    def chunk_homes(self) -> dict[str, tuple[str, str, str]]:
        """chunk_id -> (doc_id, collection, basket) for every chunk: boosts and filters run without reading chunks."""
        if self._chunk_homes is None:
            verse_books = {b.display for b in BOOKS.values() if b.verse}
            homes, verse = {}, set()
            for c in self.docstore.iter_chunks():  # one pass: every chunk's JSON is read once per process
                homes[c.chunk_id] = (c.doc_id, c.collection or "", c.basket or "")
                if c.book in verse_books:
                    verse.add(c.chunk_id)
            with self._lock:
                self._chunk_homes, self._verse_ids = homes, frozenset(verse)
        return self._chunk_homes

    @property
    def bm25_rows(self) -> dict[str, int]:
        """chunk_id -> its row in the BM25 index, for reading one sutta's scores out of a whole-index scoring."""
        if self._bm25_rows is None:
            rows = {cid: i for i, cid in enumerate(self.bm25.ids)}
            with self._lock:
                self._bm25_rows = rows
        return self._bm25_rows

    def collection_chunk_ids(self, collection: str) -> set[str]:
        if self._collection_ids is None:
            by: dict[str, set[str]] = {}
            for cid, (_, coll, _) in self.chunk_homes.items():
                by.setdefault(coll, set()).add(cid)
            with self._lock:
                self._collection_ids = by
        return self._collection_ids.get(collection, set())

    def verse_chunk_ids(self) -> frozenset[str]:
        """The chunks of the verse anthologies (Dhp, Thag, Thig), for the question's genre hint."""
        if self._verse_ids is None:
            _ = self.chunk_homes
        return self._verse_ids or frozenset()

    def basket_chunk_ids(self, basket: str) -> set[str]:
        if self._basket_ids is None:
            by: dict[str, set[str]] = {}
            for cid, (_, _, bsk) in self.chunk_homes.items():
                by.setdefault(bsk, set()).add(cid)
            with self._lock:
                self._basket_ids = by
        return self._basket_ids.get(basket, set())

    def matrix(self) -> tuple[list[str], dict[str, int], np.ndarray] | None:
        """Every stored vector, unit-normalised, as one float32 matrix (ids, id -> row, matrix), read from Chroma
        once. An exact dot product over ~11k x 384 takes about a millisecond, far below a Chroma round trip, and
        serves MMR's vectors too. None when the collection is too large or cannot be read (Chroma search is used)."""
        if self._matrix is not None or self._matrix_failed or self.chroma is None:
            return self._matrix
        with self._lock:
            if self._matrix is None and not self._matrix_failed:
                try:
                    if self.chroma.count() > MATRIX_MAX_VECTORS:
                        raise ToolError("collection too large to hold in memory")
                    ids, m = self.chroma.embeddings()
                    self._matrix = (ids, {cid: i for i, cid in enumerate(ids)}, m)
                except Exception as exc:  # any failure: keep using Chroma's own search
                    log.warning("dense vectors not cached in memory (%s); searching Chroma directly", exc)
                    self._matrix_failed = True
        return self._matrix

    def vectors(self, chunk_ids: list[str]) -> dict[str, list[float]]:
        """Stored vectors by chunk ID (for MMR); empty when the dense side is down."""
        if self.chroma is None or not chunk_ids:
            return {}
        cached = self.matrix()
        if cached is not None:
            _, row, m = cached
            return {cid: m[row[cid]] for cid in chunk_ids if cid in row}
        try:
            got = self.chroma.collection.get(ids=list(chunk_ids), include=["embeddings"])
        except Exception as exc:  # Chroma errors come in many types; MMR falls back to token overlap
            log.warning("could not fetch vectors from Chroma: %s", exc)
            return {}
        return {cid: vec for cid, vec in zip(got["ids"], got["embeddings"])}
