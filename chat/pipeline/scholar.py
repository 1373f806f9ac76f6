"""The Scholar: one question in, a stream of events out, ending in a checked, cited `Answer`.

    plan (deterministic) -> up-front retrieval -> numbered evidence, its key lines streamed at once
    -> ReAct agent (usually one LLM call, grammar-bound on the embedded model, citing evidence by number)
    -> numbers mapped to references -> every sentence checked (lexical checks, then the likelihood judge)
    -> what fails removed (a partly supported sentence loses the clause) -> memory -> the answer (AnswerEvent)
    -> follow-up questions (FinalEvent: the same answer with them)

It never raises for model failures: a malformed reply that survives its retry, the step limit or a dead model
each end in the best answer available (a direct answer from the retrieved passages, or the passages themselves
with status "failed").

The turn runs as a task that puts its events on one queue, which `astream` reads: the turn's own tokens and final
answer, and the tool steps, which start and end in worker threads (the planned calls, and the agent's tools that
LlamaIndex runs in its executor) and reach the queue through the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from llama_index.core.agent.workflow import AgentInput, AgentOutput, AgentStream
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import ChatMemoryBuffer

from chat.errors import ChatError, user_message
from chat.pipeline import checks
from chat.pipeline.agent import (
    MalformedOutputError,
    RepeatedCallError,
    StepLimitError,
    build_agent,
    seed_steps,
    with_max_tokens,
)
from chat.pipeline.answer import (
    Answer,
    AnswerEvent,
    AnswerSentence,
    Event,
    FinalEvent,
    Resolved,
    StepEvent,
    TokenEvent,
    TraceStep,
    failed_answer,
)
from chat.pipeline.compose import (
    Summary,
    edge_of_text,
    evidence_only,
    key_lines,
    key_windows,
    map_numbers,
    quote_text,
    with_summary,
)
from chat.pipeline.consensus import by_agreement
from chat.pipeline.conversation import Resolution, people_in, resolve, spoken_of, subject_of
from chat.pipeline.draft import Draft, parse, render
from chat.pipeline.followups import fallback_followups, generate_followups
from chat.pipeline.grammar import answer_grammar, react_grammar
from chat.pipeline.hygiene import (
    keeping_to_main_texts,
    tidy_draft,
    without_asides,
    without_dangling_clauses,
    without_echoes,
)
from chat.pipeline.memory import MemoryStore, SessionMemory
from chat.pipeline.plan import ExpandStep, LookupStep, Plan, PlannedStep, SearchStep
from chat.pipeline.reply import clean_draft, looks_like_abstention, salvage
from chat.pipeline.say import (
    SAY_FAULTS,
    SAY_MAX_TOKENS,
    Said,
    answering_part,
    as_draft,
    copied,
    echoes_example,
    list_hint,
    parse_said,
    quoting_its_part,
    renumbered,
    reported_grammar,
    restated_for_copies,
    say_grammar,
    say_messages,
)
from chat.pipeline.select import Selection, focused, select_lines, with_premise
from chat.pipeline.tables import TableStep, table_answer
from chat.providers.calls import ModelCall
from chat.providers.calls import recording as recording_calls
from indexing.settings import ScholarSettings
from indexing.vocabulary import ABSTAIN_SENTENCE, BOOKS, COLLECTIONS
from prompts import load_prompt
from tools.errors import ToolError
from tools.function_tools import TOOL_NAMES, CanonTools, ToolBudget, ToolResult, build_tools, render_evidence
from tools.language.words import fold, tokenize, words
from tools.search.query import analyse_query
from tools.search.shapes import asks_overview
from tools.search.text_judge import TextJudge
from tools.search.windows import EvidenceWindow, closeness, make_window
from tools.turn import TraceEntry, TurnRecorder
from tools.verification.claim_checks import names

log = logging.getLogger(__name__)

NOTES_MAX_TOKENS = 1100
# a sampled draft: one or two sentences of ~30-50 tokens; the samples that ran to 100 tokens and more copied a line
SAMPLE_MAX_TOKENS = 90
QA_BUDGET = ToolBudget(k=5, passage_chars=360, windows=4)
NOTES_BUDGET = ToolBudget(k=12, passage_chars=260, lookup_passages=4, windows=8, texts=6)
MIN_RELEVANCE = 0.34  # share of the question's content words found in the best evidence; below it, and
MIN_DENSE = 0.45  # ... with no retrieved passage this close in meaning (cosine), the question is declined
AUTO_CITE_TEXTS = 4  # an uncited sentence is checked against the turn's first texts, those it names first
RARE_NAME_SHARE = 0.05  # a name in at most this share of passages is the subject, not a word of every text


Emit = Callable[[Event | None], None]


@dataclass(frozen=True)
class Decline:
    """Why a question is declined without the model; `told`: the reason is a sentence for the reader, said after
    the abstention (else it goes to the log only)."""

    reason: str
    told: bool = False


@dataclass
class _Turn:
    question: str
    mode: str
    session_id: str | None
    requested_mode: str = ""  # as asked for, before the plan chose one
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)
    first_token: float | None = None
    streamed: str = ""
    last_input: list = field(default_factory=list)  # the last LLM call's messages: a cached prefix to reuse
    explained: str = ""  # the model's own checked text, without the quoted key lines: what follow-ups build on
    resolution: Resolution = field(default_factory=lambda: Resolution("first", "no conversation"))
    calls: list[ModelCall] = field(default_factory=list)  # every model call of the turn, as the providers report it
    selection: Selection = field(default_factory=Selection)  # the lines chosen to answer; its premise, if any
    summary: Summary | None = None  # SuttaCentral's summary of the text asked about as a whole
    said_before: str = ""  # the last answered turn's answer: a sentence of it said again is no answer to this one
    saying: bool = False  # the model restated the selected lines (chat/pipeline/say.py)
    said_again: bool = False  # and was asked once more, told what was wrong
    say_input: list = field(default_factory=list)  # the first say call's messages: more drafts are sampled from it
    said: list[list[Said]] = field(default_factory=list)  # every reply the model gave to say it, parsed

    def stamp(self) -> dict[str, float]:
        """The timings once the checked answer stands: its first token and the answer's own seconds added."""
        if self.first_token is not None:
            self.timings["first_token"] = round(self.first_token, 3)
        self.timings["answer"] = round(time.perf_counter() - self.started, 3)
        return dict(self.timings)

    def mark(self, stage: str, since: float) -> float:
        now = time.perf_counter()
        self.timings[stage] = round(self.timings.get(stage, 0.0) + now - since, 3)
        return now


class Scholar:
    def __init__(self, settings: ScholarSettings, library, llm):
        self.settings = settings
        self.library = library
        self.llm = llm
        self._memory_store: MemoryStore | None = None  # made at the first turn with a session
        self._memory_lock = threading.Lock()

    # ---- public API ------------------------------------------------------------------------------------------
    async def astream(self, question: str, *, session_id: str | None = None, mode: str = "auto"
                      ) -> AsyncIterator[Event]:
        question = (question or "").strip()[: self.settings.max_input_chars]
        turn = _Turn(question, mode, session_id, requested_mode=mode)
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def from_thread(event: Event) -> None:
            # A tool thread can outlive its reader: after the reader left and the loop closed there is no one to tell.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(queue.put_nowait, event)

        recorder = TurnRecorder()
        recorder.on_start = lambda e: from_thread(_step_event("start", e, recorder))
        recorder.on_end = lambda e: from_thread(_step_event("end", e, recorder))
        task = asyncio.create_task(self._produce(turn, recorder, queue.put_nowait))
        try:
            while (event := await queue.get()) is not None:
                yield event
                if isinstance(event, FinalEvent):
                    break
        finally:  # the reader went away (or the turn is over): stop the turn rather than finish it unread
            await _stop(task)

    async def aask(self, question: str, *, session_id: str | None = None, mode: str = "auto") -> Answer:
        final: Answer | None = None
        async for event in self.astream(question, session_id=session_id, mode=mode):
            if isinstance(event, FinalEvent):
                final = event.answer
        assert final is not None
        return final

    def ask(self, question: str, *, session_id: str | None = None, mode: str = "auto") -> Answer:
        return asyncio.run(self.aask(question, session_id=session_id, mode=mode))

    # ---- the pipeline ----------------------------------------------------------------------------------------
    async def _produce(self, turn: _Turn, recorder: TurnRecorder, put: Emit) -> None:
        def emit(event: Event | None) -> None:
            if isinstance(event, AnswerEvent | FinalEvent):
                event.answer.model_calls = list(turn.calls)
            put(event)

        try:
            with recording_calls() as turn.calls:
                await self._run(turn, recorder, emit)
        except Exception as exc:  # last line of defence: the user gets an answer object, the log the traceback
            if user_message(exc) is None:
                log.exception("turn failed")
            else:  # an expected failure (a database that cannot be used, no model): its sentence says it all
                log.warning("turn failed: %s", user_message(exc))
            _deliver(emit, failed_answer(
                "Something went wrong while answering; the passages retrieved so far are listed below.",
                user_message(exc) or f"{type(exc).__name__}: {exc}", checks.recorder_passages(recorder),
                trace=_trace(recorder), search_types_used=sorted(recorder.search_types_used),
                session_id=turn.session_id, mode="notes" if turn.requested_mode == "notes" else "qa",
                timings={**turn.timings, "total": round(time.perf_counter() - turn.started, 3)},
            ))
        finally:
            emit(None)  # the end of the stream, whatever happened

    async def _run(self, turn: _Turn, recorder: TurnRecorder, emit: Emit) -> None:
        memory = self._memory(turn.session_id)
        earlier = await memory.turns() if memory else []
        t = time.perf_counter()
        analysis = await asyncio.to_thread(analyse_query, self.library, turn.question)
        turn.resolution, plan = resolve(self.library, analysis, earlier, mode=turn.mode)
        turn.said_before = next((t.answer for t in reversed(earlier) if t.answered), "")
        if earlier:  # shown as the turn's first step: how the question was read against the conversation
            recorder.run("resolve_question", {"question": turn.question},
                         lambda: (turn.resolution.to_dict(), turn.resolution.summary()))
        # a new subject carries nothing over; a follow-up is told what the answered turns asked and said (never a
        # refusal to imitate), as a note beside the question rather than as earlier turns of the chat
        recap = await memory.recap() if memory and turn.resolution.kind == "follow_up" else ""
        turn.mode = plan.mode
        budget = NOTES_BUDGET if plan.mode == "notes" else QA_BUDGET
        canon = CanonTools(self.library, recorder, budget, llm=self.llm, verifier_mode=self.settings.verifier_mode,
                           judge=self._text_judge())
        t = turn.mark("plan", t)
        done = await _run_steps(canon, plan.steps)
        turn.mark("retrieve", t)
        if (early := self._without_model(turn, recorder, plan, canon, done, analysis)) is not None:
            early.resolution = Resolved(**turn.resolution.to_dict())
            await self._remember(memory, turn, early, plan)
            emit(self._token(turn, early.answer))
            _deliver(emit, early)
            return
        lead = await self._lead(turn, recorder, plan, canon, emit)
        writing = TraceStep(tool="write_answer", input={"passages": len(recorder.evidence)})
        emit(StepEvent(phase="start", step_id="write_answer", step=writing))
        draft, error = await self._write(turn, recorder, plan, canon, done, recap)
        t = time.perf_counter()
        answer = await self._finish(turn, recorder, plan, draft, error, lead)
        answer = await self._checked_again(turn, recorder, plan, answer, error, lead)
        with_summary(answer, turn.summary)
        turn.explained = with_premise(answer, turn.selection, self.library.docstore, turn.explained)
        turn.mark("finish", t)
        writing.output_summary = f"{len(answer.sentences)} sentences; {len(answer.unsupported_claims)} did not stand"
        writing.duration_ms = round((time.perf_counter() - t) * 1000 + turn.timings.get("agent", 0) * 1000
                                    + turn.timings.get("fallback", 0) * 1000, 1)
        emit(StepEvent(phase="end", step_id="write_answer", step=writing))
        if answer.answer.startswith(turn.streamed) and (rest := answer.answer[len(turn.streamed):]):
            emit(self._token(turn, rest))  # the checked sentences below the quotes (else the answer event has all)
        answer.resolution = Resolved(**turn.resolution.to_dict())
        await self._remember(memory, turn, answer, plan)
        answer.timings = turn.stamp()
        if answer.status != "answered":
            answer.timings["total"] = turn.timings["answer"]
            _deliver(emit, answer)
            return
        emit(AnswerEvent(answer=answer.model_copy(deep=True)))
        await self._follow_ups(turn, answer)
        emit(FinalEvent(answer=answer))

    async def _lead(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, canon: CanonTools,
                    emit: Emit) -> list[EvidenceWindow]:
        """The lines that answer, chosen and shown at once as a step of the turn (after a note on a premise they
        contradict, the answer's first words). The answer itself is streamed only once checked, its own sentences
        above the lines they restate: the reader reads the lines while the model writes, and nothing streamed is
        withdrawn or moved."""
        if plan.mode != "notes":  # notes cover a topic's passages; an answer speaks from the lines that answer
            turn.selection = await select_lines(self.llm, canon, turn.question,
                                                use_model=self.settings.select_with_model,
                                                scope=_searched_beside(plan))
        lead = turn.selection.chosen or key_windows(recorder.evidence)
        if note := turn.selection.lead_text():  # the question's premise corrected, before anything else
            emit(self._token(turn, note + "\n\n"))
        turn.summary = self._summary(turn.question, plan)
        if turn.summary is not None:  # the text as a whole, in SuttaCentral's words, while the model writes
            emit(self._token(turn, turn.summary.text + "\n\n"))
        if lead:
            found = TraceStep(tool="key_lines", input={"question": turn.question}, output_summary=key_lines(lead))
            emit(StepEvent(phase="start", step_id="key_lines", step=found))
            emit(StepEvent(phase="end", step_id="key_lines", step=found))
            turn.timings["first_evidence"] = round(time.perf_counter() - turn.started, 3)
        return lead

    def _summary(self, question: str, plan: Plan) -> Summary | None:
        """SuttaCentral's summary of the one text a question asks about as a whole ("What is the Anattalakkhana
        Sutta about?", or "What is it about?" of the text the conversation is on); None for any other question, or
        a text without one."""
        named = list(dict.fromkeys([*plan.sutta_ids, *plan.aliases.values()])) or list(plan.scope)
        if plan.mode != "qa" or len(named) != 1 or not asks_overview(question):
            return None
        doc = self.library.docstore.document_by_sutta_id(named[0])
        if doc is None or not (doc.blurb or "").strip():
            return None
        return Summary(doc.sutta_id or named[0], doc.title, doc.blurb.strip())

    async def _follow_ups(self, turn: _Turn, answer: Answer) -> None:
        """Two or three questions to go further (the model's, filtered; else built from the citations)."""
        t = time.perf_counter()
        premise = turn.selection.premise
        follow_ups, source = await generate_followups(self.llm, turn.question, turn.explained or answer.answer,
                                                      answer.citations, prefix=turn.last_input or None,
                                                      premise=premise.claim if premise else None,
                                                      known=self.library.word_known,
                                                      withdrawn=[c.sentence for c in answer.unsupported_claims
                                                                 if not c.revised_to],
                                                      stood=" ".join(s.text for s in answer.sentences
                                                                     if s.origin == "model"),
                                                      shown=answer.answer)
        log.debug("follow-ups from %s", source)
        answer.follow_ups = follow_ups or fallback_followups(turn.question, answer.citations)
        turn.timings["followups"] = round(time.perf_counter() - t, 3)
        answer.timings = {**turn.timings, "total": round(time.perf_counter() - turn.started, 3)}

    def _without_model(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, canon: CanonTools,
                       done: list[tuple[PlannedStep, ToolResult]], analysis) -> Answer | None:
        """An answer that needs no model: no question, a clear reason to decline, or reading on past the end of a
        text, or a question one of the library's tables answers; else None."""
        if (table := self._table_answer(turn, recorder, plan, done)) is not None:
            return table
        if not turn.question:
            return self._abstain(turn, recorder, plan)
        if (reason := self._nothing_relevant(plan, recorder, done, analysis)) is not None:
            return self._abstain(turn, recorder, plan, reason)
        if plan.follow_up in ("next", "before") and not recorder.evidence:
            return self._edge_of_text(turn, recorder, plan, canon)
        return None

    async def _write(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, canon: CanonTools,
                     done: list[tuple[PlannedStep, ToolResult]], recap: str) -> tuple[str | None, str | None]:
        """The model's draft (its passage numbers not yet mapped) and what went wrong on the way, if anything: the
        ReAct agent first, then, if it gave no answer, a direct answer from the passages already shown."""
        t = time.perf_counter()
        if self._says_from_lines(turn, plan):
            said = await self._say(turn, plan, recap)
            turn.mark("agent", t)
            if said is not None:
                return said, None
        draft: str | None = None
        error: str | None = None
        llm = self._bound(self.llm, lambda: react_grammar(list(TOOL_NAMES), len(recorder.evidence),
                                                          notes=plan.mode == "notes"))
        llm = with_max_tokens(llm, NOTES_MAX_TOKENS) if plan.mode == "notes" else llm
        seed = seed_steps(focused(done, turn.selection, recorder))  # the model reads the selected lines only
        agent = build_agent(llm, build_tools(self.library, recorder, canon=canon), mode=plan.mode,
                            seed=seed, timeout=None)
        hints = (plan.hints(), recap, turn.selection.hint(recorder))
        user_msg = load_prompt("turn", question=turn.question, hints="\n".join(h for h in hints if h)).strip()
        turn.last_input = []
        last_raw = ""
        resume: list[ChatMessage] | None = None
        try:
            handler = agent.run(user_msg=user_msg, max_iterations=self.settings.agent_max_steps,
                                memory=ChatMemoryBuffer.from_defaults(token_limit=4000,
                                                                      tokenizer_fn=lambda s: s.split()))
            async with _halting(handler):
                async for ev in handler.stream_events():
                    if isinstance(ev, AgentInput):
                        turn.last_input = list(ev.input)
                    elif isinstance(ev, AgentStream):
                        last_raw = ev.response
                result = cast(AgentOutput, await handler)
                draft = str(result.response.content or "")
                if turn.last_input:
                    turn.last_input.append(ChatMessage(role=MessageRole.ASSISTANT,
                                                       content=last_raw or f"Answer: {draft}"))
        except MalformedOutputError as exc:
            log.info("falling back after malformed output")
            draft = salvage(exc.raw)
            error = "the model's replies did not follow the expected format"
        except (StepLimitError, RepeatedCallError) as exc:
            error = str(exc)
            log.info("agent stopped: %s", error)
            if turn.last_input and last_raw:  # the fallback goes on from here, where llama.cpp's cache already is
                resume = [*turn.last_input, ChatMessage(role=MessageRole.ASSISTANT, content=last_raw)]
        except Exception as exc:  # model errors, timeouts
            error = user_message(exc) or f"{type(exc).__name__}: {exc}"
            log.info("agent stopped: %s", error)
        t = turn.mark("agent", t)
        draft = clean_draft(draft) if draft is not None else None
        if draft:
            return draft, error
        try:
            draft = await self._direct_answer(turn, recorder, plan, resume) or None
        except Exception as exc:
            error = _with_note(error, user_message(exc) or f"{type(exc).__name__}: {exc}")
            log.info("direct answer failed too: %s", exc)
        turn.mark("fallback", t)
        return draft, error

    def _says_from_lines(self, turn: _Turn, plan: Plan) -> bool:
        """Whether the model restates the selected lines (chat/pipeline/say.py) rather than writing in the ReAct
        frame: a question's answer (not study notes), lines chosen, a model held to a grammar (free text from a
        small model is no reliable list of numbered sentences)."""
        return (self.settings.say_from_lines and plan.mode == "qa" and bool(turn.selection.chosen)
                and hasattr(self.llm, "with_grammar"))

    async def _say(self, turn: _Turn, plan: Plan, recap: str) -> str | None:
        """The model's sentences, each restating one selected line, as a draft citing the turn's numbers; None
        when it gave none (the agent then writes)."""
        chosen = turn.selection.chosen
        premise = turn.selection.premise
        at = next((k for k, w in enumerate(chosen, 1) if premise is not None and w.overlaps(premise.window)), None)
        hints = "\n".join(h for h in (plan.hints(), recap, premise.hint(at) if premise else "",
                                      list_hint(turn.question, chosen)) if h)
        voices = [self.library.evidence.voices(w.doc_id, w.seg_ids) for w in chosen]
        messages = say_messages(turn.question, chosen, hints, voices)
        grammar = say_grammar(len(chosen))
        try:
            reply = await self._ask(messages, grammar)
        except Exception as exc:  # the agent still writes: a failed call costs only its time
            log.info("saying from the lines failed: %s", user_message(exc) or exc)
            return None
        turn.last_input = [*messages, ChatMessage(role=MessageRole.ASSISTANT, content=reply)]
        turn.say_input = messages
        turn.saying = True
        if looks_like_abstention(reply):
            # the relevance gate let these lines through and the selection chose them: one more try, told so, before
            # the reader is told the texts do not say it (the decline's first token can outweigh lines that answer)
            again = await self._say_again(turn, "declined")
            return as_draft(again, chosen) if again else reply.strip()
        items = [renumbered(s, chosen, turn.question) for s in parse_said(reply, len(chosen))]
        said = [s for s in items if not echoes_example(s, chosen)]
        turn.said.append(said)
        log.debug("said from lines: %r", reply)
        if items and not said:  # it wrote only the prompt's example again: nothing of these lines
            said = await self._say_again(turn, "unsupported")
        if any(copied(s, chosen) for s in said):  # a quotation is no answer: its line is asked for again
            said = restated_for_copies(said, await self._say_again(turn, "copied"), chosen)
        return as_draft(said, chosen) if said else None

    async def _say_again(self, turn: _Turn, fault: str) -> list[Said]:
        """Once a turn, the model told what was wrong with its sentences and asked for them again, each in reported
        speech ("MN 72 says that …", `reported_grammar`); [] when it was asked before or gave nothing. The exchange
        so far is the prompt's prefix, which llama.cpp has cached: the second try costs its own words only."""
        if turn.said_again or not turn.saying:
            return []
        turn.said_again = True
        chosen = turn.selection.chosen
        messages = [*turn.last_input, ChatMessage(role=MessageRole.USER,
                                                  content=load_prompt("say_again", fault=SAY_FAULTS[fault]))]
        t = time.perf_counter()
        try:
            reply = await self._ask(messages, reported_grammar(chosen))
        except Exception as exc:  # what was said first stands as the checks left it
            log.info("saying it again failed: %s", user_message(exc) or exc)
            return []
        finally:
            turn.mark("agent", t)
        turn.last_input = [*messages, ChatMessage(role=MessageRole.ASSISTANT, content=reply)]
        log.debug("said again (%s): %r", fault, reply)
        # a line copied again, in reported speech, is still a copy: only what it restates, or the part of it that
        # answers, is an answer
        out: list[Said] = []
        for said in (renumbered(s, chosen, turn.question) for s in parse_said(reply, len(chosen))):
            if echoes_example(said, chosen):
                continue
            if not copied(said, chosen):
                out.append(said)
            elif answering_part(said, chosen, turn.question):
                out.append(quoting_its_part(said, chosen))
        turn.said.append(out)
        return out

    async def _checked_again(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, answer: Answer,
                             error: str | None, lead: list[EvidenceWindow]) -> Answer:
        """When the checks left none of the model's sentences from the lines: one more try, told so (when they
        took some out), then more drafts sampled (`_sampled`); the first answer one of whose sentences stands, else
        `answer`. The reader is told what the first two tries said that did not stand. Only the checked answer is
        ever shown: nothing streamed is withdrawn."""
        if answer.status != "answered" or any(s.origin == "model" for s in answer.sentences):
            return answer
        explained = turn.explained
        shown = list(answer.unsupported_claims)  # what the reader is told did not stand: the first two tries'
        # (nothing taken out: the model only copied its lines, and was told so when it said them)
        said = await self._say_again(turn, "unsupported") if answer.unsupported_claims else []
        if said:
            retry = await self._finish(turn, recorder, plan, as_draft(said, turn.selection.chosen), error, lead)
            shown += retry.unsupported_claims
            if any(s.origin == "model" for s in retry.sentences):
                retry.unsupported_claims = shown
                return retry
        sampled = await self._sampled(turn)
        for k, draft in enumerate(sampled, 1):
            retry = await self._finish(turn, recorder, plan, as_draft(draft, turn.selection.chosen), error, lead)
            log.debug("sampled draft %d: %s", k, [(c.sentence, c.reason) for c in retry.unsupported_claims])
            if any(s.origin == "model" for s in retry.sentences):
                retry.trace.append(TraceStep(**_sampling_step(recorder, k, len(sampled)).to_dict()))
                retry.unsupported_claims = [*shown, *retry.unsupported_claims]
                return retry
        if sampled:
            answer.trace.append(TraceStep(**_sampling_step(recorder, 0, len(sampled)).to_dict()))
        turn.explained = explained
        answer.unsupported_claims = shown
        return answer

    async def _sampled(self, turn: _Turn) -> list[list[Said]]:
        """More drafts of the first say prompt, sampled at `say_sample_temperature` (each with a seed of its own),
        parsed as the first was; those that only copy a line or decline are left out. Ordered by how much the
        model's replies agree with each (chat/pipeline/consensus.py). [] when sampling is off or the turn did not
        say from lines. The prompt is the cached prefix of the turn's last calls: a sample costs its own words."""
        n = self.settings.say_samples
        if n <= 0 or not turn.say_input or not turn.saying:
            return []
        chosen = turn.selection.chosen
        grammar = say_grammar(len(chosen))
        drafts: list[list[Said]] = []
        t = time.perf_counter()
        try:
            for k in range(n):
                reply = await self._ask(turn.say_input, grammar, temperature=self.settings.say_sample_temperature,
                                        seed=self.settings.llm_seed + 1 + k, max_tokens=SAMPLE_MAX_TOKENS,
                                        again=True)
                if looks_like_abstention(reply):
                    continue
                said = [renumbered(s, chosen, turn.question) for s in parse_said(reply, len(chosen))]
                drafts.append([s for s in said if not echoes_example(s, chosen) and not copied(s, chosen)])
        except Exception as exc:  # what was said stands as the checks left it
            log.info("sampling more drafts failed: %s", user_message(exc) or exc)
        finally:
            turn.mark("agent", t)
        log.debug("sampled drafts: %r", drafts)
        return by_agreement(drafts, turn.said, turn.question)

    async def _ask(self, messages: list[ChatMessage], grammar: str, *, temperature: float | None = None,
                   seed: int | None = None, max_tokens: int = SAY_MAX_TOKENS, again: bool = False) -> str:
        """The model's reply to `messages`, held to `grammar`, in full; sampled at `temperature` with `seed` when
        given (a provider without a seed samples with its own). `again`: `messages` is a prompt this turn asked
        before, and the embedded model may reuse what its context holds of it."""
        llm = cast(Any, with_max_tokens(self.llm, max_tokens, lower=True))
        if seed is not None and "seed" in type(llm).model_fields:
            llm = llm.model_copy(update={"seed": seed})
        llm = llm.with_grammar(lambda: grammar)
        options: dict[str, Any] = {} if temperature is None else {"temperature": temperature}
        if again:
            options["again"] = True
        reply = ""
        async for chunk in await llm.astream_chat(messages, **options):
            reply += chunk.delta or ""
        return reply

    @staticmethod
    def _bound(llm, grammar):
        """The LLM held to a grammar where the provider can do that (llama.cpp); others get the rules as text."""
        return llm.with_grammar(grammar) if hasattr(llm, "with_grammar") else llm

    async def _direct_answer(self, turn: _Turn, recorder: TurnRecorder, plan: Plan,
                             resume: list[ChatMessage] | None = None) -> str:
        """Answer from the evidence already shown, without the ReAct format (the fallback path); the draft, with
        its numbers. `resume`: the agent's last exchange, when it stopped in good order (a repeated call, the step
        limit): asked to answer right after it, the model reuses that prompt's cache instead of reading the
        passages again in a new one (10-18 s of prompt on the embedded model)."""
        budget = NOTES_BUDGET if plan.mode == "notes" else QA_BUDGET
        if resume and recorder.evidence:
            passages = len(recorder.evidence)  # the agent's Observations numbered every passage of the turn
            messages = [*resume, ChatMessage(role=MessageRole.USER,
                                             content=load_prompt("fallback_continue", question=turn.question))]
        else:
            numbered = list(enumerate(recorder.evidence[: budget.windows * 2], 1))
            if not numbered:
                raise ChatError("nothing was retrieved to answer from")
            passages = len(numbered)
            system = load_prompt("system").strip() + "\n\n" + load_prompt(
                "notes_rules" if plan.mode == "notes" else "answer_rules").strip()
            user = load_prompt("fallback_user", passages=render_evidence(numbered), question=turn.question)
            messages = [ChatMessage(role=MessageRole.SYSTEM, content=system),
                        ChatMessage(role=MessageRole.USER, content=user)]
        llm = self._bound(self.llm, lambda: answer_grammar(passages, notes=plan.mode == "notes"))
        draft = ""
        async for chunk in await llm.astream_chat(messages):
            draft += chunk.delta or ""
        turn.last_input = [*messages, ChatMessage(role=MessageRole.ASSISTANT, content=draft)]
        return clean_draft(draft)  # without a scratchpad the model wrote anyway

    async def _finish(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, draft: str | None,
                      error: str | None, lead: list[EvidenceWindow]) -> Answer:
        """The draft parsed once, through its passes, rendered once: the checked answer."""
        passages = checks.recorder_passages(recorder)
        base = _answer_fields(turn, recorder, plan)
        if draft is None:
            return failed_answer("I could not compose an answer this time; the most relevant passages I found are "
                                 "listed below.", error or "the language model gave no answer", passages, **base)
        if looks_like_abstention(draft) and plan.follow_up in ("next", "before") and lead:
            draft = ""  # asked to read on, the text's next lines are the answer whatever the model makes of them
        elif looks_like_abstention(draft) or not recorder.evidence:  # nothing was read: nothing can be said
            return self._declined(recorder, ABSTAIN_SENTENCE, base)
        t = time.perf_counter()
        cmap = checks.CitationMap(passages, self.library.docstore)
        text, unknown = map_numbers(draft, recorder)
        if unknown:
            log.info("removed citations to passage numbers never shown: %s", unknown)
        checked = await asyncio.to_thread(self._check, parse(text), cmap, recorder, plan, turn.question, lead,
                                          turn.said_before)
        body = render(checked.draft)
        turn.explained = body
        turn.timings["verify"] = round(time.perf_counter() - t, 3)
        claims = checks.unsupported_claims(checked.draft)
        if not body and not lead:
            return self._declined(recorder, ABSTAIN_SENTENCE, base, unsupported=claims)
        # lines the model only copied, with no sentence of its own, would show the key lines twice: the key lines
        # alone answer, introduced as the texts' words
        copies_only = not checked.draft.own() and bool(lead)
        shown = (Draft() if copies_only else checked.draft).quoted_below([(quote_text(w), w.ref) for w in lead])
        final = render(shown) if body and not copies_only else \
            evidence_only(lead, key_lines(lead), _names_absent(turn.question, lead, self.library))
        return Answer(
            answer=final,
            sentences=[AnswerSentence(text=line.text, origin=line.origin.value, citations=line.refs)
                       for line in shown.standing],
            citations=checks.citations_of_refs((c for line in shown.standing for c in line.citations), cmap),
            unsupported_claims=claims,
            status="answered",
            # nothing of the model's own text stood: the answer is the evidence, unexplained
            confidence=checked.confidence if body else min(checked.confidence, 0.3),
            error=error,
            **base,
        )

    def _check(self, draft: Draft, cmap: checks.CitationMap, recorder: TurnRecorder, plan: Plan, question: str,
               lead: list[EvidenceWindow], said_before: str = "") -> checks.Checked:
        """The passes, in order: references to nothing retrieved dropped; matters of form (`said_before`: the last
        turn's answer, whose sentences are not news); the verifier's judgement, once; uncited sentences; what the
        removals left dangling."""
        draft, dropped = checks.drop_unretrieved(draft, cmap)
        if dropped:
            log.info("removed citations to passages not retrieved: %s", dropped)
        if plan.mode != "notes":  # notes have headings and sections, which are not sentences to tidy
            main = {w.source for w in lead}
            draft = without_echoes(tidy_draft(draft, said_before), question)
            draft = keeping_to_main_texts(without_asides(draft, question, main), main)
        verifier = self.library.verifier(dense=True, llm=self.llm, mode=self.settings.verifier_mode)
        # a sentence about the tables (parallels, a rule's class) is judged by the tables, not the passages
        about = list(dict.fromkeys(w.sutta_id for w in recorder.evidence if w.sutta_id))[:3]
        checked = checks.check(draft, lambda sentences, cite_from: verifier.verify(
            sentences, recorder, strict=True, cite_from=cite_from, about=about, question=question),
            cmap.suttas()[:AUTO_CITE_TEXTS])
        if plan.mode != "notes":
            checked.draft = checks.without_uncited(checked.draft)
        checked.draft = without_dangling_clauses(checked.draft, [w.text for w in recorder.evidence])
        log.debug("%d citations added, %d narrowed, %d dropped", checked.cited, checked.narrowed, len(dropped))
        return checked

    def _table_answer(self, turn: _Turn, recorder: TurnRecorder, plan: Plan,
                      done: list[tuple[PlannedStep, ToolResult]]) -> Answer | None:
        """A question about the library that one of its tables answered: that answer, as it stands."""
        result = next((r for _, r in done if r.table), None)
        if result is None:
            return None
        answer = table_answer(self.library, turn.question, result, _answer_fields(turn, recorder, plan, timed=True))
        answer.resolution = Resolved(**turn.resolution.to_dict())
        turn.explained = answer.answer
        return answer

    def _declined(self, recorder: TurnRecorder, text: str, base: dict[str, Any], unsupported=()) -> Answer:
        """An abstention that still offers what came closest, for the reader to judge (never as an answer)."""
        offered = checks.window_citations(self.library.docstore, recorder.evidence[:3])
        if offered:
            text += " The closest passages I found are listed below."
        return Answer(answer=text, status="abstained", confidence=1.0, citations=offered,
                      unsupported_claims=list(unsupported), error=None, **base)

    # ---- pieces --------------------------------------------------------------------------------------------
    def _token(self, turn: _Turn, text: str) -> TokenEvent:
        if turn.first_token is None:
            turn.first_token = time.perf_counter() - turn.started
        turn.streamed += text
        return TokenEvent(text=text)

    def _nothing_relevant(self, plan: Plan, recorder: TurnRecorder, done: list[tuple[PlannedStep, ToolResult]],
                          analysis) -> Decline | None:
        """A reason to abstain without asking the model, or None. Only clear cases: every named sutta unknown, a
        text the question asks about that the library does not hold (the Lotus Sutra), nothing retrieved, or
        evidence that neither shares the question's distinctive words nor is close to it in meaning."""
        if not plan.steps or plan.follow_up in ("next", "before"):
            return None
        if analysis.unknown_titles and not (plan.sutta_ids or plan.aliases):
            return Decline(f"The {analysis.unknown_titles[0]} is not among the texts I have (the Pali canon in "
                           "SuttaCentral's translations).", told=True)
        if plan.scope and any(isinstance(step, LookupStep) and result.evidence for step, result in done):
            return None  # a follow-up: the model judges the lines of the suttas under discussion
        passages = checks.recorder_passages(recorder)
        if not analysis.pinned_docs and (unknown := _unknown_names(plan.question, self.library)):
            return Decline(f"The texts I have never mention {unknown[0]}.", told=True)
        if plan.sutta_ids or plan.aliases:
            lookups = [result for step, result in done if isinstance(step, LookupStep)]
            errors = [result.error for result in lookups if result.error is not None]
            if errors and len(errors) == len(lookups) and not passages:
                return Decline(errors[0], told=True)  # a tool's error is a sentence for the reader
            return None
        if not passages or not recorder.evidence:
            return Decline("No passage matched the question.")
        if analysis.pinned_docs:  # the reader named the text; whatever it holds is for the model to read
            return None
        index = self.library.evidence
        # a long question's words spread over several windows of its text: each text's windows are read together
        by_text: dict[str, list] = {}
        for w in recorder.evidence:
            by_text.setdefault(w.doc_id, []).append(w)
        # a text is also what SuttaCentral's summary says of it: a text found as a whole (by its card, or judged
        # the one the question asks for) may answer in words its quoted lines do not use
        words = max(relevance(plan.search_query or plan.question, f"{ws[0].title} {self._blurb(doc_id)}",
                              " ".join(w.text for w in ws), index.weights) for doc_id, ws in by_text.items())
        meaning = max([closeness(self.library, plan.question, recorder.evidence),
                       *(p.scores.get("dense", 0.0) for p in passages)])
        log.debug("evidence relevance: words %.2f, meaning %.2f", words, meaning)
        if words < MIN_RELEVANCE and meaning < MIN_DENSE and not _names_met(plan.question, recorder.evidence,
                                                                                self.library.bm25):
            return Decline(f"The closest passages share too little with the question (overlap {words:.2f}).")
        return None

    def _edge_of_text(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, canon: CanonTools) -> Answer:
        """Reading on found nothing: the passage last cited is where its text (and its book's run of texts) ends
        or begins. Said, and cited to that passage; asking the model would only invite it to make up a sequel."""
        step = next(s for s in plan.steps if isinstance(s, ExpandStep))
        after = step.after > 0
        lost = Decline(f"I could not find {step.ref} again to read on from it.")
        try:
            start, end = canon.segments_of(step.ref)
        except ToolError:
            return self._abstain(turn, recorder, plan, lost)
        seg_id = end if after else start
        view = self.library.evidence.sutta(seg_id.partition(":")[0])
        at = view.position.get(seg_id) if view is not None else None
        if view is None or at is None:
            return self._abstain(turn, recorder, plan, lost)
        window = make_window(view, at, at)
        citations = checks.window_citations(self.library.docstore, [window])
        return Answer(answer=edge_of_text(window, after=after), citations=citations, status="answered",
                      confidence=1.0, follow_ups=fallback_followups(turn.question, citations), error=None,
                      **_answer_fields(turn, recorder, plan, timed=True))

    def _abstain(self, turn: _Turn, recorder: TurnRecorder, plan: Plan, why: Decline | None = None) -> Answer:
        text = f"{ABSTAIN_SENTENCE} {why.reason}" if why is not None and why.told else ABSTAIN_SENTENCE
        if why is not None:
            log.info("declined: %s", why.reason)
        return self._declined(recorder, text, _answer_fields(turn, recorder, plan, timed=True))

    def _blurb(self, doc_id: str) -> str:
        doc = self.library.docstore.document(doc_id)
        return doc.blurb if doc is not None else ""

    def _text_judge(self) -> TextJudge | None:
        """The model as the judge of the turn's first text, when settings ask for it and it can score tokens."""
        if not self.settings.text_judge or not hasattr(self.llm, "continuation_logprobs"):
            return None
        return TextJudge(self.llm)

    def _memory(self, session_id: str | None):
        if not session_id:
            return None
        from chat.database import memory_database

        with self._memory_lock:
            if self._memory_store is None:
                self._memory_store = MemoryStore(memory_database(self.settings))
        return SessionMemory(self._memory_store, session_id)

    async def _remember(self, memory, turn: _Turn, answer: Answer, plan: Plan) -> None:
        if memory is None:
            return
        cited = list(dict.fromkeys(c.sutta_id for c in answer.citations if c.sutta_id))
        # a follow-up goes on with what the answer spoke of, not with a text it only quoted beside it
        spoken, spoken_words = spoken_of(answer.sentences)
        try:
            await memory.add_turn(turn.question, answer.answer, cited_refs=[c.ref for c in answer.citations],
                                  search_query=plan.search_query, status=answer.status, cited_suttas=cited,
                                  subject_suttas=subject_of(plan, spoken or cited),
                                  people=people_in(spoken_words if spoken else answer.answer),
                                  said=turn.explained if answer.status == "answered" else None)
        except Exception as exc:  # losing one turn of memory must not lose the answer
            log.warning("could not save the turn to memory: %s", exc)


def _deliver(emit: Emit, answer: Answer) -> None:
    """An answer with nothing to add after it (declined, failed, read past the end): both events at once."""
    answer.timings.setdefault("answer", answer.timings.get("total", 0.0))
    emit(AnswerEvent(answer=answer.model_copy(deep=True)))
    emit(FinalEvent(answer=answer))


def relevance(question: str, title: str, text: str, weights=None) -> float:
    """IDF-weighted share of the question's content words found in a passage or its title. Words the corpus
    never uses ("Zhaozhou", "Amitabha") weigh most, so a question about another tradition scores low."""

    from tools.search.query import QUERY_NOISE

    q = list(dict.fromkeys(t for t in tokenize(question)
                           if t not in QUERY_NOISE and t not in _CANON_NAME_WORDS and len(t) > 2))
    if not q:
        return 1.0
    w = weights(q) if weights is not None else {t: 1.0 for t in q}
    have = set(tokenize(f"{title} {text}"))
    total = sum(w.values()) or 1.0
    return sum(w[t] for t in q if t in have) / total


# Words that name the canon's own collections and books ("Saṁyutta Nikāya", "the Long Discourses"): they say
# where to look, not what the question is about, and no passage need contain them.
_CANON_NAME_WORDS = frozenset(tokenize(" ".join(
    [*(f"{c.english} {c.pali}" for c in COLLECTIONS.values()),
     *(f"{b.english} {b.pali} {' '.join(b.names)}" for b in BOOKS.values())])))
_CAPITALISED = re.compile(r"(?<=\w[\s,;:'’(])\s*([A-ZĀĪŪṬḌṆÑṄḶṀṂ][\w\u0300-\u036f]+)")


def _unknown_names(question: str, library) -> list[str]:
    """Names the question uses (capitalised words inside it) that no passage of the library contains, in English
    or in Pali, and that name no collection or book: a teacher, text or figure of another tradition ("Zhaozhou",
    "Amitabha") is a premise the texts cannot answer from."""
    from indexing.pali_index import pali_tokens

    bm25 = library.bm25
    pali = library.bridges.pali
    out = []
    for word in _CAPITALISED.findall(question):
        tokens = tokenize(word)
        counts = [bm25.document_frequency(t) for t in tokens]
        if not counts or not all(n > 0 and df == 0 for df, n in counts):  # (0, 0): no index to tell
            continue
        if set(tokens) & _CANON_NAME_WORDS or _spelt_otherwise(tokens, bm25):
            continue
        if pali is not None and any(pali.store.document_frequency(t)[0] for t in pali_tokens(fold(word))):
            continue
        out.append(word)
    return out


def _spelt_otherwise(tokens: list[str], bm25) -> bool:
    """A reader's spelling of a name the library has ("Mogallana" for Moggallāna) is not an unknown name."""
    from rapidfuzz import fuzz, process

    vocab = list(bm25.vocabulary())
    return any(process.extractOne(t, vocab, scorer=fuzz.ratio, score_cutoff=85) for t in tokens if len(t) >= 5)


def _names_met(question: str, evidence, bm25) -> bool:
    """A person or place the question names (a capitalised word inside it that few passages use, unlike "Buddha")
    that the evidence speaks of: the passages are about the question's subject even when they word the rest
    otherwise ("Sāti's misunderstanding" against "Sāti ... harmful misconception")."""


    said = set(tokenize(" ".join(e.text for e in evidence)))
    for word in _CAPITALISED.findall(question):
        for token in tokenize(word)[:1]:
            df, n = bm25.document_frequency(token)
            if token in said and n and df / n <= RARE_NAME_SHARE:
                return True
    return False


# The words of the books' and baskets' names ("Dhammapada", "Thig", "Vinaya"): what a question names that is no one.
_BOOK_WORDS = frozenset(
    {t for book in BOOKS.values() for name in (book.display, book.english, book.pali, *book.names) for t in words(name)}
    | {t for c in COLLECTIONS.values() for name in (c.code, c.english, c.pali, c.basket) for t in words(name)})


def _names_absent(question: str, windows: list[EvidenceWindow], library) -> list[str]:
    """The people and places the question names (as the claim checks read names: no word the library writes in
    lowercase, no title like "Lady" or "Bodhisatta", no book's or basket's name; and few passages use it, as
    `_names_met` reads them) that none of the windows' texts names, nor their titles: the lines are then only the
    closest found ("How did Nanda overcome his longing?" answered from a brahmin's discourse). A name inside a
    longer one counts as named ("Kassapa" in "Mahākassapa")."""
    bm25 = library.bm25
    if bm25 is None:
        return []
    said = set(words(" ".join(w.text for w in windows)))
    for view in (library.evidence.sutta(w.doc_id) for w in windows):
        if view is not None:  # the whole text and its titles: the lines chosen need not be where it names them
            said |= view.tokens | set(words(f"{view.doc.title} {view.doc.title_pali or ''}"))
    out: list[str] = []
    asked = re.sub(r"[“\"][^”\"]*[”\"]", "", question)  # a title the reader quotes names a text, not a person
    for word in names(asked, library.lowercase_words).values():
        tokens = words(word)
        if not tokens or any(t in _BOOK_WORDS or any(t in s for s in said) for t in tokens):
            continue
        df, n = bm25.document_frequency(tokens[-1])
        if n and 0 < df / n <= RARE_NAME_SHARE and word not in out:
            out.append(word)
    return [w for w in out if not any(w != other and w in other for other in out)]  # "Gayā" of "Gayā Head"


def _searched_beside(plan: Plan) -> list[str]:
    """The documents of the texts a follow-up points back at, when the whole library was searched beside them."""
    return next((list(step.prefer) for step in plan.steps if isinstance(step, SearchStep) and step.prefer), [])


async def _run_steps(canon: CanonTools, steps: list[PlannedStep]) -> list[tuple[PlannedStep, ToolResult]]:
    """Run the planned steps in order; a table that answers the question ends them (chat/pipeline/tables.py)."""
    done: list[tuple[PlannedStep, ToolResult]] = []
    for step in steps:
        result = await asyncio.to_thread(_run_step, canon, step)
        done.append((step, result))
        if result.table:
            break
    return done


def _run_step(canon: CanonTools, step: PlannedStep) -> ToolResult:
    if isinstance(step, TableStep):
        return step.run(canon)
    if isinstance(step, LookupStep):
        return canon.lookup_named(step.sutta, step.query, setting=step.setting, summary=step.summary,
                                  windows=step.windows)
    if isinstance(step, SearchStep):
        return canon.search_passages(step.query, step.collection or "", k=canon.budget.k, windows=step.windows,
                                     prefer=step.prefer)
    assert isinstance(step, ExpandStep)
    return canon.expand_context(step.ref, before=step.before, after=step.after)


async def _stop(task: asyncio.Task) -> None:
    """Cancel the turn and let it clean up. Shielded: the server may cancel the reader again and again while it
    waits (anyio's cancel scopes do), and each cancel would otherwise cut the turn's own clean-up short (the
    agent's halt below), leaving the model generating."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.shield(task)


@contextlib.asynccontextmanager
async def _halting(handler) -> AsyncIterator[None]:
    """Halt the agent's workflow if the turn leaves before it ends. The workflow runs its steps (the LLM's
    streamed reply among them) in tasks of its own, which cancelling the turn does not reach: without the halt the
    model's HTTP stream, or llama.cpp's decoding, would run on for nobody."""
    try:
        yield
    finally:
        if not handler.is_done():
            await handler.cancel_run()


def _answer_fields(turn: _Turn, recorder: TurnRecorder, plan: Plan, *, timed: bool = False) -> dict[str, Any]:
    """What every answer of a turn carries besides its text; `timed` for an answer that ends the turn here (the
    full path adds its timings when it delivers the checked answer)."""
    fields: dict[str, Any] = dict(trace=_trace(recorder), search_types_used=sorted(recorder.search_types_used),
                                  session_id=turn.session_id, mode=plan.mode)
    if timed:
        fields["timings"] = {**turn.timings, "total": round(time.perf_counter() - turn.started, 3)}
    return fields


def _with_note(error: str | None, note: str) -> str:
    """The turn's error and one more. A note that only repeats it adds nothing: the fallback refused by the same
    absent server, or told a hung one is "not asked again", would otherwise read "X; X"."""
    if not error:
        return note
    if note.startswith(error):
        return error
    return f"{error}; {note}"


def _sampling_step(recorder: TurnRecorder, kept: int, sampled: int) -> TraceEntry:
    """The sampled drafts as a step of the turn: how many, and which of them, in the order of agreement, the checks
    kept (0: none of their sentences stood)."""
    summary = (f"{sampled} more drafts sampled; none of their sentences stood" if not kept else
               f"{sampled} more drafts sampled; the checks kept the one the drafts most agree with" if kept == 1 else
               f"{sampled} more drafts sampled; the checks kept the one ranked {kept} by agreement")
    entry = TraceEntry(tool="sample_drafts", input={"drafts": sampled}, output_summary=summary,
                       output={"kept": kept})
    recorder.trace.append(entry)
    return entry


def _trace(recorder: TurnRecorder) -> list[TraceStep]:
    return [TraceStep(**e.to_dict()) for e in recorder.trace]


def _step_event(phase: Literal["start", "end"], entry: TraceEntry, recorder: TurnRecorder) -> StepEvent:
    index = next((i for i, e in enumerate(recorder.trace) if e is entry), len(recorder.trace))
    step = TraceStep(**entry.to_dict())
    return StepEvent(phase=phase, step_id=f"{index}-{entry.tool}", step=step)
