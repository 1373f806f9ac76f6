"""Hybrid retrieval: BM25 and dense over the same chunks, weighted reciprocal rank fusion, then dedup and MMR.

The query's analysis comes first (tools/search/query.py): a sutta ID or a confidently resolved title in it puts that
sutta's best passages at the top (the user named it), a collection named in words ("in the Middle Discourses")
boosts that collection, and question boilerplate is dropped before BM25 so "which discourse" does not match
everything.
If the dense side is down the same pipeline runs on BM25 alone and `search_types_used` says so.
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from indexing.models import Chunk
from indexing.vocabulary import BASKETS, COLLECTIONS
from tools.errors import ToolError
from tools.language.words import STOPWORDS, tokenize
from tools.passages import Passage
from tools.references import collection_code
from tools.search.bridges import bridge_plan, pali_ranking
from tools.search.cards import best_passages, card_rankings
from tools.search.query import QUERY_NOISE, QueryAnalysis, analyse_query
from tools.search.text_judge import TextJudge, candidates
from tools.texts.translations import attach_alternatives, collapse

log = logging.getLogger(__name__)

MODES = ("bm25", "dense", "hybrid", "hybrid+rerank", "hybrid+judge")
MODEL_MODES = ("hybrid+judge",)  # modes that need the local model (a `judge`); without one they are hybrid
CANDIDATES = 40  # per retriever, before fusion
POOL = 30  # fused candidates that go on to dedup and MMR
COLLECTION_BOOST = 0.3
BASKET_BOOST = 0.3  # a topic word of one basket ("offence", "training rule") leans the ranking toward it
DEFAULT_BASKET = "sutta"  # what a question that points at no basket asks about (settings.basket_lean)
GENRE_LEAN = 0.15  # "which discourse…" leans away from the verse anthologies, "whose verses…" toward them
SOFT_ALIAS_BOOST = 0.5
DUPLICATE_JACCARD = 0.8
PINNED_POOL = 10  # candidates per named sutta from each of BM25 and dense, before phrase order decides
PHRASE_BOOST = 1.0
CARD_DOCS = 10  # suttas found by their cards that lend their score to their best passage
SEMANTIC_NOTE = "the semantic index"  # how a note about the index being built begins

_WORD = re.compile(r"\w+")
_ASCII_WORD = re.compile(r"[a-z0-9]+")


@dataclass
class SearchResult:
    query: str
    mode: str
    passages: list[Passage]
    search_types_used: list[str]
    pinned_suttas: list[str] = field(default_factory=list)
    boosted_suttas: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    basket: str | None = None  # searched only there (named or asked for), or leaned toward it
    dense_coverage: float | None = None  # the share of passages the dense search covered; None: it did not run
    judged_first: str = ""  # the doc_id the model's judgement moved to first ("": it kept the search's order)

    def answered_by(self) -> str:
        """Which side found the passages, in words: keywords alone, or keywords and meaning (over how much)."""
        if "dense" not in self.search_types_used:
            return "by keywords (BM25)" if self.search_types_used else "by nothing"
        if "bm25" not in self.search_types_used:
            side = "by meaning (dense)"
        else:
            side = "by keywords and meaning (BM25 and dense)"
        if self.dense_coverage is not None and self.dense_coverage < 1:
            side += f", meaning over the {int(100 * self.dense_coverage)}% of passages embedded so far"
        if self.judged_first:
            side += "; the model judged which text the question is about"
        return side


# ---- the two retrievers and their fusion ------------------------------------------------------------
def _bm25(library, query: str | dict[str, float], k: int, allowed: set[str] | None = None) -> list[tuple[str, float]]:
    if isinstance(query, dict):
        return [(h.chunk_id, h.score) for h in library.bm25.search_weighted(query, k=k, allowed=allowed)]
    return [(h.chunk_id, h.score) for h in library.bm25.search(query, k=k, allowed=allowed)]


def _dense(library, text: str, k: int, where: dict | None = None) -> list[tuple[str, float]]:
    try:
        vector = library.embed_query(text)
        cached = library.matrix()
        if cached is not None:
            return _matrix_search(library, cached, vector, k, where)
        hits = library.chroma.search(vector, k=k, where=where)
    except Exception as exc:  # an embedding server or Chroma gone away mid-session: degrade, do not fail the turn
        raise ToolError(f"dense search failed: {type(exc).__name__}: {exc}") from exc
    return [(h.chunk_id, h.score) for h in hits]


def _matrix_search(library, cached, vector, k: int, where: dict | None) -> list[tuple[str, float]]:
    ids, row, m = cached
    q = np.asarray(vector, dtype=np.float32)
    q /= np.linalg.norm(q) + 1e-9
    if where and "doc_id" in where:
        rows = np.array([row[c] for c in library.chunk_ids_of(where["doc_id"]) if c in row], dtype=int)
    elif where:
        members = _members(library, where)
        rows = np.array(sorted(row[c] for c in members if c in row), dtype=int)
    else:
        rows = None
    if rows is not None and not len(rows):
        return []
    scores = m[rows] @ q if rows is not None else m @ q
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    top = top[np.argsort(-scores[top])]
    pick = rows[top] if rows is not None else top
    return [(ids[i], float(scores[j])) for i, j in zip(pick, top)]


def _members(library, where: dict) -> set[str]:
    """The chunk IDs a {"collection": …, "basket": …} filter lets through."""
    sets = []
    if "collection" in where:
        sets.append(library.collection_chunk_ids(where["collection"]))
    if "basket" in where:
        sets.append(library.basket_chunk_ids(where["basket"]))
    return set.intersection(*sets) if sets else set()


def rrf(ranked: dict[str, list[tuple[str, float]]], weights: dict[str, float], k: int) -> dict[str, float]:
    """Weighted reciprocal rank fusion: sum over lists of weight / (k + rank), rank starting at 1."""
    fused: dict[str, float] = {}
    for name, hits in ranked.items():
        w = weights.get(name, 1.0)
        for rank, (cid, _) in enumerate(hits, 1):
            fused[cid] = fused.get(cid, 0.0) + w / (k + rank)
    return fused


def search(
    library,
    query: str,
    k: int | None = None,
    mode: str = "hybrid",
    collection: str | None = None,
    use_names: bool = True,
    pinned_docs: Sequence[str] = (),
    basket: str | None = None,
    judge: TextJudge | None = None,
) -> SearchResult:
    """The top `k` passages for `query` (default settings.retrieval_k), each with its per-stage scores.

    `mode` is one of MODES; `collection` (a code: DN, MN, SN, AN, KN; Vb, Kd, Pvr, Pm) or `basket` (sutta, vinaya)
    restricts the search to it, and a query that names the Vinaya searches only the Vinaya. The suttas the query
    names, and `pinned_docs` before them (doc IDs the caller already resolved), come first with their best
    passages; `use_names=False` searches the words alone. Another translation of a passage is carried beside it
    in `alternatives`, never returned as a hit of its own. A `judge` (the local model) chooses which of the first
    texts, the search's and the cards', comes first (tools/search/text_judge.py)."""
    _check_request(mode, query)
    settings = library.settings
    k = k or settings.retrieval_k
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    analysis = analyse_query(library, query, use_names=use_names, pinned=pinned_docs)
    bridge_plan(library, analysis)
    timings["plan"] = _ms(t0)

    notes = list(analysis.notes)
    want_bm25, want_dense, coverage = _retrievers(library, mode, notes)
    collection, basket, where = _filters(collection, basket, analysis)
    allowed = _filtered_chunks(library, where) if where else None
    ranked, want_dense = _rank(library, analysis, (want_bm25, want_dense), where, allowed, notes, timings)
    used: list[str] = [name for name in ("bm25", "dense", "pali") if name in ranked]
    card_best: dict[str, str] = {}
    pinned, pool = _fuse(library, analysis, ranked, (want_bm25, want_dense), allowed, basket,
                         k if not collection else None, timings, card_best)
    passages = _select(library, pinned, pool, k, want_dense, timings)
    if mode == "hybrid+rerank":
        passages = _rerank(library, query, passages, len(pinned), used, timings)
    judged = ""
    # a text the reader named is theirs to choose, not the model's; and only a question that asks which text it is
    # is about a text as a whole (asked what a text says, the model judged texts by subject, not by answer)
    if judge is not None and not pinned and passages and analysis.asks_which_text:
        passages, judged = _judged(library, judge, query, passages, card_best, k, used, timings)
    timings["total"] = round(sum(timings.values()), 2)
    return SearchResult(
        query=query,
        mode=mode,
        passages=attach_alternatives(library, passages[:k]),
        search_types_used=used,
        pinned_suttas=[_sid(library, d) for d in analysis.pinned_docs],
        boosted_suttas=[_sid(library, d) for d in analysis.boosted_docs],
        collections=[collection] if collection else analysis.collections,
        notes=notes,
        timings_ms=timings,
        basket=basket or analysis.basket,
        dense_coverage=coverage if "dense" in used else None,
        judged_first=judged,
    )


# ---- the steps of one search ------------------------------------------------------------------------
def _check_request(mode: str, query: str) -> None:
    if mode not in MODES:
        raise ToolError(f"unknown search mode {mode!r}; use one of {', '.join(MODES)}")
    if not query.strip():
        raise ToolError("empty search query")


def _retrievers(library, mode: str, notes: list[str]) -> tuple[bool, bool, float | None]:
    """Whether BM25 and dense search run, and the share of passages dense search covers: as the mode asks, BM25
    alone when the dense side is down or has no vector yet (the semantic index is being built), and dense over
    what is embedded so far while it is partial."""
    want_bm25, want_dense = mode != "dense", mode != "bm25"
    if want_dense and not library.dense_ready:
        notes.append(f"dense search unavailable ({library.dense_error}); BM25 only")
        return True, False, None
    coverage = library.dense_coverage() if want_dense else None
    if coverage is not None and coverage <= 0:
        notes.append(f"{SEMANTIC_NOTE} is still being built and has no passage yet; BM25 only")
        return True, False, coverage
    if coverage is not None and coverage < 1:
        notes.append(f"{SEMANTIC_NOTE} is still being built: dense search covers {int(100 * coverage)}% of the "
                     "passages so far")
    return want_bm25, want_dense, coverage


def _filters(collection: str | None, basket: str | None,
             analysis: QueryAnalysis) -> tuple[str | None, str | None, dict[str, str]]:
    """The collection code and basket searched in (asked for, or a basket the query names) and their filter."""
    where: dict[str, str] = {}
    if collection:
        code = collection_code(collection)
        if code is None:
            raise ToolError(f"unknown collection {collection!r}; use one of {', '.join(COLLECTIONS)}")
        collection = code
        where["collection"] = code
    if basket and basket not in BASKETS:
        raise ToolError(f"unknown basket {basket!r}; use sutta or vinaya")
    basket = basket or (analysis.basket if analysis.basket_explicit else None)
    if basket:
        where["basket"] = basket
    return collection, basket, where


def _rank(library, analysis: QueryAnalysis, want: tuple[bool, bool], where: dict[str, str],
          allowed: set[str] | None, notes: list[str],
          timings: dict[str, float]) -> tuple[dict[str, list[tuple[str, float]]], bool]:
    """Each retriever's ranking (BM25, the Pali index when the query has Pali words, dense), and whether dense
    search ran: a dense failure mid-search falls back to BM25."""
    want_bm25, want_dense = want
    ranked: dict[str, list[tuple[str, float]]] = {}
    t0 = time.perf_counter()
    if want_bm25:
        ranked["bm25"] = _bm25(library, analysis.bm25_query, CANDIDATES, allowed)
        if analysis.pali_weights:
            ranked["pali"] = pali_ranking(library, analysis.pali_weights, CANDIDATES, allowed)
    timings["bm25"] = _ms(t0)
    t0 = time.perf_counter()
    if want_dense:
        try:
            ranked["dense"] = _dense(library, analysis.dense_text, CANDIDATES, where or None)
        except ToolError as exc:
            log.warning("%s; continuing with BM25", exc)
            notes.append(f"{exc}; BM25 only")
            want_dense = False
            if "bm25" not in ranked:
                ranked["bm25"] = _bm25(library, analysis.bm25_query, CANDIDATES, allowed)
    timings["dense"] = _ms(t0)
    return ranked, want_dense


def _fuse(library, analysis: QueryAnalysis, ranked: dict[str, list[tuple[str, float]]], want: tuple[bool, bool],
          allowed: set[str] | None, basket: str | None, pin_k: int | None, timings: dict[str, float],
          card_best: dict[str, str]) -> tuple[list[Passage], list[Passage]]:
    """The named suttas' passages (`pin_k` None: none, a collection was asked for) and the fused pool after them,
    each with its per-stage scores: rankings fused, cards, boosts and the query's phrases applied. `card_best`
    receives the suttas the cards found, best first, each with its best passage."""
    settings = library.settings
    want_bm25, want_dense = want
    t0 = time.perf_counter()
    weights = {"bm25": settings.bm25_weight, "dense": settings.dense_weight, "pali": settings.pali_weight}
    fused = collapse(library.translations, rrf(ranked, weights, settings.rrf_k))
    stage = {name: dict(hits) for name, hits in ranked.items()}
    card_scores = _card_scores(library, analysis, fused, want_bm25, want_dense, allowed, card_best)
    timings["cards"] = _ms(t0)
    lean = _basket_lean(settings, analysis, basket)
    for doc_boost, factor in _boosts(library, analysis, fused, lean).items():
        fused[doc_boost] *= factor

    pinned_scores = _pinned(library, analysis, weights, want_bm25, want_dense, pin_k) if pin_k is not None else {}
    pinned_ids = list(pinned_scores)
    pool_ids = [cid for cid, _ in sorted(fused.items(), key=lambda x: -x[1]) if cid not in pinned_ids][:POOL]
    chunks = {c.chunk_id: c for c in library.docstore.chunks(pinned_ids + pool_ids)}
    for cid, factor in phrase_factors(analysis.dense_text, {c: chunks[c] for c in pool_ids if c in chunks}).items():
        fused[cid] *= factor
    pool_ids.sort(key=lambda c: -fused[c])
    timings["fuse"] = _ms(t0)

    def passage(cid: str) -> Passage:
        p = Passage.from_chunk(chunks[cid])
        if cid in pinned_scores:
            p.scores = {name: round(v, 5) for name, v in pinned_scores[cid].items()}
            p.scores["pinned"] = 1.0
            return p
        for name in ("bm25", "dense", "pali"):
            if cid in stage.get(name, {}):
                p.scores[name] = round(stage[name][cid], 4)
        if cid in card_scores:
            p.scores["card"] = round(card_scores[cid], 5)
        p.scores["fused"] = round(fused.get(cid, 0.0), 5)
        return p

    return [passage(cid) for cid in pinned_ids if cid in chunks], [passage(cid) for cid in pool_ids if cid in chunks]


def _select(library, pinned: list[Passage], pool: list[Passage], k: int, want_dense: bool,
            timings: dict[str, float]) -> list[Passage]:
    """The named suttas' passages, then the pool's near-duplicates dropped and MMR's pick of the rest, by score."""
    t0 = time.perf_counter()
    pool = dedup(pool, keep=pinned)
    vectors = library.vectors([p.chunk_id for p in pool]) if want_dense else {}
    # MMR decides which passages make the cut (diversity); they are shown by relevance, so the ranks a reader
    # sees agree with the scores shown beside them.
    rest = mmr(pool, max(k - len(pinned), 0), library.settings.mmr_lambda, vectors)
    rest.sort(key=lambda p: p.scores.get("fused", 0.0), reverse=True)
    timings["dedup_mmr"] = _ms(t0)
    top = max((p.scores["fused"] for p in rest), default=0.0) or 1.0
    for p in rest:
        p.scores["final"] = round(p.scores["fused"] / top, 4)
    for p in pinned:
        p.scores["final"] = 1.0  # named by the user: above any retrieval score
    return pinned + rest


def _rerank(library, query: str, passages: list[Passage], keep_first: int, used: list[str],
            timings: dict[str, float]) -> list[Passage]:
    from tools.search.rerank import rerank

    t0 = time.perf_counter()
    reranker = library.reranker()
    passages = rerank(reranker, query, passages, library.settings.rerank_weight, keep_first=keep_first)
    if reranker.name != "none":
        used.append(f"rerank:{reranker.name}")
    timings["rerank"] = _ms(t0)
    return passages


def _judged(library, judge: TextJudge, query: str, passages: list[Passage], card_best: dict[str, str], k: int,
            used: list[str], timings: dict[str, float]) -> tuple[list[Passage], str]:
    """The passages with the text the judge chose first (its passages in the search's order; a text only the cards
    found enters with its best passage, and the last passage makes room), and that text's doc_id when it moved."""
    t0 = time.perf_counter()
    texts = list(dict.fromkeys(p.doc_id for p in passages))
    if card_best and next(iter(card_best)) == texts[0]:
        # the passages and the cards, found apart, agree on the first text: on the dev files the model moved 6 of
        # 59 such texts, as often wrongly as rightly, for seconds of the reader's time
        return passages, ""
    docs, places = candidates(texts, list(card_best))
    verdict = judge.judge(library, query, docs, places) if len(docs) > 1 else None
    timings["judge"] = _ms(t0)
    if verdict is None:
        return passages, ""
    used.append("judge")
    score = dict(zip(verdict.doc_ids, verdict.scores))
    if verdict.winner not in texts:
        chunk = library.docstore.chunk(card_best[verdict.winner])
        if chunk is None:
            return passages, ""
        passages = [Passage.from_chunk(chunk, card=1.0, final=1.0), *passages[:k - 1]]
    for p in passages:
        if p.doc_id in score:
            p.scores["judge"] = score[p.doc_id]
    first = [p for p in passages if p.doc_id == verdict.winner]
    return first + [p for p in passages if p.doc_id != verdict.winner], verdict.winner if verdict.moved else ""


def _sid(library, doc_id: str) -> str:
    doc = library.docstore.document(doc_id)
    return doc.sutta_id if doc and doc.sutta_id else doc_id


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def _basket_lean(settings, analysis: QueryAnalysis, basket: str | None) -> tuple[str, float] | None:
    """(basket, boost) the ranking leans to: the one a topic word points at ("which offence…"), else, when the
    question points at neither, the sutta basket by settings.basket_lean; None when the search is confined to a
    basket already."""
    if basket:
        return None
    if analysis.basket:
        return analysis.basket, BASKET_BOOST
    if settings.basket_lean:
        return DEFAULT_BASKET, settings.basket_lean
    return None


def _boosts(library, analysis: QueryAnalysis, fused: dict[str, float],
            lean: tuple[str, float] | None) -> dict[str, float]:
    """chunk_id -> multiplier for soft hints: a collection named in words, the basket leaned to (a topic word such
    as "offence", or by default the suttas), the kind of text asked for (a discourse or verses), a title matched
    without a cue."""
    if not fused or not (analysis.collections or analysis.boosted_docs or lean or analysis.genre):
        return {}
    homes = library.chunk_homes
    verse_docs = library.verse_chunk_ids() if analysis.genre else frozenset()
    factors: dict[str, float] = {}
    for cid in fused:
        doc_id, coll, bsk = homes.get(cid, ("", "", ""))
        f = 1.0
        if cid in verse_docs:
            f *= (1 + GENRE_LEAN) if analysis.genre == "verse" else 1 / (1 + GENRE_LEAN)
        if analysis.collections and coll in analysis.collections:
            f *= 1 + COLLECTION_BOOST
        if lean and bsk == lean[0]:
            f *= 1 + lean[1]
        if doc_id in analysis.boosted_docs:
            f *= 1 + SOFT_ALIAS_BOOST * analysis.boosted_docs[doc_id]
        if f != 1.0:
            factors[cid] = f
    return factors


def _card_scores(library, analysis: QueryAnalysis, fused: dict[str, float], want_bm25: bool, want_dense: bool,
                 allowed: set[str] | None, card_best: dict[str, str]) -> dict[str, float]:
    """Suttas found as wholes by their cards (title, names, blurb, first lines): their card rankings fuse by RRF
    into one sutta score s in (0, 1] (1 for the best), and card_weight * s / (rrf_k + 1) — that share of a
    first-ranked list — is added to the sutta's best passage, found among the passage candidates or inside the
    sutta. Returns chunk_id -> s for the passages that received it; `card_best` is filled with doc_id -> that
    passage, best sutta first."""
    settings = library.settings
    if not settings.card_weight:
        return {}
    vector = None
    if want_dense:
        try:
            vector = library.embed_query(analysis.dense_text)  # cached: the passage search embedded it already
        except ToolError:
            vector = None
    weights = analysis.bm25_weights or {t: 1.0 for t in tokenize(analysis.bm25_text)}
    lists = card_rankings(library, weights if want_bm25 else {}, vector)
    if not lists:
        return {}
    docs = rrf(lists, {"card_bm25": settings.card_bm25_weight, "card_dense": settings.card_dense_weight,
                       "card_name": settings.card_name_weight}, settings.rrf_k)
    top = sorted(docs.items(), key=lambda x: -x[1])[:CARD_DOCS]
    if not top or top[0][1] <= 0:
        return {}
    share = {doc: score / top[0][1] for doc, score in top}
    out: dict[str, float] = {}
    best = best_passages(library, list(share), fused, weights, vector, allowed)
    for doc, cid in ((d, best[d]) for d in share if d in best):  # the cards' order, best sutta first
        fused[cid] = fused.get(cid, 0.0) + settings.card_weight * share[doc] / (settings.rrf_k + 1)
        out[cid] = share[doc]
        card_best[doc] = cid
    return out


def _pinned(library, analysis: QueryAnalysis, weights, want_bm25: bool, want_dense: bool, k: int) -> dict[str, dict]:
    """The best passages of each sutta the user named, searched within that sutta; its opening if nothing matches.
    Returns chunk_id -> that chunk's scores within its sutta, in display order."""
    if not analysis.pinned_docs:
        return {}
    per_doc = max(1, min(3, k // (2 * len(analysis.pinned_docs))))
    pool = max(per_doc * 3, PINNED_POOL)
    out: dict[str, dict] = {}
    for doc_id in analysis.pinned_docs[:6]:
        ids = library.chunk_ids_of(doc_id)
        if not ids:
            continue
        inside: dict[str, list[tuple[str, float]]] = {}
        if want_bm25:
            inside["bm25"] = _bm25(library, analysis.bm25_query, pool, set(ids))
        if want_dense:
            try:
                inside["dense"] = _dense(library, analysis.dense_text, pool, {"doc_id": doc_id})
            except ToolError:
                pass
        fused = rrf(inside, weights, library.settings.rrf_k)
        # inside one long sutta many chunks share the question's words; the one that has them in order
        # ("the noble truth of the origin of suffering") is the one asked about
        candidates = {c.chunk_id: c for c in library.docstore.chunks(list(fused))}
        for cid, factor in phrase_factors(analysis.dense_text, candidates).items():
            fused[cid] *= factor
        members = set(ids)
        best = [cid for cid, _ in sorted(fused.items(), key=lambda x: -x[1]) if cid in members]
        for cid in (best or ids)[:per_doc]:
            if cid in out:
                continue
            scores = {name: dict(hits)[cid] for name, hits in inside.items() if cid in dict(hits)}
            scores["fused"] = fused.get(cid, 0.0)
            out[cid] = scores
    return out


def _words(text: str) -> list[str]:
    # C-speed folding (NFKD + ASCII) for the per-query pass over candidate texts; query and passages share it
    flat = unicodedata.normalize("NFKD", text.replace("’", "'")).encode("ascii", "ignore").decode().lower()
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
            for w in _ASCII_WORD.findall(flat) if w not in STOPWORDS and w not in QUERY_NOISE]


def _bigrams(words: list[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def phrase_factors(query: str, chunks: dict[str, Chunk]) -> dict[str, float]:
    """chunk_id -> 1 + PHRASE_BOOST * (share of the query's word pairs found in the passage, in order).
    Questions about content often quote or closely paraphrase the text ("a large peg with a finer peg"); BM25
    and a small embedding model both ignore word order, so adjacent pairs are the cheap signal they miss."""
    wanted = _bigrams(_words(query))
    if not wanted:
        return {}
    out = {}
    for cid, chunk in chunks.items():
        share = len(wanted & _bigrams(_words(chunk.text))) / len(wanted)
        if share:
            out[cid] = 1 + PHRASE_BOOST * share
    return out


def _filtered_chunks(library, where: dict[str, str]) -> set[str]:
    ids = _members(library, where)
    if not ids:
        held = ", ".join(c for c in COLLECTIONS if library.collection_chunk_ids(c))
        raise ToolError(f"no passages in {' and '.join(where.values())}; the library holds {held}")
    return ids


# ---- dedup and diversity -----------------------------------------------------------------------------------
def _tokens(p: Passage) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(p.text.lower()) if w not in STOPWORDS)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / (len(a | b) or 1)


def dedup(passages: list[Passage], keep: Sequence[Passage] = ()) -> list[Passage]:
    """Drop near-identical passages (stock text recurring across suttas), best first kept; the others' suttas are
    noted in the kept passage's `also_in`. Passages in `keep` are never dropped, only compared against."""
    kept: list[tuple[Passage, frozenset[str]]] = [(p, _tokens(p)) for p in keep]
    for p in passages:
        toks = _tokens(p)
        twin: Passage | None = None
        twin_toks: frozenset[str] = frozenset()
        for q, qt in kept:
            # Jaccard >= t needs the smaller set to be at least t of the larger: skip the rest unexamined
            if toks and qt and min(len(toks), len(qt)) >= DUPLICATE_JACCARD * max(len(toks), len(qt)) \
                    and _jaccard(toks, qt) >= DUPLICATE_JACCARD:
                twin, twin_toks = q, qt
                break
        if twin is None:
            kept.append((p, toks))
        elif p.sutta_id and p.sutta_id != twin.sutta_id and p.sutta_id not in twin.also_in:
            twin.also_in.append(p.sutta_id)
            # citable in the kept one's place only if it holds every word of it: Dhp 277 and 278 differ in one
            # word ("impermanent" / "suffering") and are near-duplicates, but not the same claim
            if twin_toks <= toks:
                twin.twins.append(p)
    return [p for p, _ in kept[len(keep):]]


def mmr(passages: list[Passage], k: int, lam: float, vectors: dict[str, list[float]]) -> list[Passage]:
    """Maximal marginal relevance over the fused scores: relevance vs similarity to what is already chosen
    (cosine of the stored vectors, or word overlap when vectors are unavailable)."""
    if k <= 0 or not passages:
        return []
    n = len(passages)
    rel = np.array([p.scores.get("fused", 0.0) for p in passages], dtype=float)
    rel = rel / (rel.max() or 1.0)
    if vectors and all(p.chunk_id in vectors for p in passages):
        m = np.array([vectors[p.chunk_id] for p in passages], dtype=float)
        m /= np.linalg.norm(m, axis=1, keepdims=True) + 1e-9

        def sim_to(j: int) -> np.ndarray:
            return m @ m[j]
    else:
        toks = [_tokens(p) for p in passages]

        def sim_to(j: int) -> np.ndarray:
            return np.array([_jaccard(toks[i], toks[j]) for i in range(n)])

    # the closest chosen passage's similarity, updated one chosen passage at a time: O(n·k), not O(n²)
    nearest = np.zeros(n)
    available = np.ones(n, dtype=bool)
    chosen: list[int] = []
    while len(chosen) < min(k, n):
        scores = np.where(available, lam * rel - (1 - lam) * nearest, -np.inf)
        best = int(np.argmax(scores))
        chosen.append(best)
        available[best] = False
        nearest = np.maximum(nearest, sim_to(best))
    return [passages[i] for i in chosen]
