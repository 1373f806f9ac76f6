"""How should the model's judgement of the first text combine with the search's order? (issue #26)

    PYTHONPATH=. SCHOLAR_LLM_PROVIDER=embedded python bench/text_judge_rules.py \
        --questions ../shared/eval/{external2-dev,external-dev,retrieval-dev,canon-dev}.jsonl \
        --cache bench/out/text_judge_scores.jsonl

For every question with gold (no gate: each is judged), the candidates — the hybrid search's first three texts and
the sutta cards' first two it did not already have (BM25 and whole-card vectors fused, name vectors left out) — are
scored by `TextJudge` (the question's log-likelihood after each text's title, blurb and best lines), cached in
`--cache`. Then each rule is scored on the fit (even) and report (odd) halves of each file: the search alone;
`argmax` (the likeliest text first); `sort` (the candidates by likelihood, then the rest); `place c` (the likeliest
after c nats a place climbed: the rule built, `PLACE_COST`); `margin m` (the likeliest first only when it beats the
search's first by m nats). The rule is chosen by the mean MRR of the fit halves.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from chat.evals.retrieval import load_questions, ranked_suttas
from chat.providers.embedded import build_embedded_llm
from indexing.settings import ScholarSettings
from indexing.text import tokenize
from tools.library import Library
from tools.search.bridges import bridge_plan
from tools.search.cards import card_rankings
from tools.search.query import analyse_query
from tools.search.retriever import rrf, search
from tools.search.text_judge import TextJudge, candidates

RULES = [("search", 0.0), ("argmax", 0.0), ("sort", 0.0), ("place", 1.0), ("place", 2.0), ("place", 4.0),
         ("margin", 1.0), ("margin", 3.0), ("margin", 5.0), ("margin", 8.0)]


def _sid(library, doc_id: str) -> str:
    doc = library.docstore.document(doc_id)
    return doc.sutta_id if doc and doc.sutta_id else doc_id


def score_all(library, judge: TextJudge, files: dict[str, list[dict]], cache: Path) -> list[dict]:
    done = {(r["file"], r["id"]): r for r in map(json.loads, cache.read_text().splitlines())} if cache.exists() else {}
    out = []
    for stem, questions in files.items():
        for i, q in enumerate(questions):
            if (stem, q["id"]) in done:
                out.append(done[(stem, q["id"])])
                continue
            result = search(library, q["question"], k=10, mode="hybrid")
            texts = list(dict.fromkeys(p.doc_id for p in result.passages))
            analysis = analyse_query(library, q["question"])
            bridge_plan(library, analysis)
            weights = analysis.bm25_weights or {t: 1.0 for t in tokenize(analysis.bm25_text)}
            lists = card_rankings(library, weights, library.embed_query(analysis.dense_text))
            lists.pop("card_name", None)
            cards = [d for d, _ in sorted(rrf(lists, {}, 10).items(), key=lambda x: -x[1])]
            docs, places = candidates(texts, cards)
            verdict = judge.judge(library, q["question"], docs, places)
            row = {"file": stem, "half": "fit" if i % 2 == 0 else "report", "id": q["id"],
                   "gold": sorted({*q["gold"], *(q.get("also_relevant") or [])}), "pinned": bool(result.pinned_suttas),
                   "search": ranked_suttas(result.passages), "candidates": [_sid(library, d) for d in docs],
                   "places": places, "scores": verdict.scores if verdict else [0.0] * len(docs)}
            with cache.open("a") as f:
                f.write(json.dumps(row) + "\n")
            out.append(row)
            sys.stdout.write(f"{stem} {q['id']}\n")
    return out


def order(row: dict, rule: str, c: float) -> list[str]:
    cands, scores, places, found = row["candidates"], row["scores"], row["places"], row["search"]
    if row["pinned"] or rule == "search" or not cands:
        return found
    if rule == "sort":
        ranked = sorted(range(len(cands)), key=lambda i: -scores[i])
        return [cands[i] for i in ranked] + [s for s in found if s not in cands]
    cost = c if rule == "place" else 0.0
    best = max(range(len(cands)), key=lambda i: (scores[i] - cost * places[i], -places[i]))
    if rule == "margin" and scores[best] - scores[0] < c:
        return found
    return [cands[best]] + [s for s in found if s != cands[best]]


def mrr(rows: list[dict], rule: str, c: float) -> tuple[float, float]:
    ranks = [next((k + 1 for k, s in enumerate(order(r, rule, c)) if s in r["gold"]), None) for r in rows]
    return (statistics.fmean(1.0 if x == 1 else 0.0 for x in ranks),
            statistics.fmean(1 / x if x else 0.0 for x in ranks))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--cache", type=Path, required=True)
    args = ap.parse_args()
    settings = ScholarSettings()
    library = Library.open(settings)
    library.warm()
    judge = TextJudge(build_embedded_llm(settings))
    files = {p.stem: [q for q in load_questions(p) if q.get("gold")] for p in args.questions}
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    rows = score_all(library, judge, files, args.cache)
    for rule, c in RULES:
        cells, fit, report = [], [], []
        for stem in files:
            for half, sink in (("fit", fit), ("report", report)):
                part = [r for r in rows if r["file"] == stem and r["half"] == half]
                if part:
                    h1, m = mrr(part, rule, c)
                    sink.append(m)
                    cells.append(f"{stem} {half} {h1:.2f}/{m:.3f}")
        sys.stdout.write(f"{rule:>7} {c:<4} mean fit MRR {statistics.fmean(fit):.3f}  report "
                         f"{statistics.fmean(report):.3f} | " + "  ".join(cells) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
