"""Request and response bodies of the HTTP API (chat.api.routes); the answer itself is chat.pipeline.answer.Answer."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from chat.input import has_surrogates
from chat.pipeline.answer import Rendering


def _no_surrogates(value: str | None) -> str | None:
    # JSON's \ud800 escapes decode to lone surrogates, which no UTF-8 store, tokenizer or response can hold
    if value is not None and has_surrogates(value):
        raise ValueError("holds a lone surrogate (\\ud800-\\udfff), which is not text; send valid UTF-8")
    return value


Text = Annotated[str, AfterValidator(_no_surrogates)]


class QueryRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"query": "What does the simile of the saw teach?", "mode": "qa"}]},
    )
    query: Text = Field(description="The question, in English (Pali terms welcome).")
    session_id: str | None = Field(
        default=None, min_length=1, max_length=128, pattern=r"^[\w.:-]+$",
        description="Continue a conversation: follow-up questions see the earlier turns of the same session. "
        "Sessions belong to their owner: with API keys, to the key; without, the ID must come from /api/sessions.",
    )
    mode: Literal["qa", "notes"] | None = Field(
        default=None,
        description="qa: a short cited answer; notes: long study notes. Default: chosen from the question.",
    )


class SessionResponse(BaseModel):
    session_id: str


class SearchRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"query": "simile of the saw", "k": 5, "mode": "hybrid"}]}
    )
    query: Text = Field(description="Words to search for.")
    k: int = Field(default=8, ge=1, le=50, strict=True, description="How many passages to return (1-50).")
    mode: Literal["hybrid", "bm25", "dense"] = Field(default="hybrid")
    collection: Text | None = Field(
        default=None, max_length=32, description="Restrict to one collection: DN, MN, SN, AN or KN (a book such as "
        "Dhp or Snp names its collection); in the Vinaya Vb, Kd, Pvr or Pm."
    )
    basket: Literal["sutta", "vinaya"] | None = Field(
        default=None, description="Restrict to one basket: the discourses (sutta) or the monastic law (vinaya). "
        "Without it, a query that names the Vinaya searches only there."
    )


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
    basket: str = Field(default="", description="sutta or vinaya (\"\" outside SuttaCentral).")
    translator: str = Field(default="", description="Whose English `text` is: `sujato`, `brahmali`.")
    alternatives: list[Rendering] = Field(
        default_factory=list, description="The same segments in the other translations the library holds."
    )
    scores: dict[str, float] = Field(
        description="Per stage: bm25, dense, fused, rerank, final (those that ran); "
        "pinned=1 for a sutta named in the query."
    )


class SearchResponse(BaseModel):
    query: str
    mode: str
    k: int
    collection: str | None
    basket: str | None = Field(default=None, description="The basket searched alone (asked for, or named in the "
                               "query), or the one a topic word leaned the ranking toward.")
    search_types_used: list[str] = Field(description="What really ran: bm25, dense (absent if it was down, or "
                                         "before the semantic index has its first vectors).")
    dense_coverage: float | None = Field(default=None, description="The share of passages the dense search "
                                         "covered: below 1 while the semantic index is being built; null when "
                                         "dense search did not run.")
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


class ParallelOut(BaseModel):
    sutta_id: str = Field(description="The display ID when the library holds the text (`DN 22`), else SuttaCentral's "
                          "ID (`ma98`).")
    title: str
    in_library: bool
    partial: bool = Field(description="A partial or resembling parallel (`~` in SuttaCentral's table).")
    kind: str = Field(description="parallels, mentions or retells.")
    section: str = Field(default="", description="The related part of that text, \"\" for all of it.")
    own_section: str = Field(default="", description="The part of the text looked up that it relates to.")


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
    translator: str = Field(default="", description="Whose English the segments are.")
    translations: list[str] = Field(default_factory=list, description="Every translator the library holds the text "
                                    "by, the default first; ask for another with ?translator=.")
    parallels: list[ParallelOut] = Field(default_factory=list,
                                         description="SuttaCentral's parallels, mentions and retellings of the text.")
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
