"""Does a text's whole English, searched as one BM25 document, find readers' texts the passage search misses?

    PYTHONPATH=. python bench/whole_text_bm25.py \
        --questions ../shared/eval/{external2-dev,external-dev,retrieval-dev,canon-dev}.jsonl

Builds a BM25 index with one document per text (its chunks joined), then reports hit@1 / MRR of the whole file, the
fit half and the report half (as `bench/ablate.py`: every other question with gold) for: that index alone (the
query's weighted BM25 words, as the passage search builds them), and the hybrid search with it fused in as a fourth
card ranking at weight w (0 = the search as configured).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from fine_windows import hit_mrr  # bench/, the script's own folder

from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.settings import ScholarSettings
from indexing.stores.bm25_store import BM25Store
from tools.library import Library
from tools.search import retriever
from tools.search.bridges import bridge_plan
from tools.search.query import analyse_query
from tools.search.retriever import search

WEIGHTS = (0.0, 0.5, 1.0, 2.0)


def _figures(rows: list[dict]) -> str:
    return f"whole {hit_mrr(rows)}, fit {hit_mrr(rows[0::2])}, report {hit_mrr(rows[1::2])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", nargs="+", required=True, type=Path)
    args = ap.parse_args()
    library = Library.open(ScholarSettings()).warm()
    texts = {doc: " ".join(c.text for c in library.docstore.chunks(ids))
             for doc in library.cards.cards if (ids := library.chunk_ids_of(doc))}
    store = BM25Store(Path(tempfile.mkdtemp()) / "whole")
    store.build(list(texts.items()))
    sutta = {doc: card.sutta_id for doc, card in library.cards.cards.items()}
    weight = {"w": 0.0}
    rankings, fuse = retriever.card_rankings, retriever.rrf

    def with_whole_texts(lib, weights, vector):
        out = rankings(lib, weights, vector)
        if weight["w"] and weights:
            out["whole_text"] = [(h.chunk_id, h.score) for h in store.search_weighted(weights, k=20)]
        return out

    def rrf(ranked, weights, k):
        return fuse(ranked, {**weights, "whole_text": weight["w"]} if "whole_text" in ranked else weights, k)

    retriever.card_rankings, retriever.rrf = with_whole_texts, rrf  # type: ignore[assignment]
    for path in args.questions:
        questions = [q for q in load_questions(path) if q.get("gold")]
        alone = []
        for q in questions:
            plan = analyse_query(library, q["question"])
            bridge_plan(library, plan)
            hits = [sutta.get(h.chunk_id, h.chunk_id) for h in store.search_weighted(plan.bm25_weights, k=10)]
            alone.append(score_question(hits, q["gold"], q.get("also_relevant") or [], 10))
        print(f"{path.stem}: whole texts alone: {_figures(alone)}")
        for w in WEIGHTS:
            weight["w"] = w
            rows = [score_question(ranked_suttas(search(library, q["question"], k=10, mode="hybrid").passages),
                                   q["gold"], q.get("also_relevant") or [], 10) for q in questions]
            print(f"{path.stem}: hybrid + whole texts at weight {w}: {_figures(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
