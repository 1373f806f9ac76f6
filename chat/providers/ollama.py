"""Ollama as a LlamaIndex LLM whose every failure (absent, model not pulled, hung, overloaded) is one clear error."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
import ollama
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
)
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.llms.ollama import Ollama
from tenacity import (
    AsyncRetrying,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
)

from chat.errors import LLMUnavailableError
from chat.providers.calls import ModelCall, record
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

STOP_SEQUENCES = ["Observation:"]  # a ReAct step ends where the tool output belongs


def normalize_host(host: str) -> str:
    """OLLAMA_HOST may be `host`, `host:port` or a URL, as the ollama CLI accepts; return `scheme://host:port`."""
    host = (host or "").strip().rstrip("/") or "127.0.0.1:11434"
    if "://" not in host:
        host = "http://" + host
    parts = urlsplit(host)
    hostname = parts.hostname or "127.0.0.1"
    if hostname == "0.0.0.0":  # a bind address, not one to connect to
        hostname = "127.0.0.1"
    if ":" in hostname:
        hostname = f"[{hostname}]"
    port = parts.port or (443 if parts.scheme == "https" else 11434)
    return f"{parts.scheme}://{hostname}:{port}{parts.path}"


def model_matches(wanted: str, available: str) -> bool:
    if wanted == available:
        return True
    return ":" not in wanted and available == f"{wanted}:latest"


@dataclass
class OllamaStatus:
    reachable: bool
    model_available: bool
    models: list[str] = field(default_factory=list)
    error: str | None = None


def probe_ollama(settings: ScholarSettings) -> OllamaStatus:
    """GET /api/tags with short timeouts: answers within ~2x ollama_connect_timeout even when the server hangs."""
    host = normalize_host(settings.ollama_host)
    t = settings.ollama_connect_timeout
    try:
        response = httpx.get(f"{host}/api/tags", timeout=httpx.Timeout(t, connect=t))
        response.raise_for_status()
        models = [m.get("name") or m.get("model") or "" for m in response.json().get("models", [])]
    except httpx.TimeoutException:
        return OllamaStatus(False, False, error=f"Ollama at {host} did not answer within {t:g}s")
    except httpx.ConnectError:
        return OllamaStatus(False, False, error=f"nothing is listening at {host} (Ollama is not running)")
    except httpx.HTTPStatusError as exc:
        return OllamaStatus(False, False, error=f"{host}/api/tags answered HTTP {exc.response.status_code}")
    except (httpx.HTTPError, ValueError, AttributeError) as exc:
        return OllamaStatus(False, False, error=f"{host} did not answer like Ollama: {exc}")
    available = any(model_matches(settings.ollama_model, m) for m in models)
    error = None if available else f"model {settings.ollama_model} is not pulled in Ollama at {host}"
    return OllamaStatus(True, available, models, error)


def _is_transient(exc: BaseException) -> bool:
    """Worth retrying: the server is there but hiccupped. Absent servers, missing models and timeouts are not."""
    if isinstance(exc, ollama.ResponseError):
        return exc.status_code >= 500
    return isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, ConnectionResetError))


# JSONDecodeError: a server on the port that is not Ollama answers with something that is not its JSON
_EXPECTED = (ollama.ResponseError, httpx.HTTPError, ConnectionError, json.JSONDecodeError)


class FirstTokenTimeout(httpx.TimeoutException):
    """A streamed reply did not start within first_token_timeout."""


class _DeadServer:
    """Remembers a server that timed out, so the rest of the turn (the fallback answer, the follow-ups) and the
    next turns fail at once instead of waiting on it again. Shared by the copies of one LLM (with_max_tokens)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.until = 0.0
        self.reason = ""

    def check(self) -> None:
        with self._lock:
            left = self.until - time.monotonic()
            if left > 0:
                raise LLMUnavailableError(f"{self.reason} (not asked again for another {left:.0f}s)")

    def mark(self, reason: str, for_s: float) -> None:
        with self._lock:
            self.until, self.reason = time.monotonic() + for_s, reason


class OllamaLLM(Ollama):
    """`Ollama` whose chat/stream_chat/achat/astream_chat (and so complete & co.) raise only LLMUnavailableError."""

    connect_timeout: float = Field(default=3.0)
    max_attempts: int = Field(default=3, description="Tries for transient errors (connection reset, HTTP 5xx).")
    retry_wait: float = Field(default=0.5, description="First back-off in seconds; doubles per retry.")
    max_tokens: int | None = Field(default=None, description="num_predict; a field so notes mode can raise it.")
    first_token_timeout: float = Field(default=30.0, description="Seconds for a streamed reply to start.")
    dead_for_s: float = Field(default=30.0, description="How long a server that timed out is not asked again.")

    _async_clients: dict = PrivateAttr(default_factory=dict)
    _dead: _DeadServer = PrivateAttr(default_factory=_DeadServer)

    @classmethod
    def class_name(cls) -> str:
        return "ScholarOllama"

    def _timeout(self) -> httpx.Timeout:
        # The read timeout applies per streamed chunk, so it bounds a hung server, not a long answer.
        return httpx.Timeout(self.request_timeout, connect=self.connect_timeout)

    @property
    def client(self) -> ollama.Client:
        if self._client is None:
            self._client = ollama.Client(host=self.base_url, timeout=self._timeout(), headers=self.headers or {})
        return self._client

    @property
    def async_client(self) -> ollama.AsyncClient:
        # httpx's async pool is bound to the loop that opened it; asyncio.run() per request would break a shared one.
        loop = asyncio.get_running_loop()
        client = self._async_clients.get(id(loop))
        if client is None:
            self._async_clients.clear()
            client = ollama.AsyncClient(host=self.base_url, timeout=self._timeout(), headers=self.headers or {})
            self._async_clients[id(loop)] = client
        return client

    @property
    def _model_kwargs(self) -> dict[str, Any]:
        kwargs = super()._model_kwargs
        if self.max_tokens:
            kwargs["num_predict"] = self.max_tokens
        return kwargs

    # --- errors ------------------------------------------------------------------------------------------
    def translate(self, exc: BaseException) -> LLMUnavailableError:
        error = self._translate(exc)
        if isinstance(exc, httpx.TimeoutException):
            self._dead.mark(str(error), self.dead_for_s)
        return error

    def _translate(self, exc: BaseException) -> LLMUnavailableError:
        host, model = self.base_url, self.model
        if isinstance(exc, FirstTokenTimeout):
            return LLMUnavailableError(
                f"Ollama at {host} did not start answering within {self.first_token_timeout:g}s: the server looks "
                "hung or overloaded (check `ollama ps`, restart it), or raise SCHOLAR_OLLAMA_FIRST_TOKEN_TIMEOUT."
            )
        if isinstance(exc, ollama.ResponseError):
            text = str(exc.error)
            if exc.status_code == 404 or "not found" in text.lower():
                return LLMUnavailableError(
                    f"Ollama at {host} does not have the model {model}: run `ollama pull {model}` "
                    "(or set SCHOLAR_OLLAMA_MODEL to a model listed by `ollama list`)."
                )
            status = f" (HTTP {exc.status_code})" if exc.status_code > 0 else ""  # -1: an error inside a stream
            return LLMUnavailableError(f"Ollama at {host} failed to answer with {model}: {text}{status}.")
        if isinstance(exc, httpx.ConnectTimeout):
            return LLMUnavailableError(
                f"Ollama at {host} did not accept a connection within {self.connect_timeout:g}s: check OLLAMA_HOST "
                "and that `ollama serve` is running, or use the embedded model (`scholar models install`)."
            )
        if isinstance(exc, httpx.TimeoutException):
            return LLMUnavailableError(
                f"Ollama at {host} did not answer within {self.request_timeout:g}s: the server looks hung or "
                "overloaded (check `ollama ps`, restart it), or raise SCHOLAR_OLLAMA_REQUEST_TIMEOUT."
            )
        if isinstance(exc, (httpx.ConnectError, ConnectionRefusedError)) or (
            type(exc) is ConnectionError  # what the ollama client raises for a refused connection
        ):
            return LLMUnavailableError(
                f"Ollama is not reachable at {host}: start it (`ollama serve`) and `ollama pull {model}`, "
                "or run `scholar models install` to use the embedded model."
            )
        if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, ConnectionResetError)):
            return LLMUnavailableError(
                f"Ollama at {host} dropped the connection ({exc.__class__.__name__}); try again."
            )
        if isinstance(exc, json.JSONDecodeError):
            return LLMUnavailableError(
                f"the server at {host} did not answer like Ollama (its reply is not Ollama's JSON): check OLLAMA_HOST."
            )
        return LLMUnavailableError(f"Ollama at {host} failed: {exc.__class__.__name__}: {exc}")

    def _retry_kwargs(self) -> dict:
        return dict(
            stop=stop_after_attempt(max(1, self.max_attempts)),
            wait=wait_exponential(multiplier=self.retry_wait, max=8),
            retry=retry_if_exception(_is_transient),
            reraise=True,
            before_sleep=lambda state: log.warning(
                "Ollama transient error (%s); retry %d", state.outcome.exception(), state.attempt_number
            ),
        )

    def _recorded(self, response: ChatResponse, started: float) -> ChatResponse:
        """The call's tokens and seconds recorded for the turn, from Ollama's last chunk (the one marked done)."""
        raw = response.raw
        if raw is not None and hasattr(raw, "get") and raw.get("done"):
            prompt_ns = raw.get("prompt_eval_duration") or 0
            record(ModelCall(model=self.model, prompt_tokens=int(raw.get("prompt_eval_count") or 0),
                             output_tokens=int(raw.get("eval_count") or 0),
                             seconds=round(time.perf_counter() - started, 3),
                             prompt_seconds=round(prompt_ns / 1e9, 3) if prompt_ns else None))
        return response

    # --- the four entry points; complete/acomplete/... go through these -----------------------------------
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self._dead.check()
        started = time.perf_counter()
        try:
            for attempt in Retrying(**self._retry_kwargs()):
                with attempt:
                    return self._recorded(super().chat(messages, **dict(kwargs)), started)
        except _EXPECTED as exc:
            raise self.translate(exc) from exc
        raise AssertionError("unreachable")

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        parent_stream_chat = super().stream_chat

        def gen() -> ChatResponseGen:
            self._dead.check()
            started = time.perf_counter()
            try:
                # Retry only until the first chunk: once text has reached the user a retry would repeat it.
                for attempt in Retrying(**self._retry_kwargs()):
                    with attempt:
                        stream = parent_stream_chat(messages, **dict(kwargs))
                        first = next(stream, None)
                if first is None:
                    return
                yield self._recorded(first, started)
                for chunk in stream:
                    yield self._recorded(chunk, started)
            except _EXPECTED as exc:
                raise self.translate(exc) from exc

        return gen()

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        self._dead.check()
        started = time.perf_counter()
        try:
            async for attempt in AsyncRetrying(**self._retry_kwargs()):
                with attempt:
                    return self._recorded(await super().achat(messages, **dict(kwargs)), started)
        except _EXPECTED as exc:
            raise self.translate(exc) from exc
        raise AssertionError("unreachable")

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        parent_astream_chat = super().astream_chat

        async def start() -> tuple[ChatResponseAsyncGen, ChatResponse | None]:
            stream = await parent_astream_chat(messages, **dict(kwargs))
            return stream, await anext(stream, None)

        async def gen() -> ChatResponseAsyncGen:
            self._dead.check()
            started = time.perf_counter()
            try:
                async for attempt in AsyncRetrying(**self._retry_kwargs()):
                    with attempt:
                        try:
                            # httpx's read timeout is per chunk; the wait for the first one has its own, shorter bound
                            stream, first = await asyncio.wait_for(start(), self.first_token_timeout)
                        except TimeoutError as exc:
                            raise FirstTokenTimeout("no first token") from exc
                if first is None:
                    return
                # A reader that stops early (a cancelled turn) must close the HTTP stream now, not when the garbage
                # collector gets to it: closing it is what makes Ollama stop generating.
                async with contextlib.aclosing(stream):
                    yield self._recorded(first, started)
                    async for chunk in stream:
                        yield self._recorded(chunk, started)
            except _EXPECTED as exc:
                raise self.translate(exc) from exc

        return gen()


def build_ollama_llm(settings: ScholarSettings) -> OllamaLLM:
    return OllamaLLM(
        model=settings.ollama_model,
        base_url=normalize_host(settings.ollama_host),
        temperature=settings.llm_temperature,
        context_window=settings.llm_context_window,  # explicit, so no /api/show round trip
        request_timeout=settings.ollama_request_timeout,
        connect_timeout=settings.ollama_connect_timeout,
        first_token_timeout=settings.ollama_first_token_timeout,
        dead_for_s=settings.ollama_dead_for_s,
        max_tokens=settings.llm_max_tokens,
        # a fixed seed: the same answer to the same prompt, whatever the server was asked before
        additional_kwargs={"stop": STOP_SEQUENCES, "seed": settings.llm_seed},
        is_function_calling_model=False,  # the agent is ReAct: text in, text out
    )
