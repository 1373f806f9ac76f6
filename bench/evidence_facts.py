"""Where an answer's facts can come from, without the model: the share of each question's key facts (`must`
groups, matched as `scholar eval answers` matches them) held by the first k evidence windows the pipeline numbers,
and by the key lines it quotes to the reader first.

    PYTHONPATH=. python bench/evidence_facts.py ../shared/eval/answers-dev.jsonl

It runs the Scholar's deterministic part only (analysis, plan, the planned tool calls), so it takes seconds a
question and says whether a missing fact is a matter of evidence (ranking) or of writing (the model, the checks).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from chat.evals.answers import _fold
from chat.pipeline.compose import key_windows, quote_text
from chat.pipeline.conversation import resolve
from chat.pipeline.scholar import QA_BUDGET, _run_step
from indexing.settings import ScholarSettings
from tools.function_tools import CanonTools
from tools.library import Library
from tools.search.query import analyse_query
from tools.turn import TurnRecorder

DEPTHS = (1, 2, 3, 4)


def share(must: list[list[str]], text: str) -> float:
    folded = _fold(text)
    return sum(any(_fold(alt) in folded for alt in group) for group in must) / len(must) if must else 1.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path)
    args = parser.parse_args(argv)
    library = Library.open(ScholarSettings())
    rows = [json.loads(line) for line in args.questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    totals: dict[str, list[float]] = {}
    for row in rows:
        analysis = analyse_query(library, row["question"])
        _, plan = resolve(library, analysis, [], mode="auto")
        recorder = TurnRecorder()
        canon = CanonTools(library, recorder, QA_BUDGET, llm=None, verifier_mode="local")
        for step in plan.steps:
            _run_step(canon, step)
        evidence, must = recorder.evidence, row.get("must") or []
        scores = {"key lines": share(must, " ".join(quote_text(w) for w in key_windows(evidence)))}
        scores |= {f"top {k}": share(must, " ".join(w.text for w in evidence[:k])) for k in DEPTHS}
        for name, value in scores.items():
            totals.setdefault(name, []).append(value)
        refs = " | ".join(f"{w.ref} ({w.score:.2f})" for w in evidence[:4])
        sys.stdout.write(f"{row['id']}  " + "  ".join(f"{n} {v:.2f}" for n, v in scores.items()) + f"  {refs}\n")
    for name, values in totals.items():
        sys.stdout.write(f"{name}: {sum(values) / len(values):.3f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
