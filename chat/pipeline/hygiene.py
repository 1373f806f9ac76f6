"""Sentences a reader should never see, whatever the passages say: a reply cut off by the token limit, a question
asked back, a sentence saying again what an earlier one said, a clause left dangling on "or" after the checks
removed what followed it, and an aside from some other text that has nothing to do with the question.

These are matters of form, decided without the passages; whether a sentence is true is the verifier's business.
The small model produces each of them often enough (measured on answers-dev) that a reader meets them otherwise.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from chat.pipeline.checks import drop_refs, tidy_text
from tools.language.sentences import Sentence, ends_sentence, split_sentences
from tools.language.words import word_set
from tools.search.windows import question_words
from tools.verification.evidence import claim_tokens, matches_any

log = logging.getLogger(__name__)

REPEAT_SHARE = 0.8  # a sentence whose content words are this much an earlier sentence's says nothing new
# a clause ending on one of these was cut: "they don't sorrow or", "is praised by the Buddha and is"
_DANGLING = word_set("dangling")
MIN_CONTENT_WORDS = 2  # fewer is a stub the model ended early to reach its citation ("The Buddha explains that if.")
# English and Pali in Latin letters with their diacritics, punctuation, dashes and quotes: anything else in a
# sentence (a stray CJK character) is a decoding slip of the small model, not something any passage says
_FOREIGN = re.compile(r"[^\x00-\u024f\u0300-\u036f\u1e00-\u1eff\u2000-\u206f\u2190-\u21ff]")
_COMMA_END = re.compile(r"[,;:—–]\s*[.!?…]?[”’\"')]*$")  # "several mendicants had,."
# a subordinate clause standing as a sentence, left by a narrowing that cut its main clause away
_CLAUSE_ONLY = re.compile(r"(?:that|which|whereas)\s+(?:the|a|an|this|these|those|his|her|their|its|one|any|every)\b",
                          re.IGNORECASE)
# the model's own sentence ending on an ellipsis ("Then in the late afternoon, Māluṅkyaputta …."): it copied the
# passage's start and gave up; what it meant to say is not there to check
_TRAILS_OFF = re.compile(r"(?:…|\.\.\.)\s*[.!?]?[”’\"')]*$")
_CUT_WORD = re.compile(r"\w-[.!?]?[”’\"')]*$")  # "the Jain Ñātika’s white-clothed lay-."
# "… grasps the teachings by the. [MN 22:10.7] correct end, they …": a stop after an article or a preposition and
# the sentence running on in lower case is two broken pieces, not a sentence
_BROKEN_OFF = re.compile(r"\b(\w+)\.\s+[a-z]")
_QUOTE_AFTER_REF = re.compile(r"(\][.!?]?)\"(?=\s|$)")
_OPENED = re.compile(r'(?:^|(?<=[\s(]))"(?=\w)(?=[^"]*$)')  # the last straight quote mark, opening a quotation
_QUOTE_END = re.compile(r"\s*\[|[.!?](?=\s|$)")  # where the quoted sentence ends: its reference or its stop
QUOTE_TAIL_WORDS = 3  # a sentence's last words found verbatim in a passage that goes straight on: a cut quotation


def tidy_draft(text: str) -> str:
    """The model's draft (references mapped) without a cut-off last sentence, questions, slips, stubs or repeats."""
    sentences = split_sentences(text)
    seen: list[set[str]] = []

    def fault(i: int, s: Sentence) -> str | None:
        plain = s.plain.strip()
        if i == len(sentences) - 1 and not s.citations and not ends_sentence(plain):
            return "cut off"  # every whole sentence ends with its references (the grammar); this one stopped
        if plain.rstrip("”’\"') ").endswith("?"):
            return "a question"
        if _FOREIGN.search(plain):
            return "a decoding slip"
        words = set(claim_tokens(plain))
        if len(words) < MIN_CONTENT_WORDS:
            return "a stub"
        if any(len(words & before) >= REPEAT_SHARE * len(words) for before in seen):
            return "a repeat"
        seen.append(words)
        return None

    return _without(text, sentences, fault)


def without_asides(text: str, question: str, main_texts: set[str]) -> str:
    """`main_texts` are sutta IDs and documents' titles (`source` of a reference and of an evidence window).

    The draft without sentences that cite only texts other than the ones quoted first and share no word with
    the question: true of their passage, but not an answer ("those ascetics emerged from the Nerañjarā river",
    asked where an extinguished fire goes). A sentence about the main texts may explain in their own words."""
    asked = set(question_words(question))

    def fault(_: int, s: Sentence) -> str | None:
        cited = {c.source for c in s.citations if c.source}
        if not cited or cited & main_texts or any(matches_any(w, asked) for w in claim_tokens(s.plain)):
            return None
        return "an aside"

    return _without(text, split_sentences(text), fault)


def keeping_to_main_texts(text: str, main_texts: set[str]) -> str:
    """A sentence citing the texts quoted first and others besides keeps only the first: it is read as a claim
    about them and checked against them alone. Cited together, another text's words pass for theirs ("The Buddha
    crossed the flood by faith [SN 1.1; SN 10.12]": SN 10.12 says "by faith", SN 1.1 "neither standing nor
    swimming"); a sentence citing only the other text is still judged on its own."""
    out = text
    for s in split_sentences(text):
        cited = {c.source for c in s.citations if c.source}
        if cited & main_texts and cited - main_texts:
            others = {c.raw for c in s.citations if c.source and c.source not in main_texts}
            out = out.replace(s.text, drop_refs(s.text, others), 1)
    return out


def without_dangling_clauses(text: str, evidence: Sequence[str] = ()) -> str:
    """The checked answer without what is left of a sentence whose end was removed or never written: one that ends
    on a conjunction, article or preposition, or on a comma; a clause with no sentence ("That the present phenomenon
    should be discerned."); a quotation stopped mid-phrase ("... telling lies, and committing.", where the passage
    goes on "committing adultery")."""
    flat = [" ".join(e.split()) for e in evidence]
    sentences = split_sentences(text)
    headed = bool(re.search(r"^#", text, re.MULTILINE))  # study notes: their headings end in no stop

    def fault(i: int, s: Sentence) -> str | None:
        whole = s.plain.strip()
        plain = whole.rstrip(".!?…,;:”’\"') ")
        if not plain:
            return None
        if i == len(sentences) - 1 and not s.citations and not ends_sentence(whole) and not headed:
            return "a fragment"  # "The passages": what the checks left of a last sentence, with nothing to cite
        last = plain.rsplit(" ", 1)[-1]
        if last.lower() in _DANGLING or _COMMA_END.search(whole):
            return "a dangling clause"
        if _CLAUSE_ONLY.match(plain):
            return "a clause without its sentence"
        if last.lower().endswith("ing") and _stops_mid_quote(plain, flat):
            return "a quotation stopped mid-phrase"
        if _TRAILS_OFF.search(whole) or _CUT_WORD.search(whole):
            return "a sentence that trails off"
        if any(m.group(1).lower() in _DANGLING for m in _BROKEN_OFF.finditer(whole)):
            return "a sentence broken off and run on"
        return None

    return _unpaired_closing_quotes(_without(text, sentences, fault))


def _unpaired_closing_quotes(text: str) -> str:
    """A straight quote mark left after a sentence's reference with none opened before it ("… lesser life
    [MN 63:2.14].\"") closes nothing a reader can see; one opened and never closed ("states, \"Tireless all night
    … peaceful sage [MN 131:10.14].") is closed where the quotation ends, before its reference."""
    lines = []
    for line in text.splitlines():
        if line.count('"') % 2:
            line = _QUOTE_AFTER_REF.sub(r"\1", line, count=1)
        lines.append(line)
    out = "\n".join(lines)
    for sentence in split_sentences(out):
        piece = sentence.text
        if piece.count('"') % 2 and (opened := _OPENED.search(piece)):
            if end := _QUOTE_END.search(piece, opened.end()):
                out = out.replace(piece, piece[: end.start()] + '"' + piece[end.start():], 1)
    return out


def _stops_mid_quote(plain: str, evidence: Sequence[str]) -> bool:
    tail = plain.split()[-QUOTE_TAIL_WORDS:]
    if len(tail) < QUOTE_TAIL_WORDS:
        return False
    phrase = r"\W+".join(re.escape(w.strip("“”‘’\"',;:")) for w in tail)
    pattern = re.compile(rf"{phrase} [a-z]", re.IGNORECASE)
    return any(pattern.search(e) for e in evidence)


def _without(text: str, sentences: list[Sentence], fault: Callable[[int, Sentence], str | None]) -> str:
    """`text` without the sentences `fault` names a reason for, in order, each removal logged."""
    out = text
    for i, s in enumerate(sentences):
        if (reason := fault(i, s)) is not None:
            log.debug("dropped %s: %r", reason, s.plain.strip()[:80])
            out = out.replace(s.text, "", 1)
    return tidy_text(out)
