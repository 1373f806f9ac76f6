"""How far the semantic index is: a small record the ingest writes after every batch of vectors it stores.

The lexical side of an index (docstore, BM25, names, cards' text) is complete seconds into an ingest; the vectors
follow in batches for many minutes. The chat, the API and `scholar stats` read this record to say how far that is
("semantic search: 41% — about 6 min") and to know when there are new vectors to search. It is a JSON file beside
the stores, replaced atomically, so a reader never sees half a record and a killed ingest leaves its last batch's.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

PROGRESS_FILE = "semantic-progress.json"


@dataclass
class SemanticProgress:
    chunks_done: int  # passages with a vector
    chunks_total: int
    cards_done: int = 0  # sutta card vectors (two a card) with a current vector
    cards_total: int = 0
    rate: float = 0.0  # vectors a second, as measured by the run that wrote this (0: not yet measured)
    updated: float = 0.0  # time.time() of the write
    pid: int | None = None  # the process embedding, while it is
    state: str = "complete"  # embedding | complete

    @property
    def done(self) -> int:
        return self.chunks_done + self.cards_done

    @property
    def total(self) -> int:
        return self.chunks_total + self.cards_total

    @property
    def fraction(self) -> float:
        return 1.0 if self.total <= 0 else min(1.0, self.done / self.total)

    @property
    def chunk_fraction(self) -> float:
        """The share of passages that dense search can find (cards aside)."""
        return 1.0 if self.chunks_total <= 0 else min(1.0, self.chunks_done / self.chunks_total)

    @property
    def complete(self) -> bool:
        return self.done >= self.total

    @property
    def running(self) -> bool:
        """Whether an ingest is embedding now: the writer said so and its process is still there (a run killed
        with -9 never says it stopped)."""
        return self.state == "embedding" and not self.complete and _alive(self.pid)

    @property
    def eta_seconds(self) -> float | None:
        if self.complete:
            return 0.0
        if not self.running or self.rate <= 0:
            return None
        return (self.total - self.done) / self.rate

    def describe(self) -> str:
        """One line for a reader: how far semantic search is, and what happens next."""
        if self.complete:
            return "semantic search: ready"
        percent = f"semantic search: {int(100 * self.fraction)}%"
        if not self.running:
            return (f"{percent} (paused: the next `scholar ingest` or `make run` carries on where it stopped; "
                    "until then searches use keywords for the rest)")
        eta = self.eta_seconds
        if eta is None:
            return f"{percent} — estimating the time left"
        return f"{percent} — about {_minutes(eta)}"

    def as_dict(self) -> dict:
        data = asdict(self)
        data.update(percent=round(100 * self.fraction, 1), complete=self.complete, running=self.running,
                    eta_seconds=None if self.eta_seconds is None else round(self.eta_seconds), summary=self.describe())
        return data


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return "1 min"
    return f"{round(seconds / 60)} min"


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def progress_path(index_dir: Path) -> Path:
    return Path(index_dir) / PROGRESS_FILE


def read_progress(index_dir: Path) -> SemanticProgress | None:
    """The last record written under `index_dir`, or None (an index from before the record, or none yet)."""
    try:
        raw = json.loads(progress_path(index_dir).read_text(encoding="utf-8"))
        known = SemanticProgress.__dataclass_fields__
        return SemanticProgress(**{k: v for k, v in raw.items() if k in known})
    except (OSError, ValueError, TypeError):
        return None


def write_progress(index_dir: Path, progress: SemanticProgress) -> None:
    progress.updated = time.time()
    path = progress_path(index_dir)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(asdict(progress)), encoding="utf-8")
    tmp.replace(path)
