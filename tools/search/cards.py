"""Sutta cards at query time: find suttas as wholes, then hand back their best passages.

`indexing.cards` builds one card per document (titles, names, chapter, headings, blurb, first lines). Here they
are searched with BM25 (field-weighted at build time) and densely (one vector per card, compared with the query's
vector that passage search computes anyway), and the two rankings are fused into one ranking of suttas. A card
is a way to find a sutta, not a passage to cite: `best_passages` turns a sutta into its passages that best match
the question, and the retriever adds the card's score to those.
"""

from __future__ import annotations

import logging

import numpy as np

from indexing.cards import NAME_SUFFIX, SuttaCard, cards_dir, load_cards, open_card_vectors
from indexing.errors import IndexingError
from indexing.stores.bm25_store import BM25Store

log = logging.getLogger(__name__)

CARD_CANDIDATES = 20  # suttas taken from each card ranking


class CardIndex:
    def __init__(self, cards: dict[str, SuttaCard], bm25: BM25Store | None,
                 vectors: tuple[list[str], np.ndarray] | None, names: tuple[list[str], np.ndarray] | None = None):
        self.cards = cards
        self.bm25 = bm25
        self.ids: list[str] = vectors[0] if vectors is not None else []
        self.matrix: np.ndarray | None = vectors[1] if vectors is not None else None
        # one vector per card for its name alone (title, Pali title, names; else its first line)
        self.name_ids: list[str] = names[0] if names is not None else []
        self.name_matrix: np.ndarray | None = names[1] if names is not None else None
        self.by_sutta = {c.sutta_id: c for c in cards.values()}

    @classmethod
    def open(cls, settings, dense: bool = True) -> CardIndex:
        """The cards of the index under `settings.index_dir`; empty (searches return nothing) when the index
        was built before cards existed, so an old index keeps working until the next `scholar ingest`."""
        directory = cards_dir(settings)
        cards = load_cards(directory)
        bm25 = None
        store = BM25Store(directory / "bm25")
        if cards and store.stored_tokenizer() is not None:
            try:
                bm25 = store.load()
            except IndexingError as exc:
                log.warning("card BM25 unavailable: %s", exc)
        if not cards:
            log.info("no sutta cards in %s: run `scholar ingest` to build them", directory)
        vectors, names = _read_vectors(settings) if dense and cards else (None, None)
        return cls(cards, bm25, vectors, names)

    def reload_vectors(self, settings) -> None:
        """Read the card vectors again (the semantic phase of an ingest has added some), swapping them in whole
        so a search running meanwhile sees either the old or the new ones."""
        vectors, names = _read_vectors(settings) if self.cards else (None, None)
        self.ids, self.matrix = vectors if vectors is not None else ([], None)
        self.name_ids, self.name_matrix = names if names is not None else ([], None)

    def __len__(self) -> int:
        return len(self.cards)

    def search_bm25(self, weights: dict[str, float], k: int = CARD_CANDIDATES) -> list[tuple[str, float]]:
        if self.bm25 is None:
            return []
        scores = self.bm25.weighted_scores(weights)
        return _top(self.bm25.ids, scores, k)

    def search_dense(self, vector, k: int = CARD_CANDIDATES) -> list[tuple[str, float]]:
        """Cards by cosine of the whole card with the query."""
        return _cosine_top(self.ids, self.matrix, vector, k)

    def search_names(self, vector, k: int = CARD_CANDIDATES) -> list[tuple[str, float]]:
        """Cards by cosine of their name alone with the query: how one title is matched with another."""
        return _cosine_top(self.name_ids, self.name_matrix, vector, k)


def _cosine_top(ids: list[str], matrix, vector, k: int) -> list[tuple[str, float]]:
    if matrix is None or vector is None:
        return []
    q = np.asarray(vector, dtype=np.float32)
    q /= np.linalg.norm(q) + 1e-9
    return _top(ids, matrix @ q, k)


def _top(ids: list[str], scores, k: int) -> list[tuple[str, float]]:
    if scores is None or not len(ids):
        return []
    k = min(k, len(ids))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top])]
    return [(ids[i], float(scores[i])) for i in top if scores[i] > 0]


Vectors = tuple[list[str], np.ndarray]


def _read_vectors(settings) -> tuple[Vectors | None, Vectors | None]:
    """(card vectors, name vectors), each as ids and a unit-normalised matrix, read from Chroma once."""
    try:
        ids, m = open_card_vectors(settings).embeddings()
    except Exception as exc:  # Chroma in any state: cards then work on BM25 alone
        log.warning("sutta card vectors unavailable (%s); cards searched by BM25 only", exc)
        return None, None
    if not ids:
        return None, None
    is_name = np.array([i.endswith(NAME_SUFFIX) for i in ids])
    cards = ([i for i in ids if not i.endswith(NAME_SUFFIX)], m[~is_name])
    names = ([i.removesuffix(NAME_SUFFIX) for i in ids if i.endswith(NAME_SUFFIX)], m[is_name])
    return (cards if cards[0] else None), (names if names[0] else None)


# ---- from suttas to passages ----------------------------------------------------------------------------------
def card_rankings(library, weights: dict[str, float], vector) -> dict[str, list[tuple[str, float]]]:
    """The suttas whose cards match the query: {"card_bm25": [(doc_id, score)], "card_dense": [...],
    "card_name": [...]} (BM25 over the field-weighted card, cosine with the whole card, with its name alone)."""
    cards = library.cards
    if not len(cards):
        return {}
    ranked = {"card_bm25": cards.search_bm25(weights)}
    if vector is not None:
        ranked["card_dense"] = cards.search_dense(vector)
        ranked["card_name"] = cards.search_names(vector)
    return {name: hits for name, hits in ranked.items() if hits}


def best_passages(library, doc_ids: list[str], fused: dict[str, float], weights: dict[str, float], vector,
                  allowed: set[str] | None = None) -> dict[str, str]:
    """doc_id -> the chunk of that sutta that best matches the query: its best-fused chunk when passage search
    found one, else the chunk inside it that BM25 and the dense vector like best together. Suttas whose chunks
    are all outside `allowed` (a collection filter) are left out."""
    homes = library.chunk_homes
    found: dict[str, tuple[float, str]] = {}
    wanted = set(doc_ids)
    for cid, score in fused.items():
        doc = homes.get(cid, ("", ""))[0]
        if doc in wanted and (doc not in found or found[doc][0] < score):
            found[doc] = (score, cid)
    out = {doc: cid for doc, (_, cid) in found.items()}
    missing = [d for d in doc_ids if d not in out]
    if not missing:
        return out
    bm25_all = library.bm25.weighted_scores(weights)
    rows = library.bm25_rows if bm25_all is not None else {}
    matrix = library.matrix() if vector is not None else None
    q = None
    if matrix is not None:
        q = np.asarray(vector, dtype=np.float32)
        q /= np.linalg.norm(q) + 1e-9
    for doc in missing:
        ids = [c for c in library.chunk_ids_of(doc) if allowed is None or c in allowed]
        if not ids:
            continue
        together = np.zeros(len(ids), dtype=np.float32)
        if bm25_all is not None:
            b = np.array([bm25_all[rows[c]] if c in rows else 0.0 for c in ids], dtype=np.float32)
            together += b / (b.max() or 1.0)
        if matrix is not None:
            _, row, m = matrix
            have = [i for i, c in enumerate(ids) if c in row]
            if have:
                together[have] += m[[row[ids[i]] for i in have]] @ q
        out[doc] = ids[int(np.argmax(together))]
    return out
