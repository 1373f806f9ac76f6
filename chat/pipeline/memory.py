"""Conversation memory per session: LlamaIndex `Memory` over SQLite, so a chat survives a restart.

Only the dialogue is kept (the question, the final answer, and on the answer the references it cited and the query
it searched), never the agent's scratchpad: a small model re-reading old Observations would spend its whole
context on them. The next turn's planner reads `previous_turn()` to resolve "and what comes right after that?".
"""

from __future__ import annotations

import logging
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from chat.errors import ChatError
from chat.pipeline.planner import PreviousTurn

log = logging.getLogger(__name__)

TOKEN_LIMIT = 6000
HISTORY_TURNS = 2  # turns shown to the model; older ones stay stored but cost no prompt tokens
ANSWER_CHARS_IN_PROMPT = 500


def _approx_tokens(text: str) -> list[str]:
    # Memory only needs a count; tiktoken's files would be one more thing to have offline.
    return text.split()


class SessionMemory:
    def __init__(self, db_path: Path, session_id: str):
        self.session_id = session_id
        db_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.memory = Memory.from_defaults(
                session_id=session_id,
                token_limit=TOKEN_LIMIT,
                tokenizer_fn=_approx_tokens,
                # NullPool: no connection outlives the event loop that opened it (sync `ask` runs a loop per call).
                async_engine=create_async_engine(f"sqlite+aiosqlite:///{db_path}", poolclass=NullPool),
            )
        except Exception as exc:  # SQLAlchemy / driver errors: one sentence for the user
            raise ChatError(f"could not open the conversation memory at {db_path}: {exc}") from exc

    async def messages(self) -> list[ChatMessage]:
        return await self.memory.aget_all()

    async def previous_turn(self) -> PreviousTurn | None:
        messages = await self.messages()
        for i in range(len(messages) - 1, 0, -1):
            answer, question = messages[i], messages[i - 1]
            if answer.role == MessageRole.ASSISTANT and question.role == MessageRole.USER:
                extra = answer.additional_kwargs or {}
                return PreviousTurn(
                    question=question.content or "",
                    answer=answer.content or "",
                    cited_refs=list(extra.get("cited_refs") or []),
                    search_query=extra.get("search_query") or "",
                )
        return None

    async def history_for_prompt(self) -> list[ChatMessage]:
        """The last few exchanges, answers shortened, as plain user/assistant messages."""
        messages = [m for m in await self.messages() if m.role in (MessageRole.USER, MessageRole.ASSISTANT)]
        recent = messages[-2 * HISTORY_TURNS:]
        out = []
        for m in recent:
            text = m.content or ""
            if m.role == MessageRole.ASSISTANT and len(text) > ANSWER_CHARS_IN_PROMPT:
                text = text[:ANSWER_CHARS_IN_PROMPT].rsplit(" ", 1)[0] + " …"
            out.append(ChatMessage(role=m.role, content=text))
        return out

    async def add_turn(self, question: str, answer: str, *, cited_refs: list[str], search_query: str,
                       status: str) -> None:
        await self.memory.aput_messages([
            ChatMessage(role=MessageRole.USER, content=question),
            ChatMessage(
                role=MessageRole.ASSISTANT,
                content=answer,
                additional_kwargs={"cited_refs": cited_refs, "search_query": search_query, "status": status},
            ),
        ])

    async def reset(self) -> None:
        await self.memory.areset()
