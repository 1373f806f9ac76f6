"""Conversation memory per session: LlamaIndex `Memory` over SQLite, so a chat survives a restart.

Only the dialogue is kept (the question, the final answer, and on the answer the conversation state: the references
and suttas it cited, its subject — the suttas it was about, the people its answer named, the query it searched —
and its status), never the agent's scratchpad: a small model re-reading old Observations would spend its whole
context on them. The next turn's resolver (chat/pipeline/conversation.py) reads `turns()` to tell a follow-up ("to whom
was it taught?", "and what comes right after that?") from a new subject.
"""

from __future__ import annotations

import logging
from pathlib import Path

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from chat.errors import ChatError
from chat.pipeline.plan import PreviousTurn
from tools.passages import clip
from tools.references import strip_citations

log = logging.getLogger(__name__)

TOKEN_LIMIT = 6000
HISTORY_TURNS = 2  # turns shown to the model; older ones stay stored but cost no prompt tokens
RECAP_CHARS = 300  # of each earlier answer, in the recap a follow-up's prompt carries
RECAP_QUOTE_CHARS = 200  # of the passage an earlier answer quoted, when nothing of the model's own stood


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

    async def turns(self) -> list[PreviousTurn]:
        """Every stored turn, oldest first, with its conversation state."""
        messages = await self.messages()
        out: list[PreviousTurn] = []
        for question, answer in zip(messages, messages[1:], strict=False):
            if question.role == MessageRole.USER and answer.role == MessageRole.ASSISTANT:
                out.append(_turn(question, answer))
        return out

    async def previous_turn(self) -> PreviousTurn | None:
        turns = await self.turns()
        return turns[-1] if turns else None

    async def last_answered(self) -> PreviousTurn | None:
        """The last turn that was answered with citations: what a follow-up leans on (a declined or failed turn
        in between is skipped)."""
        return next((t for t in reversed(await self.turns()) if t.answered), None)

    async def recap(self, turns: int = HISTORY_TURNS) -> str:
        """The last answered exchanges as one note for a follow-up's prompt: each question, and what its answer said
        in the model's own words without references, or the start of the passage it quoted. A note rather than
        earlier user/assistant turns: a small model imitates the assistant turns it is shown (quoted passages,
        bracketed references), and the note's few words are all a pronoun or an ellipsis needs."""
        parts = []
        for question, said, answer, texts in (await self._answered())[-turns:]:
            if said:
                told = f"was told: “{clip(strip_citations(said), RECAP_CHARS)}”"
            elif quoted := _first_quote(answer):  # the evidence alone stood: what "those" or "he" may point at
                told = f"was shown {', '.join(texts)} saying: “{clip(quoted, RECAP_QUOTE_CHARS)}”"
            else:
                told = f"was shown passages of {', '.join(texts)}"
            parts.append(f"the reader asked “{question}” and {told}")
        return f"(Earlier in this conversation: {'; then '.join(parts)}.)" if parts else ""

    async def _answered(self) -> list[tuple[str, str, str, list[str]]]:
        """(question, the answer's own words or "", the answer as shown, the texts it cited) of every answered
        turn, oldest first."""
        messages = await self.messages()
        out = []
        for question, answer in zip(messages, messages[1:], strict=False):
            if question.role == MessageRole.USER and answer.role == MessageRole.ASSISTANT:
                turn = _turn(question, answer)
                if turn.answered:
                    said = (answer.additional_kwargs or {}).get("said") or ""
                    out.append((turn.question, said, turn.answer, turn.cited_suttas or turn.cited_refs[:2]))
        return out

    async def add_turn(self, question: str, answer: str, *, cited_refs: list[str], search_query: str,
                       status: str, cited_suttas: list[str] | None = None, subject_suttas: list[str] | None = None,
                       people: list[str] | None = None, said: str | None = None) -> None:
        """`said`: the answer's own words without the quoted key lines, when it has any (what later prompts show)."""
        state = {"cited_refs": cited_refs, "search_query": search_query, "status": status,
                 "cited_suttas": list(cited_suttas or []), "subject_suttas": list(subject_suttas or []),
                 "people": list(people or [])}
        if said:
            state["said"] = said
        await self.memory.aput_messages([
            ChatMessage(role=MessageRole.USER, content=question),
            ChatMessage(role=MessageRole.ASSISTANT, content=answer, additional_kwargs=state),
        ])

    async def reset(self) -> None:
        await self.memory.areset()


def _turn(question: ChatMessage, answer: ChatMessage) -> PreviousTurn:
    extra = answer.additional_kwargs or {}
    return PreviousTurn(
        question=question.content or "",
        answer=answer.content or "",
        cited_refs=list(extra.get("cited_refs") or []),
        search_query=extra.get("search_query") or "",
        # turns stored before the status was kept were answers
        status=extra.get("status") or "answered",
        cited_suttas=list(extra.get("cited_suttas") or []),
        subject_suttas=list(extra.get("subject_suttas") or []),
        people=list(extra.get("people") or []),
    )


def _first_quote(answer: str) -> str:
    """The first quoted key line of an answer as shown ("> “…” [MN 63:1.1–2.2]"), without its marks and reference."""
    for line in answer.splitlines():
        if line.startswith(">"):
            return strip_citations(line.lstrip("> ")).strip("“”\"")
    return ""
