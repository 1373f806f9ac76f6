"""The process's heavy objects — settings -> Library (index + embedder), LLM, Scholar — each built once, on first
need, and shared by every chat, request or command of the process.

Nothing is built up front: the HTTP API serves search and sutta text without a language model, and the chat
starts at once and warms up in a background thread (`warm_up`), so a question asked before the build is done
waits for that one build. A failed LLM build is remembered for `llm_retry_after_s` seconds (the API: a stopped
Ollama should not cost every request a connect timeout); with 0 the next question tries again (the chat:
starting Ollama fixes the next question without a restart).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chat.errors import ChatError
from indexing.settings import ScholarSettings

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from chat.pipeline.scholar import Scholar
    from tools.library import Library

log = logging.getLogger(__name__)

LLM_RETRY_AFTER_S = 30.0

LLMFactory = Callable[[ScholarSettings], "LLM"]


class IndexUnavailableError(ChatError):
    """The index cannot be opened (not built yet, or unreadable); the message says what to do."""


class Runtime:
    def __init__(self, settings: ScholarSettings, *, library: Library | None = None, scholar: Scholar | None = None,
                 llm_factory: LLMFactory | None = None, llm_retry_after_s: float = LLM_RETRY_AFTER_S):
        self.settings = settings
        self._library = library
        self._scholar = scholar
        self._llm_factory = llm_factory
        self._llm_retry_after_s = llm_retry_after_s
        self._library_lock = threading.Lock()
        self._scholar_lock = threading.Lock()
        self._llm_failed_at: float | None = None
        self.llm_error: str | None = None  # why the last LLM build failed, until one succeeds
        self.llm_name: str | None = None  # the live LLM, described for health output

    @property
    def scholar_loaded(self) -> bool:
        return self._scholar is not None

    def library(self) -> Library:
        """The process-wide library; raises IndexUnavailableError (with what to do) when there is no index."""
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

    def scholar(self) -> Scholar:
        """The shared Scholar; raises ChatError (usually LLMUnavailableError) while no LLM can be built.
        Blocking: async callers run it in a thread."""
        if self._scholar is not None:
            return self._scholar
        library = self.library()
        with self._scholar_lock:
            if self._scholar is not None:
                return self._scholar
            failed_at = self._llm_failed_at
            if failed_at is not None and time.monotonic() - failed_at < self._llm_retry_after_s:
                raise ChatError(self.llm_error or "the language model is unavailable")
            llm = self._build_llm()
            from chat.pipeline.scholar import Scholar
            from chat.private import private_file

            if not self.settings.database_url:
                try:  # made here, 0600, before the memory store's driver would create it world-readable
                    private_file(self.settings.resolved_memory_db)
                except OSError as exc:  # a read-only place: turns without a session still work
                    log.warning("conversation memory at %s: %s", self.settings.resolved_memory_db, exc)

            self._scholar = Scholar(self.settings, library, llm)
            self.llm_name, self.llm_error, self._llm_failed_at = _describe(llm), None, None
            return self._scholar

    def warm_up(self) -> threading.Thread:
        """Build everything in a background thread, so the first question does not wait for it all."""
        def run() -> None:
            try:
                self.scholar()
                log.info("runtime ready: %s", self.llm_name)
            except Exception as exc:  # reported to the reader on their first question, with what to do
                log.warning("runtime not ready yet: %s", exc)

        thread = threading.Thread(target=run, name="scholar-warm-up", daemon=True)
        thread.start()
        return thread

    def _build_llm(self) -> LLM:
        try:
            if self._llm_factory is not None:
                return self._llm_factory(self.settings)
            from chat.providers.select import build_llm

            return build_llm(self.settings)
        except ChatError as exc:
            self.llm_error, self._llm_failed_at = str(exc), time.monotonic()
            raise
        except Exception as exc:  # provider libraries raise anything; callers degrade instead of failing
            log.exception("building the LLM failed")
            self.llm_error, self._llm_failed_at = f"{type(exc).__name__}: {exc}", time.monotonic()
            raise ChatError(f"the language model could not be started: {self.llm_error}") from exc


def _describe(llm: Any) -> str:
    try:
        from chat.providers.select import describe_llm

        return describe_llm(llm)
    except Exception:  # an LLM the provider module does not know (custom factories)
        return type(llm).__name__
