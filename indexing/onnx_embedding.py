"""The packaged MiniLM run by ONNX Runtime: the same weights as the torch path, a cheaper engine on a CPU.

The ONNX graph is exported from the sentence-transformers folder on this machine the first time it is needed (a
few seconds with torch; nothing is downloaded) and kept beside the other local models. A stamp records what it was
made from, so a new model folder or a new recipe makes a new export. `onnx-int8` adds ONNX Runtime's dynamic int8
quantisation of the weights (activations quantised per batch at run time).

What is computed is what sentence-transformers computes for this model: WordPiece tokens truncated to the model's
max_seq_length, the transformer, a mean over the non-padding tokens, then unit length.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from indexing.errors import IndexingError

log = logging.getLogger(__name__)

# Bump when the export or the quantisation changes: old files are then made again, not reused.
EXPORT_VERSION = 2
OPSET = 17
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def _source_stamp(source: Path, quantize: bool) -> dict[str, Any]:
    weights = sorted(p for p in source.iterdir() if p.suffix in {".safetensors", ".bin"})
    return {
        "export_version": EXPORT_VERSION, "opset": OPSET, "quantize": quantize, "source": str(source.resolve()),
        "weights": [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in weights],
    }


def onnx_model_path(source: Path, out_dir: Path, quantize: bool) -> Path:
    """The exported (and, if asked, quantised) graph for `source` under `out_dir`, made now if missing or stale."""
    name = f"{source.name}{'-int8' if quantize else ''}.onnx"
    path = out_dir / name
    stamp_path = path.with_suffix(".json")
    stamp = _source_stamp(source, quantize)
    if path.exists() and stamp_path.exists():
        try:
            if json.loads(stamp_path.read_text()) == stamp:
                return path
        except (OSError, ValueError):
            pass
    out_dir.mkdir(parents=True, exist_ok=True)
    log.info("exporting %s to ONNX%s (once)", source.name, " with int8 weights" if quantize else "")
    tmp = out_dir / f".{name}.{os.getpid()}.tmp"
    try:
        fp32 = out_dir / f".{source.name}.{os.getpid()}.fp32.tmp"
        _export(source, fp32)
        if quantize:
            _quantize(fp32, tmp)
            fp32.unlink()
        else:
            fp32.replace(tmp)
        tmp.replace(path)  # atomic: a reader never sees half a file, and two exporters end with one whole file
        stamp_path.write_text(json.dumps(stamp) + "\n")
    except IndexingError:
        raise
    except Exception as exc:  # torch's exporter and onnx raise many types; one message for the user
        raise IndexingError(f"could not export {source} to ONNX: {exc}") from exc
    finally:
        for leftover in out_dir.glob(f".*.{os.getpid()}*.tmp"):
            leftover.unlink(missing_ok=True)
    return path


def _export(source: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:  # pragma: no cover - torch and transformers are dependencies
        raise IndexingError("exporting the embedding model to ONNX needs torch and transformers") from exc

    model = AutoModel.from_pretrained(str(source)).eval()
    # BERT (MiniLM) takes token types; MPNet has none: the graph takes what the model's forward takes
    inputs = [name for name in INPUTS if name in inspect.signature(model.forward).parameters]

    class Hidden(torch.nn.Module):
        def __init__(self, inner: torch.nn.Module):
            super().__init__()
            self.inner = inner

        def forward(self, *feeds):
            return self.inner(**dict(zip(inputs, feeds))).last_hidden_state

    sample = torch.ones(2, 8, dtype=torch.long)
    samples = tuple(torch.zeros_like(sample) if name == "token_type_ids" else sample for name in inputs)
    axes = {"batch": 0, "tokens": 1}
    dynamic = {name: {v: k for k, v in axes.items()} for name in (*inputs, "hidden")}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")  # the exporter's notes on operators this graph does not use as warned
        torch.onnx.export(
            Hidden(model), samples, str(out), input_names=inputs,
            output_names=["hidden"], dynamic_axes=dynamic, opset_version=OPSET, dynamo=False,
        )


def _quantize(fp32: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Per channel: one scale per output column. One scale per tensor moved vectors to a mean cosine of 0.94 with
    # the fp32 model's on corpus passages; per channel keeps 0.99.
    previous = logging.root.manager.disable
    logging.disable(logging.INFO)  # the quantiser logs a line per tensor on the root logger
    try:
        quantize_dynamic(str(fp32), str(out), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        logging.disable(previous)


def _pad_token(model_dir: Path) -> str:
    """The model's own padding token (MiniLM's "[PAD]", MPNet's "<pad>"): MPNet numbers positions from the
    padding id, so padding with another token would shift nothing real but is not what the model was trained on."""
    try:
        pad = json.loads((model_dir / "special_tokens_map.json").read_text()).get("pad_token")
    except (OSError, ValueError):
        pad = None
    if isinstance(pad, dict):
        pad = pad.get("content")
    return pad if isinstance(pad, str) and pad else "[PAD]"


class OnnxEmbedding(BaseEmbedding):
    """A LlamaIndex embedding over an ONNX graph of a BERT-style sentence-transformers model."""

    max_length: int = 256
    _session: Any = PrivateAttr()
    _tokenizer: Any = PrivateAttr()
    _inputs: tuple[str, ...] = PrivateAttr()

    def __init__(self, graph: Path, tokenizer_dir: Path, threads: int = 0, **kwargs: Any):
        super().__init__(**kwargs)
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 0:
            # A query process: few threads, and no spinning between short calls on cores other work needs.
            options.intra_op_num_threads = threads
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own types for a bad file
            raise IndexingError(f"could not load the ONNX embedding model {graph}: {exc}") from exc
        self._inputs = tuple(i.name for i in self._session.get_inputs())
        tokenizer = Tokenizer.from_file(str(tokenizer_dir / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=self.max_length)
        pad = _pad_token(tokenizer_dir)
        pad_id = tokenizer.token_to_id(pad)
        tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token=pad)
        self._tokenizer = tokenizer

    @classmethod
    def class_name(cls) -> str:
        return "OnnxEmbedding"

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors, one row per text, in one run of the graph (the caller batches)."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        encoded = self._tokenizer.encode_batch(texts)
        feeds = {
            "input_ids": np.array([e.ids for e in encoded], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encoded], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encoded], dtype=np.int64),
        }
        hidden = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})[0]
        mask = feeds["attention_mask"][:, :, None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self.embed(texts).tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embeddings([query])[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)
