"""Sentences a reader should never see, whatever the passages say: a reply cut off by the token limit, a question
asked back, a sentence saying again what an earlier one said, and a clause left dangling on "or" after the checks
removed what followed it.

These are matters of form, decided without the passages; whether a sentence is true is the verifier's business.
The small model produces each of them often enough (measured on answers-dev) that a reader meets them otherwise.
"""

from __future__ import annotations

import logging
import re

from tools.citations import split_sentences
from tools.evidence import claim_tokens

log = logging.getLogger(__name__)

REPEAT_SHARE = 0.8  # a sentence whose content words are this much an earlier sentence's says nothing new
# a clause ending on one of these was cut: "they don't sorrow or", "is praised by the Buddha and is"
_DANGLING = frozenset("""and or but nor the a an of to in on at by for with from as that which who whose than is are
was were be been their its his her our your this these those into onto upon""".split())
_ENDED = re.compile(r"[.!?…][”’\"')]*$")


def tidy_draft(text: str) -> str:
    """The model's draft (references mapped) without a cut-off last sentence, questions or repeats."""
    sentences = split_sentences(text)
    out = text
    seen: list[set[str]] = []
    for i, s in enumerate(sentences):
        plain = s.plain.strip()
        last = i == len(sentences) - 1
        reason = None
        if last and not s.citations and not _ENDED.search(plain):
            reason = "cut off"  # every whole sentence ends with its references (the grammar); this one stopped
        elif plain.rstrip("”’\"') ").endswith("?"):
            reason = "a question"
        else:
            words = set(claim_tokens(plain))
            if words and any(len(words & before) >= REPEAT_SHARE * len(words) for before in seen):
                reason = "a repeat"
            seen.append(words)
        if reason:
            log.debug("dropped %s: %r", reason, plain[:80])
            out = out.replace(s.text, "", 1)
    return _squeeze(out)


def without_dangling_clauses(text: str) -> str:
    """The checked answer without sentences that end on a conjunction, article or preposition: what is left of a
    sentence whose end was removed, or that the model never finished."""
    out = text
    for s in split_sentences(text):
        plain = s.plain.strip().rstrip(".!?…,;:”’\"') ")
        last = plain.rsplit(" ", 1)[-1].lower() if plain else ""
        if last in _DANGLING:
            log.debug("dropped a dangling clause: %r", plain[:80])
            out = out.replace(s.text, "", 1)
    return _squeeze(out)


def _squeeze(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())
