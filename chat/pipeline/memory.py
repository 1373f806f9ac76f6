"""Conversation memory per session: LlamaIndex `Memory` over SQL (a SQLite file, or the PostgreSQL database that
replicas share: chat.database), so a chat survives a restart and continues on any replica.

Only the dialogue is kept (the question, the final answer, and on the answer the conversation state: the references
and suttas it cited, its subject — the suttas it was about, the people its answer named, the query it searched —
and its status), never the agent's scratchpad: a small model re-reading old Observations would spend its whole
context on them. The next turn's resolver (chat/pipeline/conversation.py) reads `turns()` to tell a follow-up ("to whom
was it taught?", "and what comes right after that?") from a new subject.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.sql import MessageStatus, SQLAlchemyChatStore
from sqlalchemy import JSON, BigInteger, Column, Integer, MetaData, String, Table
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from chat.database import Database, migrate
from chat.pipeline.plan import PreviousTurn
from chat.private import private_file
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


MEMORY_TABLE = "llama_index_memory"


def _memory_table(metadata: MetaData) -> Table:
    """LlamaIndex's own table (SQLAlchemyChatStore._setup_tables), so files written before stay readable."""
    return Table(
        MEMORY_TABLE, metadata,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("key", String, nullable=False, index=True),
        Column("timestamp", BigInteger, nullable=False, index=True),
        Column("role", String, nullable=False),
        Column("status", String, nullable=False, default=MessageStatus.ACTIVE.value, index=True),
        Column("data", JSON, nullable=False),
    )


def _create_memory_table(conn: Connection) -> None:
    # checkfirst is a check-then-create; safe here because migrate holds the database's lock around it.
    _memory_table(MetaData()).create(conn, checkfirst=True)


# Version i + 1 of the memory's schema is made by step i; a change is a new step at the end, never an edit.
MEMORY_SCHEMA = [_create_memory_table]


class _ReadyChatStore(SQLAlchemyChatStore):
    """LlamaIndex's store over a table MemoryStore has made. Its own would run CREATE TABLE on each session's first
    use, and twenty first turns at once raced to create it ("table llama_index_memory already exists")."""

    _ready_table: Table = PrivateAttr()

    def __init__(self, table: Table, engine: AsyncEngine):
        super().__init__(table_name=table.name, async_engine=engine)
        self._ready_table = table

    async def _setup_tables(self, async_engine: AsyncEngine) -> Table:
        self._table = self._ready_table
        return self._ready_table


class MemoryStore:
    """One process's way to the conversation memory: the database, one engine, and the schema brought up to date
    once (on first use, so a process that never keeps a conversation never touches it). Held by the Scholar."""

    def __init__(self, db: Database):
        self.db = db
        self.table = _memory_table(MetaData())
        self._engine: AsyncEngine | None = None
        self._lock = threading.Lock()

    async def engine(self) -> AsyncEngine:
        if self._engine is None:
            await asyncio.to_thread(self._open)
        assert self._engine is not None
        return self._engine

    def _open(self) -> None:
        with self._lock:
            if self._engine is not None:
                return
            if self.db.path is not None:
                with self.db.translated():  # made here, 0600, before the driver would create it world-readable
                    private_file(self.db.path)
            migrate(self.db, "memory", MEMORY_SCHEMA)  # not marked open if it fails: the next turn tries again
            self._engine = self.db.async_engine()


class SessionMemory:
    def __init__(self, store: MemoryStore, session_id: str):
        self.session_id = session_id
        self.store = store
        self._memory: Memory | None = None

    async def _open(self) -> Memory:
        if self._memory is None:
            engine = await self.store.engine()
            with self.store.db.translated():
                self._memory = Memory.from_defaults(
                    session_id=self.session_id, token_limit=TOKEN_LIMIT, tokenizer_fn=_approx_tokens,
                    chat_store=_ReadyChatStore(self.store.table, engine),
                )
        return self._memory

    async def _call(self, method: str, *args: Any) -> Any:
        """A call on LlamaIndex's Memory, its driver errors translated once, here, into one sentence."""
        memory = await self._open()
        with self.store.db.translated():
            return await getattr(memory, method)(*args)

    async def messages(self) -> list[ChatMessage]:
        return await self._call("aget_all")

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
        await self._call("aput_messages", [
            ChatMessage(role=MessageRole.USER, content=question),
            ChatMessage(role=MessageRole.ASSISTANT, content=answer, additional_kwargs=state),
        ])

    async def reset(self) -> None:
        await self._call("areset")


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
