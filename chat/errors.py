"""The chat package's errors, and the one place any package's error becomes a sentence for the user."""

from __future__ import annotations


class ChatError(Exception):
    """Base for errors raised on purpose in chat/."""


class LLMUnavailableError(ChatError):
    """No language model can answer: the message says what to do (start Ollama, install the embedded model)."""


def user_message(exc: BaseException) -> str | None:
    """A one-line explanation for errors we expect; None for bugs, which should surface with a traceback."""
    from indexing.errors import IndexingError
    from tools.errors import ToolError

    if isinstance(exc, (ChatError, IndexingError, ToolError)):
        return str(exc)
    return None
