"""BM25 over the Pali of every chunk, so a reader's Pali ("pubbe cāhaṁ etarahi ca dukkhañceva paññapemi",
"kiṁsuka", "lahuparivatta") finds the passage whose aligned root text holds it, whatever the English says.

Pali inflects and compounds, so tokens are kept whole (folded, no English stemming, no stopwords) and the query
side matches a reader's word against the vocabulary by stem (`tools.search.bridges`): `jhana` finds `jhānaṁ`, `jhānāni`.
Rebuilt whole with the English BM25, from the chunks in the docstore.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from indexing.models import Chunk
from indexing.stores.bm25_store import BM25Store
from indexing.text import fold

PALI_TOKENIZER_ID = "scholar-pali-fold-v1"
PALI_DIR = "bm25-pali"
_TOKEN = re.compile(r"[a-z]+")


def pali_tokens(text: str) -> list[str]:
    """Folded Pali words (`Kāyaṁ` -> `kayam`); niggahīta before a stop becomes the nasal readers write
    (`kiṁdada` -> `kindada`, `saṁgha` -> `sangha`), so spellings with and without it meet."""
    return [nasal(t) for t in _TOKEN.findall(fold(text))]


_NASAL = re.compile(r"m(?=[kgcjtdn])")


def nasal(word: str) -> str:
    return _NASAL.sub("n", word)


def pali_store(index_dir: Path) -> BM25Store:
    return BM25Store(Path(index_dir) / PALI_DIR, tokenizer_id=PALI_TOKENIZER_ID, analyzer=pali_tokens)


def rebuild_pali_index(chunks: Iterable[Chunk], index_dir: Path) -> int:
    """Index every chunk's Pali (chunks without any are indexed empty, so ids line up with nothing missing)."""
    store = pali_store(index_dir)
    items = [(c.chunk_id, c.pali or "") for c in chunks]
    store.build(items)
    store.save()
    return len(items)


def needs_rebuild(index_dir: Path) -> bool:
    return pali_store(index_dir).stored_tokenizer() != PALI_TOKENIZER_ID
