"""Sentences: where one ends, and an answer split into sentences that each keep the citations that belong to
them. The citations themselves (`[MN 21:3.1–3.4]`, `[AN 4.159; MN 10:2.1]`, `[Bu Pj 2:1.1.1]`) are parsed by
`tools.references`. Plain text is split at its stops by `split_at_stops` (from `indexing.text`, so ingest can use it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexing.text import split_at_stops
from tools.language.words import pattern, word_list, word_set
from tools.references import BRACKET, CitationRef, find_citations, strip_citations

__all__ = ["Sentence", "clause_breaks", "clauses", "closes_segment", "ends_sentence", "final_stop", "phrases",
           "split_at_stops", "split_sentences"]


@dataclass
class Sentence:
    text: str  # as written, citations included
    citations: list[CitationRef] = field(default_factory=list)

    @property
    def plain(self) -> str:
        return strip_citations(self.text)


# Abbreviations after which a full stop does not end a sentence.
_ABBREV = word_set("abbreviations")
# Where a sentence ends: its stops, and the closing quotes or brackets after them.
_END = re.compile(r"[.!?…]+[”’\"')]*")
_FINAL = re.compile(_END.pattern + "$")
_FINAL_LOOSE = re.compile(r"[.!?…]\W*$")


def final_stop(text: str) -> re.Match | None:
    """The stops (and closing quotes) that end the text, or None when it does not end a sentence."""
    return _FINAL.search(text)


def ends_sentence(text: str) -> bool:
    return final_stop(text) is not None


def closes_segment(text: str) -> bool:
    """Whether a passage's line ends a sentence, whatever non-word marks follow its stop (a dash, a bracket)."""
    return _FINAL_LOOSE.search(text) is not None


# a quotation in curly quotes, or in straight ones, paired, that open after a space or a stop and close before one
# (the say grammar lets the model quote with either, and a quotation may hold stops of its own)
_QUOTED = re.compile(r"“[^“”]{1,600}”|(?<![\w\"])\"[^\"\n]{1,600}\"(?![\w\"])")


def _protected_spans(text: str) -> list[tuple[int, int]]:
    # A full stop inside a citation or a quotation does not end the sentence around it.
    return [m.span() for m in BRACKET.finditer(text)] + [m.span() for m in _QUOTED.finditer(text)]


def split_sentences(text: str) -> list[Sentence]:
    """Split an answer into sentences; a citation written after the full stop stays with its sentence."""
    pieces: list[str] = []
    for block in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|#+)\s)|(?<=[:.!?\]”])[ \t]*\n", text):
        block = re.sub(r"^\s*(?:[-*•]|\d+[.)]|#+)\s+", "", block.strip())
        block = re.sub(r"\s*\n\s*", " ", block)
        if block:
            pieces.extend(_split_block(block))
    sentences: list[Sentence] = []
    for piece in pieces:
        lead = re.match(r"^((?:\s*\[[^\]]*\])+)\s*(.*)$", piece, re.S)
        if lead and sentences and find_citations(lead.group(1)):
            # "... the teaching. [MN 21:3.1] Next sentence": the bracket belongs to the sentence before it.
            prev = sentences[-1]
            prev.text = f"{prev.text} {lead.group(1).strip()}"
            prev.citations = find_citations(prev.text)
            piece = lead.group(2)
        piece = piece.strip()
        if piece:
            sentences.append(Sentence(piece, find_citations(piece)))
    return sentences


def _split_block(block: str) -> list[str]:
    protected = _protected_spans(block)
    out, start = [], 0
    for m in _END.finditer(block):
        end = m.end()
        inside = next(((a, b) for a, b in protected if a <= m.start() and end < b), None)
        if inside is not None:
            if block[end : inside[1] - 1].strip():
                continue  # a stop inside a quotation
            end = inside[1]  # the quote's own last stop, its closing mark after a space ('… arousing. "')
        before = block[start : m.start()]
        word = re.search(r"([\w.]+)$", before)
        if m.group(0).startswith(".") and word:
            w = word.group(1).lower()
            if w in _ABBREV or re.fullmatch(r"[a-z]", w) or re.fullmatch(r"\d+", w) and _next_is_digit(block, end):
                continue
        trailing = re.match(r"(?:\s*\[[^\[\]\n]*\])+", block[end:])
        if trailing and find_citations(trailing.group(0)):
            end += trailing.end()  # "... the teaching. [MN 21:3.1]": the bracket belongs to this sentence
        rest = block[end:]
        if rest and not rest[0].isspace():
            continue  # "3.1", "e.g.x", a closing quote already consumed
        nxt = rest.lstrip()
        if nxt and not (nxt[0].isupper() or nxt[0] in "[“\"‘'(" or nxt[0].isdigit()):
            continue
        out.append(block[start:end].strip())
        start = end
    if block[start:].strip():
        out.append(block[start:].strip())
    return out


def _next_is_digit(block: str, pos: int) -> bool:
    return pos < len(block) and block[pos].isdigit()


# ---- clauses ---------------------------------------------------------------------------------------------------
def clauses(text: str, commas: bool = False) -> list[str]:
    """A sentence cut into clauses at strong breaks, or also at commas (`commas`)."""
    # The claim is cut at commas too (its clauses are short paraphrases); the evidence only at strong breaks,
    # so "Ever since I was born, sister, I don't recall killing" keeps its negation with its subject.
    pattern = r"[;:.!?—]|,\s+|\s+but\s+" if commas else r"[;:.!?—]|,?\s+(?:but|while|whereas)\s+"
    return [c for c in re.split(pattern, text) if c.strip()]


_PHRASE_BREAK = re.compile(r"[.;:!?()\[\]“”\"‘’—]|,\s")


def phrases(text: str) -> list[str]:
    """The text cut at every mark of punctuation: what a number counts is named inside its own phrase."""
    return _PHRASE_BREAK.split(text)


# A clause a claim can be checked by alone starts after "; ", ", and", " but", " and that"/" and then".
_CLAUSE_BREAK = re.compile(r";\s+|,\s+(?:and|but|while|whereas|yet)\s+|\s+(?:but|whereas)\s+"
                           r"|\s+and\s+(?=that\b|then\b)")


def clause_breaks(text: str) -> list[tuple[int, int]]:
    """(start, end) of each clause of a sentence ("X, and Y"; "X; Y"; "X but Y"), an Oxford-comma list
    ("greed, hate, and delusion") kept whole."""
    spans, last = [], 0
    for m in _CLAUSE_BREAK.finditer(text):
        if m.group(0).startswith(",") and re.search(r",\s*[\w’'-]+(?:\s[\w’'-]+)?$", text[last : m.start()]):
            continue
        spans.append((last, m.start()))
        last = m.end()
    spans.append((last, len(text)))
    return spans


# Where a clause stops: a sentence's end, a semicolon or colon, a dash set off by spaces.
_STOP_PIECE = re.compile(r"(?<=[.!?;:])\s+|\s+—\s*|\s*—\s+")


def stop_pieces(text: str) -> list[str]:
    """The text cut at every stop a clause can end on (., !, ?, ;, : and a spaced dash)."""
    return _STOP_PIECE.split(text)


_SIMILE_TOLD = re.compile(pattern("simile_told").pattern, re.IGNORECASE)
_SIMILE_APPLIED = re.compile(pattern("simile_applied").pattern, re.IGNORECASE)


def applies_a_simile(text: str) -> bool:
    """Does the text tell a simile or say what one means?"""
    return bool(_SIMILE_TOLD.search(text) or _SIMILE_APPLIED.search(text))


def says_what_a_simile_means(text: str) -> bool:
    """Does the text apply a simile ("In the same way …", "This is how it is in the case of …"), not only tell it?"""
    return bool(_SIMILE_APPLIED.search(text))


_PART_BREAK = re.compile(
    r"(?:,\s*|\s+)and\s+(?=(?:" + "|".join(word_list("interrogatives")) + r")\b)|(?<=\?)\s+(?=\S)", re.IGNORECASE)


def question_parts(question: str) -> list[str]:
    """The things a question asks, one each: "What is a mirror for, and what should Rāhula check in the same way?"
    -> ["What is a mirror for", "what should Rāhula check in the same way?"]; a question asking one thing is
    itself. Split where "and" opens another question word, or after a question mark that more text follows."""
    parts = [p.strip(" ,") for p in _PART_BREAK.split(question.strip())]
    return [p for p in parts if p] or [question]


_BACKGROUND = re.compile(pattern("question_background").pattern, re.IGNORECASE)


def asked_clause(question: str) -> str:
    """What a question asks, without what it takes as known: "In the simile of the poisoned arrow, what does the
    wounded man insist on knowing?" -> "what does the wounded man insist on knowing?"; "What did Sudinna do that led
    to the first rule on expulsion?" -> "What did Sudinna do?". A question that is all background is itself."""
    asked = re.sub(r"\s+(?=\?)", "", re.sub(r"\s+", " ", _BACKGROUND.sub(" ", question))).strip()
    return asked if asked.strip(" ?") else question
