"""The deterministic plan made before the first LLM call.

A 1.5B model spends most of its time budget reading, so the plan does what needs no judgement: from the question's
analysis (tools/search/query.py: the suttas it names by ID or nickname, collection hints such as "in the Majjhima", its
topic) and the previous turn it decides whether the question continues that turn ("what comes right after
that?") and the answer mode. It then names the one retrieval that most questions need, which the Scholar runs up
front so the model usually answers in a single step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from chat.pipeline.tables import TableStep, table_step
from indexing.text import fold
from tools.references import asks_for_parallels, parse_reference, without_book_names
from tools.search.query import NamedSutta, QueryAnalysis

Mode = Literal["qa", "notes"]
FollowUp = Literal["next", "before", "same", "more"]  # how a question continues the previous turn

_NOTES = re.compile(
    r"\b(study notes?|notes (?:on|about|for)|write (?:up )?notes|study guide|study sheet|long[- ]form|"
    r"overview with headings|in depth|in-depth)\b"
)
_NEXT = re.compile(r"\b(right |just |immediately )?(after (?:that|this|it)|what comes next|"
                   r"comes (?:right |just )?after|what follows|follows (?:that|this|it)|"
                   r"next (?:passage|verse|part|section|lines?)|continue|goes on)\b")
# one verse, line or sentence asked for: reading on by one passage shows it and not the one after, which the model
# then takes for it ("the next verse" after Dhp 183 was answered from Dhp 185)
_ONE_UNIT = re.compile(r"\b(?:next|following|preceding|previous) (?:verse|line|sentence)\b|"
                       r"\b(?:verse|line|sentence) (?:before|after) (?:that|this|it)\b")
_BEFORE = re.compile(r"\b(before (?:that|this|it)|what comes before|preceding (?:passage|verse|part|lines?)|"
                     r"leads up to (?:that|this|it))\b")
_SAME = re.compile(r"\b(the same|same thing|also say|say so too|agree|similar(?:ly)?|as well|too|likewise|"
                   r"elsewhere|parallel|compare|say that|say this)\b")
_ANAPHORA = re.compile(r"\b(that|this|it|they|he|she|him|them|those|these|there)\b")
_WORD = re.compile(r"[A-Za-zĀ-ɏḀ-ỿ]+")


@dataclass
class PreviousTurn:
    """One earlier turn of the conversation, as the session memory keeps it."""

    question: str
    answer: str = ""
    cited_refs: list[str] = field(default_factory=list)  # "MN 21:20.1", first cited first
    search_query: str = ""  # what the previous turn searched for; "does the Majjhima say the same?" reuses it
    status: str = "answered"
    cited_suttas: list[str] = field(default_factory=list)  # "MN 21", first cited first
    # The subject: the suttas the turn was about (named, or its scope as a follow-up, else what it cited first)
    # and the people its answer named; the next follow-up is answered within these suttas first.
    subject_suttas: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        return self.status == "answered" and bool(self.cited_refs)


@dataclass
class LookupStep:
    """Read a sutta the question names, the passages matching the question's topic first."""

    tool: ClassVar[str] = "lookup_sutta"
    sutta: NamedSutta
    query: str
    thought: str
    setting: bool = False  # its opening competes too: asked who, to whom or where
    # the text's summary heads its lines unless the conversation already introduced the text: then it is no news
    # to the reader, and to the small model a paragraph to copy out instead of answering from the lines
    summary: bool = True
    windows: int = 0  # passages to show; 0: the tool budget's

    @property
    def kwargs(self) -> dict:
        return {"sutta_id": self.sutta.sutta_id, "query": self.query}


@dataclass
class SearchStep:
    tool: ClassVar[str] = "search_passages"
    query: str
    collection: str | None
    thought: str
    windows: int = 0  # evidence items to show; 0: the budget's (a search beside a scoped lookup shows fewer)
    prefer: list[str] = field(default_factory=list)  # doc IDs ranked first: the suttas under discussion

    @property
    def kwargs(self) -> dict:
        # k is the Scholar's budget, passed to the tool directly: shown in the seeded step, the model would copy it.
        return {"query": self.query, **({"collection": self.collection} if self.collection else {})}


@dataclass
class ExpandStep:
    """Read on from (or back before) a passage the previous answer cited."""

    tool: ClassVar[str] = "expand_context"
    ref: str
    before: int
    after: int
    thought: str

    @property
    def kwargs(self) -> dict:
        return {"ref": self.ref, "after": self.after, "before": self.before}


PlannedStep = LookupStep | SearchStep | ExpandStep | TableStep


@dataclass
class Plan:
    question: str
    mode: Mode
    sutta_ids: list[str] = field(default_factory=list)  # named in the question, canonical
    aliases: dict[str, str] = field(default_factory=dict)  # nickname as written -> sutta ID
    collection: str | None = None
    follow_up: FollowUp | None = None
    search_query: str = ""
    steps: list[PlannedStep] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)  # a follow-up's suttas, from the conversation (resolve.py)

    def hints(self) -> str:
        """One compact line for the model: what the plan found, so it need not rediscover it."""
        parts = []
        if self.sutta_ids:
            parts.append("suttas named: " + ", ".join(self.sutta_ids))
        if self.aliases:
            parts.append("nicknames: " + ", ".join(f"{a} = {s}" for a, s in self.aliases.items()))
        if self.collection:
            parts.append(f"collection: {self.collection}")
        if self.scope:
            parts.append("continues the previous question, about " + ", ".join(self.scope))
        elif self.follow_up:
            parts.append("continues the previous question")
        return f"(Notes: {'; '.join(parts)}.)" if parts else ""


def choose_mode(question: str, requested: str = "auto") -> Mode:
    if requested == "qa":
        return "qa"
    if requested == "notes":
        return "notes"
    return "notes" if _NOTES.search(fold(question)) else "qa"


def collection_hint(collections: list[str]) -> str | None:
    """One collection named in words restricts the search to it; with two ("the Long and the Middle Discourses")
    the retriever only leans towards both, so nothing is restricted here."""
    return collections[0] if len(collections) == 1 else None


def _follow_up_kind(folded: str, previous: PreviousTurn | None, has_own_subject: bool) -> FollowUp | None:
    if previous is None:
        return None
    if _NEXT.search(folded) and previous.cited_refs:
        return "next"
    if _BEFORE.search(folded) and previous.cited_refs:
        return "before"
    if _SAME.search(folded) and not has_own_subject:
        return "same"
    # Short questions leaning on a pronoun ("why does he say that?") only make sense with the previous turn.
    if not has_own_subject and len(_WORD.findall(folded)) <= 9 and _ANAPHORA.search(folded):
        return "more"
    return None


def _content_words(text: str) -> int:
    from indexing.text import tokenize

    return len(tokenize(text))


def _parallels_step(previous: PreviousTurn) -> list[LookupStep]:
    """"Is this passage in the Long Discourses too?": SuttaCentral's table of parallels of the text the previous
    answer cited says so with authority, beside the search in that collection."""
    ref = parse_reference(previous.cited_refs[0]) if previous.cited_refs else None
    if ref is None:
        return []
    sutta = NamedSutta(ref.sutta_id, previous.cited_refs[0], "reference", None)
    return [LookupStep(sutta, "parallels", f"SuttaCentral's table may list parallels of {ref.sutta_id} there.")]


def make_plan(
    analysis: QueryAnalysis,
    *,
    mode: str = "auto",
    previous: PreviousTurn | None = None,
) -> Plan:
    question = analysis.text
    plan = Plan(question=question, mode=choose_mode(question, mode))
    folded = fold(question)
    referenced = analysis.named_by("reference")
    named_aliases = analysis.named_by("alias")
    plan.sutta_ids = [n.sutta_id for n in referenced]
    plan.aliases = {n.written: n.sutta_id for n in named_aliases}
    plan.collection = collection_hint(analysis.collections) if not plan.sutta_ids else None

    # What the question is about once IDs, nicknames and book names are taken out.
    topic = analysis.topic
    has_subject = bool(plan.sutta_ids or plan.aliases) or _content_words(
        _ANAPHORA.sub(" ", without_book_names(folded))
    ) > 3
    plan.follow_up = _follow_up_kind(folded, previous, has_subject)
    plan.steps.extend(_table_steps(analysis, previous))

    if plan.follow_up in ("next", "before") and previous is not None:
        after = plan.follow_up == "next"
        ref = _reading_edge(previous.cited_refs, after=after)
        reach = 1 if _ONE_UNIT.search(folded) else 2
        plan.steps.append(ExpandStep(
            ref, before=0 if after else reach, after=reach if after else 0,
            thought=f"The question continues from {ref}; I need the text {'after' if after else 'before'} it.",
        ))
        plan.search_query = previous.search_query
        return plan

    if plan.follow_up in ("same", "more") and previous is not None:
        plan.search_query = previous.search_query or previous.question
        if plan.follow_up == "more":
            plan.search_query = f"{plan.search_query} {topic}".strip()
        where = f" in {plan.collection}" if plan.collection else ""
        plan.steps.append(SearchStep(
            plan.search_query, plan.collection,
            f"The question continues the previous one; I need passages on the same subject{where}.",
        ))
        if plan.follow_up == "same" and (plan.collection or analysis.basket_explicit or asks_for_parallels(question)):
            plan.steps.extend(_parallels_step(previous))
        return plan

    named = referenced + [n for n in named_aliases if n.sutta_id not in plan.sutta_ids]
    plan.search_query = topic or question
    for sutta in named[:2]:
        plan.steps.append(LookupStep(sutta, _lookup_words(topic, sutta),
                                     f"The question names {sutta.sutta_id}; I need its passages."))
    if not named:
        plan.steps.append(SearchStep(plan.search_query, plan.collection, "I need passages about this question."))
    return plan


def _table_steps(analysis: QueryAnalysis, previous: PreviousTurn | None) -> list[TableStep]:
    """A question about the library itself (parallels, translations, a Vinaya rule) asks one of its tables first
    (chat/pipeline/tables.py); the usual retrieval stays planned after it for when the table cannot answer."""
    step = table_step(analysis, previous)
    return [step] if step is not None else []


def _reading_edge(refs: list[str], *, after: bool) -> str:
    """Where "what comes next?" reads on from: the furthest line the answer's main text was cited to (the quoted key
    lines often reach past the sentence that cites one of them), or for "before" its earliest line. The main text
    is the one cited first: an answer opens with the lines of the text that answers it, and the texts its
    sentences cite after that ("the same in Dhp 185") are asides, not where the reader is."""
    from indexing.vocabulary import segment_key
    from tools.references import parse_ref

    anchor = refs[0]
    sutta = parse_ref(anchor).sutta_id
    best, best_key = anchor, None
    for ref in refs:
        parsed = parse_ref(ref)
        if not parsed.ok or parsed.sutta_id != sutta or not parsed.seg_start:
            continue
        key = segment_key((parsed.seg_end or parsed.seg_start) if after else parsed.seg_start)
        if best_key is None or (key > best_key if after else key < best_key):
            best, best_key = ref, key
    return best


def _lookup_words(topic: str, sutta: NamedSutta) -> str:
    """What to find inside a named sutta: the question's topic, or, when naming it was all the question did ("What
    is the simile of the poisoned arrow?"), the nickname itself: a nickname names the text's best-known passage."""
    from tools.search.windows import question_words

    if question_words(topic) or sutta.source != "alias":
        return topic
    return f"{topic} {sutta.written}".strip()

