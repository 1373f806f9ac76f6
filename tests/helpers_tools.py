"""A tiny index for the retrieval-tool tests over the tools corpus (tests/corpus.py), built once per session."""

from __future__ import annotations

import threading
from pathlib import Path

from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library

from conftest import FakeEmbedding
from corpus import NICKNAMES, write_tools_corpus

_BUILT: dict[str, tuple[ScholarSettings, FakeEmbedding]] = {}
_LOCK = threading.Lock()


def tools_index(base: Path) -> tuple[ScholarSettings, FakeEmbedding]:
    """Settings and embedding model of the shared tiny index under `base` (built on first use)."""
    with _LOCK:
        if "index" not in _BUILT:
            tree = write_tools_corpus(base / "corpus")
            csv_path = base / "nicknames.csv"
            csv_path.write_text(NICKNAMES, encoding="utf-8")
            settings = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                                       nicknames_csv=csv_path, chroma_url=None)
            embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
            ingest(settings, [tree], embed_model=embed, progress=False)
            _BUILT["index"] = (settings, embed)
        return _BUILT["index"]


def open_library(base: Path, **overrides) -> Library:
    settings, embed = tools_index(base)
    if overrides:
        settings = settings.model_copy(update=overrides)
    return Library.open(settings, embed_model=embed)
