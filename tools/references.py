"""References to texts — in questions and tool arguments, and as citations in answers — with one grammar.

A reference is a book, the text's number in the shape that book uses, and optionally a segment or segment range:

- display IDs as SuttaCentral writes them, in any case, spaced or not: `MN 21`, `mn21`, `SN 35.28`, `AN 4.159`,
  `Dhp 1-20`, `Kp 5`, `Ud 2.1`, `Iti 27`, `Snp 1.4`, `Thag 1.1`, `Thig 1.1`, `Bu Pj 3`, `bu pj 3`, `BuPj3`,
  `Bi Pj 5`, `Bu Ss 13`, `Bu Pc 1`, `Kd 10`, `Pvr 1`, `Pvr 1.1`, `Bu Pm`, `Bi Pm`;
- the SuttaCentral uid itself: `pli-tv-bu-vb-pj3`, `pli-tv-kd1`;
- book names before the number: `Majjhima Nikāya 21`, `Middle Discourses 21`, `Saṁyutta 56.11`, `Sutta Nipāta 1.4`,
  `Udāna 2.1`, `Itivuttaka 27`, `Theragāthā 1.1`, `Khandhaka 10`, `Parivāra 1`; a rule class by its Pali name is
  the monks' rule (`Pārājika 1` = Bu Pj 1, as the commentaries use it), the nuns' with `Bhikkhunī` before it
  (`Bhikkhunī Pārājika 5` = Bi Pj 5);
- single capital letters for the four nikāyas with their exact number shape: `M 21`, `D 22`, `S 35:28`, `A 4.159`;
- SN, AN and the grouped books take `.` or `:` between group and number (`S 35:28`); a segment follows a colon:
  `MN 21:3.1`, `Ud 2.1:1.1`, `Bu Pj 3:1.1.1`; a segment range `MN 21:3.1-3.4`, `MN 21:3.1–MN 21:3.4`. Dhp takes no
  segment in running text (`Dhp 1:2` is not a way readers write verses).

Not references: a lower-case single letter (`a 4.5`), a number of the wrong shape (`DN 2.3`, `SN 35`), a
quantity after a single-letter form (`A 4.5 rating`), and `an 8.5` written in lower case with a space (the
English article far more often than the Aṅguttara).

Citations in answers are references in square brackets, several to a bracket separated by `;`, `,` or `and`:
`[MN 21:3.1–3.4]`, `[AN 4.159; MN 10:2.1]`, `[Bu Pj 2:1.1.1]`. Inside a bracket the filters for running text do not
apply (`[an 4.159]` is a citation). Parsing only: whether the text exists is `tools.texts.lookup`'s question.

A document outside SuttaCentral (a Markdown note, a PDF) is cited by its title and place, as
`indexing.vocabulary.document_ref` writes it: `[Retreat notes ¶2]`, `[Retreat notes ¶2–3]`, `[Dhamma talk p. 3]`,
`[Dhamma talk pp. 3–4]`. Which document holds that title is the question of whoever resolves the reference (the
turn's passages, the docstore).

Matching runs on folded text (diacritics stripped, lowercase) with a character map back to the original, so
spans point into what the user typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexing.vocabulary import (
    BASKET_HINTS,
    BOOKS,
    COLLECTIONS,
    PARAGRAPH_MARK,
    Book,
    document_place,
    document_title,
    find_book,
    find_translator,
    sutta_id_to_uid,
)
from tools.language.words import fold, word_list
from tools.language.words import pattern as english_pattern

_DASH = r"[-\u2013\u2014]"
# A segment, or a range of segments whose end may repeat the text's ID (`3.1-mn 21:3.4`).
_SEG = rf"(?P<seg>\d+(?:\.\d+)*(?:\s*{_DASH}\s*(?:[a-z][a-z .]{{0,12}}?\d+(?:\.\d+)?:)?\d+(?:\.\d+)*)?)"
_RANGE = rf"(?:{_DASH}\d{{1,4}})?"
# A quantity after the number means it was not a reference at all ("A 4.5 rating").
_QUANTITY = re.compile(r"\s*(?:%|percent|per\s+cent|rating|stars?|points?|times|km|miles?|kg|hours?|minutes?|out\s+of)\b")
# Single capital letters readers use for the four nikāyas.
_SINGLE_LETTERS = {"dn": "d", "mn": "m", "sn": "s", "an": "a"}


def _number(book: Book) -> str:
    """The number shape of a book in running text; `(?!\\d|\\.\\d)` so `MN 21.` at a sentence end still counts."""
    rng = _RANGE if book.ranges else ""
    if book.numbering == "number":
        return rf"(?P<num>\d{{1,3}}{rng})(?!\d|\.\d)"
    if book.numbering == "group":
        return rf"(?P<grp>\d{{1,2}})[.:](?P<num>\d{{1,4}}{rng})(?!\d|\.\d)"
    if book.numbering == "optional-group":
        return rf"(?:(?P<grp>\d{{1,2}})\.)?(?P<num>\d{{1,3}})(?!\d|\.\d)"
    return r"(?P<num>)(?!\.?\s*\d)"  # Bu Pm, Bi Pm: the whole code, no number


def _display(book: Book) -> str:
    # `Bu Pj` is also written `bu pj`, `BuPj` and `Bu. Pj.`; matched on folded (lower-case) text
    return r"\.?\s*".join(re.escape(w.lower()) for w in book.display.split())


def _prefixes(book: Book) -> str:
    names = [_display(book), re.escape(book.uid), *(r"\s+".join(map(re.escape, n.split())) for n in book.names)]
    return "|".join(sorted(set(names), key=len, reverse=True))


WHOLE_TEXT_BOOKS = frozenset({"dhp"})  # cited by the verse alone: `Dhp 21`, never `Dhp 21:1`


def _pattern(book: Book, prefix: str, *, cited: bool = False) -> re.Pattern:
    # Inside a citation's brackets a verse's lines may still be named (`Dhp 183:1–4`, as a segment reference reads).
    seg = rf"(?::{_SEG})?" if book.uid not in WHOLE_TEXT_BOOKS or cited else ""
    gap = r"\.?\s*" if book.numbering != "none" else ""
    return re.compile(rf"(?<![\w.])(?:{prefix}){gap}{_number(book)}{seg}(?![\w])")


_LONG = [(book, _pattern(book, _prefixes(book))) for book in BOOKS.values()]
_SHORT = [(BOOKS[uid], _pattern(BOOKS[uid], letter)) for uid, letter in _SINGLE_LETTERS.items()]
_CITED = [(book, _pattern(book, _prefixes(book), cited=True) if book.uid in WHOLE_TEXT_BOOKS else pattern)
          for book, pattern in _LONG]


@dataclass(frozen=True)
class Reference:
    book: str  # uid prefix: mn, dhp, pli-tv-bu-vb-pj
    group: int | None  # saṁyutta, nipāta, vagga or part, for the books that have them
    number: str  # "21", "104-114", "1-20"; "" for a Pātimokkha
    segment: str | None  # "3.1" or "3.1-3.5"
    start: int
    end: int
    text: str  # as written

    @property
    def uid(self) -> str:
        return f"{self.book}{self.group}.{self.number}" if self.group is not None else f"{self.book}{self.number}"

    @property
    def sutta_id(self) -> str:
        display = BOOKS[self.book].display
        rest = self.uid[len(self.book):]
        return f"{display} {rest}" if rest else display

    @property
    def seg_start(self) -> str | None:
        return self.segment.partition("-")[0] if self.segment else None

    @property
    def seg_end(self) -> str | None:
        return self.segment.partition("-")[2] or None if self.segment else None

    @property
    def is_range(self) -> bool:
        return "-" in self.number

    def span(self) -> tuple[int, int]:
        if not self.number:
            return 0, 0
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


def _norm_segment(seg: str) -> str:
    # `3.1 – mn 21:3.4` -> `3.1-3.4`
    parts = re.split(rf"\s*{_DASH}\s*", seg, maxsplit=1)
    return parts[0] if len(parts) == 1 else f"{parts[0]}-{parts[1].rpartition(':')[2]}"


def _reference(book: Book, m: re.Match, start: int, end: int, text: str) -> Reference:
    group = m.group("grp") if "grp" in m.groupdict() else None
    seg = m.group("seg") if "seg" in m.groupdict() else None
    return Reference(book.uid, int(group) if group else None, re.sub(_DASH, "-", m.group("num")),
                     _norm_segment(seg) if seg else None, start, end, text)


def find_references(text: str) -> list[Reference]:
    """Every reference in `text`, in order of appearance, without overlaps (the longest where two overlap)."""
    folded, where = _folded_with_map(text)
    candidates = [(m.start(), -(m.end() - m.start()), short, book, m)
                  for short, patterns in ((False, _LONG), (True, _SHORT))
                  for book, pattern in patterns for m in pattern.finditer(folded)]
    found: list[Reference] = []
    taken: list[tuple[int, int]] = []
    for s, _, short, book, m in sorted(candidates, key=lambda c: c[:3]):
        e = m.end()
        if any(s < te and ts < e for ts, te in taken):
            continue
        start, end = where[s], where[e]
        original = text[start:end]
        if short:
            if not original[:1].isupper() or _QUANTITY.match(folded, e):
                continue
        elif book.uid == "an" and original[:2] == "an" and original[2:3].isspace():
            continue  # lower-case "an 8.5" is the English article far more often than a citation
        found.append(_reference(book, m, start, end, original))
        taken.append((s, e))
    found.sort(key=lambda r: r.start)
    return found


def parse_reference(text: str) -> Reference | None:
    """The reference when `text` is essentially just one (`"mn 21"`, `"SN 35.28:1.3"`), else None."""
    refs = find_references(text.strip())
    if len(refs) == 1 and len(re.sub(r"[\W_]", "", text.replace(refs[0].text, ""))) == 0:
        return refs[0]
    return None


# ---- citations in answers ----------------------------------------------------------------------------------------
@dataclass
class CitationRef:
    raw: str  # as written: "MN 21:3.1–3.4"
    sutta_id: str | None = None  # the display ID: "MN 21", "Bu Pj 2"
    seg_start: str | None = None  # local part "3.1"
    seg_end: str | None = None
    error: str | None = None  # why it does not parse
    document: str | None = None  # a document outside SuttaCentral: its title as cited ("Retreat notes")
    place: tuple[int, int] | None = None  # ... and its place, first and last (1-based): pages, or unit numbers
    by_page: bool = False  # the place is pages (a PDF)

    @property
    def ok(self) -> bool:
        return self.error is None and (self.sutta_id is not None or self.document is not None)

    @property
    def is_document(self) -> bool:
        return self.document is not None

    @property
    def source(self) -> str | None:
        """What text the reference names: the sutta ID, or a document's title as citations write it."""
        return self.sutta_id or (document_title(self.document) if self.document is not None else None)

    @property
    def uid(self) -> str | None:
        return sutta_id_to_uid(self.sutta_id) if self.sutta_id else None

    def names_document(self, title: str) -> bool:
        """Whether this reference names the document with this title (as the library stores it)."""
        return self.document is not None and same_title(self.document, title)

    def covers(self, ord_: int, page: int | None) -> bool:
        """Whether a document's unit (0-based position `ord_`, on `page`) is in the place this reference names."""
        if self.place is None:
            return True
        first, last = self.place
        if self.by_page:
            return page is not None and first <= page <= last
        return first <= ord_ + 1 <= last

    def display(self) -> str:
        """The reference in the form answers write it: `MN 21:3.1–3.4`, `Retreat notes ¶2–3`, `Dhamma talk p. 3`."""
        if self.document is not None:
            if self.place is None:
                return document_title(self.document)
            return f"{document_title(self.document)} {document_place(*self.place, pages=self.by_page)}"
        if self.seg_start and self.seg_end and self.seg_end != self.seg_start:
            return f"{self.sutta_id}:{self.seg_start}–{self.seg_end}"
        if self.seg_start:
            return f"{self.sutta_id}:{self.seg_start}"
        return self.sutta_id or self.raw


def same_title(a: str, b: str) -> bool:
    return fold(document_title(a)) == fold(document_title(b))


# `Retreat notes ¶2`, `Retreat notes ¶2–3`, `Dhamma talk p. 3`, `Dhamma talk pp. 3-4` (a comma before the place is
# allowed: `Dhamma talk, p. 3`)
_DOC_REF = re.compile(
    rf"(?P<title>\S.*?)\s*,?\s+(?:(?P<pages>pp?\.)\s*|{PARAGRAPH_MARK}\s*)"
    rf"(?P<first>\d{{1,5}})(?:\s*{_DASH}\s*(?P<last>\d{{1,5}}))?"
)


def _document_ref(raw: str) -> CitationRef | None:
    m = _DOC_REF.fullmatch(raw)
    if m is None:
        return None
    first = int(m.group("first"))
    last = int(m.group("last") or first)
    if last < first:
        return CitationRef(raw=raw, error="place runs backwards")
    return CitationRef(raw=raw, document=m.group("title").strip(), place=(first, last),
                       by_page=m.group("pages") is not None)


def parse_ref(text: str) -> CitationRef:
    """One citation (`MN 21:3.1–3.4`, `Bu Pj 2:1.1.1`, `Retreat notes ¶2`); the whole text must be the reference."""
    raw = text.strip().rstrip(".,")
    folded, where = _folded_with_map(raw)
    for book, pattern in [*_CITED, *_SHORT]:
        m = pattern.fullmatch(folded)
        if m:
            ref = _reference(book, m, 0, len(raw), raw)
            return CitationRef(raw=raw, sutta_id=ref.sutta_id, seg_start=ref.seg_start, seg_end=ref.seg_end)
    return _document_ref(raw) or CitationRef(raw=raw, error="does not parse")


def _prefix_words() -> str:
    words = [r"\s*".join(map(re.escape, b.display.split())) for b in BOOKS.values()]
    return "|".join(sorted(words, key=len, reverse=True))


# A bracket that is meant as a citation: it names a book or holds a digit. `[sic]` is left alone.
BRACKET = re.compile(r"\[([^\[\]\n]{1,120})\]")
_LOOKS_LIKE_REF = re.compile(rf"\b(?:{_prefix_words()})\b|\d", re.IGNORECASE)
# Display IDs named in running text ("MN 20 says ..."): not citations, but not claim content either.
_NUMBERED = "|".join(r"\s*".join(map(re.escape, b.display.split())) for b in BOOKS.values() if b.numbering != "none")
_UNNUMBERED = "|".join(r"\s*".join(map(re.escape, b.display.split())) for b in BOOKS.values() if b.numbering == "none")
MENTION = re.compile(
    rf"\b(?:(?:{_NUMBERED})\.?\s*\d+(?:\.\d+)?(?:{_DASH}\d+)?|(?:{_UNNUMBERED})\b)"
    rf"(?::\d+(?:\.\d+)*(?:{_DASH}\d+(?:\.\d+)*)?)?",
    re.IGNORECASE,
)


def looks_like_citation(inner: str) -> bool:
    """Whether the inside of a bracket is meant as a citation (it names a book or holds a digit)."""
    return bool(_LOOKS_LIKE_REF.search(inner))


def parse_bracket(inner: str) -> list[CitationRef]:
    refs = []
    for whole in inner.split(";"):
        # a document's title may hold a comma or an "and": its reference is taken whole before the split
        if (doc := _document_ref(whole.strip().rstrip(".,"))) is not None and not find_references(whole):
            refs.append(doc)
            continue
        for part in re.split(r",|\band\b", whole):
            if part.strip():
                refs.append(parse_ref(part))
    return refs


def find_citations(text: str) -> list[CitationRef]:
    refs: list[CitationRef] = []
    for m in BRACKET.finditer(text):
        if looks_like_citation(m.group(1)):
            refs.extend(parse_bracket(m.group(1)))
    return refs


def strip_citations(text: str) -> str:
    text = BRACKET.sub(lambda m: "" if looks_like_citation(m.group(1)) else m.group(0), text)
    return re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()


# ---- collections named in words ----------------------------------------------------------------------------------
_COLLECTION_HINTS = {code: re.compile(r"\b(?:" + "|".join(c.hints) + r")\b") for code, c in COLLECTIONS.items()}
# "in the Long and the Middle Discourses": a bare adjective shares the noun of the hint after it.
_ADJ = {c.english.split()[0].lower(): code for code, c in COLLECTIONS.items() if c.english.endswith("Discourses")}
_SHARED_NOUN = re.compile(rf"\b({'|'.join(_ADJ)})\s+(?:and|or)\s+(?:the\s+)?({'|'.join(_ADJ)})\s+discourses")


def collection_hints(text: str) -> list[str]:
    """Collections named in words ("in the Long and the Middle Discourses" -> ["DN", "MN"]), in code order."""
    folded = fold(text)
    found = {c for c, rx in _COLLECTION_HINTS.items() if rx.search(folded)}
    for m in _SHARED_NOUN.finditer(folded):
        found.update(_ADJ[adj] for adj in m.groups())
    return [c for c in _COLLECTION_HINTS if c in found]


def collection_code(value: str) -> str | None:
    """The collection an argument names: its code in any case (`MN`, `kd`), a book in it (`Dhp` -> KN), or its
    name (`Majjhima Nikāya`); None when it names none or several."""
    text = value.strip()
    if not text:
        return None
    for code in COLLECTIONS:
        if text.lower() == code.lower():
            return code
    book = find_book(text)
    if book is not None:
        return book.collection
    found = collection_hints(text)
    return found[0] if len(found) == 1 else None


_BASKET_HINTS = {basket: {strength: re.compile(r"\b(?:" + "|".join(rx) + r")\b") if rx else None
                          for strength, rx in hints.items()} for basket, hints in BASKET_HINTS.items()}


def basket_hint(text: str) -> tuple[str | None, bool]:
    """The basket a question points at and whether it names it ("in the Vinaya" -> ("vinaya", True); "which
    offence…" -> ("vinaya", False)); (None, False) when it points at none or at both."""
    folded = fold(text)
    explicit = [b for b, rx in _BASKET_HINTS.items() if rx["explicit"] and rx["explicit"].search(folded)]
    if len(explicit) == 1:
        return explicit[0], True
    if explicit:
        return None, False
    soft = [b for b, rx in _BASKET_HINTS.items() if rx["soft"] and rx["soft"].search(folded)]
    return (soft[0], False) if len(soft) == 1 else (None, False)


# The kind of text a question asks for: "which discourse…" means a sutta in prose, "whose verses…" a poem.
_ASKS_PROSE = re.compile(r"\b(?:which|what|in which|the) (?:discourses?|suttas?|sermons?)\b")
_ASKS_VERSE = re.compile(r"\b(?:verses?|poems?|stanzas?|gathas?)\b")


def genre_hint(text: str) -> str | None:
    """"prose" when a question asks which discourse or sutta, "verse" when it asks for verses or a poem, else None.
    The verse anthologies (Dhp, Thag, Thig) are not what "which discourse" asks for, though they share lines with
    the discourses (Thag 16.8 repeats MN 86's verses)."""
    folded = fold(text)
    prose, verse = bool(_ASKS_PROSE.search(folded)), bool(_ASKS_VERSE.search(folded))
    return None if prose == verse else ("prose" if prose else "verse")


def asks_which_text(text: str) -> bool:
    """The question asks which text, or where in the canon, something is ("Which sutta …", "Where does the Buddha
    say …"), not what a text says."""
    return bool(_ASKS_WHICH_TEXT.search(fold(text)))


_ASKS_WHICH_TEXT = english_pattern("asks_which_text")


# A translator's name counts as asking for their translation only beside words about translating.
_TRANSLATION_CUE = re.compile(r"\b(?:translat\w*|render\w*|version|words?|by)\b|'s\b")
_PARALLELS = re.compile(r"\b(?:parallels?|paralleled|(?:same|similar) (?:story|passage|teaching|text)s?|"
                        r"(?:also|too) (?:in|found)|found (?:also|elsewhere)|elsewhere in the canon|other versions?|"
                        r"counterparts?|correspond\w*|equivalents?|where else|(?:chinese|sanskrit|tibetan|gandhari|agamas?)\b)")


def translator_named(text: str) -> str | None:
    """The translator a question asks for ("How does Soma translate Thig 1.1?" -> `soma`); None otherwise."""
    folded = fold(text)
    return find_translator(folded) if _TRANSLATION_CUE.search(folded) else None


def asks_for_parallels(text: str) -> bool:
    """The question is about a text's parallels ("Which texts are parallel to MN 10?", "is it in the Āgamas?")."""
    return bool(_PARALLELS.search(fold(text)))


_BOOK_NAMES = re.compile(
    r"\b(?:the\s+)?(?:"
    + "|".join(sorted({re.escape(fold(b.pali).removesuffix(" nikaya")) for b in BOOKS.values()
                       if b.basket == "sutta"}, key=len, reverse=True))
    + r")(?:\s+nikaya)?\b"
)


def without_book_names(folded: str) -> str:
    """Folded text with the sutta books' Pali names taken out ("the Majjhima Nikāya"): what is left is the topic."""
    return _BOOK_NAMES.sub(" ", folded)


_ORDINALS = ("first", *word_list("ordinals"))  # the list starts at "second": a word's place is its value
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(" + "|".join(_ORDINALS) + r"|\d+(?:st|nd|rd|th))\s+(?:verse|discourse|sutta|text|poem|rule)\s+"
    r"(?:of|in)\s+(?:the\s+)?([a-z][a-z ]+)")


def ordinal_reference(text: str) -> str | None:
    """A text named by its place in a book that numbers its texts plainly: "the first verse of the Dhammapada" ->
    `Dhp 1`, "the tenth discourse of the Majjhima" -> `MN 10`. In a book numbered by chapter (SN, AN, Thig) only the
    first text has a place that is also its number (`Thig 1.1`); any other is None rather than a guess."""
    m = _ORDINAL.search(fold(text))
    if m is None:
        return None
    word, rest = m.group(1), m.group(2)
    n = _ORDINALS.index(word) + 1 if word in _ORDINALS else int(re.match(r"\d+", word).group())  # type: ignore[union-attr]
    for book in BOOKS.values():
        if not any(rest.startswith(name) for name in _book_names(book)):
            continue
        if book.numbering == "number":
            return f"{book.display} {n}"
        return f"{book.display} 1.1" if n == 1 and book.numbering in ("group", "optional-group") else None
    return None


def book_named(text: str) -> Book | None:
    """The book a question names by its name, Pali or English ("the Therigatha", "the Verses of the Senior Nuns",
    "the Majjhima"), not by a reference: the longest name found."""
    folded = fold(text)
    found = [(len(name), book) for book in BOOKS.values()
             for name in _book_names(book) if len(name) >= 5 and re.search(rf"\b{re.escape(name)}\b", folded)]
    return max(found, key=lambda f: f[0])[1] if found else None


def _book_names(book: Book) -> tuple[str, ...]:
    """What readers call a book, folded: the names they put before a number, its Pali and its English name."""
    return (*book.names, fold(book.pali), fold(book.english))
