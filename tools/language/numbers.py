"""Numbers in English text: digits, number words ("five hundred", "eighty-four thousand") and ordinals ("a third
time"), read as values. The words themselves are lists in indexing/data/english.toml."""

from __future__ import annotations

import re

from tools.language.words import fold, word_list

_UNITS = {w: i for i, w in enumerate(word_list("number_units"))}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(word_list("number_tens"))}
_ORDINALS = {w: i + 2 for i, w in enumerate(word_list("ordinals"))}
_ORDINALS.update({"twice": 2, "thrice": 3, "sixteenth": 16, "hundredth": 100, "thousandth": 1000})
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
# "one" and "first" are too often not numbers ("one who", "first of all"); they are never compared.
_SKIP = {"zero", "one"}

_WORD = re.compile(r"[a-z0-9]+")


def number_phrases(words: list[str]) -> list[tuple[int, int, int, bool]]:
    """(value, first word, word after the phrase, ordinal?) for each number phrase of folded `words`."""
    found: list[tuple[int, int, int, bool]] = []
    i = 0
    while i < len(words):
        w, start = words[i], i
        value = None
        if w.isdigit():
            value = int(w)
        elif w in _UNITS and w not in _SKIP:
            value = _UNITS[w]
        elif w in _TENS:
            value = _TENS[w]
            if i + 1 < len(words) and words[i + 1] in _UNITS and words[i + 1] != "zero":
                value += _UNITS[words[i + 1]]
                i += 1
        elif w in _ORDINALS:
            found.append((_ORDINALS[w], start, i + 1, True))
        elif w in _SCALES:
            value = _SCALES[w]
        if value is not None:
            while i + 1 < len(words) and words[i + 1] in _SCALES:
                value = value * _SCALES[words[i + 1]] if value < _SCALES[words[i + 1]] else _SCALES[words[i + 1]]
                i += 1
            found.append((value, start, i + 1, False))
        i += 1
    # "one hundred", "a thousand": the scale alone was counted; that is the number meant.
    return found


def number_words(text: str) -> list[str]:
    """Folded words and digits, a thousands comma dropped ("1,250" is one number)."""
    return _WORD.findall(fold(text).replace(",", ""))


def numbers(text: str) -> set[int]:
    """Digits, number words ("five hundred", "eighty-four thousand") and ordinals ("a third time" -> 3)."""
    return {value for value, _, _, _ in number_phrases(number_words(text))}


def is_number_word(word: str) -> bool:
    """A folded word that is a number: digits, a number word, a scale or an ordinal."""
    return word.isdigit() or word in _UNITS or word in _TENS or word in _SCALES or word in _ORDINALS


def spelled(n: int) -> str:
    """A small count as a word ("two translations"), a larger one in digits."""
    units = word_list("number_units")
    return units[n] if 0 <= n < len(units) else str(n)
