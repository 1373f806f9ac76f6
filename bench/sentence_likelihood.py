"""Which sentence of an answer's quoted lines does the local model find answers the question? A probe of two
likelihood scores over the lines of a saved `eval answers` run (bench/history.md, "pointing to the words that
answer, tried"):
- query likelihood: the question's log-probability after each sentence (as tools/search/text_judge.py scores texts);
- pointwise mutual information: each sentence's log-probability after the question, less after no question.

    HF_HUB_OFFLINE=1 SCHOLAR_LLM_PROVIDER=embedded PYTHONPATH=. python bench/sentence_likelihood.py \
        --answers bench/out/eval-answers-answers-dev.json --questions ../shared/eval/answers-dev.jsonl

Prints, for each question, the three sentences each score puts first, and the seconds each took.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from chat.providers.select import build_llm
from indexing.settings import ScholarSettings
from tools.language.sentences import split_sentences
from tools.verification.judge import chatml

SYSTEM = "You are a helpful assistant."
_QUOTED = re.compile(r"^> “(.*)” \[([^\]]+)\]$", re.MULTILINE)


def sentences_of(answer: str) -> list[str]:
    """The quoted lines' sentences, the text's own questions and scraps of under three words aside."""
    out = []
    for text, _ in _QUOTED.findall(answer):
        for s in split_sentences(text):
            t = s.text.strip().strip("“”\"").strip()
            if not t.rstrip("’' ").endswith("?") and len(t.split()) >= 3:
                out.append(t)
    return list(dict.fromkeys(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=Path, required=True)
    parser.add_argument("--questions", type=Path, nargs="+", required=True)
    args = parser.parse_args(argv)
    questions = {q["id"]: q["question"] for path in args.questions
                 for q in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if q}
    llm: Any = build_llm(ScholarSettings())  # the embedded provider: it scores tokens

    def logprob(prompt: str, continuation: str) -> float:
        return sum(lp for _, lp in llm.continuation_logprobs(prompt, continuation))

    for result in json.loads(args.answers.read_text(encoding="utf-8"))["results"]:
        question = questions[result["id"]]
        candidates = sentences_of(result["answer"])
        asked = chatml(SYSTEM, f"Question: {question}\nQuote the words of the Pali canon that answer it.") + "“"
        unasked = chatml(SYSTEM, "Quote some words of the Pali canon.") + "“"
        t = time.perf_counter()
        pmi = [(logprob(asked, c) - logprob(unasked, c), c) for c in candidates]
        t_pmi = time.perf_counter() - t
        t = time.perf_counter()
        ql = [(logprob(chatml(SYSTEM, f"Text: “{c}”\nWrite a reader's question that these words answer."), question),
               c) for c in candidates]
        t_ql = time.perf_counter() - t
        sys.stdout.write(f"== {result['id']} {question} ({len(candidates)} sentences; PMI {t_pmi:.1f} s, "
                         f"QL {t_ql:.1f} s)\n")
        for name, scored in (("QL", ql), ("PMI", pmi)):
            for score, c in sorted(scored, reverse=True)[:3]:
                sys.stdout.write(f"  {name} {score:7.1f} | {c[:140]}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
