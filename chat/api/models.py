"""Request and response bodies of the HTTP API (chat.api.routes); the answer itself is chat.pipeline.answer.Answer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class QueryRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"query": "What does the simile of the saw teach?", "mode": "qa"}]},
    )
    query: str = Field(description="The question, in English (Pali terms welcome).")
    session_id: str | None = Field(
        default=None, min_length=1, max_length=128, pattern=r"^[\w.:-]+$",
        description="Continue a conversation: follow-up questions see the earlier turns of the same session.",
    )
    mode: Literal["qa", "notes"] | None = Field(
        default=None,
        description="qa: a short cited answer; notes: long study notes. Default: chosen from the question.",
    )


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"query": "simile of the saw", "k": 5, "mode": "hybrid"}]}
    )
    query: str = Field(description="Words to search for.")
    k: int = Field(default=8, ge=1, le=50, strict=True, description="How many passages to return (1-50).")
    mode: Literal["hybrid", "bm25", "dense"] = Field(default="hybrid")
    collection: str | None = Field(default=None, description="Restrict to one collection: DN, MN, SN, AN or KN (Dhp).")


class PassageOut(BaseModel):
    rank: int
    ref: str
    chunk_id: str
    doc_id: str
    sutta_id: str | None
    title: str
    text: str
    pali: str = ""
    collection: str = ""
    segment_start: str | None = None
    segment_end: str | None = None
    page: int | None = None
    also_in: list[str] = Field(default_factory=list, description="Other suttas holding the same stock passage.")
    scores: dict[str, float] = Field(
        description="Per stage: bm25, dense, fused, rerank, final (those that ran); "
        "pinned=1 for a sutta named in the query."
    )


class SearchResponse(BaseModel):
    query: str
    mode: str
    k: int
    collection: str | None
    search_types_used: list[str] = Field(description="What really ran: bm25, dense (absent if it was down).")
    degraded: str | None = Field(default=None, description="Why the search ran with less than was asked for.")
    pinned_suttas: list[str] = Field(default_factory=list, description="Suttas named in the query, shown first.")
    notes: list[str] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    took_ms: float
    passages: list[PassageOut]


class SegmentOut(BaseModel):
    seg_id: str
    ref: str
    en: str
    pali: str


class SuttaResponse(BaseModel):
    query: str
    sutta_id: str
    doc_ids: list[str]
    title: str
    title_pali: str
    collection: str
    n_segments: int
    segments_shown: str
    blurb: str = ""
    truncated: bool = Field(default=False, description="A segment range longer than the lookup's cap was cut short.")
    segments: list[SegmentOut]
    text_en: str
    text_pali: str


class HealthResponse(BaseModel):
    status: Literal["ok", "degraded", "unavailable"]
    index: dict[str, Any]
    embedding: dict[str, Any]
    llm: dict[str, Any]


class ErrorResponse(BaseModel):
    detail: str
    errors: list[dict[str, Any]] | None = None
