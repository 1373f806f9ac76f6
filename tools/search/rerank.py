"""Pluggable reranking of retrieved passages: `none` (default), `cross-encoder` (a local model folder) or `llm`
(a local model answering yes/no per passage).

The final score mixes retrieval and reranker: final = (1 - w) * retrieval + w * rerank, both in [0, 1], with
w = settings.rerank_weight. A reranker that cannot load falls back to `none` with a warning: reranking is a
refinement, never a reason for search to fail. The process's reranker lives on the Library (`library.reranker()`).
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Protocol

from prompts import load_prompt
from tools.passages import Passage

log = logging.getLogger(__name__)

MAX_PASSAGE_CHARS = 1500


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        """One relevance score in [0, 1] per passage."""


class NoReranker:
    name = "none"

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        return [p.scores.get("final", 0.0) for p in passages]


class CrossEncoderReranker:
    name = "cross-encoder"

    def __init__(self, model_path: str | Path, max_length: int = 512):
        from sentence_transformers import CrossEncoder

        self.model = CrossEncoder(str(model_path), device="cpu", local_files_only=True, max_length=max_length)

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        if not passages:
            return []
        pairs = [(query, p.text[:MAX_PASSAGE_CHARS]) for p in passages]
        raw = self.model.predict(pairs, show_progress_bar=False, activation_fn=_identity)
        return [_sigmoid(float(x)) for x in _flatten(raw)]


class LLMReranker:
    name = "llm"

    def __init__(self, llm):
        self.llm = llm

    def score(self, query: str, passages: list[Passage]) -> list[float]:
        out = []
        for p in passages:
            prompt = load_prompt("rerank_yes_no", question=query, ref=p.ref, passage=p.text[:MAX_PASSAGE_CHARS])
            try:
                reply = str(self.llm.complete(prompt)).strip().lower()
            except Exception as exc:  # a local model failing on one passage should not sink the search
                log.warning("LLM reranker failed on %s: %s", p.ref, exc)
                out.append(0.5)
                continue
            word = reply.split()[0].strip(".,!:;\"'") if reply.split() else ""
            out.append(1.0 if word == "yes" else 0.0 if word == "no" else 0.5)
        return out


def _identity(x):
    return x


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _flatten(raw) -> list[float]:
    values = raw.tolist() if hasattr(raw, "tolist") else list(raw)
    return [v[0] if isinstance(v, list) else v for v in values]


def build_reranker(settings, llm=None) -> Reranker:
    """The reranker the settings ask for, or `none` (with a warning) when it cannot be built."""
    kind = settings.reranker
    if kind == "cross-encoder":
        path = Path(settings.reranker_model) if settings.reranker_model else None
        if path is None or not path.exists():
            log.warning("cross-encoder reranker model %r not found; reranking disabled", settings.reranker_model)
            return NoReranker()
        try:
            return CrossEncoderReranker(path)
        except Exception as exc:  # transformers/torch raise many types for a bad model folder
            log.warning("could not load cross-encoder %s (%s); reranking disabled", path, exc)
            return NoReranker()
    if kind == "llm":
        if llm is None:
            log.warning("LLM reranker chosen but no LLM given; reranking disabled")
            return NoReranker()
        return LLMReranker(llm)
    return NoReranker()


def rerank(reranker: Reranker, query: str, passages: list[Passage], weight: float,
           keep_first: int = 0) -> list[Passage]:
    """Score and reorder; the first `keep_first` passages (the suttas the user named) keep their places."""
    head, tail = passages[:keep_first], passages[keep_first:]
    for group in (head, tail):
        if not group or reranker.name == "none":
            continue
        scores = reranker.score(query, group)
        for p, s in zip(group, scores):
            retrieval = p.scores.get("final", 0.0)
            p.scores["rerank"] = round(s, 4)
            p.scores["final"] = round((1 - weight) * retrieval + weight * s, 4)
        group.sort(key=lambda p: -p.scores["final"])
    return head + tail
