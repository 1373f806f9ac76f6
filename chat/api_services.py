"""What the HTTP API serves from: the library, the LLM and the Scholar, each built once, on first need.

The LLM waits for the first /api/query, so search and sutta text work (and the server starts fast) with no
language model at all; a failure to build one is remembered for a while instead of retried on every request.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from fastapi.concurrency import run_in_threadpool

from chat.errors import ChatError
from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)

# After the LLM fails to build, queries answer from search alone for this long before building is tried again,
# so a stopped Ollama does not cost every request a connect timeout.
LLM_RETRY_AFTER_S = 30.0


class IndexUnavailableError(ChatError):
    """The index cannot be opened (not built yet, or unreadable): the API answers 503 until it can."""


class Services:
    """The library, the LLM and the Scholar, each built once on first need and shared by all requests."""

    def __init__(self, settings: ScholarSettings, library=None, scholar=None, llm_factory: Callable | None = None):
        self.settings = settings
        self._library = library
        self._scholar = scholar
        self._llm_factory = llm_factory
        self._library_lock = threading.Lock()
        self._scholar_lock = asyncio.Lock()
        self.llm_error: str | None = None
        self._llm_failed_at: float | None = None
        self.llm_name: str | None = None

    @property
    def scholar_loaded(self) -> bool:
        return self._scholar is not None

    def library(self):
        if self._library is None:
            with self._library_lock:
                if self._library is None:
                    from indexing.errors import IndexingError
                    from tools.errors import ToolError
                    from tools.library import Library

                    try:
                        self._library = Library.open(self.settings)
                    except (ToolError, IndexingError) as exc:  # no index yet, or an unreadable one
                        raise IndexUnavailableError(str(exc)) from exc
        return self._library

    async def scholar(self):
        """The Scholar; raises ChatError (usually LLMUnavailableError) while no LLM can be built."""
        if self._scholar is not None:
            return self._scholar
        async with self._scholar_lock:
            if self._scholar is not None:
                return self._scholar
            if self._llm_failed_at is not None and time.monotonic() - self._llm_failed_at < LLM_RETRY_AFTER_S:
                raise ChatError(self.llm_error or "the language model is unavailable")
            library = await run_in_threadpool(self.library)
            try:
                llm = await run_in_threadpool(self._build_llm)
            except ChatError as exc:
                self.llm_error, self._llm_failed_at = str(exc), time.monotonic()
                raise
            except Exception as exc:  # provider libraries raise anything; the API degrades instead of failing
                log.exception("building the LLM failed")
                self.llm_error, self._llm_failed_at = f"{type(exc).__name__}: {exc}", time.monotonic()
                raise ChatError(f"the language model could not be started: {self.llm_error}") from exc
            self._scholar = _scholar_class()(self.settings, library, llm)
            self.llm_name, self.llm_error, self._llm_failed_at = _llm_name(llm), None, None
            return self._scholar

    def _build_llm(self):
        if self._llm_factory is not None:
            return self._llm_factory(self.settings)
        from chat.providers.select import build_llm

        return build_llm(self.settings)


def _scholar_class():
    from chat.scholar import Scholar

    return Scholar


def _llm_name(llm) -> str:
    try:
        from chat.providers.select import describe_llm

        return describe_llm(llm)
    except Exception:  # an LLM the provider module does not know (tests, custom factories)
        return type(llm).__name__


def probe_llm(settings: ScholarSettings) -> dict[str, Any]:
    """Which LLM a first query would get, without building one: Ollama's tags and the embedded model's marker."""
    from chat.providers.embedded import embedded_installed
    from chat.providers.ollama import probe_ollama

    status = probe_ollama(settings)
    return {
        "ollama": {"reachable": status.reachable, "model": settings.ollama_model,
                   "model_available": status.model_available, "error": status.error},
        "embedded_installed": embedded_installed(settings),
    }
