"""Inline citations in an answer (`[MN 21:20.1]`, `[SN 35.28]`, `[MN 21:3.1–3.4]`, `[AN 4.159; MN 10:2.1]`) and
the answer's sentences, split so that each sentence keeps the citations that belong to it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexing.ids import BOOKS

_PREFIXES = "|".join(sorted((canon for canon, _, _ in BOOKS.values()), key=len, reverse=True))
# One reference: book, sutta number (maybe a range uid like 12.104-114), optional segment or segment range.
_REF = re.compile(
    rf"^(?P<book>{_PREFIXES})\.?\s*(?P<num>\d+(?:\.\d+)?(?:-\d+)?)"
    r"(?::(?P<start>\d+(?:\.\d+)*)(?:\s*[–—-]\s*(?:(?P=book)\s*(?P=num):)?(?P<end>\d+(?:\.\d+)*))?)?$",
    re.IGNORECASE,
)
# A bracket that is meant as a citation: it names a book or holds a digit. `[sic]` is left alone.
_BRACKET = re.compile(r"\[([^\[\]\n]{1,120})\]")
_LOOKS_LIKE_REF = re.compile(rf"\b(?:{_PREFIXES})\b|\d", re.IGNORECASE)
# Sutta IDs named in running text ("MN 20 says ..."): not citations, but not claim content either.
SUTTA_MENTION = re.compile(rf"\b(?:{_PREFIXES})\.?\s*\d+(?:\.\d+)?(?:-\d+)?(?::\d+(?:\.\d+)*(?:[–-]\d+(?:\.\d+)*)?)?",
                           re.IGNORECASE)


@dataclass
class CitationRef:
    raw: str  # as written: "MN 21:3.1–3.4"
    sutta_id: str | None = None  # canonical "MN 21"
    seg_start: str | None = None  # local part "3.1"
    seg_end: str | None = None
    error: str | None = None  # why it does not parse

    @property
    def ok(self) -> bool:
        return self.error is None and self.sutta_id is not None

    @property
    def uid(self) -> str | None:
        if not self.sutta_id:
            return None
        prefix, _, num = self.sutta_id.partition(" ")
        return f"{prefix.lower()}{num}"


def _canonical_book(book: str) -> str:
    for canon, _, _ in BOOKS.values():
        if canon.lower() == book.lower():
            return canon
    return book


def parse_ref(text: str) -> CitationRef:
    raw = text.strip().rstrip(".,")
    m = _REF.match(raw)
    if not m:
        return CitationRef(raw=raw, error="does not parse")
    return CitationRef(
        raw=raw,
        sutta_id=f"{_canonical_book(m.group('book'))} {m.group('num')}",
        seg_start=m.group("start"),
        seg_end=m.group("end") or None,
    )


def parse_bracket(inner: str) -> list[CitationRef]:
    refs = []
    for part in re.split(r"[;,]|\band\b", inner):
        if part.strip():
            refs.append(parse_ref(part))
    return refs


def find_citations(text: str) -> list[CitationRef]:
    refs: list[CitationRef] = []
    for m in _BRACKET.finditer(text):
        if _LOOKS_LIKE_REF.search(m.group(1)):
            refs.extend(parse_bracket(m.group(1)))
    return refs


def strip_citations(text: str) -> str:
    text = _BRACKET.sub(lambda m: "" if _LOOKS_LIKE_REF.search(m.group(1)) else m.group(0), text)
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


@dataclass
class Sentence:
    text: str  # as written, citations included
    citations: list[CitationRef] = field(default_factory=list)

    @property
    def plain(self) -> str:
        return strip_citations(self.text)


# Abbreviations after which a full stop does not end a sentence.
_ABBREV = {"e.g", "i.e", "etc", "cf", "vs", "ven", "mr", "mrs", "dr", "st", "no", "nos", "p", "pp", "ff", "ch", "vol",
           "approx", "ca", "viz", "al", "trans", "ed", "eds", "bhikkhu", "bh"}
_END = re.compile(r"[.!?…]+[”’\"')]*")


_QUOTED = re.compile(r"“[^“”]{1,600}”")


def _protected_spans(text: str) -> list[tuple[int, int]]:
    # A full stop inside a citation or a quotation does not end the sentence around it.
    return [m.span() for m in _BRACKET.finditer(text)] + [m.span() for m in _QUOTED.finditer(text)]


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
        if any(a <= m.start() and end < b for a, b in protected):  # a quote's own last full stop may end it
            continue
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
