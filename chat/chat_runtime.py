"""The chat process's heavy objects — library (index + embedder), LLM and Scholar — built once, shared by chats.

Chat start never waits for them: the app warms them up in a background thread at import, and a question asked
before they are ready waits for that one build. A failed LLM build is not cached, so starting Ollama or
installing the embedded model fixes the next question without restarting the chat.
"""

from __future__ import annotations

import logging
import threading

from indexing.settings import ScholarSettings

log = logging.getLogger(__name__)


class ChatRuntime:
    def __init__(self, settings: ScholarSettings):
        self.settings = settings
        self._lock = threading.Lock()
        self._library = None
        self._scholar = None

    @property
    def library(self):
        """The process-wide library; raises ToolError (with what to do) when there is no index."""
        with self._lock:
            if self._library is None:
                from tools.library import Library

                self._library = Library.open(self.settings)
            return self._library

    def scholar(self):
        """The shared Scholar; raises LLMUnavailableError / ToolError with what to do when it cannot be built."""
        library = self.library
        with self._lock:
            if self._scholar is None:
                from chat.providers.select import build_llm
                from chat.scholar import Scholar

                self._scholar = Scholar(self.settings, library, build_llm(self.settings))
            return self._scholar

    def warm_up(self) -> threading.Thread:
        def run() -> None:
            try:
                self.scholar()
                log.info("chat runtime ready")
            except Exception as exc:  # reported to the reader on their first question, with what to do
                log.warning("chat runtime not ready yet: %s", exc)

        thread = threading.Thread(target=run, name="scholar-warm-up", daemon=True)
        thread.start()
        return thread
