"""Tiny indexes for the retrieval-tool tests over the tools and the names corpora (tests/corpus.py), built once per
session."""

from __future__ import annotations

import threading
from pathlib import Path

from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library

from corpus import NAMES_NICKNAMES, NICKNAMES, write_names_corpus, write_tools_corpus
from fakes import FakeEmbedding

_BUILT: dict[str, tuple[ScholarSettings, FakeEmbedding]] = {}
_LOCK = threading.Lock()


def cached_index(name: str, base: Path, write_corpus, nicknames: str,
                 **settings) -> tuple[ScholarSettings, FakeEmbedding]:
    """Settings and embedding model of a tiny index built once per test session (first `base` wins): the corpus
    `write_corpus(base / "corpus")` writes, with `nicknames` as the nicknames CSV and any other settings given."""
    with _LOCK:
        if name not in _BUILT:
            tree = write_corpus(base / "corpus")
            csv_path = base / "nicknames.csv"
            csv_path.write_text(nicknames, encoding="utf-8")
            config = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                                     nicknames_csv=csv_path, chroma_url=None, **settings)
            embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
            ingest(config, [tree], embed_model=embed, progress=False)
            _BUILT[name] = (config, embed)
        return _BUILT[name]


def tools_index(base: Path) -> tuple[ScholarSettings, FakeEmbedding]:
    """Settings and embedding model of the shared tiny index under `base` (built on first use)."""
    return cached_index("index", base, write_tools_corpus, NICKNAMES)


def open_library(base: Path, **overrides) -> Library:
    settings, embed = tools_index(base)
    if overrides:
        settings = settings.model_copy(update=overrides)
    return Library.open(settings, embed_model=embed)


def names_index(base: Path) -> tuple[ScholarSettings, FakeEmbedding]:
    """The tiny index of the names corpus (cards, names, bridges), with an empty other-translations table."""
    base.mkdir(parents=True, exist_ok=True)
    titles = base / "titles.csv"
    titles.write_text("alias,sutta_id,translator,source\n", encoding="utf-8")
    return cached_index("names", base, write_names_corpus, NAMES_NICKNAMES, titles_csv=titles)


def open_names_library(base: Path, **overrides) -> Library:
    settings, embed = names_index(base)
    if overrides:
        settings = settings.model_copy(update=overrides)
    return Library.open(settings, embed_model=embed)
