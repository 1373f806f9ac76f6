"""The structured answer every front end (CLI, Chainlit, HTTP API) receives, and the stream events before it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from chat.providers.calls import ModelCall
from indexing.vocabulary import translator_name
from tools.passages import Passage, clip

Status = Literal["answered", "abstained", "failed"]


class Rendering(BaseModel):
    """The same segments in another translation the library holds, shown beside the default's."""

    translator: str = Field(description="Who translated it: `soma`.")
    translator_name: str = Field(description="`Bhikkhu Soma`.")
    doc_id: str
    text: str = Field(description="That translation of the segments; verse lines end with a line break.")
    segment_start: str | None = None
    segment_end: str | None = None


def renderings(passage: Passage, docstore=None, start: str | None = None, end: str | None = None) -> list[Rendering]:
    """The passage's other translations; with a docstore and `start`..`end`, of those segments only (a citation
    narrower than its passage)."""
    alternatives = passage.alternatives
    if docstore is not None and start:
        from tools.texts.translations import rendering

        alternatives = [r for a in alternatives if (r := rendering(docstore, a.doc_id, start, end)) is not None]
    return [Rendering(translator=a.translator, translator_name=translator_name(a.translator), doc_id=a.doc_id,
                      text=a.text, segment_start=a.segment_start, segment_end=a.segment_end)
            for a in alternatives]


class Citation(BaseModel):
    ref: str  # as cited in the text: "MN 21:20.1"; a note or a PDF by title and place: "Retreat notes ¶2", "Talk p. 3"
    sutta_id: str | None  # None for a note or a PDF
    title: str = ""
    excerpt: str = ""
    pali: str = ""
    score: float = 0.0
    chunk_id: str | None = None
    segment_start: str | None = None
    segment_end: str | None = None
    translator: str = ""  # whose English the excerpt is: `sujato`
    alternatives: list[Rendering] = Field(default_factory=list)  # the passage in the library's other translations
    page: int | None = None  # a PDF's page (the first, for a range of pages)


class ClaimVerdict(BaseModel):
    """A sentence of the answer's own that did not stand as written, and why."""

    sentence: str
    verdict: Literal["supported", "partial", "unsupported", "uncited"]
    reason: str = Field("", description="Why, in plain words for the reader.")
    kind: str = Field("", description="Why, as a keyword: not_in_text, negated, number_differs, uncited, ...")
    detail: str = Field("", description="The checks' own account, for developers (it may hold stemmed words).")
    evidence_ref: str | None = None
    evidence_quote: str = ""
    score: float = 0.0
    revised_to: str | None = None  # what replaced it in the answer: the cited text's own words; "" if removed
    idle_citations: list[str] = Field(default_factory=list)  # references that hold none of it
    pointer: bool = False  # "This is found in [A], [B]": a claim about the sentence before it


class AnswerSentence(BaseModel):
    """One sentence of the answer as the reader sees it, so that a client can tell the answer's own words from the
    passages it quotes."""

    text: str = Field(description="The sentence without its references.")
    origin: Literal["model", "quote"] = Field(
        description="model: the answer's own words, checked against the cited lines; quote: a passage's own words.")
    citations: list[str] = Field(default_factory=list, description="The references it cites: `MN 22:10.7`.")


class TraceStep(BaseModel):
    tool: str
    input: dict
    output_summary: str = ""
    duration_ms: float = 0.0
    error: str | None = None


class Resolved(BaseModel):
    """How the question was read against the conversation (chat/pipeline/conversation.py)."""

    kind: Literal["first", "new", "follow_up"]
    reason: str = ""
    scope: list[str] = Field(default_factory=list)  # the suttas a follow-up was answered within
    continues: str | None = None  # the earlier question it leans on
    follow_up: str | None = None  # scoped, next, before, same
    people: list[str] = Field(default_factory=list)


class Answer(BaseModel):
    answer: str
    # the answer's sentences in reading order, the quoted key lines first; empty for an abstention or a failure
    sentences: list[AnswerSentence] = Field(default_factory=list)
    citations: list[Citation] = Field(default_factory=list)
    unsupported_claims: list[ClaimVerdict] = Field(default_factory=list)
    follow_ups: list[str] = Field(default_factory=list)
    status: Status = "answered"
    confidence: float = 0.0
    # seconds per stage: plan, retrieve, agent, verify, followups; first_token, answer (when the checked answer
    # was ready), total (with its follow-ups)
    timings: dict[str, float] = Field(default_factory=dict)
    trace: list[TraceStep] = Field(default_factory=list)
    search_types_used: list[str] = Field(default_factory=list)
    timestamp: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    session_id: str | None = None
    mode: Literal["qa", "notes"] = "qa"
    error: str | None = None  # for status "failed": what went wrong and what to do
    resolution: Resolved | None = None  # follow-up or new subject, and why
    model_calls: list[ModelCall] = Field(default_factory=list)  # each model call of the turn: tokens and seconds


def failed_answer(text: str, error: str, passages: list[Passage], *, limit: int = 5, **fields) -> Answer:
    """An answer with status "failed": what went wrong (`error`) and the passages found so far as its citations,
    so the reader can still read them. `fields` are the rest of the Answer (trace, timings, mode, ...)."""
    return Answer(answer=text, citations=passages_as_citations(passages, limit), status="failed", error=error,
                  **fields)


def passages_as_citations(passages: list[Passage], limit: int = 5) -> list[Citation]:
    """For failed or abstained answers: what was retrieved, so the user can read it themselves."""
    return [
        Citation(ref=p.ref, sutta_id=p.sutta_id, title=p.title, excerpt=clip(p.text, 400), pali=clip(p.pali, 300),
                 score=round(p.scores.get("final", p.scores.get("fused", 0.0)), 4), chunk_id=p.chunk_id,
                 segment_start=p.segment_start, segment_end=p.segment_end, translator=p.translator,
                 alternatives=renderings(p), page=p.page)
        for p in passages[:limit]
    ]


class TokenEvent(BaseModel):
    kind: Literal["token"] = "token"
    text: str


class StepEvent(BaseModel):
    kind: Literal["step"] = "step"
    phase: Literal["start", "end"]
    step_id: str
    step: TraceStep


class AnswerEvent(BaseModel):
    """The checked answer as soon as it stands, before its follow-up questions are written: a reader can read it
    (and its passages) while the model thinks of what to ask next. `FinalEvent` always follows."""
    kind: Literal["answer"] = "answer"
    answer: Answer


class FinalEvent(BaseModel):
    """The turn's last event: the same answer with its follow-up questions and the turn's total seconds."""
    kind: Literal["final"] = "final"
    answer: Answer


Event = TokenEvent | StepEvent | AnswerEvent | FinalEvent
