"""What the API serves from the index alone: search results with the reason a search ran degraded, sutta texts,
and the answer for when no LLM can write one (status "failed", with the passages search found)."""

from __future__ import annotations

import time

from fastapi.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from chat.api.models import ParallelOut, PassageOut, SegmentOut, SuttaResponse
from chat.pipeline.answer import Answer, TraceStep, failed_answer, renderings
from chat.runtime import IndexUnavailableError, Runtime
from indexing.errors import IndexingError
from indexing.vocabulary import segment_ref
from tools.errors import ToolError


def run_search(library, query: str, k: int, mode: str, collection: str | None, basket: str | None = None):
    """The retriever's SearchResult plus why it ran with less than asked for (None when it did not)."""
    from tools.search.retriever import search

    # The retriever itself falls back to BM25 when the dense side is down or fails, and notes it.
    result = search(library, query, k=k, mode=mode, collection=collection, basket=basket)
    wanted_dense = mode in ("hybrid", "dense")
    degraded = None
    if wanted_dense and "dense" not in result.search_types_used:
        why = [n for n in result.notes if "BM25" in n or "dense" in n]
        degraded = "; ".join(why) or "dense retrieval unavailable; BM25 only"
    elif wanted_dense and result.dense_coverage is not None and result.dense_coverage < 1:
        degraded = "; ".join(n for n in result.notes if "dense search covers" in n)
    return result, degraded


def passage_out(rank: int, p) -> PassageOut:
    return PassageOut(
        rank=rank, ref=p.ref, chunk_id=p.chunk_id, doc_id=p.doc_id, sutta_id=p.sutta_id, title=p.title,
        text=p.text, pali=p.pali, collection=p.collection, segment_start=p.segment_start,
        segment_end=p.segment_end, page=p.page, also_in=list(p.also_in), basket=p.basket, translator=p.translator,
        alternatives=renderings(p),
        scores={k: float(v) for k, v in p.scores.items() if v is not None},
    )


def sutta_text(library, ref: str, translator: str | None = None) -> SuttaResponse:
    from tools.references import parse_reference
    from tools.texts.lookup import MAX_SEGMENTS, REFERENCE_FORMS, lookup

    # Stricter than the agent's tool, which takes the first reference found anywhere in its text: a URL naming
    # `MN 21 extra` or `MN 21:abc` is a mistake to report, not a request for MN 21.
    if parse_reference(ref) is None:
        raise HTTPException(404, f"{ref!r} is not a reference; write it like {REFERENCE_FORMS}, or mn21:3.1-3.5")
    try:
        found = lookup(library, ref, translator=translator)
    except ToolError as exc:  # unparseable or unknown: either way there is no such text to GET
        raise HTTPException(404, str(exc)) from exc
    rows = [SegmentOut(seg_id=r.seg_id, ref=r.ref, en=r.en, pali=r.pali) for r in found.rows]
    shown = found.segments_shown
    if shown == "the opening":  # a whole sutta was asked for: the API gives all of it, not the tool's preview
        rows = [
            SegmentOut(seg_id=s.seg_id, ref=segment_ref(s.seg_id), en=s.en.strip(), pali=s.pali.strip())
            for doc_id in found.doc_ids
            for s in library.docstore.segments(doc_id)
            if s.seg_id and (s.en.strip() or s.pali.strip())
        ]
        shown = "all"
    truncated = found.segments_shown.startswith("segments ") and len(rows) >= MAX_SEGMENTS
    return SuttaResponse(
        query=ref, sutta_id=found.sutta_id, doc_ids=found.doc_ids, title=found.title, title_pali=found.title_pali,
        collection=found.collection, n_segments=found.n_segments, segments_shown=shown, blurb=found.blurb,
        translator=found.translator, translations=found.translations,
        parallels=[ParallelOut(sutta_id=p.sutta_id, title=p.title, in_library=p.in_library, partial=p.partial,
                               kind=p.kind, section=p.section, own_section=p.own_section) for p in found.parallels],
        truncated=truncated, segments=rows,
        text_en="\n".join(r.en for r in rows if r.en), text_pali="\n".join(r.pali for r in rows if r.pali),
    )


async def answer_without_llm(runtime: Runtime, question: str, session_id: str | None, mode: str | None,
                              reason: str) -> tuple[Answer, TraceStep]:
    """Status "failed" with what search found, so a caller still gets the passages when no LLM can run."""
    started = time.perf_counter()
    settings = runtime.settings
    step = TraceStep(tool="search_passages", input={"query": question, "k": settings.retrieval_k})
    passages, used = [], []
    try:
        library = await run_in_threadpool(runtime.library)
        result, degraded = await run_in_threadpool(run_search, library, question, settings.retrieval_k, "hybrid", None)
        passages, used = result.passages, result.search_types_used
        step.output_summary = f"{len(passages)} passages {result.answered_by()}" + (f"; {degraded}" if degraded
                                                                                     else "")
    except (IndexUnavailableError, ToolError, IndexingError) as exc:
        step.error = str(exc)
    step.duration_ms = (time.perf_counter() - started) * 1000
    total = time.perf_counter() - started
    text = "No answer could be written: the language model is unavailable or failed (see `error`). " + (
        "The passages that search found for the question are listed as citations." if passages
        else "Search found no passages either.")
    answer = failed_answer(text, reason, passages, limit=len(passages), trace=[step], search_types_used=used,
                           timings={"search": round(total, 3), "total": round(total, 3)}, session_id=session_id,
                           mode=mode or "qa")
    return answer, step
