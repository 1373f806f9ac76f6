"""The share of each question's key facts held by the lines the selection chooses, without the model.

    PYTHONPATH=. python bench/selection_facts.py ../shared/eval/answers-dev.jsonl \
        ../shared/eval/external2-answers-dev.jsonl

Runs the Scholar's deterministic part (analysis, plan, the planned tool calls) and `select_lines` with
`use_model=False`, then matches the `must` groups as `scholar eval answers` does against the chosen lines' text: a
change to the selection can be measured in seconds a question, before the slower eval with the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from chat.evals.answers import _fold
from chat.pipeline.conversation import resolve
from chat.pipeline.scholar import QA_BUDGET, _run_step
from chat.pipeline.select import select_lines
from indexing.settings import ScholarSettings
from tools.errors import ToolError
from tools.function_tools import CanonTools
from tools.library import Library
from tools.search.query import analyse_query
from tools.turn import TurnRecorder


def share(must: list[list[str]], text: str) -> float:
    folded = _fold(text)
    return sum(any(_fold(alt) in folded for alt in group) for group in must) / len(must) if must else 1.0


def selected(library, question: str) -> tuple[CanonTools, list]:
    """The turn's tools after the planned calls for `question` (their recorder holds the candidate windows), and the
    windows `select_lines` chooses among them without the model."""
    _, plan = resolve(library, analyse_query(library, question), [], mode="auto")
    canon = CanonTools(library, TurnRecorder(), QA_BUDGET, llm=None, verifier_mode="local")
    for step in plan.steps:
        try:
            _run_step(canon, step)
        except ToolError:
            continue
    return canon, asyncio.run(select_lines(None, canon, question, use_model=False)).chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path, nargs="+")
    args = parser.parse_args(argv)
    library = Library.open(ScholarSettings())
    shares: list[float] = []
    per_file: list[str] = []
    for path in args.questions:
        own: list[float] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            _, chosen = selected(library, row["question"])
            own.append(share(row.get("must") or [], " ".join(w.text for w in chosen)))
            sys.stdout.write(f"{row['id']}  {own[-1]:.2f}  {[w.ref for w in chosen]}\n")
        shares += own
        if own:
            per_file.append(f"{path.name}: {sum(own) / len(own):.3f} over {len(own)}")
    sys.stdout.write("".join(f"{line}\n" for line in per_file))
    sys.stdout.write(f"mean {sum(shares) / len(shares):.3f} over {len(shares)} questions\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
