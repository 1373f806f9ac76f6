"""The Chainlit chat's handlers: streamed, cited answers with their tool steps, source panels and follow-ups.

Run it with `scholar chat` (chat/ui/launch.py). When Chainlit runs this file, `launch.start` configures Chainlit
and builds the process's runtime (index, embedder and LLM, shared by every chat; chat/runtime.py); each chat's
memory is keyed by its user and Chainlit thread ID (chat.sessions), so a reopened conversation continues where it
stopped. Imported by a test, nothing is configured: the test sets RUNTIME itself.
"""

from __future__ import annotations

import asyncio
import json
import logging

import chainlit as cl
from chainlit.config import config as cl_config
from chainlit.message import MessageBase
from chainlit.utils import utc_now

from chat.errors import user_message
from chat.pipeline.answer import Answer, AnswerEvent, FinalEvent, StepEvent, TokenEvent
from chat.runtime import Runtime
from chat.sessions import memory_key
from chat.ui.launch import ASSISTANT, start
from chat.ui.render import (
    AnswerStream,
    check_input,
    escape_answer,
    follow_up_label,
    render_answer,
    semantic_notice,
    step_input,
    step_name,
    step_output,
    trace_json,
    unique_citations,
)
from chat.ui.sources import citation_panel
from indexing.progress import read_progress
from indexing.settings import ScholarSettings
from indexing.settings_doc import load_settings

log = logging.getLogger(__name__)

MAX_FOLLOW_UPS = 3
KEPT_TRACES = 30  # per chat session, for the "download trace" buttons

RUNTIME: Runtime | None = None


@cl.set_starters
async def _starters(user=None, language=None) -> list[cl.Starter]:
    return [
        cl.Starter(label="The Fire Sermon", message="What does the Fire Sermon say is burning?"),
        cl.Starter(label="The simile of the saw", message="What does the Buddha say in MN 21 about the saw?"),
        cl.Starter(label="Hatred and love", message="What does the Dhammapada say ends hatred?"),
        cl.Starter(label="Compare two suttas", message="How do SN 56.11 and MN 141 present the four noble truths?"),
    ]


@cl.on_chat_start
async def on_chat_start() -> None:
    cl.user_session.set("traces", {})
    # read from the ingest's record, not the library: a new chat must not wait for the library to load
    notice = semantic_notice(read_progress(_runtime().settings.index_dir))
    if notice:
        await cl.Message(content=notice, author=ASSISTANT).send()


@cl.on_chat_resume
async def on_chat_resume(thread) -> None:
    """A reopened chat gets back each answer's follow-up buttons and trace download, from what the answer's message
    stored (Chainlit keeps no actions). The conversation memory is the Scholar's, keyed by this same user and
    thread: nothing to rebuild for it."""
    traces: dict[str, bytes] = {}
    for step in thread.get("steps") or []:
        meta = step.get("metadata") or {}
        if isinstance(meta, str):
            try:
                meta = json.loads(meta)
            except ValueError:
                continue
        if step.get("type") != "assistant_message" or not isinstance(meta, dict) or "trace" not in meta:
            continue
        traces[step["id"]] = json.dumps(meta["trace"], ensure_ascii=False, indent=2).encode("utf-8")
        for action in _next_actions(step["id"], [str(q) for q in meta.get("follow_ups") or []]):
            await action.send(for_id=step["id"])
    while len(traces) > KEPT_TRACES:
        traces.pop(next(iter(traces)))
    cl.user_session.set("traces", traces)


@cl.on_message
async def on_message(message: cl.Message) -> None:
    await answer_question(message.content)


@cl.action_callback("follow_up")
async def on_follow_up(action: cl.Action) -> None:
    question = str(action.payload.get("question", ""))
    await action.remove()
    asked = cl.Message(content=escape_answer(question), type="user_message",
                       author=getattr(cl.user_session.get("user"), "identifier", None) or "You")
    await asked.send()
    await cl.context.emitter.task_start()
    try:
        async with cl.Step(name="on_message", type="run", parent_id=asked.id):
            await answer_question(question)
    finally:
        await cl.context.emitter.task_end()


@cl.action_callback("download_trace")
async def on_download_trace(action: cl.Action) -> None:
    turn = str(action.payload.get("turn", ""))
    data = (cl.user_session.get("traces") or {}).get(turn)
    if data is None:
        await cl.Message(content="That trace is no longer held by this session (traces are kept while the chat "
                                 "is open). Ask the question again to get a fresh one.", author=ASSISTANT).send()
        return
    file = cl.File(name=f"trace-{turn[:8]}.json", content=data, mime="application/json", display="inline")
    await cl.Message(content="The tool trace of that answer, as JSON:", elements=[file], author=ASSISTANT).send()


async def answer_question(question: str) -> None:
    runtime = _runtime()
    problem = check_input(question, runtime.settings.max_input_chars)
    if problem:
        await cl.Message(content=problem, author=ASSISTANT).send()
        return
    try:
        scholar = await asyncio.to_thread(runtime.scholar)
    except Exception as exc:
        await cl.Message(content=_not_ready(exc, runtime.settings), author=ASSISTANT).send()
        return

    parent = cl.context.current_step
    reply = cl.Message(content="", author=ASSISTANT)
    stream = AnswerStream()
    steps: dict[str, cl.Step] = {}
    shown: Answer | None = None
    final: Answer | None = None
    try:
        async for event in scholar.astream(question.strip(), session_id=_memory_key()):
            if isinstance(event, TokenEvent):
                await reply.stream_token(stream.feed(event.text))
            elif isinstance(event, StepEvent):
                await _show_step(event, steps, parent.id if parent else None)
            elif isinstance(event, AnswerEvent):  # the reader reads it while the follow-ups are written
                await _close_steps(steps)
                shown = event.answer
                await _show_answer(reply, shown, scholar.library)
            elif isinstance(event, FinalEvent):
                final = event.answer
    except Exception as exc:  # Scholar reports model failures in the answer; this is the unexpected rest
        log.exception("answer stream failed")
        if shown is None:
            reply.content = f"**Something went wrong while answering.** {escape_answer(user_message(exc) or str(exc))}"
            await reply.send()
        return
    await _close_steps(steps)
    if final is None and shown is None:
        reply.content = "**No answer was produced.** Please try again."
        await reply.send()
        return
    if shown is None and final is not None:
        await _show_answer(reply, final, scholar.library)
    if final is not None:
        await _offer_next(reply, final, question)


async def _close_steps(steps: dict[str, cl.Step]) -> None:
    for step in steps.values():  # a tool that never reported its end (cancelled turn)
        step.end = utc_now()
        await step.update()
    steps.clear()


async def _show_step(event: StepEvent, steps: dict[str, cl.Step], parent_id: str | None) -> None:
    info = event.step
    if event.phase == "start":
        # the lines that answer are open: the reader reads them while the answer is written
        step = cl.Step(name=step_name(info), type="tool", parent_id=parent_id, show_input="json",
                       default_open=info.tool == "key_lines")
        step.input = step_input(info)
        step.start = utc_now()
        steps[event.step_id] = step
        await step.send()
        return
    started = steps.pop(event.step_id, None)
    if started is not None:
        step = started
    else:  # its start was never seen (a reconnect): show it now
        step = cl.Step(name=step_name(info), type="tool", parent_id=parent_id, show_input="json", default_open=False)
        step.input = step_input(info)
        step.start = utc_now()
    step.output = step_output(info)
    step.is_error = bool(info.error)
    step.end = utc_now()
    await step.update()


async def _show_answer(reply: cl.Message, answer: Answer, library) -> None:
    """The checked answer in place of what was streamed, each cited passage a click away in the side panel."""
    citations = unique_citations(answer.citations)
    panels = await asyncio.gather(*(asyncio.to_thread(citation_panel, library, c) for c in citations))
    reply.content = render_answer(answer)
    # Chainlit 2.12 types Message.elements with an unbound TypeVar, which no list can match
    reply.elements = [cl.Text(name=c.ref, content=panel, display="side")  # type: ignore[misc]
                      for c, panel in zip(citations, panels)]
    reply.metadata = {"status": answer.status, "confidence": answer.confidence, "timings": answer.timings}
    await reply.send()


async def _offer_next(reply: cl.Message, answer: Answer, question: str) -> None:
    """Under the answer, once they are written: the follow-up questions, then the turn's trace. Both are stored with
    the answer's message too, so that a reopened chat offers them again (on_chat_resume)."""
    follow_ups = answer.follow_ups[:MAX_FOLLOW_UPS]
    actions = _next_actions(reply.id, follow_ups)
    traces = cl.user_session.get("traces")
    if traces is None:
        traces = {}
        cl.user_session.set("traces", traces)
    trace = trace_json(answer, question)
    traces[reply.id] = trace
    while len(traces) > KEPT_TRACES:
        traces.pop(next(iter(traces)))
    reply.metadata = {**(reply.metadata or {}), "follow_ups": follow_ups, "trace": json.loads(trace)}
    # The message alone: `reply.update()` would also send its panels a second time (and store them again).
    await MessageBase.update(reply)
    reply.actions = actions
    for action in actions:
        await action.send(for_id=reply.id)


def _next_actions(message_id: str, follow_ups: list[str]) -> list[cl.Action]:
    actions = [
        cl.Action(name="follow_up", payload={"question": q}, label=follow_up_label(q), tooltip=q,
                  icon="message-circle-question")
        for q in follow_ups
    ]
    actions.append(cl.Action(name="download_trace", payload={"turn": message_id}, label="Download trace",
                             tooltip="The tools called for this answer, their inputs, outputs and timings (JSON)",
                             icon="download"))
    return actions


def _not_ready(exc: Exception, settings: ScholarSettings) -> str:
    message = user_message(exc)
    if message is None:
        log.exception("could not start the assistant")
        message = f"{type(exc).__name__}: {exc}"
    return (
        "**The assistant is not ready to answer.** "
        f"{escape_answer(message)}\n\n"
        "Fix that and ask again — this chat stays open. Typical fixes: `ollama serve` (and `ollama pull "
        f"{escape_answer(settings.ollama_model)}`), or `scholar models install` for the embedded model, "
        "or `scholar ingest` when there is no index yet."
    )


def _memory_key() -> str:
    # The thread's user owns its memory: an API client naming this thread's ID reaches a different key.
    user = cl.context.session.user
    return memory_key("chat", getattr(user, "identifier", None) or "", cl.context.session.thread_id)


def _runtime() -> Runtime:
    if RUNTIME is None:
        raise RuntimeError("chat.ui.launch.start has not run in this process")
    return RUNTIME


if cl_config.run.module_name:  # run by `chainlit run`, not imported by a test
    RUNTIME = start(load_settings())
    RUNTIME.warm_up()
