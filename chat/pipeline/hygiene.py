"""Sentences a reader should never see, whatever the passages say: a reply cut off by the token limit, a question
asked back, a sentence saying again what an earlier one said, a clause left dangling on "or" after the checks
removed what followed it, and an aside from some other text that has nothing to do with the question.

These are matters of form, decided without the passages; whether a sentence is true is the verifier's business.
Each is a pass over the Draft: a sentence it finds at fault is marked removed, with its reason.
The small model produces each of them often enough (measured on answers-dev) that a reader meets them otherwise.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from chat.pipeline.compose import SUMMARY_OPENING
from chat.pipeline.draft import Draft, Line, Reason, parse
from chat.pipeline.grammar import OTHER_SCRIPTS
from tools.language.sentences import ends_sentence
from tools.language.words import fold, word_set, words
from tools.references import asks_which_text
from tools.search.windows import question_words
from tools.verification.claim_checks import name_present
from tools.verification.evidence import claim_tokens, matches_any

log = logging.getLogger(__name__)

REPEAT_SHARE = 0.8  # a sentence whose content words are this much an earlier sentence's says nothing new
# a clause ending on one of these was cut: "they don't sorrow or", "is praised by the Buddha and is"
_DANGLING = word_set("dangling")
MIN_CONTENT_WORDS = 2  # fewer is a stub the model ended early to reach its citation ("The Buddha explains that if.")
# English and Pali in Latin letters with their diacritics, punctuation, dashes and quotes: anything else in a
# sentence (a stray CJK character) is a decoding slip of the small model, not something any passage says
_FOREIGN = re.compile(f"[{OTHER_SCRIPTS}]")
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
_OPENED = re.compile(r'(?:^|(?<=[\s(]))"(?=\w)(?=[^"]*$)')  # the last straight quote mark, opening a quotation
_QUOTE_AFTER_REF = re.compile(r"(\][.!?]?)\"(?=\s|$)")
_QUOTE_END = re.compile(r"\s*\[|[.!?](?=\s|$)")  # where the quoted sentence ends: its reference or its stop
# a quotation that ends on a single quote mark after its stop: "Persist with diligence.'" (the line's own inner
# quotation, copied without its opening)
_SINGLE_AT_END = re.compile(r'"([^"]*?[.!?,;])[\'’]"')
_SINGLE_OPENED = re.compile(r"(?:^|[\s(“—])[‘']\w")
QUOTE_TAIL_WORDS = 3  # a sentence's last words found verbatim in a passage that goes straight on: a cut quotation


def tidy_draft(draft: Draft, said_before: str = "") -> Draft:
    """The model's draft (references mapped) without a cut-off last sentence, questions, slips, stubs or repeats:
    of its own sentences, or of the sentences of `said_before` (the last turn's answer, its quoted lines left
    out). Asked something its text does not hold, the small model restates what it said last time."""
    last = len(draft.standing) - 1
    own = "\n\n".join(p for p in said_before.split("\n\n") if p.strip() and not p.lstrip().startswith(">")
                       and not p.startswith(SUMMARY_OPENING))
    seen: list[set[str]] = [words for line in (parse(own).standing if own else [])
                            if len(words := set(claim_tokens(line.text))) >= MIN_CONTENT_WORDS]

    def fault(i: int, s: Line) -> Reason | None:
        plain = s.text.strip()
        if i == last and not s.citations and not ends_sentence(plain):
            return Reason.CUT_OFF  # every whole sentence ends with its references (the grammar); this one stopped
        if plain.rstrip("”’\"') ").endswith("?"):
            return Reason.QUESTION
        if _FOREIGN.search(plain):
            return Reason.SLIP
        words = set(claim_tokens(plain))
        if len(words) < MIN_CONTENT_WORDS:
            return Reason.STUB
        if any(len(words & before) >= REPEAT_SHARE * len(words) for before in seen):
            return Reason.REPEAT
        seen.append(words)
        return None

    return _without(draft, fault)


def without_asides(draft: Draft, question: str, main_texts: set[str]) -> Draft:
    """`main_texts` are sutta IDs and documents' titles (`source` of a reference and of an evidence window).

    The draft without sentences that cite only texts other than the ones quoted first and share no word with
    the question: true of their passage, but not an answer ("those ascetics emerged from the Nerañjarā river",
    asked where an extinguished fire goes). A sentence about the main texts may explain in their own words."""
    asked = set(question_words(question))

    def fault(_: int, s: Line) -> Reason | None:
        cited = {c.source for c in s.citations if c.source}
        if not cited or cited & main_texts or any(matches_any(w, asked) for w in claim_tokens(s.text)):
            return None
        return Reason.ASIDE

    return _without(draft, fault)


_INTERROGATIVES = word_set("interrogatives")
_CAPITALISED = re.compile(r"(?<![\w’'])[A-ZĀĪŪÑṬḌṆḶṀ][\w’'-]+")
_REPORTED = re.compile(r"^[^,]*?\bsays? that\s+")  # "Thig 14.1 says that …", the opener `say` gives a sentence


def without_echoes(draft: Draft, question: str) -> Draft:
    """The draft without sentences that only give the question back: every word of them is the question's ("He
    became a monk", asked "What did he do after he became a monk?"; "DN 31 says that the noble disciple gives up
    four corrupt deeds", asked which four). Such a sentence, true or not, tells the reader nothing they did not
    say; one that restates a question's premise ("… that women cannot become arahants") passes it off as the text's.
    A name the question does not give is news ("The Buddha saw …", asked who saw). Only a question asking what,
    who, why or how: a yes or no is answered by giving the question back, and "which discourses say …?" or "where
    does the Buddha say …?" by the citations."""
    first = question.strip().split(maxsplit=1)[:1]
    if not first or fold(first[0]).strip("\"“‘(") not in _INTERROGATIVES or asks_which_text(question):
        return draft
    asked = set(words(question))
    folded = fold(question)

    def fault(_: int, s: Line) -> Reason | None:
        body = _REPORTED.sub("", s.text.strip())
        news = [w for w in words(body) if not matches_any(w, asked)]
        named = [w for w in _CAPITALISED.findall(body)[1:] if not name_present(fold(w), w, folded)]
        return Reason.ECHO if not news and not named else None

    return _without(draft, fault)


def keeping_to_main_texts(draft: Draft, main_texts: set[str]) -> Draft:
    """A sentence citing the texts quoted first and others besides keeps only the first: it is read as a claim
    about them and checked against them alone. Cited together, another text's words pass for theirs ("The Buddha
    crossed the flood by faith [SN 1.1; SN 10.12]": SN 10.12 says "by faith", SN 1.1 "neither standing nor
    swimming"); a sentence citing only the other text is still judged on its own."""
    def keep(_: int, s: Line) -> Line:
        cited = {c.source for c in s.citations if c.source}
        if cited & main_texts and cited - main_texts:
            return s.map_refs(lambda _, c: c if not c.source or c.source in main_texts else None)
        return s

    return draft.map(keep)


def without_dangling_clauses(draft: Draft, evidence: Sequence[str] = ()) -> Draft:
    """The checked answer without what is left of a sentence whose end was removed or never written: one that ends
    on a conjunction, article or preposition, or on a comma; a clause with no sentence ("That the present phenomenon
    should be discerned."); a quotation stopped mid-phrase ("... telling lies, and committing.", where the passage
    goes on "committing adultery")."""
    flat = [" ".join(e.split()) for e in evidence]
    last = len(draft.standing) - 1
    headed = any(b.markup.startswith("#") for b in draft.blocks)  # study notes: their headings end in no stop

    def fault(i: int, s: Line) -> Reason | None:
        whole = s.text.strip()
        plain = whole.rstrip(".!?…,;:”’\"') ")
        if not plain or s.origin != "model":
            return None
        if i == last and not s.citations and not ends_sentence(whole) and not headed:
            return Reason.FRAGMENT  # "The passages": what the checks left of a last sentence, with nothing to cite
        last_word = plain.rsplit(" ", 1)[-1]
        if (last_word.lower() in _DANGLING and not _ends_as_lines_do(plain, flat)) or _COMMA_END.search(whole):
            return Reason.FRAGMENT  # a dangling clause
        if _CLAUSE_ONLY.match(plain):
            return Reason.FRAGMENT  # a clause without its sentence
        if last_word.lower().endswith("ing") and _stops_mid_quote(plain, flat) and not _ends_as_lines_do(plain, flat):
            return Reason.FRAGMENT  # a quotation stopped mid-phrase
        if _TRAILS_OFF.search(whole) or _CUT_WORD.search(whole):
            return Reason.FRAGMENT  # a sentence that trails off
        if any(m.group(1).lower() in _DANGLING for m in _BROKEN_OFF.finditer(whole)):
            return Reason.FRAGMENT  # broken off and run on
        return None

    return _without(draft, fault).map(lambda _, s: _quotes_paired(s))


def _quotes_paired(line: Line) -> Line:
    """A straight quote mark left after a sentence's reference with none opened before it ("… lesser life
    [MN 63:2.14].\"") closes nothing a reader can see: it goes; one opened and never closed ("states, \"Tireless all
    night … peaceful sage [MN 131:10.14].") is closed where the quotation ends, before its reference. A single quote
    mark that closes a quotation none opened inside it ("\"Conditions fall apart. Persist with diligence.'\"", the
    line's own inner quotation cut) goes too."""
    text = _SINGLE_AT_END.sub(lambda m: m.group(0) if _SINGLE_OPENED.search(m.group(1)) else f'"{m.group(1)}"',
                              line.written)
    if text.count('"') % 2 == 0:
        return replace(line, written=text) if text != line.written else line
    if (opened := _OPENED.search(text)) and (end := _QUOTE_END.search(text, opened.end())):
        return replace(line, written=text[: end.start()] + '"' + text[end.start():])
    return replace(line, written=_QUOTE_AFTER_REF.sub(r"\1", text, count=1))


def _ends_as_lines_do(plain: str, evidence: Sequence[str]) -> bool:
    """Whether the sentence's last two words close a clause of the lines too: "not for holding on." ends as the
    raft simile does (MN 22: "for crossing over, not for holding on."), a particle, not a preposition left open;
    "… the cessation of suffering." ends where SN 56.29's list does, though another line runs on past those words
    ("the cessation of suffering should be realized")."""
    return _last_words_in(plain, 2, r"\s*[.,;:!?’”\"]", evidence, bounded=True)


def _stops_mid_quote(plain: str, evidence: Sequence[str]) -> bool:
    return _last_words_in(plain, QUOTE_TAIL_WORDS, " [a-z]", evidence)


def _last_words_in(plain: str, n: int, after: str, evidence: Sequence[str], bounded: bool = False) -> bool:
    """Whether the sentence's last `n` words are in a line, followed there by `after` (a pattern)."""
    tail = plain.split()[-n:]
    if len(tail) < n:
        return False
    phrase = r"\W+".join(re.escape(w.strip("“”‘’\"',;:")) for w in tail)
    start = r"\b" if bounded else ""
    pattern = re.compile(rf"{start}{phrase}{after}", re.IGNORECASE)
    return any(pattern.search(e) for e in evidence)


def _without(draft: Draft, fault: Callable[[int, Line], Reason | None]) -> Draft:
    """The draft with the sentences `fault` names a reason for marked removed, in order, each removal logged."""
    def judge(i: int, s: Line) -> Line:
        if (reason := fault(i, s)) is None:
            return s
        log.debug("dropped %s: %r", reason.value, s.text.strip()[:80])
        return s.removed(reason)

    return draft.map(judge)
