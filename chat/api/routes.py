"""The JSON HTTP API's app and endpoints: the chat's cited answers, search and sutta text for scripts, notebooks
and other front ends.

Standalone with `scholar serve`, or inside the Chainlit process through `mount_api(chainlit.server.app, runtime)`.
The index opens on first use and the LLM on the first /api/query, so /api/search and /api/suttas work (and start
fast) on a machine with no language model at all.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Header, Path, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException
from starlette.routing import Mount

from chat.api import sse
from chat.api.models import (
    ErrorResponse,
    HealthResponse,
    QueryRequest,
    SearchRequest,
    SearchResponse,
    SessionResponse,
    SuttaResponse,
)
from chat.api.passages import answer_without_llm, passage_out, run_search, sutta_text
from chat.api.security import (
    ApiAuth,
    LoginCheck,
    SessionScope,
    SlidingWindowLimiter,
    rate_dependency,
)
from chat.database import StoreError
from chat.errors import ChatError
from chat.pipeline.answer import Answer
from chat.providers.select import probe_providers
from chat.runtime import IndexUnavailableError, Runtime
from indexing.errors import IndexingError
from indexing.settings import ScholarSettings
from indexing.vocabulary import COLLECTIONS
from tools.errors import ToolError, UnknownReferenceError
from tools.references import collection_code

log = logging.getLogger(__name__)

API_PREFIX = "/api"
MAX_BODY_BYTES = 64 * 1024
MAX_REF_CHARS = 64
MAX_LOC_CHARS = 64
_MOUNT_NAME = "scholar-api"


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


def _loc(err: dict) -> list:
    # An unknown field's name is the client's text, as long as the body allows: named, not echoed back whole.
    return [x if not isinstance(x, str) or len(x) <= MAX_LOC_CHARS else x[:MAX_LOC_CHARS] + "…"
            for x in err.get("loc", ())]


def _describe_validation(errors: list[dict]) -> str:
    parts = []
    for err in errors:
        where = ".".join(str(x) for x in _loc(err) if x != "body") or "body"
        parts.append(f"{where}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


# ---- the app ---------------------------------------------------------------------------------------------


def create_app(runtime: Runtime) -> FastAPI:
    """The standalone API: endpoints under /api, docs at /docs and /openapi.json."""
    return _build(runtime, prefix=API_PREFIX)


def mount_api(app, runtime: Runtime, login: LoginCheck | None = None) -> FastAPI:
    """Serve the API inside another FastAPI app (Chainlit's `chainlit.server.app`) under /api, sharing the host
    process's runtime (one LLM). Docs then live at /api/docs and /api/openapi.json. The mount goes first in the
    route table because Chainlit ends its routes with a catch-all that serves the UI for every GET path and would
    otherwise shadow /api. `login`: the host's login, which then guards the API too (ApiAuth).
    """
    api = _build(runtime, prefix="", login=login)
    # Chainlit re-imports the app module on reload: replace an earlier mount rather than stacking a second one.
    app.router.routes[:] = [r for r in app.router.routes if getattr(r, "name", None) != _MOUNT_NAME]
    app.router.routes.insert(0, Mount(API_PREFIX, app=api, name=_MOUNT_NAME))
    return api


@dataclass
class _Guards:
    """What the routes share: the key or login check, the two rate limits and the error responses they document."""

    api_auth: ApiAuth
    auth: Any
    query_rate: Any
    search_rate: Any
    errors: dict[int | str, dict[str, Any]]


def _build(runtime: Runtime, *, prefix: str, login: LoginCheck | None = None) -> FastAPI:
    settings = runtime.settings
    # FastAPIOffline: /docs and /redoc load their scripts from this process, not from a CDN that an offline machine
    # cannot reach (the page stayed blank); under the chat's /api mount too, through the request's root_path.
    app = FastAPIOffline(
        favicon_url="data:,",  # none: the package ships no icon, and a missing one is a 404 in every page load
        title="canon-scholar API",
        version="1",
        description="Cited answers, hybrid search and texts from the Pali canon (SuttaCentral: the suttas in Bhikkhu "
        "Sujato's translation, the Vinaya in Bhikkhu Brahmali's, other translations beside them). Every answer's "
        "citations point at retrieved passages; see `status` and `unsupported_claims`.",
        max_body_size=MAX_BODY_BYTES,
    )
    app.state.runtime = runtime
    app.state.query_limiter = SlidingWindowLimiter(settings.api_query_rate)
    app.state.search_limiter = SlidingWindowLimiter(settings.api_search_rate)
    api_auth = ApiAuth(settings, login)
    auth = api_auth.dependency()
    guards = _Guards(api_auth, auth, rate_dependency(app.state.query_limiter, "queries", auth),
                     rate_dependency(app.state.search_limiter, "searches", auth), _ERRORS)
    _add_error_handlers(app)
    _add_answer_routes(app, runtime, prefix, guards)
    _add_text_routes(app, runtime, prefix, guards)
    _add_health_route(app, runtime, prefix, guards)
    return app


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorResponse, "description": "Malformed JSON"},
    401: {"model": ErrorResponse, "description": "Missing or invalid X-API-Key (when keys are configured) or, "
          "in a chat with a password login, no login"},
    422: {"model": ErrorResponse, "description": "Invalid input"},
    429: {"model": ErrorResponse, "description": "Rate limited; see Retry-After"},
    503: {"model": ErrorResponse, "description": "The index is not available"},
}


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errs = list(exc.errors())
        if any(e.get("type") == "json_invalid" for e in errs):
            return JSONResponse({"detail": f"malformed JSON body: {_describe_validation(errs)}"}, status_code=400)
        safe = [{"loc": _loc(e), "msg": e.get("msg", ""), "type": e.get("type", "")} for e in errs]
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
    @app.exception_handler(StoreError)  # the shared database is down: sessions cannot be issued or checked
    async def _index_unavailable(request: Request, exc: Exception):
        return JSONResponse({"detail": str(exc)}, status_code=503)


def _add_answer_routes(app: FastAPI, runtime: Runtime, prefix: str, guards: _Guards) -> None:
    """POST /query (JSON or Server-Sent Events) and POST /sessions."""
    settings, auth, errors = runtime.settings, guards.auth, guards.errors
    sessions = SessionScope(settings)

    @app.post(f"{prefix}/query", response_model=Answer, tags=["answers"],
              responses={**errors, 200: {"content": {"text/event-stream": {}},
                                         "description": "The answer; with Accept: text/event-stream, SSE events "
                                         "`step` and `token` (the quoted passages, then the checked sentences: "
                                         "never a draft), `answer` (the checked answer object), then one `final` "
                                         "(the same with its follow-up questions)."}},
              dependencies=[Depends(guards.query_rate)])
    async def query(body: QueryRequest, accept: Annotated[str | None, Header()] = None,
                    owner: str | None = Depends(auth)):
        """Ask a question; get a cited, verified answer (status answered, abstained or failed). A `session_id`
        continues a conversation of the same owner: the same API key or chat login, or without either an ID from
        /api/sessions."""
        question = _check_query(body.query, settings)
        key = sessions.memory_key(owner, body.session_id)
        await run_in_threadpool(runtime.library)  # no index is a 503 before any stream starts, not a failed answer
        if accept and "text/event-stream" in accept:
            return StreamingResponse(
                sse.keepalive(sse.stream_answer(runtime, question, body.session_id, body.mode, memory_key=key),
                              sse.PING_S),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        try:
            scholar_ = await run_in_threadpool(runtime.scholar)
        except ChatError as exc:
            answer, _ = await answer_without_llm(runtime, question, body.session_id, body.mode, str(exc))
            return answer
        try:
            answer = await scholar_.aask(question, session_id=key, mode=body.mode or "auto")
            return answer.model_copy(update={"session_id": body.session_id})
        except (ChatError, ToolError, IndexingError) as exc:  # the Scholar degrades itself; this is the backstop
            log.warning("query failed: %s", exc)
            answer, _ = await answer_without_llm(runtime, question, body.session_id, body.mode, str(exc))
            return answer

    @app.post(f"{prefix}/sessions", response_model=SessionResponse, tags=["answers"], responses=errors,
              dependencies=[Depends(guards.search_rate)])
    def new_session(owner: str | None = Depends(auth)):
        """A new conversation's ID, to pass as `session_id` to /api/query. Without API keys this is the only kind
        of session ID the server accepts: it cannot be guessed, so no one else can read or continue the
        conversation. With keys, a session belongs to its key and any ID the client chooses also works."""
        return SessionResponse(session_id=sessions.issue())


def _add_text_routes(app: FastAPI, runtime: Runtime, prefix: str, guards: _Guards) -> None:
    """POST /search and GET /suttas/{ref}: what the index alone serves."""
    settings, auth, errors = runtime.settings, guards.auth, guards.errors

    @app.post(f"{prefix}/search", response_model=SearchResponse, tags=["search"], responses=errors,
              dependencies=[Depends(guards.search_rate)])
    def search(body: SearchRequest):
        """Ranked passages with their per-stage scores. No LLM involved."""
        question = _check_query(body.query, settings)
        collection = _check_collection(body.collection)
        started = time.perf_counter()
        result, degraded = run_search(runtime.library(), question, body.k, body.mode, collection, body.basket)
        return SearchResponse(
            query=question, mode=body.mode, k=body.k, collection=collection, basket=result.basket,
            search_types_used=result.search_types_used, dense_coverage=result.dense_coverage, degraded=degraded,
            pinned_suttas=result.pinned_suttas,
            notes=result.notes, timings_ms=result.timings_ms, took_ms=round((time.perf_counter() - started) * 1000, 1),
            passages=[passage_out(i, p) for i, p in enumerate(result.passages[: body.k], start=1)],
        )

    @app.get(f"{prefix}/suttas/{{ref}}", response_model=SuttaResponse, tags=["texts"],
             responses={**errors, 404: {"model": ErrorResponse, "description": "No such sutta or segment range"}},
             dependencies=[Depends(auth)])
    def sutta(ref: Annotated[str, Path(description="`MN 21`, `SN 35.28`, `Dhp 1-20`, `Snp 1.4`, `Bu Pj 2`, "
                                            "`mn21:3.1-3.5` (URL-encoded)")],
              translator: Annotated[str | None, Query(max_length=40, description="Another translation the library "
                                                      "holds (`soma`); default: the basket's default translator.")]
              = None):
        """The English and Pali text of a sutta or Vinaya text, or of a segment range within one; its translators
        and SuttaCentral's parallels."""
        ref = ref.strip()
        if not ref or len(ref) > MAX_REF_CHARS:
            raise HTTPException(422, f"reference must be 1 to {MAX_REF_CHARS} characters, like MN 21 or mn21:3.1-3.5")
        return sutta_text(runtime.library(), ref, translator.strip() or None if translator else None)


def _add_health_route(app: FastAPI, runtime: Runtime, prefix: str, guards: _Guards) -> None:
    api_auth = guards.api_auth

    @app.get(f"{prefix}/health", response_model=HealthResponse, tags=["service"])
    def health(request: Request,
               probe: Annotated[bool, Query(description="Also check which LLM a query would get (Ollama, "
                                                "embedded) before one has been built.")] = False,
               x_api_key: Annotated[str | None, Header()] = None):
        """Whether the index is loaded, its size, how far its semantic index is (`index.semantic`: percent, minutes
        left, a line for a reader; the status is "degraded" until it is complete), and which LLM and embedding
        provider are live. With API keys or a chat login configured, only the status and the semantic index's
        progress without a valid key or login: paths, hosts and errors are for those who hold one, and only they
        can make the server probe its LLM."""
        trusted = api_auth.trusted(request, x_api_key)
        body, code = _health(runtime, probe and trusted)
        if not trusted:
            public: dict[str, Any] = {key: body.index[key] for key in ("loaded", "semantic") if key in body.index}
            body = HealthResponse(status=body.status, index=public,
                                  embedding={}, llm={"note": "details need an X-API-Key or a login"})
        return JSONResponse(body.model_dump(), status_code=code)


def _health(runtime: Runtime, probe: bool = False) -> tuple[HealthResponse, int]:
    settings = runtime.settings
    from indexing.embeddings import embed_model_name

    index: dict[str, Any] = {"dir": str(settings.index_dir), "loaded": False}
    embedding: dict[str, Any] = {
        "provider": settings.embed_provider, "model": embed_model_name(settings), "live": False,
    }
    semantic = None
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
        built_with = library.docstore.info("embed_model")
        if built_with:  # queries are embedded like the index, whatever the settings now say
            embedding["index_model"] = built_with
        if library.chroma is not None:
            try:
                index["dense_vectors"] = library.chroma.count()
            except Exception as exc:  # a remote Chroma may have gone away; health reports it rather than failing
                index["dense_vectors"] = None
                embedding["error"] = f"Chroma: {exc}"
        semantic = library.semantic_progress()
        index["semantic"] = _semantic_view(semantic)
    llm: dict[str, Any] = {
        "provider": settings.llm_provider, "live": runtime.llm_name, "loaded": runtime.scholar_loaded,
    }
    if runtime.llm_error:
        llm["error"] = runtime.llm_error
    elif not runtime.scholar_loaded:
        llm["note"] = "built on the first /api/query"
    if probe and not runtime.scholar_loaded:
        llm["probe"] = probe_providers(settings)
    status: Literal["ok", "degraded", "unavailable"]
    if library is None:
        status = "unavailable"
    elif not library.dense_ready or runtime.llm_error or (semantic is not None and not semantic.complete):
        status = "degraded"  # answering, with less than the whole: keywords alone for what is not embedded yet
    else:
        status = "ok"
    return HealthResponse(status=status, index=index, embedding=embedding, llm=llm), 503 if library is None else 200


def _semantic_view(progress) -> dict[str, Any]:
    """How far the semantic index is, for /api/health: percent, minutes left, one line for a reader."""
    view = progress.as_dict()
    view.pop("pid", None)  # the host's business
    return view


def run_server(args, settings: ScholarSettings) -> int:
    """`scholar serve`: the API alone, under uvicorn."""
    import uvicorn

    from chat import first_run

    embedder = first_run.lexical_then_background(settings) if getattr(args, "ingest", False) else None
    try:
        runtime = Runtime(settings)
        app = create_app(runtime)
        log.info("opening the index at %s", settings.index_dir)
        # Loading up front makes the first request fast and a missing index an immediate, readable error.
        runtime.library()
        log.info("API on http://%s:%d (docs at /docs)", args.host, args.port)
        uvicorn.Server(server_config(app, args.host, args.port, settings)).run()
    finally:
        first_run.stop(embedder)
    return 0


def server_config(app, host: str, port: int, settings: ScholarSettings):
    """uvicorn's options for `scholar serve`. uvicorn believes X-Forwarded-For from loopback by default, so any
    local client could claim a fresh address per request and never meet the rate limit: only the configured
    proxies are believed. A request must arrive whole within api_read_timeout seconds (chat.api.slow_clients)."""
    import uvicorn

    from chat.api.slow_clients import protocol_with_timeout

    return uvicorn.Config(app, host=host, port=port, log_level="info", access_log=False,
                          proxy_headers=bool(settings.trusted_proxies),
                          forwarded_allow_ips=list(settings.trusted_proxies),
                          http=protocol_with_timeout(settings.api_read_timeout))
