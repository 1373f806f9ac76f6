"""Words: the English word lists, tokenizing and stemming.

Every list of English words lives in `indexing/data/english.toml`; code asks for one by name (`word_list`,
`word_pairs`) and never spells one out. `tokenize` and `light_stem` are the BM25 index's own, from `indexing.text`,
so what is searched and what is checked agree word for word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from indexing.text import STOPWORDS, english_pattern, english_words, fold, light_stem, tokenize

__all__ = ["STOPWORDS", "WRITTEN_WORD", "fold", "folded_words", "light_stem", "pali_stem", "pattern", "tokenize",
           "word_list", "word_pairs", "word_set", "words", "written_words"]


# A word as written: letters, digits, apostrophes and hyphens ("Māluṅkyaputta’s", "loving-kindness").
WRITTEN_WORD = re.compile(r"[\w’'-]+")


def written_words(text: str) -> list[str]:
    """The text's words as written (case and diacritics kept), apostrophes and hyphens inside them."""
    return WRITTEN_WORD.findall(text)


def folded_words(text: str) -> list[str]:
    """Every folded word and number of the text, none dropped or stemmed: `tokenize` without its BM25 choices."""
    return tokenize(text, stem=False, drop_stopwords=False)


def word_list(name: str) -> tuple[str, ...]:
    """The English word list `name`, in its order (a number word's place is its value)."""
    return english_words(name)


def word_set(name: str) -> frozenset[str]:
    return frozenset(english_words(name))


def word_pairs(name: str) -> dict[str, str]:
    """A list of `form:base` pairs as a mapping."""
    return dict(pair.split(":", 1) for pair in english_words(name))


def pattern(name: str) -> re.Pattern[str]:
    """An English phrase pattern of the data file's [patterns] (the follow-up grammar), compiled."""
    return re.compile(english_pattern(name))


def pali_stem(word: str) -> str:
    """`jhanam` -> `jhan`, `nibbana` -> `nibban`: drop the final vowels and niggahīta an inflection replaces."""
    stem = re.sub(r"[aeiou]+m?$", "", word)
    return stem if len(stem) >= 3 else word


# Keyed and valued by the tokenizer's own output, since `words` maps tokens after stemming.
_IRREGULAR = word_pairs("irregular_forms")
_IRREGULAR.update({tokenize(k)[0]: tokenize(v)[0] for k, v in word_pairs("variants").items()
                   if tokenize(k) and tokenize(v)})


def words(text: str) -> list[str]:
    """The text's BM25 tokens with irregular forms ("led") and other translations' words ("monk") read as the
    translation's ("lead", "mendicant"): the words the claim checks compare."""
    return [_IRREGULAR.get(t, t) for t in tokenize(text)]


# A word written in lowercase: not after a letter or an apostrophe ("Sāriputta’s" gives no "s").
_LOWERCASE_WORD = re.compile(r"(?<![\w’'])[a-zāīūṅñṭḍṇḷṁṃ][\wāīūṅñṭḍṇḷṁṃ]+")


def lowercase_words(texts: Iterable[str]) -> frozenset[str]:
    """The folded words `texts` write in lowercase somewhere: what is not a name."""
    out: set[str] = set()
    for text in texts:
        out.update(_LOWERCASE_WORD.findall(text))
    return frozenset(fold(w) for w in out)
