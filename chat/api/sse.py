"""/api/query as Server-Sent Events: `step` events while the Scholar works (a `key_lines` step carries the lines
that answer, quoted, as soon as they are found); `token` events carrying the answer's text, never withdrawn (a note
correcting the question's premise as soon as it is found; then, once checked, the answer's own sentences and the
key lines quoted below them: the model's unchecked draft is never sent; the tokens joined are the answer's text);
an `answer` event holding the checked answer object as soon as it stands (its `follow_ups` still empty), then one
`final` holding the same answer with its follow-up questions, whatever fails on the way (an answer made without
the model comes as `final` alone); keep-alive comments while the model is silent. The answer's `sentences` tell
its own words (`origin` "model") from the passages it quotes ("quote")."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator

from fastapi.concurrency import run_in_threadpool
from fastapi.sse import format_sse_event

from chat.api.passages import answer_without_llm
from chat.errors import ChatError
from chat.pipeline.answer import Answer, AnswerEvent, FinalEvent, StepEvent, TokenEvent, failed_answer
from chat.runtime import Runtime
from indexing.errors import IndexingError
from tools.errors import ToolError

log = logging.getLogger(__name__)

PING_S = 15.0
KEEPALIVE = b": ping\n\n"


async def stream_answer(runtime: Runtime, question: str, session_id: str | None, mode: str | None, *,
                        memory_key: str | None = None) -> AsyncIterator[bytes]:
    """`session_id` is the client's, echoed in the answer; `memory_key` the owner-scoped key the Scholar's memory
    is read and written under (chat.sessions)."""
    def event(ev: TokenEvent | StepEvent | Answer, kind: str = "final") -> bytes:
        if isinstance(ev, Answer):
            ev = ev.model_copy(update={"session_id": session_id})
        else:
            kind = ev.kind
        return format_sse_event(event=kind, data_str=json.dumps(ev.model_dump(mode="json"), ensure_ascii=False))

    try:
        scholar = await run_in_threadpool(runtime.scholar)
    except ChatError as exc:
        answer, step = await answer_without_llm(runtime, question, session_id, mode, str(exc))
        yield event(StepEvent(phase="start", step_id="search-0", step=step))
        yield event(StepEvent(phase="end", step_id="search-0", step=step))
        yield event(answer)
        return
    final_sent = False
    try:
        async for ev in scholar.astream(question, session_id=memory_key, mode=mode or "auto"):
            if isinstance(ev, FinalEvent):
                yield event(ev.answer)
                final_sent = True
            elif isinstance(ev, AnswerEvent):
                yield event(ev.answer, "answer")
            else:
                yield event(ev)
    except (ChatError, ToolError, IndexingError) as exc:
        # Headers are already sent: the only way to report is a final event the client can read.
        log.warning("streamed query failed: %s", exc)
        if not final_sent:
            answer, _ = await answer_without_llm(runtime, question, session_id, mode, str(exc))
            yield event(answer)
            final_sent = True
    if not final_sent:
        yield event(failed_answer("", "the answer stream ended without a final answer", [], session_id=session_id,
                                  mode=mode or "qa"))


async def keepalive(stream: AsyncIterator[bytes], interval_s: float) -> AsyncIterator[bytes]:
    """SSE comment lines while the model is silent (loading, thinking), so proxies and clients keep the stream."""
    it = stream.__aiter__()
    pending = asyncio.ensure_future(it.__anext__())
    try:
        while True:
            done, _ = await asyncio.wait({pending}, timeout=interval_s)
            if not done:
                yield KEEPALIVE
                continue
            try:
                chunk = pending.result()
            except StopAsyncIteration:
                return
            yield chunk
            pending = asyncio.ensure_future(it.__anext__())
    finally:
        if not pending.done():  # the client went away mid-answer: stop the turn rather than finish it unread
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending
