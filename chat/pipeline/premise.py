"""A question's premise against the lines retrieved for it: "Why did the Buddha say that women cannot become
arahants?" takes for granted what Kd 20:1.3 denies ("would they be capable of realizing ... the fruit of
perfection?" "Yes, they would."). The answer should say so and quote the lines, not explain a saying that is not
there; and no follow-up should repeat the premise as fact.

Only a clear contradiction counts, checked in code before the model writes: a clause of a retrieved line that
speaks of the premise's subject (its rarest words, with the library's own renderings of the reader's words:
"arahant" is Sujato's "perfected one") and says it with the opposite polarity: negation ("not", "never") or
ability ("cannot" against "capable"). A premise the lines merely do not mention is left to the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from indexing.text import tokenize
from tools.language.denials import denied_sentences
from tools.language.sentences import stop_pieces
from tools.language.speakers import BUDDHA_NAMES
from tools.language.words import fold, word_set
from tools.references import MENTION
from tools.search.shapes import ABILITY
from tools.search.windows import EvidenceWindow
from tools.verification.claim_checks import negation_check, polarity

# "Why did the Buddha say that P?", "Where does the Buddha teach that P?", "Is it true that P?",
# "Did the Buddha say P?": P is what the question takes for granted (or asks to be confirmed).
_THAT = re.compile(
    r"\b(?:say|says|said|saying|teach|teaches|taught|tell|tells|told|state|states|stated|claim|claims|claimed|"
    r"declare[sd]?|insist[sed]*|hold|holds|held|believe[sd]?|true)\b(?:\s+[\w’'-]+){0,3}?\s+that\s+(?P<p>.+)$",
    re.IGNORECASE)
_SAY_DIRECT = re.compile(
    r"^(?:did|does|do|has|had|was|is)\b.*?\b(?:say|teach|tell|state|claim|declare)\b\s+(?P<p>.+)$", re.IGNORECASE)
# "Why can't women become arahants?", "Why are women unable to ...": a why-question presupposes its clause.
_WHY = re.compile(r"^(?:why|how come)\s+(?P<p>.+)$", re.IGNORECASE)
# a why-question's clause keeps its question order ("can't women become ..."): not quotable as a statement
_INVERTED = re.compile(r"^(?:can|cannot|can[’']t|could|couldn[’']t|do|does|did|don[’']t|doesn[’']t|didn[’']t|is|"
                       r"are|was|were|isn[’']t|aren[’']t|will|won[’']t|would|should|must|has|have|had)\b",
                       re.IGNORECASE)
_NEGATIVE_ABILITY = re.compile(
    r"\b(?:cannot|can[’']t|couldn[’']t|could not|can not|unable|incapable|impossible|not able|not capable|"
    r"not possible)\b", re.IGNORECASE)
_FRAME = frozenset(tokenize("buddha blessed one ananda venerable sir mendicant mendicants texts text sutta "
                            "discourse say said tell told teach taught"))
MIN_SUBJECT_SHARE = 0.5  # share of the premise's subject weight (IDF) a contradicting clause must speak of
# a text's own question answered "No" must speak of more of the reader's: it is their question, not one near it
DENIED_SUBJECT_SHARE = 0.6
MIN_ASKED_WORDS = 3  # "What is it?" takes nothing for granted that a text's question could deny
_AUXILIARY = re.compile(r"\b(?:is|are|was|were|do|does|did|has|have|had|will|would|can|could|should|must)\b",
                        re.IGNORECASE)
# a question's auxiliaries and function words, passed over to find its verb or who it says says something
_FUNCTION_WORDS = word_set("auxiliaries") | word_set("relative_pronouns") | word_set("question_function_words")
_TELLING = word_set("telling_verbs")
_TEXT_WORDS = word_set("verse_words") | word_set("text_words")
_WH = re.compile(r"^\W*(?:which|what|who|whom|whose|when|where|how|why)\b", re.IGNORECASE)
# where the reader says the premise is told: "…, according to Ānanda's conversation with Vassakāra"
_ACCORDING = re.compile(r",?\s*\baccording to\b[^,?]*", re.IGNORECASE)


@dataclass(frozen=True)
class Premise:
    """What the question takes for granted, and the retrieved line that says otherwise."""

    claim: str  # the premise, in the reader's words
    window: EvidenceWindow  # the line that contradicts it
    line: str  # the clause of that window that says otherwise
    how: str  # "ability", "negation", or "denied" (the text asks the reader's question and answers no)
    status: str = "contradicted"
    reasons: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return self.window.ref

    def note(self) -> str:
        """One plain sentence for the reader, citing the line; it opens the answer."""
        line = self.line.strip().strip("“”\"‘’ ").rstrip(",;:")
        said = (f"do not say that {self.claim.rstrip('?. ')}"
                if not _INVERTED.match(self.claim) and self.how != "denied"
                else "do not bear out what the question assumes")
        return f"The texts I have {said}: {self.window.source} says otherwise, “{line}” [{self.ref}]."

    def hint(self, number: int | None) -> str:
        """A note for the model: correct the premise, citing the line."""
        where = f"passage [{number}]" if number else f"{self.ref}"
        claim = self.claim.rstrip("?. ")
        assumed = f"“{claim}”" if _INVERTED.match(claim) or self.how == "denied" else f"that {claim}"
        return (f"Note: the question assumes {assumed}, but {where} says otherwise. Say that the texts do not say "
                "this, and what they do say.")

    def to_dict(self) -> dict:
        return {"claim": self.claim, "status": self.status, "ref": self.ref, "line": self.line, "how": self.how}


def asserted(question: str) -> str | None:
    """The premise a question asserts or takes for granted, or None for a plain question."""
    q = " ".join(question.strip().rstrip("?").split())
    for pattern in (_THAT, _SAY_DIRECT):
        if m := pattern.search(q):
            return m.group("p").strip(" ,") if _the_texts_say(q[: m.start()]) else None
    if (m := _WHY.match(q)) and (_NEGATIVE_ABILITY.search(q) or polarity(q)):
        return m.group("p").strip(" ,")  # "why can't X": the negative is the premise; "why X" is usually so
    return None


def _the_texts_say(sayer: str) -> bool:
    """Whether the question gives what follows as the Buddha's or a text's ("Why did the Buddha tell Ānanda that
    …", "Does MN 10 say …", "Is it true that …"), not as someone else's: "Why did the Jain ascetics … tell the
    Buddha that pleasure is gained through pain" asks about their view, which the text they hold it in does not
    contradict by stating it."""
    named = [w for w in re.findall(r"[\w’'-]+", MENTION.sub(" MENTION ", sayer))
             if w.lower() not in _FUNCTION_WORDS]
    return not named or any(w == "MENTION" or fold(w) in BUDDHA_NAMES or w.lower() in _TEXT_WORDS for w in named)


def presupposed(question: str) -> str | None:
    """What a wh-question takes for granted, as the reader put it, less where they say it is told: "Which monk did
    the Buddha appoint to be the Sangha's refuge after his death, according to Ānanda's conversation with …?" takes
    for granted that he appointed one. None for a question that asks yes or no."""
    q = " ".join(question.strip().rstrip("?").split())
    if not _WH.match(q):
        return None
    return _ACCORDING.sub("", q).strip(" ,") or None


def check_premise(question: str, windows: list[EvidenceWindow], weights=None, renderings=None) -> Premise | None:
    """The first of `windows` (best first) with a clause contradicting the question's premise, or None.
    `weights(tokens) -> {token: idf}` weighs the premise's words (rare words are its subject); `renderings(text)`
    gives the library's own words for the reader's (a bridged "arahant" -> "perfected").

    A wh-question's premise is contradicted where a text asks the reader's question itself and answers no: MN 108's
    "is there even a single mendicant who was appointed by Mister Gotama, saying: 'This one will be your refuge
    …'?" "No, there is not." answers "Which monk did the Buddha appoint to be the Sangha's refuge?"."""
    claim = asserted(question)
    if not claim:
        asked = presupposed(question)
        return _asked_and_denied(asked, windows, weights, renderings) if asked else None
    subject, measure = _measure(claim, weights, renderings)
    if not subject:
        return None
    claim_ability = _ability(claim)
    for window in windows:
        for clause, line in _clauses(window):
            if measure(clause) < MIN_SUBJECT_SHARE:
                continue
            clause_ability = _ability(clause)
            if claim_ability is not None and clause_ability is not None and claim_ability != clause_ability:
                return Premise(claim, window, line, "ability")
            if negation_check(claim, clause) and polarity(claim) != polarity(clause):
                return Premise(claim, window, line, "negation")
    return None


def _measure(claim: str, weights, renderings) -> tuple[list[str], Callable[[str], float]]:
    """The premise's subject words, and the share of their weight a clause speaks of."""
    subject = _subject(claim)
    w = weights(subject) if weights is not None and subject else {t: 1.0 for t in subject}
    alike = {t: {t} for t in subject}
    for reader, library_words in (renderings(claim) if renderings is not None else []):
        for t in reader:
            if t in alike:
                alike[t] |= set(library_words)
    total = sum(w.get(t, 0.0) for t in subject) or 1.0

    def measure(clause: str) -> float:
        said = set(tokenize(clause))
        return sum(w.get(t, 0.0) for t in subject if _meets(alike[t], said)) / total

    return subject, measure


def _asked_and_denied(asked: str, windows: list[EvidenceWindow], weights, renderings) -> Premise | None:
    """The first window where a text asks what the reader takes for granted, and the reply says no: a question of
    the text that holds the reader's verb ("appoint") and most of the weight of their other words. A text's own
    question near the reader's topic is not enough: MN 21 asks "do you see any criticism … that you could not
    endure?" "No, sir." of the simile of the saw, and "What does the Buddha say about anger in the simile of the
    saw?" takes nothing for granted that this denies."""
    verb = _asked_verb(asked)
    subject, measure = _measure(asked, weights, renderings)
    if verb is None or len(subject) < MIN_ASKED_WORDS:
        return None
    for window in windows:
        read = denied_sentences(" ".join(t.replace("<j>", " ") for t in window.texts))
        for (sentence, denied), (reply, _) in zip(read, read[1:]):
            if denied and sentence.rstrip("”’\"' ").endswith("?") and verb in tokenize(sentence) \
                    and measure(sentence) >= DENIED_SUBJECT_SHARE:
                return Premise(asked, window, f"{sentence} {reply}", "denied")
    return None


def _asked_verb(asked: str) -> str | None:
    """The verb of a wh-question, as tokenized: the first lowercase word after its auxiliary that is not a function
    word ("Which monk did the Buddha appoint …" -> "appoint", "Which monk was appointed …" -> "appoint"). None when
    there is none, or it only asks what someone said ("What does the Buddha say about anger …"): such a question
    takes nothing for granted."""
    m = _AUXILIARY.search(asked)
    if m is None:
        return None
    for word in asked[m.end():].split():
        if word[:1].islower() and word.lower() not in _FUNCTION_WORDS:
            if word.lower() in _TELLING:
                return None
            found = tokenize(word)
            return found[0] if found else None
    return None


PREFIX = 5  # a word meets another it begins ("perfect" meets "perfection") when it is this long


def _meets(forms: set[str], said: set[str]) -> bool:
    if forms & said:
        return True
    return any(len(f) >= PREFIX and (s.startswith(f) or f.startswith(s)) and len(s) >= PREFIX
               for f in forms for s in said)


SAME_SUBJECT = 0.6  # share of a premise's subject words a question must hold to restate it


def same_premise(question: str, claim: str) -> bool:
    """Whether `question` (a suggested follow-up) restates `claim` as fact: it holds most of the claim's subject
    words and says them with the same polarity ("incapable" for "cannot"; a "capable" asks otherwise)."""
    subject = _subject(claim)
    words = set(tokenize(question))
    if not subject or sum(t in words for t in subject) / len(subject) < SAME_SUBJECT:
        return False
    ours, theirs = _ability(claim), _ability(question)
    if ours is not None or theirs is not None:
        return ours == theirs
    return polarity(claim) == polarity(question)


def _subject(claim: str) -> list[str]:
    """The premise's content words: what it is about, without its frame ("the Buddha said") or its modality."""
    return [t for t in dict.fromkeys(tokenize(claim)) if t not in _FRAME and not ABILITY.fullmatch(t)
            and not _NEGATIVE_ABILITY.fullmatch(t) and len(t) > 2]


def _ability(text: str) -> int | None:
    """1 when the text says someone can, 0 when it says they cannot, None when it says neither."""
    if _NEGATIVE_ABILITY.search(text):
        return 0
    found = ABILITY.findall(text)
    if not found:
        return None
    return 0 if polarity(text) else 1


def _clauses(window: EvidenceWindow) -> list[tuple[str, str]]:
    """(what the sentence asserts, the line to quote) for each of the window's sentences. A question asserts
    nothing until its reply settles it ("would they be capable ...?" "Yes, they would."): with a yes it asserts
    itself and is quoted with its reply; otherwise it is skipped."""
    sentences = [s.strip() for t in window.texts for s in stop_pieces(t.replace("<j>", " ")) if s.strip()]
    out: list[tuple[str, str]] = []
    for i, s in enumerate(sentences):
        if s.rstrip("”’\"' ").endswith("?"):
            reply = sentences[i + 1] if i + 1 < len(sentences) else ""
            if _YES.match(reply):
                out.append((s.rstrip("?”’\"' ") + ".", f"{s} {reply}"))
            continue
        out.append((s, s))
    return out


_YES = re.compile(r"^\W*(?:yes|indeed|certainly|that[’']?s right)\b", re.IGNORECASE)
