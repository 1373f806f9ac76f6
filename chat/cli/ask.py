"""`scholar ask "QUESTION" [--json] [--trace FILE] [--session ID] [--mode]`: one turn from the terminal."""

from __future__ import annotations

import asyncio
import json
import sys

from chat.pipeline.answer import Answer, AnswerEvent, FinalEvent, StepEvent, TokenEvent
from chat.runtime import Runtime
from chat.sessions import memory_key


def run_ask(args, runtime: Runtime) -> int:
    scholar = runtime.scholar()
    answer = asyncio.run(_ask(scholar, args))
    if args.trace:
        args.trace.write_text(json.dumps([t.model_dump() for t in answer.trace], indent=2, ensure_ascii=False),
                              encoding="utf-8")
    if args.json:
        sys.stdout.write(answer.model_dump_json(indent=2) + "\n")
    return 0 if answer.status != "failed" else 1


async def _ask(scholar, args) -> Answer:
    final: Answer | None = None
    streamed = ""
    shown = False
    # The terminal's sessions are a namespace of their own: `--session` cannot name a chat's or an API client's.
    session = memory_key("cli", "local", args.session) if args.session else None
    async for event in scholar.astream(args.question, session_id=session, mode=args.mode):
        if isinstance(event, TokenEvent) and not args.json:
            streamed += event.text
            sys.stdout.write(event.text)
            sys.stdout.flush()
        elif isinstance(event, StepEvent) and event.phase == "end":
            sys.stderr.write(f"  · {event.step.tool}: {event.step.output_summary}\n")
        elif isinstance(event, AnswerEvent) and not args.json:  # readable while the follow-ups are written
            sys.stdout.write("\n" + _checked(event.answer, streamed))
            sys.stdout.flush()
            shown = True
        elif isinstance(event, FinalEvent):
            final = event.answer
    assert final is not None
    if not args.json:
        sys.stdout.write(("" if shown else "\n" + _checked(final, streamed)) + _next(final))
    return final


def _checked(answer: Answer, streamed: str) -> str:
    """What the stream could not show: the checked text if it changed, sources, flags."""
    out: list[str] = []
    if answer.answer.strip() != streamed.strip():
        out.append("\n--- checked answer ---\n" + answer.answer)
    if answer.citations:
        out.append("\nSources:")
        out.extend(f"  [{c.ref}] {c.title}: {c.excerpt[:160]}" for c in answer.citations)
    if answer.unsupported_claims:
        out.append("\nNot supported by the texts:")
        out.extend(f"  - {v.sentence} ({v.reason})" for v in answer.unsupported_claims)
    return "\n".join(out) + "\n" if out else ""


def _next(answer: Answer) -> str:
    """Once the turn is over: follow-up questions, any note, and the turn's figures."""
    out: list[str] = []
    if answer.follow_ups:
        out.append("\nYou might ask next:")
        out.extend(f"  - {q}" for q in answer.follow_ups)
    if answer.error:
        out.append(f"\n(note: {answer.error})")
    t = answer.timings
    out.append(f"\n[{answer.status}; confidence {answer.confidence:.2f}; first token {t.get('first_token', 0):.1f}s, "
               f"answer {t.get('answer', t.get('total', 0)):.1f}s, with follow-ups {t.get('total', 0):.1f}s]")
    return "\n".join(out) + "\n"
