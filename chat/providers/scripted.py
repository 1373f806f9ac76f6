"""A deterministic LLM for tests, demos and the browser e2e test: scripted replies or a reply function (the
`scripted` provider's is chat.providers.rule_based.rule_based_reply)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseAsyncGen,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseAsyncGen,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from chat.errors import LLMUnavailableError
from chat.providers.calls import ModelCall, record

ReplyFn = Callable[[list[ChatMessage]], str]
_PIECE = re.compile(r"\S+\s*|\s+")


class ScriptedLLM(CustomLLM):
    """Replies in order from `replies` (or from `reply_fn(messages)`), streamed word by word like a real model.

    Every call's messages are recorded in `prompts` (completions as one user message), so a test can assert on
    what the agent showed the model. Running out of replies raises LLMUnavailableError: the app degrades, the
    test sees the extra call.
    """

    replies: list[str] = Field(default_factory=list)
    reply_fn: Any = Field(default=None, exclude=True, description="(messages) -> str; used when set.")
    model_name: str = Field(default="scripted")
    context_window: int = Field(default=8192)
    max_tokens: int = Field(default=512)

    _prompts: list[list[ChatMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, replies: Sequence[str] | ReplyFn | None = None, **kwargs: Any) -> None:
        if callable(replies):
            kwargs["reply_fn"] = replies
            replies = None
        super().__init__(replies=list(replies or []), **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "ScriptedLLM"

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(context_window=self.context_window, num_output=self.max_tokens, is_chat_model=True,
                           model_name=self.model_name)

    @property
    def prompts(self) -> list[list[ChatMessage]]:
        return self._prompts

    @property
    def calls(self) -> int:
        return len(self._prompts)

    def _reply(self, messages: Sequence[ChatMessage]) -> str:
        with self._lock:
            seen = [m.model_copy() for m in messages]
            self._prompts.append(seen)
            if self.reply_fn is not None:
                reply = str(self.reply_fn(seen))
            elif not self.replies:
                raise LLMUnavailableError(f"the scripted LLM has no reply left for call {len(self._prompts)}")
            else:
                reply = self.replies.pop(0)
        # a word for a token: what a turn's trace of model calls looks like, without a model
        record(ModelCall(model=self.model_name, prompt_tokens=sum(len(str(m.content or "").split()) for m in seen),
                         output_tokens=len(reply.split())))
        return reply

    @staticmethod
    def _pieces(text: str) -> list[str]:
        return _PIECE.findall(text) or [""]

    def _as_messages(self, prompt: str) -> list[ChatMessage]:
        return [ChatMessage(role=MessageRole.USER, content=prompt)]

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self._reply(messages)))

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        text = self._reply(messages)

        def gen() -> ChatResponseGen:
            so_far = ""
            for piece in self._pieces(text):
                so_far += piece
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=so_far), delta=piece)

        return gen()

    @llm_chat_callback()
    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=self._reply(messages)))

    @llm_chat_callback()
    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseAsyncGen:
        text = self._reply(messages)

        async def gen() -> ChatResponseAsyncGen:
            so_far = ""
            for piece in self._pieces(text):
                so_far += piece
                yield ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=so_far), delta=piece)

        return gen()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._reply(self._as_messages(prompt)))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        text = self._reply(self._as_messages(prompt))

        def gen() -> CompletionResponseGen:
            so_far = ""
            for piece in self._pieces(text):
                so_far += piece
                yield CompletionResponse(text=so_far, delta=piece)

        return gen()

    @llm_completion_callback()
    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        return CompletionResponse(text=self._reply(self._as_messages(prompt)))

    @llm_completion_callback()
    async def astream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseAsyncGen:
        text = self._reply(self._as_messages(prompt))

        async def gen() -> CompletionResponseAsyncGen:
            so_far = ""
            for piece in self._pieces(text):
                so_far += piece
                yield CompletionResponse(text=so_far, delta=piece)

        return gen()
