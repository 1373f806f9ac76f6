"""What each model call of a turn cost: prompt and output tokens and seconds, reported by the providers.

The Scholar opens `recording()` around a turn; a provider `record`s each call it makes within it. The list travels
in a context variable, which asyncio tasks and `asyncio.to_thread` inherit, so a call made deep inside the agent's
workflow still reaches its turn; a provider that generates in a thread of its own takes `current()` along.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

from pydantic import BaseModel, Field


class ModelCall(BaseModel):
    model: str = ""
    prompt_tokens: int = 0
    reused_tokens: int = Field(default=0, description="Of the prompt, tokens already in the model's cache.")
    output_tokens: int = 0
    seconds: float = 0.0
    prompt_seconds: float | None = None  # until the first output token, where the provider can tell


_CALLS: ContextVar[list[ModelCall] | None] = ContextVar("model_calls", default=None)


@contextlib.contextmanager
def recording() -> Iterator[list[ModelCall]]:
    """The model calls made within, in order."""
    calls: list[ModelCall] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def current() -> list[ModelCall] | None:
    """Where this context's calls are recorded (None outside a recording)."""
    return _CALLS.get()


def record(call: ModelCall, sink: list[ModelCall] | None = None) -> None:
    calls = sink if sink is not None else _CALLS.get()
    if calls is not None:
        calls.append(call)
