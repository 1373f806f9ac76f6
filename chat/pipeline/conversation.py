"""Conversation understanding: a question read against the conversation's turns, and the plan that follows.

Deterministic, before any retrieval or LLM call. A 1.5B model spends most of its time budget reading, so the plan
does what needs no judgement: from the question's analysis (tools/search/query.py: the suttas it names by ID or
nickname, collection hints such as "in the Majjhima", its topic) it names the one retrieval most questions need,
which the Scholar runs up front so the model usually answers in a single step.

A question leans on the conversation when it asks to read on ("what comes right after that?", "before that"),
asks for the last subject elsewhere ("the same in the Long Discourses"), points back (a pronoun or "that
discourse": "To whom was it taught?"), is elliptical ("And what do those in turn fulfil?"), or has no subject of its
own ("Who was listening?"); it opens a new subject when the reader says so ("Different topic: …", "New question:
…"), when it names a sutta (by ID or title) or has words of its own and points back at nothing. What it leans on
is the last *answered* turn: a declined or failed turn gives no scope, so a question after it is taken on its own.

A follow-up that points back is answered within that turn's suttas first: each is read for the lines that answer
the question (its opening too when the question asks who, to whom or where — the setting names the listeners).
When the question brings words of its own that those suttas do not hold ("What does it say about a raft?"), a
search of the whole library runs beside, with those suttas first, adding at most SEARCH_BESIDE lines of other
texts: shown other texts' lines for no reason, a small model cites them. The lines the answer speaks from are then
the suttas' in scope whenever one of them holds one of the question's main words (chat/pipeline/select.py); the
other texts' lines answer only when none does. A new subject is planned as a first question: nothing is carried
over.

The follow-up grammar (which words read on, point back, or ask for the same elsewhere) is the [patterns] table of
indexing/data/english.toml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from chat.pipeline.plan import ExpandStep, FollowUp, LookupStep, Mode, Plan, PreviousTurn, SearchStep
from chat.pipeline.tables import TableStep, table_step
from indexing.vocabulary import COLLECTIONS
from tools.language.words import fold, pattern, tokenize, word_list, word_set
from tools.references import asks_for_parallels, parse_ref, parse_reference, without_book_names
from tools.search.query import NamedSutta, QueryAnalysis, doc_of, named_sutta
from tools.search.windows import question_words
from tools.verification.claim_checks import names

__all__ = ["Resolution", "asks_elsewhere", "choose_mode", "collection_hint", "follow_up_kind",
           "leans_on_conversation", "make_plan", "new_subject_cue", "parallel_plan", "people_in", "resolve",
           "scoped_plan", "spoken_of", "subject_of"]

Kind = Literal["first", "new", "follow_up"]

SCOPE_SUTTAS = 2  # a follow-up reads at most this many of the conversation's suttas
SEARCH_BESIDE = 2  # evidence items the global search beside a scoped lookup may add
# passages a scoped lookup shows: a follow-up asks one narrower thing of a text the reader has already been shown,
# and each passage is ~100 prompt tokens (a second) that its recap has already spent
FOLLOW_UP_WINDOWS = 3
SHORT = 1  # a question with at most this many words of its own has no subject of its own
COMMON_SHARE = 0.05  # of the library's passages: a word this common is no sign that a follow-up moved on
COMMON_FROM = 1000  # passages: over fewer (a test's tiny index) a word's share says nothing of how common it is

# ---- the follow-up grammar ----------------------------------------------------------------------------------
_NOTES = pattern("notes")
_NEXT = pattern("next")
_ONE_UNIT = pattern("one_unit")
_BEFORE = pattern("before")
_SAME = pattern("same")
_ANAPHORA = pattern("anaphora")
_POINTER = pattern("pointer")
_SUBJECT_PRONOUNS = word_set("subject_pronouns")
_CLAUSE_START = re.compile(r"\b(?:" + "|".join(sorted(word_set("clause_openers") | word_set("relative_pronouns")))
                           + r")\b")
_DEMONSTRATIVE = pattern("demonstrative")
_NOT_POINTERS = pattern("not_pointers")
_ELLIPSIS = pattern("ellipsis")
_NEW_SUBJECT = pattern("new_subject")
_PARALLEL = pattern("parallel")
_COLLECTION_NAMES = re.compile(r"\b(?:" + "|".join(h for c in COLLECTIONS.values() for h in c.hints) + r")\b")
_SETTING = pattern("setting")
_THIRD_PERSON = pattern("third_person")
_PERSON = pattern("person")
_WORD = re.compile(r"[A-Za-zĀ-ɏḀ-ỿ]+")
_PARALLEL_FILLER = frozenset(question_words(" ".join(word_list("parallel_filler"))))
# Verbs and nouns that frame a question about a text rather than name what it is about.
_FRAMING = frozenset(question_words(" ".join(word_list("question_framing"))))


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
    named_at = [plain.find(key) for key in names(question)]
    for m in _POINTER.finditer(plain):
        # "Who was Angulimala's teacher before he met the Buddha?": a subject pronoun after a person the question
        # itself names is that person, not someone of the conversation's ("What did Sāriputta say to him?" still
        # points back: an object is someone else)
        before = [at for at in named_at if 0 <= at < m.start()]
        if m.group(0) in _SUBJECT_PRONOUNS and before:
            continue
        # "What did the nun Subhā give to the man who harassed her?": a pronoun in a clause that opens after the
        # person named is bound by that person (a pronoun is not bound within its own clause, "Sāriputta … him")
        if _THIRD_PERSON.fullmatch(m.group(0)) and any(_CLAUSE_START.search(plain, at, m.start()) for at in before):
            continue
        return f"it points back ({m.group(0)!r})"
    own = _own_words(question)
    if _ELLIPSIS.search(folded) and len(own) <= 3:
        return "it continues the previous question (ellipsis)"
    if len(own) <= SHORT and not named_at:  # "Who was Aṅgulimāla?": a person named is a subject of its own
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
                          follow_up="same", people=anchor.people), with_table_first(
            parallel_plan(library, analysis, anchor, mode), analysis, anchor)
    kind = follow_up_kind(analysis, anchor)
    if kind in ("next", "before", "same"):
        reason = {"next": "it asks what comes after the passage the answer quoted",
                  "before": "it asks what comes before the passage the answer quoted",
                  "same": "it asks whether other texts say the same"}[kind]
        continued = _continuation(_plan_of(analysis, mode, kind), analysis, anchor)
        continued.scope = scope if kind != "same" else []
        if kind == "same":  # "does it have a parallel in the Āgamas?": the table of the text under discussion first
            continued = with_table_first(continued, analysis, anchor)
        return Resolution("follow_up", reason, scope=continued.scope, continues=anchor.question,
                          follow_up=kind, people=anchor.people), continued

    why = leans_on_conversation(analysis.text)
    if why is None or not scope:
        plan = make_plan(analysis, mode=mode)
        return Resolution("new", "it has a subject of its own and points back at nothing"
                          if why is None else "the earlier answer cited no sutta to read on in"), plan
    resolution = Resolution("follow_up", why, scope=scope, continues=anchor.question, follow_up="scoped",
                            people=anchor.people)
    return resolution, with_table_first(scoped_plan(library, analysis, anchor, resolution, mode), analysis, anchor)


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
    return [w for w in words if w not in _FRAMING and w not in have and not _common(library, w)]


def _common(library, word: str) -> bool:
    """A word of more than COMMON_SHARE of the library's passages ("made", "rule", "teach") names no subject: "Why
    was it made?", after a rule, asks about that rule; searched for beside it, "made" found SN 12.67's "is rebirth
    made by oneself?", which then answered."""
    if library.bm25 is None:
        return False
    df, n = library.bm25.document_frequency(word)
    return n >= COMMON_FROM and df / n > COMMON_SHARE


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


def spoken_of(sentences) -> tuple[list[str], str]:
    """The suttas an answer's own checked sentences cite, first cited first, and the answer's words (its own and
    the lines it quotes) that cite them: what the answer was about, as against a text it only quoted beside them
    (Bi Pc 28's acrobats beside the acrobat of SN 47.19, which no sentence of the answer spoke of). An answer
    without sentences of its own gives ([], "")."""
    def suttas(refs: list[str]) -> list[str]:
        return [s for r in refs if (s := parse_ref(r).sutta_id)]

    spoken = list(dict.fromkeys(s for x in sentences if x.origin == "model" for s in suttas(x.citations)))
    words = " ".join(x.text for x in sentences if set(suttas(x.citations)) & set(spoken))
    return spoken, words


def people_in(text: str) -> list[str]:
    """People an answer names with a title ("Venerable Māluṅkyaputta", "King Yama"): whom "he" and "she" mean."""
    return list(dict.fromkeys(m.group(1) for m in _PERSON.finditer(text)))[:3]


def _own_words(question: str) -> list[str]:
    """The question's words that say what it is about: not question words, pronouns or the sutta's name."""
    plain = _NOT_POINTERS.sub(" ", fold(question))
    return [w for w in question_words(_POINTER.sub(" ", plain)) if w not in ("that", "this")]


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


def follow_up_kind(analysis: QueryAnalysis, previous: PreviousTurn | None) -> FollowUp | None:
    """How the question continues the previous turn: reads on after or before the passage it quoted, asks the same
    elsewhere, or says more about it (a short question leaning on a pronoun); None: it does not."""
    if previous is None:
        return None
    folded = fold(analysis.text)
    # What the question is about once IDs, nicknames and book names are taken out.
    has_own_subject = bool(analysis.named_by("reference") or analysis.named_by("alias")) or _content_words(
        _ANAPHORA.sub(" ", without_book_names(folded))
    ) > 3
    if _NEXT.search(folded) and previous.cited_refs:
        return "next"
    if _BEFORE.search(folded) and previous.cited_refs:
        return "before"
    if _SAME.search(folded) and not has_own_subject and not _brings_a_subject(folded, previous):
        return "same"
    # Short questions leaning on a pronoun ("why does he say that?") only make sense with the previous turn.
    if not has_own_subject and len(_WORD.findall(folded)) <= 9 and _ANAPHORA.search(folded):
        return "more"
    return None


def _brings_a_subject(folded: str, previous: PreviousTurn) -> bool:
    """Whether a question with a word of "the same elsewhere" ("compare", "too") still brings a subject of its own:
    two words besides that cue, the book names and the fillers of such follow-ups, that the last turn's question
    never used. "Where does the Buddha compare anger to a saw?" asks about anger and a saw, not whether other texts
    say what the last answer said; "Does the Long Discourses have the same instruction?" brings nothing new."""
    rest = _COLLECTION_NAMES.sub(" ", _SAME.sub(" ", without_book_names(folded)))
    before = set(question_words(f"{previous.question} {previous.search_query or ''}"))
    new = [w for w in question_words(_POINTER.sub(" ", rest))
           if w not in before and w not in _PARALLEL_FILLER and w not in _FRAMING]
    return len(new) >= 2


def _content_words(text: str) -> int:
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
    """The plan of a question read on its own, or with `previous` as a continuation of that turn when it is one."""
    plan = _plan_of(analysis, mode, follow_up_kind(analysis, previous))
    plan.steps.extend(_table_steps(analysis, previous))
    if plan.follow_up and previous is not None:
        return _continuation(plan, analysis, previous)
    return _first_question(plan, analysis)


def _table_steps(analysis: QueryAnalysis, previous: PreviousTurn | None) -> list[TableStep]:
    """A question about the library itself (parallels, translations, a Vinaya rule) asks one of its tables first
    (chat/pipeline/tables.py); the usual retrieval stays planned after it for when the table cannot answer."""
    step = table_step(analysis, previous)
    return [step] if step is not None else []


def with_table_first(plan: Plan, analysis: QueryAnalysis, anchor: PreviousTurn) -> Plan:
    """"Does this sutta have parallels in the Chinese Āgamas?": SuttaCentral's table of the text under discussion
    answers first (chat/pipeline/tables.py), the search for the same words elsewhere after it."""
    plan.steps[:0] = _table_steps(analysis, anchor)
    return plan


def _plan_of(analysis: QueryAnalysis, mode: str, follow_up: FollowUp | None) -> Plan:
    """A plan without steps: the mode, the suttas named, the collection asked for."""
    plan = Plan(question=analysis.text, mode=choose_mode(analysis.text, mode), follow_up=follow_up)
    plan.sutta_ids = [n.sutta_id for n in analysis.named_by("reference")]
    plan.aliases = {n.written: n.sutta_id for n in analysis.named_by("alias")}
    plan.collection = collection_hint(analysis.collections) if not plan.sutta_ids else None
    return plan


def _first_question(plan: Plan, analysis: QueryAnalysis) -> Plan:
    """A lookup of each sutta the question names (two at most), else a search on its topic."""
    topic = analysis.topic
    referenced = analysis.named_by("reference")
    named = referenced + [n for n in analysis.named_by("alias") if n.sutta_id not in plan.sutta_ids]
    plan.search_query = topic or plan.question
    # asked who, to whom or where ("Where was the Buddha staying when he taught …?"), the text's opening competes
    # with its other lines, as in a follow-up: it is where the texts say so
    setting = bool(_SETTING.search(fold(plan.question)))
    for sutta in named[:2]:
        plan.steps.append(LookupStep(sutta, _lookup_words(topic, sutta),
                                     f"The question names {sutta.sutta_id}; I need its passages.", setting=setting))
    if not named:
        plan.steps.append(SearchStep(plan.search_query, plan.collection, "I need passages about this question."))
    return plan


def _continuation(plan: Plan, analysis: QueryAnalysis, previous: PreviousTurn) -> Plan:
    """Read on after or before the passage the previous answer quoted, or search its subject again (the same
    elsewhere, with SuttaCentral's parallels when asked; or more of it, with the question's topic)."""
    folded = fold(plan.question)
    if plan.follow_up in ("next", "before"):
        after = plan.follow_up == "next"
        ref = _reading_edge(previous.cited_refs, after=after)
        reach = 1 if _ONE_UNIT.search(folded) else 2
        plan.steps.append(ExpandStep(
            ref, before=0 if after else reach, after=reach if after else 0,
            thought=f"The question continues from {ref}; I need the text {'after' if after else 'before'} it.",
        ))
        plan.search_query = previous.search_query
        return plan
    plan.search_query = previous.search_query or previous.question
    if plan.follow_up == "more":
        plan.search_query = f"{plan.search_query} {analysis.topic}".strip()
    where = f" in {plan.collection}" if plan.collection else ""
    plan.steps.append(SearchStep(
        plan.search_query, plan.collection,
        f"The question continues the previous one; I need passages on the same subject{where}.",
    ))
    if plan.follow_up == "same" and (plan.collection or analysis.basket_explicit
                                     or asks_for_parallels(plan.question)):
        plan.steps.extend(_parallels_step(previous))
    return plan


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
