"""Choose the fusion weights, RRF k and bridge weight by cross-validation over several question files at once.

    python bench/tune_fusion.py --questions ../shared/eval/retrieval-dev.jsonl ../shared/eval/external-dev.jsonl \
        [--folds 5] [--vary query_tf_k3,basket_lean] [--json bench/out/tune-fusion.json]

Every question of every file goes into one pool; folds are stratified by file, so each fold holds questions of
each origin. For each fold the grid point with the best objective on the other folds is chosen and scored on the
held-out fold: the mean of those held-out scores estimates how the *procedure* does on unseen questions (the
figure to trust), and the point chosen on all questions is what goes into the settings. The objective is the
mean over files of hybrid MRR, so a file with more questions does not outvote the other (questions written in
the translation's words vs. readers' words). Per-file figures of the final point are printed too. `--vary` searches
only the named settings, the others held at their configured values (the whole grid is ~1,300 points). Among
points that score the same, the first in grid order wins: each list starts with the mechanism off.

Search is the real `tools.search.retriever.search` on the configured index (SCHOLAR_INDEX_DIR); only the settings
change between grid points, and query vectors are cached, so a point costs a few milliseconds a question.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
from pathlib import Path

from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import search

GRID = {
    "dense_weight": [0.0, 0.1, 0.25],
    "rrf_k": [5, 10, 20],
    "card_weight": [0.0, 0.1, 0.25],
    "bridge_weight": [0.3, 0.6, 1.0],
    "query_tf_k3": [None, 0.0, 1.0, 3.0],
    "basket_lean": [0.0, 0.1, 0.2, 0.3],
}


def _points(grid: dict) -> list[dict]:
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def _score(library: Library, base: ScholarSettings, point: dict, questions: list[dict], k: int) -> list[dict]:
    library.settings = base.model_copy(update=point)
    library.bridges.weight = point.get("bridge_weight", base.bridge_weight)
    library.bridges.query_k3 = point.get("query_tf_k3", base.query_tf_k3)
    rows = []
    for q in questions:
        result = search(library, q["question"], k=k, mode="hybrid")
        rows.append(score_question(ranked_suttas(result.passages), q["gold"], q.get("also_relevant") or [], k))
    return rows


def _objective(rows: list[dict], origin: list[str], idx: list[int]) -> float:
    by_file: dict[str, list[float]] = {}
    for i in idx:
        by_file.setdefault(origin[i], []).append(rows[i]["mrr"])
    return statistics.fmean(statistics.fmean(v) for v in by_file.values())


def _folds(origin: list[str], n: int, seed: int = 13) -> list[list[int]]:
    rng = random.Random(seed)
    folds: list[list[int]] = [[] for _ in range(n)]
    for name in sorted(set(origin)):
        members = [i for i, o in enumerate(origin) if o == name]
        rng.shuffle(members)
        for j, i in enumerate(members):
            folds[j % n].append(i)
    return folds


def _summary(rows: list[dict], origin: list[str], name: str) -> dict:
    mine = [r for r, o in zip(rows, origin) if o == name]
    return {m: round(statistics.fmean(r[m] for r in mine), 4) for m in ("hit@1", "hit@5", "mrr")} | {"n": len(mine)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=Path, nargs="+", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", type=Path, dest="json_out")
    parser.add_argument("--vary", default="", help="comma-separated settings to search; default: all of GRID")
    args = parser.parse_args()
    vary = [v.strip() for v in args.vary.split(",") if v.strip()] or list(GRID)
    unknown = [v for v in vary if v not in GRID]
    if unknown:
        parser.error(f"not in the grid: {unknown}; choose from {', '.join(GRID)}")

    base = ScholarSettings()
    library = Library.open(base).warm()
    questions, origin = [], []
    for path in args.questions:
        for q in load_questions(path):
            if q.get("gold"):
                questions.append(q)
                origin.append(path.stem)
    points = _points({k: GRID[k] if k in vary else [getattr(base, k)] for k in GRID})
    sys.stdout.write(f"{len(points)} grid points x {len(questions)} questions ({', '.join(sorted(set(origin)))})\n")
    table = []
    for n, point in enumerate(points, 1):
        table.append(_score(library, base, point, questions, args.k))
        if n % 50 == 0:
            sys.stdout.write(f"  {n}/{len(points)}\n")
            sys.stdout.flush()

    everything = list(range(len(questions)))
    held_out, chosen = [], []
    for fold in _folds(origin, args.folds):
        train = [i for i in everything if i not in set(fold)]
        best = max(range(len(points)), key=lambda p: _objective(table[p], origin, train))
        chosen.append(points[best])
        held_out.append(_objective(table[best], origin, fold))
    final = max(range(len(points)), key=lambda p: _objective(table[p], origin, everything))
    current = {k: getattr(base, k) for k in GRID}
    current_rows = _score(library, base, current, questions, args.k)
    report = {
        "cv_mrr_mean_of_files": round(statistics.fmean(held_out), 4),
        "cv_fold_scores": [round(x, 4) for x in held_out],
        "chosen_per_fold": chosen,
        "final_point": points[final],
        "final_per_file": {name: _summary(table[final], origin, name) for name in sorted(set(origin))},
        "current_settings": current,
        "current_per_file": {name: _summary(current_rows, origin, name) for name in sorted(set(origin))},
    }
    sys.stdout.write(json.dumps(report, indent=2) + "\n")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
