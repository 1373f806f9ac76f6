"""Does each retrieval mechanism pay on questions it was not written from? Each mechanism switched off in turn.

    PYTHONPATH=. python bench/ablate.py --questions ../shared/eval/external-dev.jsonl \
        ../shared/eval/external2-dev.jsonl ../shared/eval/retrieval-dev.jsonl ../shared/eval/canon-dev.jsonl \
        [--json bench/out/ablate.json]

Every file is split in two halves by line parity: the even lines are the half a rule may have been fitted on,
the odd lines the half reported (`docs/evaluation.md`). A file no rule was written from (external2-dev, new in
this round) is reported whole as well. For each variant — the configured settings, then one mechanism off — the
hybrid hit@1 and MRR of each half; a mechanism pays where switching it off lowers the reported half.

Only settings change between variants (the index is the configured one, SCHOLAR_INDEX_DIR), so a variant costs a
search per question.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from chat.evals.report import save_report
from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search import retriever
from tools.search.retriever import search

# Each mechanism, and the settings that switch it off. A "module.NAME" key sets a module constant of
# tools/search (a hand-chosen boost that is not a setting) for that variant only.
VARIANTS: dict[str, dict] = {
    "configured": {},
    "no bridges": {"bridge_weight": 0.0},
    "no sutta cards": {"card_weight": 0.0},
    "no aligned Pali": {"pali_weight": 0.0},
    "aligned Pali from 1 Pali word (before)": {"pali_min_words": 1},
    "aligned Pali from 3 Pali words": {"pali_min_words": 3},
    "no phrase-order boost": {"retriever.PHRASE_BOOST": 0.0},
    "no collection-name boost": {"retriever.COLLECTION_BOOST": 0.0},
    "no basket topic-word boost": {"retriever.BASKET_BOOST": 0.0},
    "no genre lean": {"retriever.GENRE_LEAN": 0.0},
    "no soft title boost": {"retriever.SOFT_ALIAS_BOOST": 0.0},
    "no basket lean": {"basket_lean": 0.0},
    "no query-term saturation": {"query_tf_k3": None},
    "no MMR (relevance only)": {"mmr_lambda": 1.0},
    "dense 0 (BM25 side only)": {"dense_weight": 0.0},
    "dense 0.25": {"dense_weight": 0.25},
    "dense 1.0 (equal fusion)": {"dense_weight": 1.0},
    # the MiniLM card vectors' share of the sutta score (issue #26: is the semantic side weighted right?)
    "card dense 0": {"card_dense_weight": 0.0},
    "card dense 2.0": {"card_dense_weight": 2.0},
    "card name 0": {"card_name_weight": 0.0},
    "cards 0.2 (twice the share)": {"card_weight": 0.2},
}


_MODULES = {"retriever": retriever}
_CONSTANTS = {(m, name): getattr(mod, name) for m, mod in _MODULES.items() for name in dir(mod) if name.isupper()}


def _apply(library: Library, base: ScholarSettings, update: dict) -> None:
    for (m, name), value in _CONSTANTS.items():
        setattr(_MODULES[m], name, update.get(f"{m}.{name}", value))
    settings = {k: v for k, v in update.items() if "." not in k}
    library.settings = base.model_copy(update=settings)
    library.bridges.weight = settings.get("bridge_weight", base.bridge_weight)
    library.bridges.query_k3 = settings.get("query_tf_k3", base.query_tf_k3)


def _figures(rows: list[dict]) -> dict:
    if not rows:
        return {"n": 0}
    return {"n": len(rows), "hit@1": round(statistics.fmean(r["hit@1"] for r in rows), 3),
            "hit@5": round(statistics.fmean(r["hit@5"] for r in rows), 3),
            "mrr": round(statistics.fmean(r["mrr"] for r in rows), 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--variants", nargs="+", choices=list(VARIANTS), help="only these (default: all)")
    args = ap.parse_args()
    base = ScholarSettings()
    library = Library.open(base)
    library.warm()
    files = {p.stem: [q for q in load_questions(p) if q.get("gold")] for p in args.questions}
    out: dict[str, dict] = {}
    for name, update in VARIANTS.items():
        if args.variants and name not in args.variants:
            continue
        _apply(library, base, update)
        out[name] = {}
        for stem, questions in files.items():
            rows = []
            for q in questions:
                result = search(library, q["question"], k=args.k, mode="hybrid")
                rows.append(score_question(ranked_suttas(result.passages), q["gold"], q.get("also_relevant") or [],
                                           args.k))
            out[name][stem] = {"fit": _figures(rows[0::2]), "report": _figures(rows[1::2]), "all": _figures(rows)}
        sys.stdout.write(f"{name:<44}" + "  ".join(
            f"{stem}: fit {f['fit'].get('mrr', 0):.3f} / report {f['report'].get('mrr', 0):.3f}"
            for stem, f in out[name].items()) + "\n")
        sys.stdout.flush()
    _apply(library, base, {})
    if args.json:
        save_report(args.json, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
