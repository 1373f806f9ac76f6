"""A question restated in the corpus's words by the local model, as a search text (issue #26, item 1): measured.

    PYTHONPATH=. SCHOLAR_LLM_PROVIDER=embedded python bench/restate_query.py \
        --questions ../shared/eval/{external2-dev,external-dev}.jsonl --cache bench/out/restated.json

The embedded model is asked for the sentences of the discourse that answer each question, worded as Sujato's
translation words them (`SYSTEM` below; cached in `--cache`, so a second run only searches). Each question is then
searched as it is (`question`), with the restatement appended (`question + restated`, hybrid) and by the
restatement's meaning alone (`dense`). hit@1 and MRR per file, and per half by the id's parity (even / odd), as
`scholar eval retrieval` counts them (k = 10).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.evals.retrieval import aggregate, load_questions, ranked_suttas, score_question
from chat.providers.select import build_llm
from indexing.settings import ScholarSettings
from tools.library import Library
from tools.search.retriever import search

log = logging.getLogger(__name__)

K = 10
MAX_TOKENS = 70
SYSTEM = ("You know the Pali discourses in Bhikkhu Sujato's English translation on SuttaCentral. Given a reader's "
          "question, write the one or two sentences of the discourse that answer it, as the translation words them "
          "(it says 'mendicants', 'the Realized One', 'extinguishment'). Write only those sentences.")
VARIANTS = {
    "question": lambda q, r: (q, "hybrid"),
    "question + restated": lambda q, r: (f"{q} {r}", "hybrid"),
    "question + restated, dense": lambda q, r: (f"{q} {r}", "dense"),
}


def restate(questions: list[str], cache: Path) -> dict[str, str]:
    done = json.loads(cache.read_text(encoding="utf-8")) if cache.is_file() else {}
    todo = [q for q in questions if q not in done]
    if todo:
        llm = build_llm(ScholarSettings())
        for q in todo:
            reply = llm.chat([ChatMessage(role=MessageRole.SYSTEM, content=SYSTEM),
                              ChatMessage(role=MessageRole.USER, content=q)], max_tokens=MAX_TOKENS)
            done[q] = str(reply.message.content).strip()
            log.info("%s -> %s", q[:60], done[q][:120])
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(done, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return done


def parity(item: dict) -> int:
    return int("".join(c for c in str(item.get("id", "0")) if c.isdigit()) or 0) % 2


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, nargs="+", required=True)
    ap.add_argument("--cache", type=Path, required=True)
    args = ap.parse_args()
    files = {path: [q for q in load_questions(path) if q.get("gold")] for path in args.questions}
    restated = restate([q["question"] for qs in files.values() for q in qs], args.cache)
    library = Library.open(ScholarSettings())
    for path, questions in files.items():
        for name, variant in VARIANTS.items():
            rows = []
            for q in questions:
                text, mode = variant(q["question"], restated[q["question"]])
                found = search(library, text, k=K, mode=mode)
                row = score_question(ranked_suttas(found.passages), q["gold"], q.get("also_relevant") or [], K)
                rows.append((q, {**row, "latency_ms": 0.0}))
            whole = aggregate([r for _, r in rows])
            halves = [aggregate([r for q, r in rows if parity(q) == p]) for p in (0, 1)]
            sys.stdout.write(f"{path.name:24} {name:28} hit@1 {whole['hit@1']:.3f} MRR {whole['mrr']:.3f}   "
                             f"even {halves[0]['hit@1']:.3f}/{halves[0]['mrr']:.3f}   "
                             f"odd {halves[1]['hit@1']:.3f}/{halves[1]['mrr']:.3f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
