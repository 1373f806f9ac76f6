"""Choose the pseudo-relevance feedback settings (RM3, `tools/search/feedback.py`) on the fit halves only.

    PYTHONPATH=. python bench/sweep_prf.py --questions ../shared/eval/external-dev.jsonl \
        ../shared/eval/external2-dev.jsonl ../shared/eval/retrieval-dev.jsonl ../shared/eval/canon-dev.jsonl \
        [--json bench/out/sweep-prf.json]

Each file is split as `bench/ablate.py` splits it (even lines fit, odd lines report). Every grid point is scored
on both halves, but the choice is the grid point with the best mean fit-half MRR over the files (ties: fewer
feedback passages, then fewer words, then the lighter weight); its report halves are what `docs/evaluation.md`
states.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from pathlib import Path

from bench.ablate import _apply, _figures
from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import search

DOCS = (10, 20)
TERMS = (10, 30)
WEIGHTS = (0.1, 0.3)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    base = ScholarSettings()
    library = Library.open(base)
    library.warm()
    files = {p.stem: [q for q in load_questions(p) if q.get("gold")] for p in args.questions}
    grid = [(0, 10, 0.0)] + [p for p in itertools.product(DOCS, TERMS, WEIGHTS) if p[0]]
    out = []
    for docs, terms, weight in grid:
        _apply(library, base, {"prf_docs": docs, "prf_terms": terms, "prf_weight": weight})
        row: dict = {"docs": docs, "terms": terms, "weight": weight, "files": {}}
        for stem, questions in files.items():
            rows = [score_question(ranked_suttas(search(library, q["question"], k=args.k, mode="hybrid").passages),
                                   q["gold"], q.get("also_relevant") or [], args.k) for q in questions]
            row["files"][stem] = {"fit": _figures(rows[0::2]), "report": _figures(rows[1::2])}
        row["fit_mrr"] = round(statistics.fmean(f["fit"]["mrr"] for f in row["files"].values()), 4)
        row["report_mrr"] = round(statistics.fmean(f["report"]["mrr"] for f in row["files"].values()), 4)
        out.append(row)
        sys.stdout.write(f"docs {docs:>2} terms {terms:>2} weight {weight:.2f}  fit {row['fit_mrr']:.3f}  "
                         + "  ".join(f"{s}: {f['fit']['mrr']:.3f} / {f['report']['mrr']:.3f}"
                                     for s, f in row["files"].items()) + "\n")
        sys.stdout.flush()
    _apply(library, base, {})
    best = max(out, key=lambda r: (r["fit_mrr"], -r["docs"], -r["terms"], -r["weight"]))
    sys.stdout.write(f"chosen on the fit halves: docs {best['docs']} terms {best['terms']} weight {best['weight']}\n")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"grid": out, "chosen": best}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
