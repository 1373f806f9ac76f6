"""Does each vocabulary bridge (tools/data/bridges.toml) pay on questions it was not written from? One row off.

    PYTHONPATH=. python bench/ablate_bridges.py --questions ../shared/eval/external-dev.jsonl \
        ../shared/eval/external2-dev.jsonl ../shared/eval/retrieval-dev.jsonl ../shared/eval/canon-dev.jsonl \
        [--json bench/out/ablate-bridges.json]

For every row that bridges at least one question, the questions are searched again with that row removed (the rest
of the table kept), hybrid, k = 10. A question counts in the half of its file (`bench/ablate.py`: even lines fit,
odd lines report). Per row: how many questions it bridges in each half and the MRR change it brings there
(configured minus row removed: positive = the row pays). A row that bridges no question cannot be judged here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from chat.evals.retrieval import load_questions, ranked_suttas, score_question
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.bridges import Bridges, load_bridges
from tools.search.retriever import search


def _mrr(library: Library, q: dict, k: int) -> float:
    result = search(library, q["question"], k=k, mode="hybrid")
    return score_question(ranked_suttas(result.passages), q["gold"], q.get("also_relevant") or [], k)["mrr"]


def _use(library: Library, bridges: Bridges) -> None:
    library._bridges = bridges  # the per-process cache the retriever and the name matcher read
    library._names = None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    library = Library.open(ScholarSettings())
    library.warm()
    full = library.bridges
    rows = load_bridges(library.settings.bridges_file)
    questions = []
    for path in args.questions:
        for i, q in enumerate(x for x in load_questions(path) if x.get("gold")):
            questions.append({**q, "file": path.stem, "half": "fit" if i % 2 == 0 else "report"})
    # which rows bridge which question: a row fires when removing it changes the bridged query
    fired: dict[int, list[int]] = {}
    base_plans = [full.apply(q["question"]) for q in questions]
    for r, row in enumerate(rows):
        without = Bridges([b for b in rows if b is not row], full.english, full.pali, full.weight, full.query_k3)
        for n, q in enumerate(questions):
            plan = without.apply(q["question"])
            if plan.bm25_weights != base_plans[n].bm25_weights or plan.dense_text != base_plans[n].dense_text:
                fired.setdefault(r, []).append(n)
    base = {n: _mrr(library, questions[n], args.k) for ns in fired.values() for n in ns}
    out = []
    for r, ns in sorted(fired.items()):
        row = rows[r]
        _use(library, Bridges([b for b in rows if b is not row], full.english, full.pali, full.weight, full.query_k3))
        entry: dict = {"row": row.sujato[0], "older": list(row.older), "pali": list(row.pali)}
        for half in ("fit", "report"):
            mine = [n for n in ns if questions[n]["half"] == half]
            delta = sum(base[n] - _mrr(library, questions[n], args.k) for n in mine)
            entry[half] = {"questions": len(mine), "mrr_gain": round(delta, 3),
                           "ids": [f"{questions[n]['file']}:{questions[n]['id']}" for n in mine]}
        out.append(entry)
        sys.stdout.write(f"{row.sujato[0]:<32} fit {entry['fit']['questions']} q {entry['fit']['mrr_gain']:+.3f}  "
                         f"report {entry['report']['questions']} q {entry['report']['mrr_gain']:+.3f}\n")
        sys.stdout.flush()
    _use(library, full)
    sys.stdout.write(f"{len(fired)} of {len(rows)} rows bridge a dev question\n")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
