"""Questions about the library itself, planned and answered from its tables: a text's parallels (SuttaCentral's
table), its translations side by side, the Vinaya rule on a topic.

The planner adds one `TableStep` before the usual retrieval when a question is of one of these kinds; the Scholar
runs it first, and when the table answers (`ToolResult.table`), that answer is the reader's, cited to the lines it
quotes, without asking the model: its sentences are the table's facts in plain words, which a 1.5B model would
only risk garbling, typed by the tool that wrote them (tools/texts/table_text.py). When the table cannot answer
(no such text, no rule on the topic), the turn goes on as any other, with the step's result among the evidence
the model reads.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from chat.pipeline.plan import TableStep
from tools.language.words import fold
from tools.references import book_named, ordinal_reference
from tools.texts.parallels import foreign_ids, scope_of
from tools.texts.rules import asks_for_rule
from tools.texts.side_by_side import asks_about_translations, asks_for_translations, translators_named

if TYPE_CHECKING:
    from chat.pipeline.answer import Answer, AnswerSentence
    from chat.pipeline.plan import PreviousTurn
    from tools.function_tools import ToolResult
    from tools.search.query import QueryAnalysis
    from tools.texts.table_text import TableText


# a question for SuttaCentral's table itself: its parallels, counterparts, other traditions' versions. "Does the
# Long Discourses have the same teaching?" is not one: the passage is found by searching that collection.
_TABLE_OF_PARALLELS = re.compile(r"\b(?:parallels?|paralleled|counterparts?|correspond\w*|equivalents?|"
                                 r"other versions?|where else|chinese|sanskrit|tibetan|gandhari|agamas?)\b")


def asks_for_table_of_parallels(question: str) -> bool:
    return bool(_TABLE_OF_PARALLELS.search(fold(question)))


def table_step(analysis: QueryAnalysis, previous: PreviousTurn | None = None) -> TableStep | None:
    """The table a question asks about, or None. The text is the one the question names (by ID, name or place:
    "the first verse of the Dhammapada"), else, for "does this sutta have parallels?", the previous turn's."""
    question = analysis.text
    named = [n for n in (*analysis.named_by("reference"), *analysis.named_by("alias")) if n.error is None]
    sutta = named[0].sutta_id if named else ordinal_reference(question)
    if sutta is None and analysis.pinned_docs:
        sutta = _pinned_text(analysis.pinned_docs, question)
    if sutta is None and asks_for_table_of_parallels(question) and (foreign := foreign_ids(question)):
        sutta = foreign[0]  # "What parallels MA 106?": a text known here by its SuttaCentral ID only
    if sutta is None and (book := book_named(question)) is not None and asks_about_translations(question):
        # "Are there other translations of the Therigatha?": the book, not one text of it nor the last turn's
        return TableStep("compare_translations", {"sutta_id": book.display},
                         f"The question asks which translations of the {book.label} the library holds.")
    if sutta is None and previous is not None:
        sutta = next(iter(previous.subject_suttas or previous.cited_suttas), None)
    if sutta and asks_for_translations(question):
        known, unknown = translators_named(question)
        return TableStep("compare_translations", {"sutta_id": sutta, "translators": ", ".join([*known, *unknown])},
                         f"The question compares translations of {sutta}; the library holds them side by side.")
    if sutta and asks_for_table_of_parallels(question):
        scope = scope_of(question)
        return TableStep("find_parallels", {"sutta_id": sutta, **({"within": scope.label} if scope else {})},
                         f"The question asks for parallels of {sutta}; SuttaCentral's table lists them.")
    if not named and asks_for_rule(question):
        return TableStep("find_rule", {"topic": question},
                         "The question asks what the Vinaya's rules say; its rules are indexed by topic.")
    return None


def _pinned_text(doc_ids: list[str], question: str) -> str | None:
    """A title several texts share ("The Discourse on Love": Snp 1.8 and Kp 9) names no one text, but a question
    that also names the book ("besides the Sutta Nipāta") is about the one in that book; else the first."""
    from indexing.vocabulary import BOOKS, parse_uid

    folded = fold(question)
    texts = [(p.sutta_id, BOOKS.get(p.book)) for d in doc_ids if (p := parse_uid(d.partition("@")[0])) is not None]
    for sutta_id, book in texts:
        if book is not None and any(name in folded for name in (*book.names, fold(book.pali))):
            return sutta_id
    return texts[0][0] if texts else None


def table_answer(library, question: str, result: ToolResult, fields: dict[str, Any]) -> Answer:
    """The table's answer as the reader's, cited to the lines it quotes."""
    from chat.pipeline.answer import Answer
    from chat.pipeline.checks import window_citations
    from chat.pipeline.followups import fallback_followups

    assert result.table is not None
    citations = window_citations(library.docstore, [w for _, w in result.evidence])
    # a table with nothing to show ("the table lists no text MA 999") declines: it states no fact of a text
    status: Literal["answered", "abstained"] = "answered" if citations else "abstained"
    return Answer(answer=result.table.text, sentences=answer_sentences(result.table) if citations else [],
                  status=status, citations=citations, confidence=1.0, error=None,
                  follow_ups=fallback_followups(question, citations), **fields)


def answer_sentences(table: TableText) -> list[AnswerSentence]:
    """A table's answer typed like any answer's: its statements of the table's facts are its own ("model"), the
    texts' words it quotes are theirs ("quote"), as the table tool typed them when it wrote them."""
    from chat.pipeline.answer import AnswerSentence

    return [AnswerSentence(text=s.text, origin=s.origin, citations=list(s.refs)) for s in table.sentences]
