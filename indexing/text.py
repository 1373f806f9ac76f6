"""Text normalisation shared by indexing and query time: the same folding on both sides or BM25 misses.

The lowest layer of the language home (`tools/language` builds on it): folding, the BM25 tokenizer and its light
stemmer, and the English word lists of `data/english.toml`, which indexing reads for its stopwords.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

# Pali transliteration marks that NFKD does not take apart into base + combining mark.
# SuttaCentral's blurbs write ī as a dotless ı with a combining macron ("Yodhājı̄va"), which NFKD leaves dotless
_EXTRA_FOLD = str.maketrans({"ṁ": "m", "ṃ": "m", "Ṁ": "M", "Ṃ": "M", "ı": "i", "’": "'", "‘": "'", "“": '"',
                             "”": '"'})
_TOKEN = re.compile(r"[a-z0-9]+")

ENGLISH_FILE = Path(__file__).parent / "data" / "english.toml"


@functools.cache
def _english() -> dict[str, Any]:
    with ENGLISH_FILE.open("rb") as f:
        return tomllib.load(f)


def english_words(name: str) -> tuple[str, ...]:
    """The word list `name` of data/english.toml, in its order."""
    return tuple(_english()[name].split())


def english_pattern(name: str) -> str:
    """The regular expression `name` of data/english.toml's [patterns], its pieces joined."""
    return "".join(_english()["patterns"][name])


# Plain English function words; Pali words are never removed or stemmed (see `tokenize`).
STOPWORDS = frozenset(english_words("stopwords"))


def fold(text: str) -> str:
    """Lowercase and strip diacritics: `Satipaṭṭhāna` -> `satipatthana`."""
    text = text.translate(_EXTRA_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def light_stem(token: str) -> str:
    # A conservative English plural/verb strip; Pali words mostly end in vowels or -ṁ and are left alone.
    if len(token) > 4 and token.endswith("ies"):
        return token[:-3] + "y"
    if len(token) > 4 and token.endswith("ing"):
        return token[:-3]
    if len(token) > 3 and token.endswith("s") and not token.endswith(("ss", "us", "is")):
        return token[:-1]
    if len(token) > 4 and token.endswith("ed"):
        return token[:-2]
    return token


def split_at_stops(text: str, stops: str = ".!?;:", maxsplit: int = 0) -> list[str]:
    """Plain text cut after each of `stops` that white space follows: sentences and their clauses, for a chunk's
    lines or a text's first line (an answer's sentences, which keep their citations, are `tools.language.sentences`)."""
    return re.split(rf"(?<=[{re.escape(stops)}])\s+", text, maxsplit=maxsplit)


def tokenize(text: str, *, stem: bool = True, drop_stopwords: bool = True) -> list[str]:
    """Folded word tokens for BM25. Deterministic and dependency-free so a persisted index reloads identically."""
    tokens = _TOKEN.findall(fold(text))
    if drop_stopwords:
        tokens = [t for t in tokens if t not in STOPWORDS]
    if stem:
        tokens = [light_stem(t) for t in tokens]
    return tokens
