"""Follow-up resolution: does a question lean on the conversation, or open a new subject?

Deterministic, before any retrieval. A question leans on the conversation when it points back (a pronoun or "that
discourse": "To whom was it taught?"), is elliptical ("And what do those in turn fulfil?"), or has no subject of its
own ("Who was listening?"); it opens a new subject when the reader says so ("Different topic: …", "New question:
…"), when it names a sutta (by ID or title) or has words of its own and points back at nothing. What it leans on
is the last *answered* turn: a declined or failed turn gives no scope, so a question after it is taken on its own.

A follow-up is answered within that turn's suttas first: each is read for the lines that answer the question (its
opening too when the question asks who, to whom or where — the setting names the listeners). When the question
brings words of its own that those suttas do not hold ("What does it say about a raft?"), a search of the whole
library runs beside, with those suttas first, adding at most SEARCH_BESIDE lines of other texts: shown other texts'
lines for no reason, a small model cites them. "What comes next?", "before that"
and "the same in the Long Discourses" keep the planner's own continuations (chat/pipeline/planner.py). A new
subject is planned as a first question: nothing is carried over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from chat.pipeline.planner import LookupStep, Plan, PreviousTurn, SearchStep, choose_mode, collection_hint, make_plan
from indexing.text import fold
from indexing.vocabulary import COLLECTIONS
from tools.query import QueryAnalysis, doc_of, named_sutta
from tools.references import without_book_names
from tools.windows import question_words

Kind = Literal["first", "new", "follow_up"]

SCOPE_SUTTAS = 2  # a follow-up reads at most this many of the conversation's suttas
SEARCH_BESIDE = 2  # evidence items the global search beside a scoped lookup may add
# passages a scoped lookup shows: a follow-up asks one narrower thing of a text the reader has already been shown,
# and each passage is ~100 prompt tokens (a second) that its recap has already spent
FOLLOW_UP_WINDOWS = 3
SHORT = 1  # a question with at most this many words of its own has no subject of its own

_POINTER = re.compile(r"\b(it|its|he|him|his|she|her|they|them|their|those|these|there)\b")
_DEMONSTRATIVE = re.compile(
    r"\b(?:this|that|these|those|the same)\s+(?:discourse|sutta|text|teaching|verse|simile|story|passage|"
    r"instruction|list|image|person|man|woman|mendicant|monk|nun|king|brahmin|one|ones|place|time)\b"
    r"|\b(?:about|by|with|in|on|of|from|for|like|mean|means|meant|say|says|said)\s+(?:this|that)\b"
    r"|\b(?:this|that)\s*\??$"
)
# Words that look like pointers but point at nothing in the conversation.
_NOT_POINTERS = re.compile(
    r"\b(?:these|those|the)\s+(?:texts|suttas|discourses|scriptures|teachings|books|collections|canon)\b"
    r"|\b(?:is|are|was|were|do|does|did)\s+there\b|\bthere\s+(?:is|are|was|were)\b"
)
# The reader says a new subject starts: "Different topic: …", "New question — …", "Unrelated: …", "On another note, …".
_NEW_SUBJECT = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|now|and|so|right|well)[\s,]+)?"
    r"(?P<cue>(?:(?:on|with|to|for)\s+)?(?:an?\s+|one\s+more\s+)?"
    r"(?:different|new|separate|unrelated|other|another|fresh)\s+(?:topic|subject|question|matter|thing|note)s?"
    r"|unrelated(?:\s+question)?|change\s+of\s+(?:topic|subject)|chang(?:e|ing)\s+(?:the\s+)?(?:topic|subject)"
    r"|something\s+(?:else|different))"
    r"\s*(?:[:;,.!?—–-]|now\b)"
)
_ELLIPSIS = re.compile(r"^(?:and|but|so|then|also|what about|how about|why not|how so|in what way)\b")
# "Does the Long Discourses have the same instruction?", "Is it also in the Majjhima?": the last subject, elsewhere.
_PARALLEL = re.compile(r"\b(?:the same|same (?:thing|instruction|teaching|passage|simile|idea|list|words)|say so too|"
                       r"also|as well|too|likewise|parallels?|elsewhere|similar(?:ly)?)\b")
_COLLECTION_NAMES = re.compile(r"\b(?:" + "|".join(h for c in COLLECTIONS.values() for h in c.hints) + r")\b")
_PARALLEL_FILLER = frozenset(question_words("same thing instruction teaching passage simile idea list words also well "
                                            "too likewise parallel parallels elsewhere similar similarly have contain "
                                            "collection"))
# Verbs and nouns that frame a question about a text rather than name what it is about.
_FRAMING = frozenset(question_words("ask asked asks question questions want wanted answer answered define defines "
                                    "defined happen happened mean meant call called name named lead led right wrong "
                                    "turn say said reply replied respond responded end ending begin beginning happen"))
_SETTING = re.compile(r"\b(?:who|whom|whose|where)\b")
_THIRD_PERSON = re.compile(r"\b(?:he|him|his|she|her)\b")
_PERSON = re.compile(
    r"\b(?:Venerable|King|Queen|Prince|Princess|Master|Lord|brahmin|householder|wanderer|ascetic|nun|"
    r"lay follower|goddess|deity|god|apprentice|teacher)\s+((?:[A-Z][\w’'-]+)(?:\s+[A-Z][\w’'-]+)?)"
)


@dataclass
class Resolution:
    """How a question was read against the conversation; the answer's trace shows it."""

    kind: Kind
    reason: str
    scope: list[str] = field(default_factory=list)  # the suttas a follow-up is answered within, first
    continues: str | None = None  # the question of the answered turn it leans on
    follow_up: str | None = None  # scoped, next, before, same
    people: list[str] = field(default_factory=list)  # named in that turn, for "he" and "she"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "reason": self.reason, "scope": self.scope, "continues": self.continues,
                "follow_up": self.follow_up, "people": self.people}

    def summary(self) -> str:
        head = {"first": "First question", "new": "New subject", "follow_up": "Follow-up"}[self.kind]
        scope = f"; scope: {', '.join(self.scope)}" if self.scope else ""
        return f"{head}: {self.reason}{scope}"


def new_subject_cue(question: str) -> str | None:
    """The words with which the reader says the question opens a new subject, or None."""
    m = _NEW_SUBJECT.match(fold(question))
    return m.group("cue").strip() if m else None


def leans_on_conversation(question: str) -> str | None:
    """Why the question points back at the conversation, or None when it stands on its own words."""
    folded = fold(question).strip()
    plain = _NOT_POINTERS.sub(" ", folded)
    if m := _DEMONSTRATIVE.search(plain):
        return f"it points back ({m.group(0).strip(' ?')!r})"
    if m := _POINTER.search(plain):
        return f"it points back ({m.group(0)!r})"
    own = _own_words(question)
    if _ELLIPSIS.search(folded) and len(own) <= 3:
        return "it continues the previous question (ellipsis)"
    if len(own) <= SHORT:
        return "it has no subject of its own"
    return None


def resolve(library, analysis: QueryAnalysis, turns: list[PreviousTurn], *, mode: str = "auto"
            ) -> tuple[Resolution, Plan]:
    """The resolution of `analysis` (the question) against the conversation's `turns` (oldest first), and the plan
    that follows from it."""
    anchor = next((t for t in reversed(turns) if t.answered), None)
    if anchor is None:
        plan = make_plan(analysis, mode=mode)
        if not turns:
            return Resolution("first", "no earlier turn in this conversation"), plan
        return Resolution("new", "no earlier turn was answered, so the question is taken on its own"), plan

    if cue := new_subject_cue(analysis.text):
        return Resolution("new", f"it says so ({cue!r})"), make_plan(analysis, mode=mode)

    named = [n.sutta_id for n in analysis.named]
    if named:
        plan = make_plan(analysis, mode=mode)
        return Resolution("new", f"it names {', '.join(dict.fromkeys(named))}"), plan

    scope = (anchor.subject_suttas or anchor.cited_suttas)[:SCOPE_SUTTAS]
    if asks_elsewhere(analysis.text):
        return Resolution("follow_up", "it asks whether other texts say the same", continues=anchor.question,
                          follow_up="same", people=anchor.people), parallel_plan(library, analysis, anchor, mode)
    continued = make_plan(analysis, mode=mode, previous=anchor)
    if continued.follow_up in ("next", "before", "same"):
        reason = {"next": "it asks what comes after the passage the answer quoted",
                  "before": "it asks what comes before the passage the answer quoted",
                  "same": "it asks whether other texts say the same"}[continued.follow_up]
        continued.scope = scope if continued.follow_up != "same" else []
        return Resolution("follow_up", reason, scope=continued.scope, continues=anchor.question,
                          follow_up=continued.follow_up, people=anchor.people), continued

    why = leans_on_conversation(analysis.text)
    if why is None or not scope:
        plan = make_plan(analysis, mode=mode)
        return Resolution("new", "it has a subject of its own and points back at nothing"
                          if why is None else "the earlier answer cited no sutta to read on in"), plan
    resolution = Resolution("follow_up", why, scope=scope, continues=anchor.question, follow_up="scoped",
                            people=anchor.people)
    return resolution, scoped_plan(library, analysis, anchor, resolution, mode)


def scoped_plan(library, analysis: QueryAnalysis, anchor: PreviousTurn, resolution: Resolution,
                mode: str) -> Plan:
    """Read the conversation's suttas for the question's lines (their openings too for who/whom/where), and the
    whole library beside them when the question brings words they lack."""
    question = analysis.text
    folded = fold(question)
    query = question
    if resolution.people and _THIRD_PERSON.search(folded) and not _own_words(question):
        # "What did he say?": "he" is the one the last answer named, and the name is all there is to look for; a
        # question with words of its own ("Which questions did he want answered?") looks for those, since the
        # lines that name him are seldom the ones that answer it
        query = f"{question} {resolution.people[0]}"
    setting = bool(_SETTING.search(folded))
    plan = Plan(question=question, mode=choose_mode(question, mode), follow_up="more",
                collection=collection_hint(analysis.collections), scope=list(resolution.scope),
                search_query=anchor.search_query or anchor.question)
    for sutta_id in resolution.scope:
        plan.steps.append(LookupStep(
            named_sutta(library, sutta_id), query,
            f"The question continues the conversation about {sutta_id}; I need its lines that answer it.",
            setting=setting, summary=False, windows=FOLLOW_UP_WINDOWS,
        ))
    new_words = _outside(library, resolution.scope, _own_words(question))
    if new_words:
        resolution.reason += f"; the whole library is searched too, for {', '.join(new_words)!s}"
        plan.steps.append(SearchStep(
            analysis.topic or question, plan.collection,
            "Other texts may answer it too; I search the whole library on the question's own words.",
            windows=SEARCH_BESIDE,
            prefer=[d for step in plan.steps if isinstance(step, LookupStep) for d in step.sutta.doc_ids],
        ))
    return plan


def _outside(library, scope: list[str], words: list[str]) -> list[str]:
    """The question's words, other than the framing of a question, that none of the scope's suttas holds: a sign
    that it may have moved on ("What does it say about a raft?" after MN 63)."""
    have: set[str] = set()
    for sutta_id in scope:
        doc_id = doc_of(library, sutta_id)
        view = library.evidence.sutta(doc_id) if doc_id else None
        if view is not None:
            have |= view.tokens
    return [w for w in words if w not in _FRAMING and w not in have]


def asks_elsewhere(question: str) -> bool:
    """"Does the Long Discourses have the same instruction?": the last subject looked for elsewhere, with nothing
    new of its own to look for."""
    folded = fold(question)
    if not _PARALLEL.search(folded):
        return False
    rest = _COLLECTION_NAMES.sub(" ", without_book_names(folded))
    return not [w for w in _own_words(rest) if w not in _PARALLEL_FILLER]


def parallel_plan(library, analysis: QueryAnalysis, anchor: PreviousTurn, mode: str) -> Plan:
    """Search (the collection the question names, else everywhere) for the last turn's subject: its search and the
    titles of the suttas it was about, the words a parallel passage shares."""
    titles = [doc.title for sutta_id in (anchor.subject_suttas or anchor.cited_suttas)[:SCOPE_SUTTAS]
              if (doc_id := doc_of(library, sutta_id)) and (doc := library.docstore.document(doc_id))]
    query = " ".join(dict.fromkeys([anchor.search_query or anchor.question, *titles])).strip()
    collection = collection_hint(analysis.collections)
    where = f" in {collection}" if collection else " elsewhere"
    return Plan(question=analysis.text, mode=choose_mode(analysis.text, mode), collection=collection,
                follow_up="same", search_query=query,
                steps=[SearchStep(query, collection, f"The question asks for the previous subject{where}; I search "
                                                     "for it there.")])


def subject_of(plan: Plan, cited_suttas: list[str]) -> list[str]:
    """What a turn was about, for the next follow-up: the suttas it named, else its scope when its answer stayed
    there, else the suttas its answer cited first."""
    named = list(dict.fromkeys([*plan.sutta_ids, *plan.aliases.values()]))
    if named:
        return named[:SCOPE_SUTTAS]
    if plan.scope and set(plan.scope) & set(cited_suttas):
        return plan.scope
    return list(dict.fromkeys(cited_suttas))[:SCOPE_SUTTAS]


def people_in(text: str) -> list[str]:
    """People an answer names with a title ("Venerable Māluṅkyaputta", "King Yama"): whom "he" and "she" mean."""
    return list(dict.fromkeys(m.group(1) for m in _PERSON.finditer(text)))[:3]


def _own_words(question: str) -> list[str]:
    """The question's words that say what it is about: not question words, pronouns or the sutta's name."""
    plain = _NOT_POINTERS.sub(" ", fold(question))
    return [w for w in question_words(_POINTER.sub(" ", plain)) if w not in ("that", "this")]
