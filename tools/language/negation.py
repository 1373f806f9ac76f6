"""Negation in English: the words that negate ("not", "never", "refused"), those that negate without one
("avoids", "free from"), the parity of a clause's negations, and opposites ("diligent" / "negligent")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tools.language.words import pattern, word_list, word_set

NEGATION = re.compile(
    r"\b(?:not|no|never|cannot|can't|nothing|none|neither|nor|nobody|nowhere|without|lack|lacks|lacking|"
    r"\w+n't|\w+n’t|refuse[sd]?|refusing|fail[sed]*|failing|refrain\w*|abstain\w*)\b",
    re.IGNORECASE,
)
# Words that negate without a negation word: a claim holding one ("avoids killing", "free from greed", "unlike
# the ordinary person") may paraphrase a negative clause, so it is not said to assert what that clause denies.
_NEGATING = re.compile(
    r"\b(?:avoid\w*|free|freed|freedom|unlike|instead|rather than|except|apart from|beyond|give[sn]? up|gave up|"
    r"giving up|abandon\w*|reject\w*|declin\w*|den(?:y|ies|ied|ying)|renounc\w*|stop\w*|ceas\w*|absen\w*|"
    r"shun\w*|escap\w*|prevent\w*|forbid\w*|prohibit\w*|los[est]\w*|lost)\b",
    re.IGNORECASE,
)
# Opposites that share no negation word (data file: antonyms), in its order.
ANTONYMS: list[tuple[str, str]] = [(a, b) for a, _, b in (pair.partition(":") for pair in word_list("antonyms"))]
_AUXILIARY = word_set("auxiliaries")
_RHETORICAL = pattern("rhetorical_question")
# A negation particle or a contracted negation ("didn’t", "can't"): only the clause's polarity
_PARTICLES = re.compile(r"\b(?:" + "|".join(word_list("negation_particles")) + r")\b|\b\w+n[’']t\b", re.IGNORECASE)


def polarity(text: str) -> int:
    """Parity of negation words: 1 for negative, 0 for positive ("not never" cancels; "neither standing nor
    swimming" is one negation, not two that cancel; the "not" of a question that asks the reader to agree, "Would
    not they all go to heaven, then:", says the positive)."""
    found = [w.lower() for w in NEGATION.findall(text.replace("’", "'"))]
    rhetorical = 1 if found and _RHETORICAL.search(text.lower()) else 0
    return (len(found) - min(found.count("neither"), found.count("nor")) - rhetorical) % 2


def without_negation_particles(text: str) -> str:
    """The text with the words that only make it negative taken out ("one cannot end it" -> "one   end it"): what
    it says, for a check that reads its polarity apart."""
    return _PARTICLES.sub(" ", text)


def negates(text: str) -> bool:
    """Whether the text holds a negation word ("not", "never", "didn't")."""
    return NEGATION.search(text.replace("’", "'")) is not None


def negates_without_a_negation_word(text: str) -> bool:
    """"avoids killing", "free from greed", "unlike the ordinary person": a paraphrase of a negative clause."""
    return _NEGATING.search(text) is not None


def is_negation_word(word: str) -> bool:
    return NEGATION.fullmatch(word) is not None


def words_after_negations(clause: str) -> Iterator[list[str]]:
    """For each negation word of the clause, the lowercase words after it, auxiliaries ("is", "the") left out: the
    first is the word it negates."""
    for m in NEGATION.finditer(clause.replace("’", "'")):
        yield [w for w in re.findall(r"[\w'-]+", clause[m.end():].lower()) if w not in _AUXILIARY]
