"""The answer while it is being checked: ordered sentences, each with its text, citations, origin, status and the
reason for it.

The model's reply is parsed into a `Draft` once (`parse`); every check is a pass `Draft -> Draft` that marks
sentences removed or revised, drops or narrows their references, and never edits the answer's text as a string;
the reader's text is rendered from it once (`render`), and the answer's typed sentences (`Answer.sentences`) and
its list of what did not stand (`Answer.unsupported_claims`) come from the same object.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from tools.language.sentences import Sentence, final_stop, split_sentences
from tools.references import BRACKET, CitationRef, find_citations, looks_like_citation, parse_bracket, strip_citations


class Origin(StrEnum):
    MODEL = "model"  # the answer's own words
    QUOTE = "quote"  # a passage's own words, quoted


class Status(StrEnum):
    STANDS = "stands"
    REVISED = "revised"  # a checked sentence cut to what its passage holds, or repointed to the texts that hold it
    REMOVED = "removed"


class Reason(StrEnum):
    """Why a sentence was removed or revised. Form (decided without the passages) first, then the checks."""

    NONE = "none"
    CUT_OFF = "cut_off"
    QUESTION = "question"
    SLIP = "slip"
    STUB = "stub"
    REPEAT = "repeat"
    ECHO = "echo"
    ASIDE = "aside"
    FRAGMENT = "fragment"
    UNCITED = "uncited"
    BAD_CITATION = "bad_citation"
    NOT_IN_TEXT = "not_in_text"
    FOUND_ELSEWHERE = "found_elsewhere"
    NAME_DIFFERS = "name_differs"
    NUMBER_DIFFERS = "number_differs"
    NEGATED = "negated"
    REASON_UNSTATED = "reason_unstated"
    INSTRUCTION_UNSTATED = "instruction_unstated"
    VIEW_UNSTATED = "view_unstated"
    SPEAKER_DIFFERS = "speaker_differs"
    WORDS_GIVEN_TO_ANOTHER = "words_given_to_another"
    DOER_DIFFERS = "doer_differs"
    OTHER_SIDE = "other_side"
    LIKENED_APART = "likened_apart"
    IDENTITY_UNSTATED = "identity_unstated"
    MISQUOTED = "misquoted"
    REQUOTED = "requoted"
    JUDGED = "judged"
    POINTER_IDLE = "pointer_idle"
    PARTLY = "partly"


# What the reader is told about a sentence that did not stand: plain words, never the checks' own terms
EXPLANATIONS: dict[Reason, str] = {
    Reason.CUT_OFF: "The sentence was cut off before it ended.",
    Reason.QUESTION: "It asked a question instead of answering.",
    Reason.SLIP: "It held characters no passage uses, a slip of the model.",
    Reason.STUB: "It was too short to say anything.",
    Reason.REPEAT: "It repeated an earlier sentence.",
    Reason.ECHO: "It only gave your question back.",
    Reason.ASIDE: "It spoke of another text and not of your question.",
    Reason.FRAGMENT: "It was left unfinished.",
    Reason.UNCITED: "It cited no passage, so it could not be checked.",
    Reason.BAD_CITATION: "It cited a passage that does not exist or was not found for this question.",
    Reason.NOT_IN_TEXT: "The cited lines do not say this.",
    Reason.FOUND_ELSEWHERE: "The cited lines do not say this; another passage does.",
    Reason.NAME_DIFFERS: "The cited lines speak of someone or somewhere else.",
    Reason.NUMBER_DIFFERS: "The cited lines give a different number.",
    Reason.NEGATED: "The cited lines say the opposite.",
    Reason.REASON_UNSTATED: "It gives a reason the cited lines do not give.",
    Reason.INSTRUCTION_UNSTATED: "It gives as advice what the cited lines tell as something someone did.",
    Reason.VIEW_UNSTATED: "It gives someone a view the cited lines do not give as theirs.",
    Reason.SPEAKER_DIFFERS: "It makes what someone says in the text into a fact about them.",
    Reason.WORDS_GIVEN_TO_ANOTHER: "It gives someone words that the text gives to another.",
    Reason.DOER_DIFFERS: "The cited lines tell this of someone else.",
    Reason.OTHER_SIDE: "The cited lines say this of the other of two things the text sets side by side.",
    Reason.LIKENED_APART: "The text says this of only one of the two things it names.",
    Reason.IDENTITY_UNSTATED: "The text never says this of the person it names.",
    Reason.MISQUOTED: "Its quotation is not in the text's own words.",
    Reason.REQUOTED: "Its quotation left out words of the text; it now quotes them as the text has them.",
    Reason.JUDGED: "The cited lines do not bear out all of what it says.",
    Reason.POINTER_IDLE: "Some of the texts it pointed to do not say this.",
    Reason.PARTLY: "Only part of it is in the cited lines; the rest was taken out.",
}

# Reasons found by checking a sentence against its passages: each is listed for the reader
# (a quotation mended to the text's words is not: what the reader sees is then the text's words, and holds)
CHECKED = frozenset(set(Reason) - {Reason.NONE, Reason.CUT_OFF, Reason.QUESTION, Reason.SLIP, Reason.STUB,
                                   Reason.REPEAT, Reason.ECHO, Reason.ASIDE, Reason.FRAGMENT, Reason.REQUOTED})


def explain(reason: Reason, evidence_ref: str | None = None) -> str:
    text = EXPLANATIONS.get(reason, "")
    if reason is Reason.FOUND_ELSEWHERE and evidence_ref:
        text = f"The cited lines do not say this; {evidence_ref} does."
    return text


@dataclass(frozen=True)
class Block:
    """A paragraph, list item, heading or block quote of the draft: its Markdown lead and the gap before it."""

    markup: str = ""  # "## ", "- ", "> "
    gap: str = ""  # "\n\n" (a new paragraph) or "\n"


@dataclass(frozen=True)
class Line:
    """One sentence of the draft. Its references stay where the model wrote them ("According to [MN 22:10.7], ...");
    passes change them through `map_refs` and `cite`, which rebuild its brackets, never its words."""

    written: str  # the sentence with its references, as the reader will read it
    origin: Origin = Origin.MODEL
    status: Status = Status.STANDS
    reason: Reason = Reason.NONE
    block: int = 0
    original: str = ""  # as the model wrote it, when a check revised it
    detail: str = ""  # the checks' own account, for the trace and the evals
    verdict: str = ""  # the verifier's: supported, partial, unsupported, uncited
    evidence_ref: str | None = None  # the lines it was checked against
    evidence_quote: str = ""
    score: float = 0.0
    idle: tuple[str, ...] = ()  # references it gave that hold none of it
    pointer: bool = False

    @property
    def text(self) -> str:
        """Without its references."""
        return strip_citations(self.written)

    @property
    def citations(self) -> list[CitationRef]:
        return find_citations(self.written)

    @property
    def stands(self) -> bool:
        return self.status is not Status.REMOVED

    @property
    def refs(self) -> list[str]:
        return list(dict.fromkeys(c.display() for c in self.citations))

    def sentence(self) -> Sentence:
        """As the verifier reads it."""
        return Sentence(self.written, self.citations)

    def removed(self, reason: Reason, **fields) -> Line:
        return replace(self, status=Status.REMOVED, reason=reason, **fields)

    def revised(self, written: str, reason: Reason, **fields) -> Line:
        return replace(self, written=written, status=Status.REVISED, reason=reason,
                       original=self.original or self.written, **fields)

    def as_quotation(self) -> Line:
        """The line typed as what it is, the text's own words: in quotation marks, with its references."""
        plain = self.text.strip()
        if not plain.startswith(("“", '"')):
            plain = f"“{plain}”"
        return replace(self, written=with_refs(plain, self.refs), origin=Origin.QUOTE)

    def map_refs(self, fn: Callable[[int, CitationRef], CitationRef | None]) -> Line:
        """Each reference (numbered in reading order) kept, replaced or dropped by `fn`; a bracket left empty goes."""
        count = 0

        def rebuild(m: re.Match) -> str:
            nonlocal count
            inner = m.group(1)
            if not looks_like_citation(inner):
                return m.group(0)
            refs = parse_bracket(inner)
            kept = []
            for ref in refs:
                new = fn(count, ref)
                count += 1
                if new is not None:
                    kept.append(new.raw)
            if len(kept) == len(refs) and kept == [r.raw for r in refs]:
                return m.group(0)
            return f"[{'; '.join(kept)}]" if kept else ""

        out = BRACKET.sub(rebuild, self.written)
        out = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", out)).strip()
        return self if out == self.written else replace(self, written=out)

    def cite(self, refs: Iterable[str]) -> Line:
        """An uncited sentence given references: before its last stop, or after a closing quotation mark."""
        return replace(self, written=with_refs(self.written, refs))


def with_refs(text: str, refs: Iterable[str]) -> str:
    """`text` with a bracket of `refs` at its end: before its stop, or after a closing quotation mark."""
    refs = list(dict.fromkeys(refs))
    if not refs:
        return text
    bracket = f"[{'; '.join(refs)}]"
    body = text.rstrip()
    if body.endswith(("”", "’", '"', "'")):
        return f"{body} {bracket}"
    m = final_stop(body)
    if m:
        return f"{body[:m.start()]} {bracket}{body[m.start():]}"
    return f"{body} {bracket}"


_MARKUP = re.compile(r"^\s*((?:[-*•]|\d+[.)]|#+|>)\s+)?")


@dataclass(frozen=True)
class Draft:
    lines: tuple[Line, ...] = ()
    blocks: tuple[Block, ...] = ()

    @property
    def standing(self) -> list[Line]:
        return [line for line in self.lines if line.stands]

    def own(self) -> list[Line]:
        """The answer's own sentences that stand."""
        return [line for line in self.lines if line.stands and line.origin is Origin.MODEL]

    def did_not_stand(self) -> list[Line]:
        """Sentences removed or revised by a check against the passages: what the reader is told about."""
        return [line for line in self.lines if line.status is not Status.STANDS and line.reason in CHECKED]

    def with_lines(self, lines: Iterable[Line]) -> Draft:
        return replace(self, lines=tuple(lines))

    def map(self, fn: Callable[[int, Line], Line]) -> Draft:
        """Each standing sentence through `fn` (with its place among them); removed ones stay as they are."""
        out, i = [], 0
        for line in self.lines:
            if line.stands:
                line = fn(i, line)
                i += 1
            out.append(line)
        return self.with_lines(out)

    def quoted_above(self, quotes: list[tuple[str, str]]) -> Draft:
        """The draft below quotations (text, reference), each a block quote of its own."""
        if not quotes:
            return self
        head = [Block("> ", "\n" if i else "") for i in range(len(quotes))]
        lines = [Line(f"“{text}” [{ref}]", Origin.QUOTE, block=i) for i, (text, ref) in enumerate(quotes)]
        shift = len(head)
        first = [replace(b, gap="\n\n") if i == 0 else b for i, b in enumerate(self.blocks)]
        return Draft(tuple(lines) + tuple(replace(line, block=line.block + shift) for line in self.lines),
                     tuple(head) + tuple(first))


    def quoted_below(self, quotes: list[tuple[str, str]]) -> Draft:
        """The draft above quotations (text, reference), each a block quote of its own: the answer's own sentences
        first, then the key lines they restate, for the reader to check them against."""
        if not quotes:
            return self
        shift = len(self.blocks)
        tail = [Block("> ", "\n" if i else "\n\n") for i in range(len(quotes))]
        lines = [Line(f"“{text}” [{ref}]", Origin.QUOTE, block=shift + i) for i, (text, ref) in enumerate(quotes)]
        return Draft(self.lines + tuple(lines), self.blocks + tuple(tail))


def parse(text: str, origin: Origin = Origin.MODEL) -> Draft:
    """The model's reply (its numbers already mapped to references) as a Draft: each line of the reply a block,
    each block its sentences."""
    blocks: list[Block] = []
    lines: list[Line] = []
    gap = ""
    for raw in text.split("\n"):
        if not raw.strip():
            gap = "\n\n" if blocks else ""
            continue
        markup = _MARKUP.match(raw)
        lead = markup.group(1) if markup and markup.group(1) else ""
        blocks.append(Block(lead.strip() + " " if lead else "", gap or ("\n" if blocks else "")))
        gap = ""
        for s in split_sentences(raw[markup.end() if markup else 0:]):
            if s.text.strip():
                lines.append(Line(s.text.strip(), origin, block=len(blocks) - 1))
    return Draft(tuple(lines), tuple(blocks))


def render(draft: Draft) -> str:
    """The reader's text: the standing sentences with their references, in their blocks."""
    out = ""
    quoted = False
    for i, block in enumerate(draft.blocks):
        kept = [line.written for line in draft.lines if line.block == i and line.stands and line.text.strip()]
        if not kept:
            continue
        if out:  # a paragraph after a block quote must be one of its own, or Markdown reads it as the quote's
            out += "\n\n" if quoted and block.markup != "> " else block.gap or "\n"
        out += block.markup + " ".join(kept)
        quoted = block.markup == "> "
    return out.strip()
