"""Sutta references inside free text: `MN 21`, `mn21`, `M 21`, `Majjhima Nikāya 21`, `S 35:28`, `Dhp 1-20`,
`mn21:3.1-3.5`. Parsing only; whether the sutta exists is `tools.lookup`'s question.

Matching runs on folded text (diacritics stripped, lowercase) with a character map back to the original, so
spans point into what the user typed. Single-letter abbreviations (`M 21`, `A 4.159`) are the risky ones in
ordinary English ("a 4.5 rating"), so they must be upper case and have the exact number shape of their book.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexing.ids import BOOKS
from indexing.text import fold

_DASH = r"[-\u2013\u2014]"
_SEG = rf"(?P<seg>\d+(?:\.\d+)*(?:{_DASH}\d+(?:\.\d+)*)?)"
# Book names as readers write them (already folded). Order matters: longer alternatives first.
_NAMES = {
    "dn": r"digha(?:\s+nikaya)?|long\s+discourses?",
    "mn": r"majjhima(?:\s+nikaya)?|middle\s+discourses?",
    "sn": r"samyutta(?:\s+nikaya)?|linked\s+discourses?",
    "an": r"anguttara(?:\s+nikaya)?|numbered\s+discourses?",
    "dhp": r"dhammapada(?:\s+verses?)?",
}
# The number shape each book uses: DN/MN/Dhp a plain number (Dhp may be a verse range), SN/AN group.number.
_SHAPE = {
    "dn": r"(?P<num>\d{1,3})(?![.\d])",
    "mn": r"(?P<num>\d{1,3})(?![.\d])",
    "dhp": rf"(?P<num>\d{{1,3}}(?:{_DASH}\d{{1,3}})?)(?![.\d])",
    "sn": rf"(?P<grp>\d{{1,2}})[.:](?P<num>\d{{1,4}}(?:{_DASH}\d{{1,4}})?)(?![\d])",
    "an": rf"(?P<grp>\d{{1,2}})[.:](?P<num>\d{{1,4}}(?:{_DASH}\d{{1,4}})?)(?![\d])",
}
# A quantity after the number means it was not a reference at all ("A 4.5 rating").
_QUANTITY = re.compile(r"\s*(?:%|percent|per\s+cent|rating|stars?|points?|times|km|miles?|kg|hours?|minutes?|out\s+of)\b")


def _pattern(book: str, prefix: str) -> re.Pattern:
    seg = rf"(?::{_SEG})?" if book != "dhp" else ""
    return re.compile(rf"(?<![\w.]){prefix}\s*{_SHAPE[book]}{seg}(?![\w])")


_LONG = [(book, _pattern(book, rf"(?:{BOOKS[book][0].lower()}|{_NAMES[book]})\.?")) for book in BOOKS]
_SHORT = [(book, _pattern(book, letter)) for book, letter in (("dn", "d"), ("mn", "m"), ("sn", "s"), ("an", "a"))]


@dataclass(frozen=True)
class Reference:
    book: str  # uid prefix: dn mn sn an dhp
    group: int | None  # saṁyutta / nipāta for SN and AN
    number: str  # "21", "104-114", "1-20"
    segment: str | None  # "3.1" or "3.1-3.5"
    start: int
    end: int
    text: str  # as written

    @property
    def uid(self) -> str:
        return f"{self.book}{self.group}.{self.number}" if self.group is not None else f"{self.book}{self.number}"

    @property
    def sutta_id(self) -> str:
        return f"{BOOKS[self.book][0]} {self.uid[len(self.book):]}"

    @property
    def is_range(self) -> bool:
        return "-" in self.number

    def span(self) -> tuple[int, int]:
        lo, _, hi = self.number.partition("-")
        return int(lo), int(hi or lo)

    def __str__(self) -> str:
        return f"{self.sutta_id}:{self.segment}" if self.segment else self.sutta_id


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    # Fold character by character so every folded index maps back to a position in the original text.
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        f = fold(ch)
        out.append(f)
        where.extend([i] * len(f))
    where.append(len(text))
    return "".join(out), where


def _norm_dash(s: str) -> str:
    return re.sub(_DASH, "-", s)


def find_references(text: str) -> list[Reference]:
    """Every sutta reference in `text`, in order of appearance, without overlaps."""
    folded, where = _folded_with_map(text)
    found: list[Reference] = []
    taken: list[tuple[int, int]] = []

    def add(book: str, m: re.Match, short: bool) -> None:
        s, e = m.span()
        if any(s < te and ts < e for ts, te in taken):
            return
        start, end = where[s], where[e]
        original = text[start:end]
        if short:
            if not original[:1].isupper() or _QUANTITY.match(folded, e):
                return
        elif book == "an" and original[:2] == "an" and original[2:3].isspace():
            return  # lower-case "an 8.5" is the English article far more often than a citation
        group = int(m.group("grp")) if "grp" in m.groupdict() and m.group("grp") else None
        seg = m.groupdict().get("seg")
        found.append(Reference(book, group, _norm_dash(m.group("num")), _norm_dash(seg) if seg else None,
                               start, end, original))
        taken.append((s, e))

    for book, pattern in _LONG:
        for m in pattern.finditer(folded):
            add(book, m, short=False)
    for book, pattern in _SHORT:
        for m in pattern.finditer(folded):
            add(book, m, short=True)
    found.sort(key=lambda r: r.start)
    return found


def parse_reference(text: str) -> Reference | None:
    """The reference when `text` is essentially just one (`"mn 21"`, `"SN 35.28:1.3"`), else None."""
    refs = find_references(text.strip())
    if len(refs) == 1 and len(re.sub(r"[\W_]", "", text.replace(refs[0].text, ""))) == 0:
        return refs[0]
    return None
