"""Pseudo-relevance feedback (RM3): the query widened by the words of its own best BM25 passages.

A reader's words differ from the translation's ("compare anger to a saw" for a passage about bandits and a
two-handled saw). The passages BM25 ranks first for the reader's words are mostly about the right thing, and
the words they share say in the library's own vocabulary what the reader meant. RM3 (Lavrenko & Croft's
relevance model, interpolated with the query as Abdul-Jaleel et al. 2004 and Anserini do):

    P(w|R) = sum over the top `docs` passages D of P(w|D) * P(D|Q)

with P(w|D) the word's share of the passage's words and P(D|Q) the passage's BM25 score as a share of the
feedback passages' scores. The `terms` words of highest P(w|R) join the query at `weight` against the query's
own distribution: q'(w) = (1 - weight) * P(w|Q) + weight * P(w|R). Nothing here is a word list: what a word
brings in is what the corpus puts beside it.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)

MIN_TOKEN_LEN = 3  # "ii", "a2": segment numbers and roman numerals in headers are no evidence of a topic


@dataclass(frozen=True)
class Feedback:
    docs: int  # feedback passages; 0 switches the mechanism off
    terms: int  # expansion words kept
    weight: float  # share of the relevance model in the expanded query (RM3's 1 - original query weight)

    @property
    def on(self) -> bool:
        return self.docs > 0 and self.terms > 0 and self.weight > 0


def relevance_model(texts: list[tuple[list[str], float]], terms: int,
                    idf: Callable[[str], float] | None = None) -> dict[str, float]:
    """P(w|R) over the `terms` likeliest words, renormalised to sum to 1. `texts`: each feedback passage's
    analysed tokens and its retrieval score (higher is better). With `idf`, words are chosen and weighed by
    P(w|R) * idf(w): a word every passage has ("one", "mendicant") says nothing about these ones."""
    total = sum(max(score, 0.0) for _, score in texts)
    if total <= 0:
        return {}
    model: dict[str, float] = {}
    for tokens, score in texts:
        words = [t for t in tokens if len(t) >= MIN_TOKEN_LEN and not t.isdigit()]
        if not words or score <= 0:
            continue
        share = score / total
        for word, n in Counter(words).items():
            model[word] = model.get(word, 0.0) + share * n / len(words)
    if idf is not None:
        model = {w: p * idf(w) for w, p in model.items()}
    top = [(w, p) for w, p in sorted(model.items(), key=lambda x: (-x[1], x[0]))[:terms] if p > 0]
    mass = sum(p for _, p in top)
    return {w: p / mass for w, p in top} if mass else {}


def expand(weights: dict[str, float], model: dict[str, float], weight: float) -> dict[str, float]:
    """The query's weighted tokens mixed with the relevance model, scaled so the query's own words keep their
    weights: w'(t) = w(t) + weight / (1 - weight) * W * P(t|R), W the query's total weight (equal in ranking to
    (1 - weight) * P(t|Q) + weight * P(t|R))."""
    if not model or not weights or weight <= 0:
        return dict(weights)
    if weight >= 1:
        weight = 0.999
    scale = weight / (1 - weight) * sum(weights.values())
    out = dict(weights)
    for word, p in model.items():
        out[word] = out.get(word, 0.0) + scale * p
    return out


def feedback_weights(library, weights: dict[str, float], hits: list[tuple[str, float]],
                     fb: Feedback) -> dict[str, float]:
    """`weights` (a query's analysed BM25 tokens) expanded from the first `fb.docs` of `hits` (its BM25 ranking),
    or `weights` unchanged when there is nothing to learn from."""
    if not fb.on or not hits or not weights:
        return weights
    top = hits[: fb.docs]
    chunks = {c.chunk_id: c for c in library.docstore.chunks([cid for cid, _ in top])}
    analyzer = library.bm25.analyzer
    texts = [(analyzer(chunks[cid].embedding_text()), score) for cid, score in top if cid in chunks]
    store = library.bm25

    def idf(word: str) -> float:
        df, n = store.document_frequency(word)
        return math.log((n + 1) / (df + 0.5)) if n else 0.0

    return expand(weights, relevance_model(texts, fb.terms, idf), fb.weight)
