"""The say prompt's near-greedy reply beside N sampled replies, for reading: does sampling the same lines again
give the model's answer where its first reply missed it? (bench/history.md, "More drafts, sampled …")

    PYTHONPATH=. SCHOLAR_LLM_PROVIDER=embedded python bench/say_samples.py --questions \
        ../shared/eval/answers-dev.jsonl --ids ad05,ad20 --samples 4 --temperature 0.8 --out bench/out/say_samples.jsonl

Each question runs through the chat as usual (its own sampling off); its first say prompt is captured, then, after the
turn, sampled `--samples` times (seeds 2, 3, …) as a prompt asked afresh. One JSON line per question: the answer, the
prompt's lines, the first reply and the samples.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, cast

from chat.pipeline import scholar as pipeline
from chat.pipeline.agent import with_max_tokens
from chat.pipeline.answer import FinalEvent
from chat.pipeline.say import SAY_MAX_TOKENS
from chat.runtime import Runtime
from indexing.settings import ScholarSettings


async def _sample(llm, messages, grammar: str, seed: int, temperature: float) -> str:
    bound = cast(Any, with_max_tokens(llm, SAY_MAX_TOKENS, lower=True)).model_copy(update={"seed": seed})
    bound = bound.with_grammar(lambda: grammar)
    reply = ""
    async for chunk in await bound.astream_chat(messages, temperature=temperature):
        reply += chunk.delta or ""
    return reply


async def _run(args) -> None:
    scholar = Runtime(ScholarSettings(say_samples=0)).scholar()
    captured: dict[str, tuple] = {}
    ask = pipeline.Scholar._ask

    async def capturing(self, messages, grammar, **kwargs):  # the first say call of the turn
        reply = await ask(self, messages, grammar, **kwargs)
        if "say" not in captured and grammar.startswith('root ::= "I don'):
            captured["say"] = (messages, grammar, reply)
        return reply

    pipeline.Scholar._ask = capturing  # type: ignore[method-assign]
    wanted = set(args.ids.split(",")) if args.ids else None
    with open(args.out, "w", encoding="utf-8") as out:
        for path in args.questions:
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                q = json.loads(line)
                if wanted and q["id"] not in wanted:
                    continue
                captured.clear()
                final = None
                async for event in scholar.astream(q["question"]):
                    if isinstance(event, FinalEvent):
                        final = event.answer
                row: dict[str, Any] = {"id": q["id"], "question": q["question"],
                                       "answer": final.answer if final else None}
                if "say" in captured:
                    messages, grammar, reply = captured["say"]
                    row.update(lines=messages[-1].content, first=reply,
                               samples=[await _sample(scholar.llm, messages, grammar, seed, args.temperature)
                                        for seed in range(2, 2 + args.samples)])
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
                out.flush()
                sys.stderr.write(f"{q['id']} done\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", nargs="+", required=True)
    ap.add_argument("--ids", default="")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--temperature", type=float, default=0.8)
    ap.add_argument("--out", required=True)
    asyncio.run(_run(ap.parse_args()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
