"""Re-check, with today's verifier, every sentence of the answer's own in a saved `eval answers` run: kept ones and
removed ones, each against its cited text and with its question, strictly (local checks, no model). A change to the
checks can then be read sentence by sentence on real answers, before the slower re-run of the whole eval.

    PYTHONPATH=. python bench/recheck_answers.py --answers bench/out/eval-answers-answers-dev.json \
        --questions ../shared/eval/answers-dev.jsonl > before.txt
    (change the checks, run it again > after.txt; diff before.txt after.txt)

One line per sentence: the question's id, the verdict, the sentence, and the reason it was not supported.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from chat.evals.claims import turn_passages
from indexing.settings import ScholarSettings
from tools.library import Library

_CITED = re.compile(r"([^\[\]]+?)\s*\[([^\]]+)\]")


def own_sentences(result: dict) -> list[tuple[str, str]]:
    """(sentence, reference) of the answer's own lines (not the quoted passages) and of its removed sentences."""
    own = [line for line in result.get("answer", "").split("\n")
           if line.strip() and not line.startswith(">") and not line.startswith("The texts I have")]
    items = _CITED.findall(" ".join(own))
    items += [(u["sentence"], u.get("evidence_ref") or "") for u in result.get("unsupported") or []]
    return [(s.strip().strip("“”\" "), ref) for s, ref in items if ref and ":" in ref and len(s.strip()) >= 20]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=Path, required=True, help="the JSON an `eval answers --json` run wrote")
    parser.add_argument("--questions", type=Path, nargs="+", required=True, help="the questions it was run on")
    args = parser.parse_args(argv)
    questions = {}
    for path in args.questions:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                q = json.loads(line)
                questions[q["id"]] = q["question"]
    library = Library.open(ScholarSettings(), dense=True)
    verifier = library.verifier(dense=True, llm=None, mode="local")
    for result in json.loads(args.answers.read_text(encoding="utf-8"))["results"]:
        for sentence, ref in own_sentences(result):
            passages = turn_passages(library.docstore, verifier.index, [ref.split(":")[0]])
            report = verifier.verify(f"{sentence} [{ref}]", passages, strict=True,
                                     question=questions.get(result["id"], ""))
            verdict = report.verdicts[0] if report.verdicts else None
            sys.stdout.write(f"{result['id']} {verdict.verdict if verdict else '-'} | {sentence[:110]} | "
                             f"{verdict.reason[:60] if verdict else ''}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
