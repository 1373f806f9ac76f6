"""Two or three reflective follow-up questions after an answer: asked of the model, built from the citations if
the model's reply is unusable (or there is no time for it).

Every suggestion, the model's or the fallback's, passes `usable_followups`: none repeats the reader's question or
asks again what the turn just answered, none restates a premise the texts contradict ("Why does the Buddha say
women are incapable of ...?" after the answer showed he says they are capable) or a sentence of the model's that
the checks took out ("Why did Sāriputta say he felt amazing?" after "Sāriputta said he felt amazing" did not
stand), and none leaves the library (a name no text of it uses: another tradition's teacher, text or figure)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence

from llama_index.core.base.llms.types import ChatMessage, MessageRole

from chat.pipeline.answer import Citation
from chat.pipeline.premise import same_premise
from prompts import load_prompt
from tools.language.words import tokenize, word_set, written_words
from tools.passages import clip

log = logging.getLogger(__name__)

MAX_TOKENS = 100  # three short questions; a 1.5B model otherwise rambles on for 200+ tokens
_LEAD = re.compile(r"^\s*(?:(?:answer|thought|question|q)\s*\d*\s*[:.)]\s*)?(?:[-*•]|\d+[.)])?\s*", re.IGNORECASE)
# How an English question opens: held to these, the model cannot label its lines ("Question 1. …", "Answer: …").
OPENERS = ("What", "Why", "How", "Who", "Whom", "Whose", "Where", "When", "Which", "In", "Does", "Do", "Did", "Is",
           "Are", "Was", "Were", "Can", "Could", "Would", "Should", "According")


def followups_grammar(count: int) -> str:
    """GBNF: `count` questions, one per line, each opening as English questions open and ending in "?", with no
    colon or bracket: the model can neither label them (it copies "Question: … Answer: …" from the prompt, or numbers
    them "Question 1.") nor cite passages."""
    more = max(0, count - 1)
    openers = " | ".join(f'"{w}"' for w in OPENERS)
    return (f'root ::= question ("\\n" question){{{more}}}\n'
            + 'question ::= opener " " [^\\n?:\\[\\]]{8,150} "?"\n'
            + f"opener ::= {openers}\n")


def parse_followups(text: str, count: int = 3, asked: str = "") -> list[str]:
    """The questions in the model's reply, without numbering or labels; `asked` (the reader's own question) is not
    offered back to them."""
    out: list[str] = []
    seen = {_key(asked)} if asked else set()
    for line in text.splitlines():
        line = _LEAD.sub("", line).strip().strip('"“”')
        if not line.endswith("?") or len(line) < 12 or len(line) > 200:
            continue
        key = _key(line)
        if key not in seen:
            seen.add(key)
            out.append(line)
        if len(out) == count:
            break
    return out


def fallback_followups(question: str, citations: list[Citation], count: int = 3) -> list[str]:
    """Questions that lead back into the cited texts, so each is answerable from the corpus."""
    out: list[str] = []
    first = citations[0] if citations else None
    if first is not None:
        name = f"{first.title} ({first.sutta_id})" if first.title and first.sutta_id else (first.sutta_id or first.ref)
        out.append(f"What comes just after the passage at {first.ref}, and how does it develop the point?")
        out.append(f"What is the setting of {name}: who is speaking, to whom, and why does it matter?")
    others = [c for c in citations[1:] if c.sutta_id and first is not None and c.sutta_id != first.sutta_id]
    if others and first is not None:
        out.append(f"How does {others[0].sutta_id} treat this differently from {first.sutta_id}?")
    # A term of the question that the cited texts also use: the texts' word, not the user's nickname for them.
    cited_words = set(tokenize(" ".join(c.excerpt for c in citations)))
    terms = [t for t in tokenize(question) if len(t) > 4 and (t in cited_words or not citations)]
    if terms:
        term = max(terms, key=len)
        # the reader's word as they wrote it: a token is folded and stemmed ("angulimala", "chas")
        bare = [re.sub(r"[’']s?$", "", w) for w in written_words(question)]  # "Sāriputta’s" -> "Sāriputta"
        written = {tokens[0]: w for w in bare if len(tokens := tokenize(w)) == 1}
        out.append(f"Where else in the discourses does “{written.get(term, term)}” come up?")
    out.append("How could this teaching be put into practice in daily life, according to the texts?")
    return out[:count]


SAME_QUESTION = 0.7  # share of a suggestion's words the reader's question holds: it asks the same again
ANSWERED = 0.85  # share of its words the answer holds, with half of them the question's: answered just now
WITHDRAWN_SHARE = 0.6  # of what a suggestion adds to the question, taken from a sentence that did not stand
MIN_WORD = 4  # shorter names are never judged unknown to the library


def usable_followups(questions: list[str], *, asked: str, answered: str = "", premise: str | None = None,
                     known: Callable[[str], bool] | None = None, withdrawn: Sequence[str] = (),
                     stood: str = "", shown: str = "") -> list[str]:
    """The suggestions a reader can use: not the question again, not what was just answered, not the contradicted
    `premise` restated, nor any of the `withdrawn` sentences (the model's, which did not stand, where `stood`, its
    sentences that did, do not say the same), and no name the library never uses (`known(token)`: a passage uses
    the word). `shown`: the lines quoted with the answer, whose words a question asked again may borrow."""
    asked_words = set(_words(asked))
    answer_words = set(_words(answered))
    # the question asked again in the words of the lines just quoted ("Why did Mahāpajāpati Gotamī stand crying
    # outside the gate?" after "… weep outside the gate?", whose quoted line says she "stood crying")
    shown_words = answer_words | set(_words(shown))
    # what each withdrawn sentence says that the sentences that stood do not
    withdrawn_words = [set(_words(claim)) - set(_words(stood)) for claim in withdrawn]
    out: list[str] = []
    for q in questions:
        words = _words(q)
        if not words:
            continue
        share_asked = sum(w in asked_words for w in words) / len(words)
        if share_asked >= SAME_QUESTION:
            continue
        # what was just answered, asked again the same way ("What ...?" after "What ...?"; a "Why" asks further)
        # (the quoted lines lend their words only to a suggestion mostly of the question's: "What is the water
        # element?" after the earth element's lines, which go on to water, asks further)
        held = shown_words if share_asked > 0.5 else answer_words
        if held and share_asked >= 0.5 and _opener(q) == _opener(asked) and sum(
                w in held | asked_words for w in words) / len(words) >= ANSWERED:
            continue
        # a yes-or-no question made of the answer's own words only asks whether it said what it said ("Does Dhp 184
        # say to not do evil, embrace the good …?" after an answer saying so of Dhp 183)
        if answer_words and _opener(q) in _YES_NO and sum(
                w in answer_words | asked_words for w in words) / len(words) >= ANSWERED:
            continue
        if premise and same_premise(q, premise):
            continue
        # the model writes its suggestions after its own sentences, those the checks took out among them: asked
        # about, a claim the texts do not bear out reaches the reader after all, as something to explore
        if any(_restates(words, claimed, asked_words) for claimed in withdrawn_words):
            log.info("follow-up dropped, it restates what did not stand: %r", q)
            continue
        if known is not None and any(not known(w) for w in _names(q)):
            continue
        out.append(q)
    return out


def _restates(words: list[str], claimed: set[str], asked_words: set[str]) -> bool:
    """Whether a suggestion (its `words`) takes what it adds to the reader's question from `claimed`, the words of
    a sentence that did not stand less those of the model's sentences that did: "Why did Sāriputta say he felt
    incredible and amazing?" after "Sāriputta said he felt “incredible” and “amazing” …" was taken out adds
    "incredible" and "amazing". The question's own words are no sign: a suggestion shares them with every sentence
    of the turn. Nor are the quoted lines' words an excuse: a misreading is made of them ("the honey-cake discourse
    illustrates the Buddha's teaching on hunger and how to obtain it")."""
    added = [w for w in words if w not in asked_words]
    taken = [w for w in added if w in claimed]
    return bool(added) and len(taken) >= WITHDRAWN_SHARE * len(added)


def _names(question: str) -> list[str]:
    """The tokens of the names a question uses (capitalised words after its first): another tradition's teacher,
    text or figure is named, and a name no text uses leads outside the library."""
    return [t for word in re.findall(r"(?<=\s)[A-ZĀĪŪṬḌṆÑṄḶṀṂ][\w\u0300-\u036f’'-]+", question)
            for t in tokenize(word) if len(t) >= MIN_WORD]


def _opener(question: str) -> str:
    return question.strip().split(" ", 1)[0].lower()


def _words(text: str) -> list[str]:
    return [t for t in dict.fromkeys(tokenize(text)) if t not in _QUESTION_FRAME]


_QUESTION_FRAME = frozenset(tokenize("buddha buddhas text texts discourse discourses sutta suttas teaching say says "
                                     "said describe describes explain explains passage passages"))
_YES_NO = word_set("yes_no_openers")


async def generate_followups(llm, question: str, answer: str, citations: list[Citation], *, count: int = 3,
                             timeout: float = 30.0, prefix: list[ChatMessage] | None = None,
                             premise: str | None = None, known: Callable[[str], bool] | None = None,
                             withdrawn: Sequence[str] = (), stood: str = "",
                             shown: str = "") -> tuple[list[str], str]:
    """(questions, source) where source is "model" or "fallback". `prefix`: the messages of the turn's last LLM
    call; asking after them lets llama.cpp reuse their KV cache, so only the request itself is evaluated.
    `premise` (contradicted by the texts), `known` (the library's words), `withdrawn` and `stood` (the model's
    sentences that did not stand, and those that did), `shown` (the answer as shown, its quoted lines with it): see
    `usable_followups`."""

    def usable(questions: list[str]) -> list[str]:
        return usable_followups(questions, asked=question, answered=answer, premise=premise, known=known,
                                withdrawn=withdrawn, stood=stood, shown=shown)

    def fallback(n: int) -> list[str]:
        return usable(fallback_followups(question, citations, n + 3))[:n]

    sources = "; ".join(dict.fromkeys(f"{c.sutta_id} {c.title}".strip() for c in citations if c.sutta_id)) or "none"
    prompt = load_prompt("followups", count=count, question=question, answer=clip(answer, 600), sources=sources)
    if llm is not None:
        from chat.pipeline.agent import with_max_tokens

        llm = with_max_tokens(llm, MAX_TOKENS, lower=True)
        if hasattr(llm, "with_grammar"):  # llama.cpp; other providers get the format from the prompt alone
            grammar = followups_grammar(count)
            llm = llm.with_grammar(lambda: grammar)
        try:
            response = await asyncio.wait_for(
                llm.achat([*(prefix or []), ChatMessage(role=MessageRole.USER, content=prompt)]), timeout
            )
            got = usable(parse_followups(response.message.content or "", count, asked=question))
            if len(got) >= 2:
                return got, "model"
            if got:
                # one usable question (the model wrote the same one three times): keep it, the rest from the texts
                seen = {_key(q) for q in got}
                rest = [q for q in fallback(count + 1) if _key(q) not in seen]
                return (got + rest)[:count], "model and fallback"
            log.info("follow-up reply unusable: %.200r", response.message.content)
        except Exception as exc:  # any model failure: the fallback below is always good enough
            log.info("follow-up generation failed: %s", exc)
    return fallback(count), "fallback"


def _key(question: str) -> str:
    return " ".join(tokenize(question, stem=False, drop_stopwords=False)) or question.lower()
