"""Whether the lines the selection chooses hold the line a question's answer is in, without the model writing.

    PYTHONPATH=. python bench/line_selection.py ../shared/eval/external-dev.jsonl ../shared/eval/external2-dev.jsonl \
        ../shared/eval/external2-answers-dev.jsonl [--likelihood] [--json out.json]

The readers' question files give, for each question, the segment or segments that hold its answer
(`evidence_segments`, or `evidence_segment`). For each question this runs the Scholar's deterministic part (analysis,
plan, the planned tool calls) and `select_lines` with `use_model=False`. Over the questions whose answer line some
candidate window holds, it reports by half (even / odd lines of each file):
- `chosen`: a chosen window holds it;
- `ranked first`: the candidate the selection's scores put first holds it;
- with `--likelihood` (the embedded model), `likelihood first`: the candidate after which the model finds the
  question likeliest holds it (the text judge's query likelihood, `prompts/text_question.md`, applied to lines).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from selection_facts import selected  # bench/, the script's own folder

from chat.pipeline.select import _ranked
from indexing.settings import ScholarSettings
from prompts import load_prompt
from tools.library import Library
from tools.passages import clip
from tools.search.shapes import shape_of
from tools.search.text_judge import LINE_CHARS, SYSTEM
from tools.verification.judge import chatml


def gold_of(row: dict) -> set[str]:
    return set(row.get("evidence_segments") or ([row["evidence_segment"]] if row.get("evidence_segment") else []))


def holds(window, gold: set[str]) -> bool:
    return any(s in gold for s in window.seg_ids)


def likelihood(scorer, question: str, window) -> float:
    lines = clip(" ".join(window.text.replace("<j>", " ").split()), LINE_CHARS)
    prompt = chatml(SYSTEM, load_prompt("text_question", text=window.ref, lines=lines).strip())
    return sum(lp for _, lp in scorer.continuation_logprobs(prompt, question))


def run(library, row: dict, scorer=None) -> dict:
    question, gold = row["question"], gold_of(row)
    canon, chosen = selected(library, question)
    ranked = _ranked(canon.recorder.evidence, shape_of(question))
    out = {"id": row["id"], "candidate": any(holds(w, gold) for w in ranked),
           "chosen": any(holds(w, gold) for w in chosen), "ranked_first": bool(ranked) and holds(ranked[0], gold),
           "refs": [w.ref for w in chosen], "gold": sorted(gold)}
    if scorer is not None and out["candidate"]:
        scores = [likelihood(scorer, question, w) for w in ranked]
        best = max(range(len(ranked)), key=lambda i: scores[i])
        out["likelihood_first"] = holds(ranked[best], gold)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions", type=Path, nargs="+")
    parser.add_argument("--likelihood", action="store_true", help="also rank the candidates by query likelihood")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    settings = ScholarSettings()
    library = Library.open(settings)
    scorer = None
    if args.likelihood:
        from chat.providers.embedded import build_embedded_llm

        scorer = build_embedded_llm(settings)
    out = []
    for path in args.questions:
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        for k, row in enumerate(rows):
            if not gold_of(row):
                continue
            result = run(library, row, scorer) | {"file": path.stem, "half": "even" if k % 2 == 0 else "odd"}
            out.append(result)
            sys.stdout.write(f"{result['id']:6} candidate={result['candidate']!s:5} chosen={result['chosen']!s:5} "
                             f"ranked_first={result['ranked_first']!s:5} "
                             f"likelihood_first={result.get('likelihood_first', '-')!s:5} {result['refs']}\n")
    keys = ["chosen", "ranked_first"] + (["likelihood_first"] if scorer is not None else [])
    for half in ("even", "odd", None):
        rows = [r for r in out if r["candidate"] and (half is None or r["half"] == half)]
        if rows:
            figures = ", ".join(f"{key} {sum(r[key] for r in rows) / len(rows):.3f}" for key in keys)
            sys.stdout.write(f"{half or 'all'}: {len(rows)} questions with the line among the candidates; {figures}\n")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
