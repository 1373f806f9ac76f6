"""What one conversational turn has seen: the tool trace, every passage any tool returned, and the numbered
evidence the model was shown.

The tools record into it; the claim verifier checks citations against it ("was this passage retrieved in this
turn?"); the chat shows its trace as steps. The evidence is numbered once per turn ([1], [2] ... across every tool
call), so the model cites by number and the pipeline maps each number back to the segments it stands for. One
instance per turn, never shared between sessions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tools.passages import Passage
from tools.search.windows import EvidenceWindow


@dataclass
class TraceEntry:
    tool: str
    input: dict
    output_summary: str = ""
    duration_ms: float = 0.0
    error: str | None = None
    output: object = None  # structured result for UIs (list of passage dicts, verdicts, ...)

    def to_dict(self) -> dict:
        return {
            "tool": self.tool,
            "input": self.input,
            "output_summary": self.output_summary,
            "duration_ms": round(self.duration_ms, 1),
            "error": self.error,
        }


@dataclass
class TurnRecorder:
    trace: list[TraceEntry] = field(default_factory=list)
    passages: dict[str, Passage] = field(default_factory=dict)  # chunk_id -> passage, first seen order
    search_types_used: set[str] = field(default_factory=set)  # "bm25", "dense", "lookup", ...
    evidence: list[EvidenceWindow] = field(default_factory=list)  # evidence[n - 1] is what "[n]" cites
    # Called when a tool starts and when it ends, so a UI can open and close a step live.
    on_start: Callable[[TraceEntry], None] | None = None
    on_end: Callable[[TraceEntry], None] | None = None

    def add_passages(self, passages: list[Passage]) -> None:
        for p in passages:
            self.passages.setdefault(p.chunk_id, p)

    def number(self, windows: list[EvidenceWindow]) -> list[int]:
        """The citation number of each window: a window that overlaps one already shown keeps that one's number
        (the model should not see the same lines under two numbers), a new one gets the next."""
        out: list[int] = []
        for window in windows:
            known = next((i for i, w in enumerate(self.evidence, 1) if w.overlaps(window)), None)
            if known is None:
                self.evidence.append(window)
                known = len(self.evidence)
            out.append(known)
        return out

    def cited(self, n: int) -> EvidenceWindow | None:
        return self.evidence[n - 1] if 1 <= n <= len(self.evidence) else None

    def run(self, tool: str, inputs: dict, fn: Callable[[], tuple[object, str]]) -> object:
        """Run a tool body that returns (result, one-line summary), timing and recording it."""
        entry = TraceEntry(tool=tool, input=inputs)
        if self.on_start:
            self.on_start(entry)
        started = time.perf_counter()
        try:
            result, summary = fn()
            entry.output_summary = summary
            entry.output = result
            return result
        except Exception as exc:
            entry.error = f"{type(exc).__name__}: {exc}"
            raise
        finally:
            entry.duration_ms = (time.perf_counter() - started) * 1000
            self.trace.append(entry)
            if self.on_end:
                self.on_end(entry)
