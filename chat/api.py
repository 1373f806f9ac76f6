"""The JSON HTTP API: the chat's cited answers, search and sutta text for scripts, notebooks and other front ends.

Standalone with `scholar serve`, or inside the Chainlit process through `mount_api(chainlit.server.app, runtime)`.
The index opens on first use and the LLM on the first /api/query, so /api/search and /api/suttas work (and start
fast) on a machine with no language model at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.sse import format_sse_event
from starlette.exceptions import HTTPException
from starlette.routing import Mount

from chat.pipeline.answer import Answer, FinalEvent, StepEvent, TokenEvent, TraceStep
from chat.api_models import (
    ErrorResponse,
    HealthResponse,
    PassageOut,
    QueryRequest,
    SearchRequest,
    SearchResponse,
    SegmentOut,
    SuttaResponse,
)
from chat.pipeline.checks import passages_as_citations
from chat.errors import ChatError
from chat.rate_limit import SlidingWindowLimiter, retry_after_header
from chat.providers.select import probe_providers
from chat.runtime import IndexUnavailableError, Runtime
from indexing.errors import IndexingError
from indexing.vocabulary import COLLECTIONS, segment_ref
from indexing.settings import ScholarSettings
from tools.errors import ToolError, UnknownReferenceError
from tools.references import collection_code

log = logging.getLogger(__name__)

API_PREFIX = "/api"
MAX_BODY_BYTES = 64 * 1024
MAX_REF_CHARS = 64
_MOUNT_NAME = "scholar-api"
SSE_PING_S = 15.0
KEEPALIVE = b": ping\n\n"


# ---- auth and rate limiting --------------------------------------------------------------------------------


def _client_key(request: Request, api_key: str | None) -> str:
    # Behind a key, the key is the client (one user, many addresses); else the peer address. X-Forwarded-For is
    # not trusted: anyone could send it to get a fresh quota.
    if api_key:
        return f"key:{api_key}"
    return f"ip:{request.client.host if request.client else 'unknown'}"


def _auth_dependency(settings: ScholarSettings):
    keys = [k for k in settings.api_keys if k]

    def check(x_api_key: Annotated[str | None, Header(description="Required when the server has API keys.")] = None):
        if not keys:
            return None
        if not x_api_key or not any(hmac.compare_digest(x_api_key.encode(), k.encode()) for k in keys):
            raise HTTPException(401, "missing or invalid X-API-Key header", headers={"WWW-Authenticate": "X-API-Key"})
        return x_api_key

    return check


def _rate_dependency(limiter: SlidingWindowLimiter, what: str, auth):
    # A default, not Annotated: string annotations (future import) cannot see the closure's `auth`.
    def check(request: Request, api_key: str | None = Depends(auth)):
        wait = limiter.hit(_client_key(request, api_key))
        if wait is not None:
            raise HTTPException(
                429,
                f"rate limit: at most {limiter.limit} {what} per {limiter.window_s:g} s; "
                f"retry in {retry_after_header(wait)} s",
                headers={"Retry-After": retry_after_header(wait)},
            )

    return check


# ---- validation helpers ------------------------------------------------------------------------------------


def _check_query(text: str, settings: ScholarSettings) -> str:
    text = text.strip()
    if not text:
        raise HTTPException(422, "query must not be empty")
    if len(text) > settings.api_max_query_chars:
        raise HTTPException(
            422, f"query is {len(text)} characters long; the limit is {settings.api_max_query_chars}"
        )
    return text


def _check_collection(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    code = collection_code(value)
    if code is None:
        raise HTTPException(422, f"unknown collection {value!r}: use one of {', '.join(COLLECTIONS)} (or a book, Dhp)")
    return code


def _describe_validation(errors: list[dict]) -> str:
    parts = []
    for err in errors:
        where = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


# ---- search, lookup and the degraded answer ----------------------------------------------------------------


def _run_search(library, query: str, k: int, mode: str, collection: str | None):
    """The retriever's SearchResult plus why it ran with less than asked for (None when it did not)."""
    from tools.retriever import search

    # The retriever itself falls back to BM25 when the dense side is down or fails, and notes it.
    result = search(library, query, k=k, mode=mode, collection=collection)
    wanted_dense = mode in ("hybrid", "dense")
    degraded = None
    if wanted_dense and "dense" not in result.search_types_used:
        why = [n for n in result.notes if "BM25" in n or "dense" in n]
        degraded = "; ".join(why) or "dense retrieval unavailable; BM25 only"
    return result, degraded


def _passage_out(rank: int, p) -> PassageOut:
    return PassageOut(
        rank=rank, ref=p.ref, chunk_id=p.chunk_id, doc_id=p.doc_id, sutta_id=p.sutta_id, title=p.title,
        text=p.text, pali=p.pali, collection=p.collection, segment_start=p.segment_start,
        segment_end=p.segment_end, page=p.page, also_in=list(p.also_in),
        scores={k: float(v) for k, v in p.scores.items() if v is not None},
    )


def _sutta(library, ref: str) -> SuttaResponse:
    from tools.lookup import MAX_SEGMENTS, lookup
    from tools.references import parse_reference

    # Stricter than the agent's tool, which takes the first reference found anywhere in its text: a URL naming
    # `MN 21 extra` or `MN 21:abc` is a mistake to report, not a request for MN 21.
    if parse_reference(ref) is None:
        raise HTTPException(
            404, f"{ref!r} is not a sutta reference; write it like MN 21, SN 35.28, AN 4.159, Dhp 1 or mn21:3.1-3.5"
        )
    try:
        found = lookup(library, ref)
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
        truncated=truncated, segments=rows,
        text_en="\n".join(r.en for r in rows if r.en), text_pali="\n".join(r.pali for r in rows if r.pali),
    )


async def _answer_without_llm(runtime: Runtime, question: str, session_id: str | None, mode: str | None,
                              reason: str) -> tuple[Answer, TraceStep]:
    """Status "failed" with what search found, so a caller still gets the passages when no LLM can run."""
    started = time.perf_counter()
    settings = runtime.settings
    step = TraceStep(tool="search_passages", input={"query": question, "k": settings.retrieval_k})
    passages, used = [], []
    try:
        library = await run_in_threadpool(runtime.library)
        result, degraded = await run_in_threadpool(_run_search, library, question, settings.retrieval_k, "hybrid", None)
        passages, used = result.passages, result.search_types_used
        step.output_summary = f"{len(passages)} passages" + (f"; {degraded}" if degraded else "")
    except (IndexUnavailableError, ToolError, IndexingError) as exc:
        step.error = str(exc)
    step.duration_ms = (time.perf_counter() - started) * 1000
    total = time.perf_counter() - started
    answer = Answer(
        answer=(
            "No answer could be written: the language model is unavailable or failed (see `error`). "
            + ("The passages that search found for the question are listed as citations." if passages
               else "Search found no passages either.")
        ),
        citations=passages_as_citations(passages, limit=len(passages)),
        status="failed",
        timings={"search": round(total, 3), "total": round(total, 3)},
        trace=[step],
        search_types_used=used,
        session_id=session_id,
        mode=mode or "qa",
        error=reason,
    )
    return answer, step


# ---- the app -----------------------------------------------------------------------------------------------


def create_app(runtime: Runtime) -> FastAPI:
    """The standalone API: endpoints under /api, docs at /docs and /openapi.json."""
    return _build(runtime, prefix=API_PREFIX)


def mount_api(app, runtime: Runtime) -> FastAPI:
    """Serve the API inside another FastAPI app (Chainlit's `chainlit.server.app`) under /api, sharing the host
    process's runtime (one LLM). Docs then live at /api/docs and /api/openapi.json. The mount goes first in the
    route table because Chainlit ends its routes with a catch-all that serves the UI for every GET path and would
    otherwise shadow /api.
    """
    api = _build(runtime, prefix="")
    # Chainlit re-imports the app module on reload: replace an earlier mount rather than stacking a second one.
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "name", None) != _MOUNT_NAME]
    app.router.routes.insert(0, Mount(API_PREFIX, app=api, name=_MOUNT_NAME))
    return api


def _build(runtime: Runtime, *, prefix: str) -> FastAPI:
    settings = runtime.settings
    app = FastAPI(
        title="canon-scholar API",
        version="1",
        description="Cited answers, hybrid search and sutta texts from the Pali canon (SuttaCentral, Bhikkhu Sujato's "
        "translations). Every answer's citations point at retrieved passages; see `status` and `unsupported_claims`.",
        max_body_size=MAX_BODY_BYTES,
    )
    app.state.runtime = runtime
    app.state.query_limiter = SlidingWindowLimiter(settings.api_query_rate)
    app.state.search_limiter = SlidingWindowLimiter(settings.api_search_rate)
    auth = _auth_dependency(settings)
    query_rate = _rate_dependency(app.state.query_limiter, "queries", auth)
    search_rate = _rate_dependency(app.state.search_limiter, "searches", auth)
    errors = {
        400: {"model": ErrorResponse, "description": "Malformed JSON"},
        401: {"model": ErrorResponse, "description": "Missing or invalid X-API-Key (when keys are configured)"},
        422: {"model": ErrorResponse, "description": "Invalid input"},
        429: {"model": ErrorResponse, "description": "Rate limited; see Retry-After"},
        503: {"model": ErrorResponse, "description": "The index is not available"},
    }

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errs = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errs):
            return JSONResponse({"detail": f"malformed JSON body: {_describe_validation(errs)}"}, status_code=400)
        safe = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in errs]
        return JSONResponse({"detail": _describe_validation(errs), "errors": safe}, status_code=422)

    @app.exception_handler(UnknownReferenceError)
    async def _unknown_ref(request: Request, exc: UnknownReferenceError):
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(ToolError)
    async def _tool_error(request: Request, exc: ToolError):
        # Raised on purpose by a tool about its input; the message says what to change.
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(IndexUnavailableError)
    @app.exception_handler(IndexingError)
    async def _index_unavailable(request: Request, exc: Exception):
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.post(f"{prefix}/query", response_model=Answer, tags=["answers"],
              responses={**errors, 200: {"content": {"text/event-stream": {}},
                                         "description": "The answer; with Accept: text/event-stream, SSE events "
                                         "`token`, `step`, then one `final` holding the answer object."}},
              dependencies=[Depends(query_rate)])
    async def query(body: QueryRequest, accept: Annotated[str | None, Header()] = None):
        """Ask a question; get a cited, verified answer (status answered, abstained or failed)."""
        question = _check_query(body.query, settings)
        await run_in_threadpool(runtime.library)  # no index is a 503 before any stream starts, not a failed answer
        if accept and "text/event-stream" in accept:
            return StreamingResponse(
                _keepalive(_sse(runtime, question, body.session_id, body.mode), SSE_PING_S),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        try:
            scholar_ = await run_in_threadpool(runtime.scholar)
        except ChatError as exc:
            answer, _ = await _answer_without_llm(runtime, question, body.session_id, body.mode, str(exc))
            return answer
        try:
            return await scholar_.aask(question, session_id=body.session_id, mode=body.mode or "auto")
        except (ChatError, ToolError, IndexingError) as exc:  # the Scholar degrades itself; this is the backstop
            log.warning("query failed: %s", exc)
            answer, _ = await _answer_without_llm(runtime, question, body.session_id, body.mode, str(exc))
            return answer

    @app.post(f"{prefix}/search", response_model=SearchResponse, tags=["search"], responses=errors,
              dependencies=[Depends(search_rate)])
    def search(body: SearchRequest):
        """Ranked passages with their per-stage scores. No LLM involved."""
        question = _check_query(body.query, settings)
        collection = _check_collection(body.collection)
        started = time.perf_counter()
        result, degraded = _run_search(runtime.library(), question, body.k, body.mode, collection)
        return SearchResponse(
            query=question, mode=body.mode, k=body.k, collection=collection,
            search_types_used=result.search_types_used, degraded=degraded, pinned_suttas=result.pinned_suttas,
            notes=result.notes, timings_ms=result.timings_ms, took_ms=round((time.perf_counter() - started) * 1000, 1),
            passages=[_passage_out(i, p) for i, p in enumerate(result.passages[: body.k], start=1)],
        )

    @app.get(f"{prefix}/suttas/{{ref}}", response_model=SuttaResponse, tags=["texts"],
             responses={**errors, 404: {"model": ErrorResponse, "description": "No such sutta or segment range"}},
             dependencies=[Depends(auth)])
    def sutta(ref: Annotated[str, Path(description="`MN 21`, `SN 35.28`, `Dhp 1-20`, `mn21:3.1-3.5` (URL-encoded)")]):
        """The English and Pali text of a sutta, or of a segment range within one."""
        ref = ref.strip()
        if not ref or len(ref) > MAX_REF_CHARS:
            raise HTTPException(422, f"reference must be 1 to {MAX_REF_CHARS} characters, like MN 21 or mn21:3.1-3.5")
        return _sutta(runtime.library(), ref)

    @app.get(f"{prefix}/health", response_model=HealthResponse, tags=["service"])
    def health(probe: Annotated[bool, Query(description="Also check which LLM a query would get (Ollama, "
                                                "embedded) before one has been built.")] = False):
        """Whether the index is loaded, its size, and which LLM and embedding provider are live."""
        body, code = _health(runtime, probe)
        return JSONResponse(body.model_dump(), status_code=code)

    return app


def _health(runtime: Runtime, probe: bool = False) -> tuple[HealthResponse, int]:
    settings = runtime.settings
    from indexing.embeddings import embed_model_name

    index: dict[str, Any] = {"dir": str(settings.index_dir), "loaded": False}
    embedding: dict[str, Any] = {
        "provider": settings.embed_provider, "model": embed_model_name(settings), "live": False,
    }
    try:
        library = runtime.library()
    except IndexUnavailableError as exc:
        index["error"] = str(exc)
        library = None
    if library is not None:
        counts = library.docstore.counts()
        index.update(
            loaded=True, documents=counts["documents"], chunks=counts["chunks"],
            suttas_by_collection=counts["suttas_by_collection"], bm25=library.bm25.ready,
        )
        embedding.update(live=library.dense_ready, error=library.dense_error)
        if library.chroma is not None:
            try:
                index["dense_vectors"] = library.chroma.count()
            except Exception as exc:  # a remote Chroma may have gone away; health reports it rather than failing
                index["dense_vectors"] = None
                embedding["error"] = f"Chroma: {exc}"
    llm: dict[str, Any] = {
        "provider": settings.llm_provider, "live": runtime.llm_name, "loaded": runtime.scholar_loaded,
    }
    if runtime.llm_error:
        llm["error"] = runtime.llm_error
    elif not runtime.scholar_loaded:
        llm["note"] = "built on the first /api/query"
    if probe and not runtime.scholar_loaded:
        llm["probe"] = probe_providers(settings)
    if library is None:
        status = "unavailable"
    elif not library.dense_ready or runtime.llm_error:
        status = "degraded"
    else:
        status = "ok"
    return HealthResponse(status=status, index=index, embedding=embedding, llm=llm), 503 if library is None else 200


async def _sse(runtime: Runtime, question: str, session_id: str | None, mode: str | None) -> AsyncIterator[bytes]:
    def event(ev: TokenEvent | StepEvent | Answer) -> bytes:
        kind = "final" if isinstance(ev, Answer) else ev.kind
        return format_sse_event(event=kind, data_str=json.dumps(ev.model_dump(mode="json"), ensure_ascii=False))

    try:
        scholar = await run_in_threadpool(runtime.scholar)
    except ChatError as exc:
        answer, step = await _answer_without_llm(runtime, question, session_id, mode, str(exc))
        yield event(StepEvent(phase="start", step_id="search-0", step=step))
        yield event(StepEvent(phase="end", step_id="search-0", step=step))
        yield event(answer)
        return
    final_sent = False
    try:
        async for ev in scholar.astream(question, session_id=session_id, mode=mode or "auto"):
            if isinstance(ev, FinalEvent):
                yield event(ev.answer)
                final_sent = True
            else:
                yield event(ev)
    except (ChatError, ToolError, IndexingError) as exc:
        # Headers are already sent: the only way to report is a final event the client can read.
        log.warning("streamed query failed: %s", exc)
        if not final_sent:
            answer, _ = await _answer_without_llm(runtime, question, session_id, mode, str(exc))
            yield event(answer)
            final_sent = True
    if not final_sent:
        yield event(Answer(answer="", status="failed", session_id=session_id, mode=mode or "qa",
                           error="the answer stream ended without a final answer"))


async def _keepalive(stream: AsyncIterator[bytes], interval_s: float) -> AsyncIterator[bytes]:
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


def run_server(args, settings: ScholarSettings) -> int:
    """`scholar serve`: the API alone, under uvicorn."""
    import uvicorn

    runtime = Runtime(settings)
    app = create_app(runtime)
    log.info("opening the index at %s", settings.index_dir)
    # Loading up front makes the first request fast and a missing index an immediate, readable error.
    runtime.library()
    log.info("API on http://%s:%d (docs at /docs)", args.host, args.port)
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", access_log=False)
    return 0
