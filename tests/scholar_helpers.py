"""Scholars for tests: the real one over the shared tiny tools index with the scripted LLM at the seam
(`scholar_for`), and a fake one at the front ends' seam (`FakeScholar`).

The scripted LLM replies with the given strings in order, records every prompt, and raises when the script runs
out, so a test sees exactly how many model calls a turn made.
"""

from __future__ import annotations

from pathlib import Path

from chat.pipeline.answer import Answer, AnswerEvent, FinalEvent, StepEvent, TokenEvent, TraceStep
from chat.providers.scripted import ScriptedLLM

from helpers_tools import open_library


def scholar_for(base: Path, replies: list[str], **overrides):
    from chat.pipeline.scholar import Scholar

    library = open_library(base)
    settings = library.settings.model_copy(update={"memory_db": base / "memory.sqlite", **overrides})
    llm = ScriptedLLM(list(replies))
    return Scholar(settings, library, llm), llm


class FakeScholar:
    """Streams what a Scholar would for `answer`: each step of its trace starting and ending, the answer text in
    small tokens, then the answer itself (with the session and mode asked for): without its follow-ups first, then
whole. Records every call in `calls`."""

    def __init__(self, answer: Answer, library=None):
        self.answer = answer
        self.library = library
        self.calls: list[dict] = []

    def _final(self, session_id: str | None, mode: str) -> Answer:
        return self.answer.model_copy(update={"session_id": session_id, "mode": "notes" if mode == "notes" else "qa"})

    async def astream(self, question: str, *, session_id: str | None = None, mode: str = "auto"):
        self.calls.append({"question": question, "session_id": session_id, "mode": mode})
        for i, step in enumerate(self.answer.trace):
            yield StepEvent(phase="start", step_id=f"{i}-{step.tool}", step=TraceStep(tool=step.tool, input=step.input))
            yield StepEvent(phase="end", step_id=f"{i}-{step.tool}", step=step)
        text = self.answer.answer
        for i in range(0, len(text), 5):
            yield TokenEvent(text=text[i:i + 5])
        final = self._final(session_id, mode)
        yield AnswerEvent(answer=final.model_copy(update={"follow_ups": []}))
        yield FinalEvent(answer=final)

    async def aask(self, question: str, *, session_id: str | None = None, mode: str = "auto") -> Answer:
        self.calls.append({"question": question, "session_id": session_id, "mode": mode})
        return self._final(session_id, mode)


def session_memory(path: Path, session_id: str):
    """A session's memory in the SQLite file `path`, as a fresh process would open it."""
    from chat.database import Database
    from chat.pipeline.memory import MemoryStore, SessionMemory

    return SessionMemory(MemoryStore(Database.sqlite(path, "conversation memory")), session_id)
