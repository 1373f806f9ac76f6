"""A statement the next sentence denies: judged "That is not possible." (SN 56.32), a question answered "No, sir."
(AN 3.100's "Would the Ganges river become salty and undrinkable?"). Such a sentence says the opposite of its words,
which every check that reads one line at a time takes at their word."""

from __future__ import annotations

import re

from tools.language.negation import polarity
from tools.language.sentences import split_sentences
from tools.language.words import pattern, word_set

_JUDGED_IMPOSSIBLE = pattern("judged_impossible")
_DENIES_THE_QUESTION = pattern("denies_the_question")
_IMPOSSIBILITY = word_set("impossibility")
# a sentence that reports the statement as someone's saying or asking ("someone might say that …", "the Buddha asks
# whether …") asserts nothing of it; "SN 56.32 says that …" and "the Buddha says …" assert what follows
_REPORTS_SAYING = re.compile(r"\b(?:claim\w*|suppos\w*|were to|might|would say|(?:someone|anyone|one) (?:says?|said)|"
                             r"ask\w*|whether|question\w*)\b", re.IGNORECASE)


def denied_sentences(text: str) -> list[tuple[str, bool]]:
    """The text's sentences, each with whether the next one denies it."""
    sentences = [s.text for s in split_sentences(text)]
    return [(sentence, _denies(sentence, after)) for sentence, after in zip(sentences, sentences[1:] + [""])]


def with_its_denial(text: str, after: str) -> str:
    """The lines, and the line after them when it denies their last sentence ("No, sir."): read alone, "Would the
    Ganges river become salty?" asks what the reply denies."""
    sentences = split_sentences(text)
    return f"{text} {after}" if sentences and after and _denies(sentences[-1].text, after) else text


def _denies(statement: str, reply: str) -> bool:
    heard = reply.lower()
    return bool(_JUDGED_IMPOSSIBLE.search(heard)
                or (statement.rstrip(" ”’\"").endswith("?") and _DENIES_THE_QUESTION.search(heard)))


def reports_saying(text: str) -> bool:
    """The sentence gives a statement as someone's saying or asking, asserting nothing of it."""
    return _REPORTS_SAYING.search(text) is not None


def polarity_said(text: str) -> int:
    """The polarity of a sentence with "impossible", "unable" counted as negations."""
    return polarity(text) ^ (sum(w.lower() in _IMPOSSIBILITY for w in re.findall(r"[\w’'-]+", text)) % 2)
