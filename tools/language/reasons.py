"""Reasons and views: a line that gives a reason ("Because …", "That's why …") and a sentence that claims one
("… because …"); a sentence that gives someone a view ("Sāti held the view that …") and a line that introduces one
("had the following harmful misconception:"); a sentence that says what one should do and a line that tells it.

A "why" question asks for the line that gives the reason (tools.search.shapes); a sentence of the model's own that
says "because" claims the text gives that reason, so the lines it cites must give one (the claim checks). Both
patterns are data: indexing/data/english.toml, [patterns] gives_reason, asserts_reason, asserts_view and
introduces_view.
"""

from __future__ import annotations

import re

from tools.language.sentences import split_sentences
from tools.language.words import pattern

_GIVES = re.compile(pattern("gives_reason").pattern, re.IGNORECASE)
_ASSERTS = re.compile(pattern("asserts_reason").pattern, re.IGNORECASE)
_ASSERTS_VIEW = re.compile(pattern("asserts_view").pattern, re.IGNORECASE)
_INTRODUCES_VIEW = re.compile(pattern("introduces_view").pattern, re.IGNORECASE)
_ASSERTS_INSTRUCTION = re.compile(pattern("asserts_instruction").pattern, re.IGNORECASE)
_INSTRUCTS = re.compile(pattern("instructs").pattern, re.IGNORECASE)
_NARRATES = re.compile(pattern("narrates").pattern, re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]")


def gives_reason(text: str) -> bool:
    """The text gives a reason ("Because …", "That's why …", "Since old age and death are advancing …", "For if form
    were self …"). A question gives none: "What is the reason why some are short-lived?" asks for it."""
    for m in _GIVES.finditer(text):
        stop = _SENTENCE_END.search(text, m.end())
        if stop is None or stop.group() != "?":
            return True
    return False


_WHY = re.compile(r"\bwhy\b", re.IGNORECASE)


def answers_why(lines: list[str]) -> bool:
    """The lines ask for a reason ("What is the cause, what is the reason why …?", "Why …?") and go on past the
    question: a dialogue gives its reason as the reply to the question that asks it ("These days, brahmin, humans
    just love illicit desire."), which need not say "because"."""
    sentences = [s.text.rstrip(" ”’\"'") for line in lines for s in split_sentences(line)]
    for i, sentence in enumerate(sentences[:-1]):
        if sentence.endswith("?") and (_GIVES.search(sentence) or _WHY.search(sentence)):
            return any(not later.endswith("?") for later in sentences[i + 1:])
    return False


def asserts_reason(text: str) -> bool:
    """The sentence claims a reason: "… because …", "… due to …", "That's why …"; "ever since" does not."""
    return bool(_ASSERTS.search(text))


def view_asserted(text: str) -> str | None:
    """The view a sentence gives someone ("Sāti held the wrong view that consciousness …" -> "consciousness …"),
    or None."""
    m = _ASSERTS_VIEW.search(text)
    return m.group(1) if m else None


def introduces_view(text: str) -> bool:
    """The line introduces a view ("had the following harmful misconception:", "you have such a view", "holds")."""
    return bool(_INTRODUCES_VIEW.search(text))


def asserts_instruction(text: str) -> bool:
    """The sentence says what someone should or must do."""
    return bool(_ASSERTS_INSTRUCTION.search(text))


def instructs(text: str) -> bool:
    """The line tells what to do or not to do ("should", "I allow", "Don’t run back to the past")."""
    return bool(_INSTRUCTS.search(text))


def narrates(text: str) -> bool:
    """The line tells what someone was doing or has done ("was thinking bad, unskillful thoughts", "I’ve plucked
    out the dart")."""
    return bool(_NARRATES.search(text))
