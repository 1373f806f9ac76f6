"""Text normalisation shared by indexing and query time: the same folding on both sides or BM25 misses."""

from __future__ import annotations

import re
import unicodedata

# Pali transliteration marks that NFKD does not take apart into base + combining mark.
_EXTRA_FOLD = str.maketrans({"ṁ": "m", "ṃ": "m", "Ṁ": "M", "Ṃ": "M", "’": "'", "‘": "'", "“": '"', "”": '"'})
_TOKEN = re.compile(r"[a-z0-9]+")

# Plain English function words; Pali words are never removed or stemmed (see `tokenize`).
STOPWORDS = frozenset(
    """a an and are as at be been but by do does did for from had has have he her him his how i if in into is it its
    me my not of on or our she so than that the their them then there these they this those to was we were what when
    where which who whom why will with would you your yes about does tell say says said discourse sutta
    buddha""".split()
)


def fold(text: str) -> str:
    """Lowercase and strip diacritics: `Satipaṭṭhāna` -> `satipatthana`."""
    text = text.translate(_EXTRA_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def _light_stem(token: str) -> str:
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


def tokenize(text: str, *, stem: bool = True, drop_stopwords: bool = True) -> list[str]:
    """Folded word tokens for BM25. Deterministic and dependency-free so a persisted index reloads identically."""
    tokens = _TOKEN.findall(fold(text))
    if drop_stopwords:
        tokens = [t for t in tokens if t not in STOPWORDS]
    if stem:
        tokens = [_light_stem(t) for t in tokens]
    return tokens
