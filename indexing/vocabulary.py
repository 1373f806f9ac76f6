"""The library's one vocabulary: baskets, collections and books; the uids SuttaCentral gives their texts (`mn21`,
`sn12.104-114`, `pli-tv-bu-vb-pj3`) and the display IDs readers write (`MN 21`, `SN 12.104-114`, `Bu Pj 3`);
segment keys; and the fixed sentence an abstaining answer gives and the chat's warning icon.

Everything that names a text goes through here, so the docstore, the tools, the citations and the UI cannot
disagree on spelling. In this code base a "sutta ID" is a display ID of any text, a Vinaya rule included.
Finding references in free text and citations in answers is `tools.references`, built on these tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from indexing.text import fold

# ---- what an answer may say ------------------------------------------------------------------------------------
# The one sentence an abstaining answer gives; prompts, the scripted model and the checks all use it.
ABSTAIN_SENTENCE = "I don't find this in the texts I have."
# The chat's icon for "check this": shown beside flagged sentences and on the note listing them.
WARNING_ICON = "⚠️"

# ---- baskets and collections -----------------------------------------------------------------------------------
Basket = Literal["sutta", "vinaya"]
BASKETS: dict[str, str] = {
    "sutta": "Discourses (Sutta Piṭaka)",
    "vinaya": "Monastic Law (Vinaya Piṭaka)",
}
# How a question points at a basket, as regexes over folded text: an explicit name restricts the search to the
# basket; a topic word only leans toward it ("what offence is it to…" is usually, not always, about the rules).
BASKET_HINTS: dict[str, dict[str, tuple[str, ...]]] = {
    "vinaya": {
        "explicit": (r"(?<!dhamma-)(?<!dhamma )vinaya", r"monastic (?:law|code)"),
        "soft": (r"monastic rules?", r"training rules?", r"offen[cs]es?", r"for nuns", r"nuns'? rules?",
                 r"rules? for (?:monks|nuns)"),
    },
    "sutta": {"explicit": (r"in the suttas", r"in the discourses", r"sutta pitaka"), "soft": ()},
}


@dataclass(frozen=True)
class Collection:
    code: str  # as stored in chunk metadata: "MN", "KN", "Kd"
    english: str
    pali: str
    basket: Basket
    # How readers name it in a question, as regexes over folded text ("in the Middle Discourses").
    hints: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return f"{self.english} ({self.pali})"


COLLECTIONS: dict[str, Collection] = {c.code: c for c in (
    Collection("DN", "Long Discourses", "Dīgha Nikāya", "sutta", (r"digha", r"long discourses?")),
    Collection("MN", "Middle Discourses", "Majjhima Nikāya", "sutta",
               (r"majjhima", r"middle(?:[- ]length)? discourses?")),
    Collection("SN", "Linked Discourses", "Saṁyutta Nikāya", "sutta",
               (r"samyutta", r"linked discourses?", r"connected discourses?")),
    Collection("AN", "Numbered Discourses", "Aṅguttara Nikāya", "sutta",
               (r"anguttara", r"numbered discourses?", r"gradual sayings")),
    Collection("KN", "Minor Collection", "Khuddaka Nikāya", "sutta",
               (r"dhammapada", r"khuddaka", r"minor collection", r"khuddakapatha", r"udana", r"itivuttaka",
                r"sutta ?nipata", r"theragatha", r"therigatha")),
    Collection("Vb", "Analysis of the Rules", "Suttavibhaṅga", "vinaya", (r"sutta ?vibhanga", r"vibhanga")),
    Collection("Kd", "Chapters", "Khandhaka", "vinaya", (r"khandhakas?",)),
    Collection("Pvr", "Compendium", "Parivāra", "vinaya", (r"parivara",)),
    Collection("Pm", "Monastic Code", "Pātimokkha", "vinaya", (r"patimokkha",)),
)}
COLLECTION_NAMES: dict[str, str] = {code: c.label for code, c in COLLECTIONS.items()}

# ---- translators ---------------------------------------------------------------------------------------------
# SuttaCentral names a translation file by its translator (`…_translation-en-soma.json`). The default translator
# of a basket answers; another translation of the same text is shown beside it as an alternative rendering.
TRANSLATORS: dict[str, str] = {
    "sujato": "Bhikkhu Sujato",
    "brahmali": "Bhikkhu Brahmali",
    "soma": "Bhikkhu Soma",
    "suddhaso": "Suddhaso",
}
DEFAULT_TRANSLATORS: dict[str, str] = {"sutta": "sujato", "vinaya": "brahmali"}


def translator_name(code: str) -> str:
    return TRANSLATORS.get(code, code.capitalize())


def find_translator(name: str) -> str | None:
    """The translator code for a name as written (`Soma`, `Bhikkhu Soma`, `suddhaso`), else None."""
    words = set(re.findall(r"[a-z]+", fold(name)))
    return next((code for code in TRANSLATORS if code in words), None)


# ---- books -----------------------------------------------------------------------------------------------------
# How a book numbers its texts: "21" (number), "35.28" (group.number), "1.1" or "3" (either), or not at all.
Numbering = Literal["number", "group", "optional-group", "none"]


@dataclass(frozen=True)
class Book:
    uid: str  # the uid prefix: "mn", "pli-tv-bu-vb-pj"
    display: str  # the display prefix as SuttaCentral writes it: "MN", "Bu Pj"
    collection: str
    english: str
    pali: str
    numbering: Numbering = "number"
    group_name: str = ""  # what a group is called: saṁyutta, nipāta, vagga, part
    # uids may be ranges (`an1.1-10`, `sn12.104-114`, `dhp1-20` as a verse range, `pli-tv-bu-vb-as1-7`)
    ranges: bool = False
    # Names readers put before a number ("Majjhima Nikāya 21", "Pārājika 1"), folded, longest forms first.
    names: tuple[str, ...] = ()
    verse: bool = False  # verse throughout: segments are lines, shown one per line


    @property
    def basket(self) -> Basket:
        return COLLECTIONS[self.collection].basket

    @property
    def label(self) -> str:
        return f"{self.english} ({self.pali})"


_SUTTA_BOOKS = (
    Book("dn", "DN", "DN", "Long Discourses", "Dīgha Nikāya",
         names=("digha nikaya", "digha", "long discourses", "long discourse")),
    Book("mn", "MN", "MN", "Middle Discourses", "Majjhima Nikāya",
         names=("majjhima nikaya", "majjhima", "middle discourses", "middle discourse")),
    Book("sn", "SN", "SN", "Linked Discourses", "Saṁyutta Nikāya", "group", "saṁyutta", True,
         ("samyutta nikaya", "samyutta", "linked discourses", "linked discourse")),
    Book("an", "AN", "AN", "Numbered Discourses", "Aṅguttara Nikāya", "group", "nipāta", True,
         ("anguttara nikaya", "anguttara", "numbered discourses", "numbered discourse")),
    Book("kp", "Kp", "KN", "Basic Passages", "Khuddakapāṭha",
         names=("khuddakapatha", "khuddaka patha", "basic passages")),
    Book("dhp", "Dhp", "KN", "Sayings of the Dhamma", "Dhammapada", ranges=True,
         names=("dhammapada verses", "dhammapada verse", "dhammapada"), verse=True),
    Book("ud", "Ud", "KN", "Heartfelt Sayings", "Udāna", "group", "vagga", names=("udana", "heartfelt sayings")),
    Book("iti", "Iti", "KN", "So It Was Said", "Itivuttaka", names=("itivuttaka", "so it was said")),
    Book("snp", "Snp", "KN", "Anthology of Discourses", "Sutta Nipāta", "group", "vagga",
         names=("sutta nipata", "suttanipata", "anthology of discourses")),
    Book("thag", "Thag", "KN", "Verses of the Senior Monks", "Theragāthā", "group", "nipāta",
         names=("theragatha", "verses of the senior monks"), verse=True),
    Book("thig", "Thig", "KN", "Verses of the Senior Nuns", "Therīgāthā", "group", "nipāta",
         names=("therigatha", "verses of the senior nuns"), verse=True),
)

# The rule classes of the Suttavibhaṅga: uid code -> (display code, English as in SuttaCentral's name files, Pali).
_RULE_CLASSES = {
    "pj": ("Pj", "Expulsion", "Pārājika"),
    "ss": ("Ss", "Suspension", "Saṅghādisesa"),
    "ay": ("Ay", "Undetermined", "Aniyata"),
    "np": ("Np", "Relinquishment With Confession", "Nissaggiya Pācittiya"),
    "pc": ("Pc", "Confession", "Pācittiya"),
    "pd": ("Pd", "Acknowledgment", "Pāṭidesanīya"),
    "sk": ("Sk", "Rules for Training", "Sekhiya"),
    "as": ("As", "Settling Legal Issues", "Adhikaraṇasamatha"),
}


def _rule_books() -> tuple[Book, ...]:
    books = []
    for side, who, ordained in (("bu", "Monks’", "Bhikkhu"), ("bi", "Nuns’", "Bhikkhunī")):
        for code, (display, english, pali) in _RULE_CLASSES.items():
            if side == "bi" and code == "ay":
                continue  # the nuns' code has no undetermined rules
            folded = fold(pali)
            # "Pārājika 1" alone means the monks' rule, as in the commentaries; the nuns' needs "bhikkhunī".
            names = (f"bhikkhu {folded}", folded) if side == "bu" else (f"bhikkhuni {folded}",)
            books.append(Book(f"pli-tv-{side}-vb-{code}", f"{side.capitalize()} {display}", "Vb",
                              f"{who} {english}", f"{ordained} {pali}", ranges=True, names=names))
    return tuple(books)


_VINAYA_BOOKS = (
    *_rule_books(),
    Book("pli-tv-kd", "Kd", "Kd", "Chapters", "Khandhaka", names=("khandhaka",)),
    Book("pli-tv-pvr", "Pvr", "Pvr", "Compendium", "Parivāra", "optional-group", "part", names=("parivara",)),
    Book("pli-tv-bu-pm", "Bu Pm", "Pm", "Monks’ Monastic Code", "Bhikkhu Pātimokkha", "none",
         names=("bhikkhu patimokkha",)),
    Book("pli-tv-bi-pm", "Bi Pm", "Pm", "Nuns’ Monastic Code", "Bhikkhunī Pātimokkha", "none",
         names=("bhikkhuni patimokkha",)),
)

BOOKS: dict[str, Book] = {b.uid: b for b in (*_SUTTA_BOOKS, *_VINAYA_BOOKS)}


# The Pali words that name the canon's parts — baskets, collections, the Minor Collection's books ("Vinaya",
# "Dīgha Nikāya", "Dhammapada", "suttas"): in a question they say where to look (tools.references reads them as
# hints), not what the passage says, so they are not searched for in the Pali text. Folded, ṁ as m.
CANON_NAME_WORDS: frozenset[str] = frozenset(
    w for name in (*("sutta", "suttanta", "vinaya", "pitaka", "nikaya"), *(c.pali for c in COLLECTIONS.values()),
                   *(b.pali for b in BOOKS.values() if b.collection == "KN"))
    for w in re.findall(r"[a-z]+", fold(name).replace("ṁ", "m"))
)


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


BY_DISPLAY: dict[str, Book] = {_letters(b.display): b for b in BOOKS.values()}  # "bupj" -> Bu Pj


def find_book(name: str) -> Book | None:
    """A book by its display prefix in any case or spacing (`Bu Pj`, `bupj`, `dhp`) or by its uid prefix."""
    return BY_DISPLAY.get(_letters(name)) or BOOKS.get(name.strip().lower())

# The number part of a uid, by numbering; a range (`-114`) only where the book has range uids.
_UID_NUMBER = {"number": r"\d+", "group": r"\d+\.\d+", "optional-group": r"\d+(?:\.\d+)?", "none": r""}


def _alternation(items) -> str:
    return "|".join(re.escape(x) for x in sorted(items, key=len, reverse=True))


_UID = re.compile(rf"^(?P<book>{_alternation(BOOKS)})(?P<number>[\d.\-]*)$")


def _display_pattern(book: Book) -> str:
    # `Bu Pj` is also written `bu pj`, `BuPj` and `Bu. Pj.`
    return r"\.?\s*".join(re.escape(word) for word in book.display.split())


_DISPLAY = re.compile(
    "^(?P<book>" + "|".join(_display_pattern(b) for b in sorted(BOOKS.values(), key=lambda b: -len(b.display)))
    + r")\.?\s*(?P<number>[\d.\-–]*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ParsedUid:
    book: str  # the uid prefix: "mn", "pli-tv-bu-vb-pj"
    number: str  # "21", "35.28", "12.104-114", "" for a Pātimokkha

    @property
    def info(self) -> Book:
        return BOOKS[self.book]

    @property
    def uid(self) -> str:
        return f"{self.book}{self.number}"

    @property
    def sutta_id(self) -> str:
        """The display ID: `MN 21`, `Bu Pj 3`, `Bu Pm`."""
        display = self.info.display
        return f"{display} {self.number}" if self.number else display

    @property
    def collection(self) -> str:
        return self.info.collection

    @property
    def basket(self) -> Basket:
        return self.info.basket

    @property
    def book_label(self) -> str:
        return self.info.display

    @property
    def group(self) -> int | None:
        """The saṁyutta, nipāta, vagga or part (`sn35.28` -> 35); None where the text has no group."""
        if "." in self.number:
            return int(self.number.split(".")[0])
        return None

    def span(self) -> tuple[int, int]:
        """The first and last text number this uid covers (`sn12.104-114` covers 104–114); (0, 0) unnumbered."""
        last = self.number.split(".")[-1]
        if not last:
            return 0, 0
        lo, _, hi = last.partition("-")
        return int(lo), int(hi or lo)


def parse_uid(uid: str) -> ParsedUid | None:
    m = _UID.match(uid.strip().lower())
    if not m:
        return None
    book, number = m.group("book"), m.group("number")
    info = BOOKS[book]
    shape = _UID_NUMBER[info.numbering] + (r"(?:-\d+)?" if info.ranges else "")
    if not re.fullmatch(shape, number):
        return None
    return ParsedUid(book, number)


def uid_to_sutta_id(uid: str) -> str:
    """`mn21` -> `MN 21`, `pli-tv-bu-vb-pj3` -> `Bu Pj 3`, `pli-tv-bu-pm` -> `Bu Pm`."""
    parsed = parse_uid(uid)
    if parsed is None:
        raise ValueError(f"not a SuttaCentral uid: {uid!r}")
    return parsed.sutta_id


def sutta_id_to_uid(sutta_id: str) -> str:
    """`MN 21` -> `mn21`, `Bu Pj 3` (or `bu pj 3`, `BuPj3`) -> `pli-tv-bu-vb-pj3`, `Bu Pm` -> `pli-tv-bu-pm`."""
    m = _DISPLAY.match(sutta_id.strip())
    if m:
        book = BY_DISPLAY[_letters(m.group("book"))]
        uid = f"{book.uid}{m.group('number').replace('–', '-')}"
        if parse_uid(uid) is not None:
            return uid
    raise ValueError(f"not a display ID: {sutta_id!r}")


def segment_ref(seg_id: str) -> str:
    """`mn21:20.1` -> `MN 21:20.1`, `pli-tv-bu-vb-pj1:5.1.1` -> `Bu Pj 1:5.1.1`: the form citations use."""
    uid, _, local = seg_id.partition(":")
    return f"{uid_to_sutta_id(uid)}:{local}" if local else uid_to_sutta_id(uid)


def is_heading(seg_id: str) -> bool:
    """`dn16:6.1.0` ("35. The Buddha's Last Words") and the `:0.x` title block are headings, not text."""
    local = seg_id.partition(":")[2]
    return local.startswith("0.") or local.endswith(".0")


def segment_key(seg: str) -> tuple[int, ...]:
    """The numbers of a segment's local part, for ordering segments of one text: `mn21:3.10` -> (3, 10), after
    (3, 9); a bare local part (`3.10`) works too. `3` is a prefix of every key in section 3, so a range ending at
    `3` takes them all. (Some bilara segments are ranges themselves, `dn12:20-55.1` -> (20, 55, 1).)"""
    return tuple(int(n) for n in re.findall(r"\d+", seg.rpartition(":")[2]))


def section_of(seg: str) -> str:
    """The section (paragraph) a segment is in: `sn35.63:2.6` -> `sn35.63:2`; a segment with no dot is its own."""
    return seg.rpartition(".")[0] or seg


def segment_distance(a: str, b: str) -> tuple[int, int]:
    """How far apart two segments of one text are, section first: which of several passages is nearest."""
    ka, kb = segment_key(a) + (0, 0), segment_key(b) + (0, 0)
    return abs(ka[0] - kb[0]), abs(ka[1] - kb[1])


# ---- documents outside SuttaCentral (Markdown notes, PDFs, text and table files) ------------------------------
# They have no sutta ID and no segment numbers of their own. Their units (a paragraph, a PDF text block, a Q&A pair,
# a table row) are numbered by their order in the document, and a citation names the document by its title with
# the place: the page for a PDF (`Dhamma talk p. 3`, `Dhamma talk pp. 3–4`), the unit's number otherwise
# (`Retreat notes ¶2`, `Retreat notes ¶2–3`). tools.references parses the same forms back.
PARAGRAPH_MARK = "¶"


def unit_id(doc_id: str, ord_: int) -> str:
    """The segment ID of a document's unit that has none of its own: `markdown:notes.md#1a2b3c4d:3` (0-based)."""
    return f"{doc_id}:{ord_}"


def unit_ord(seg_id: str) -> int | None:
    """The unit's position in its document from `unit_id`'s form, or None for a SuttaCentral segment ID."""
    tail = seg_id.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def document_title(title: str) -> str:
    """A document's title as a citation writes it: one line, without the characters that delimit citations."""
    return " ".join(re.sub(r"[\[\];]", " ", title).split())


def document_place(first: int, last: int, *, pages: bool) -> str:
    """`p. 3`, `pp. 3–4` (pages, 1-based) or `¶2`, `¶2–3` (unit numbers, 1-based)."""
    if pages:
        return f"p. {first}" if first == last else f"pp. {first}–{last}"
    return f"{PARAGRAPH_MARK}{first}" if first == last else f"{PARAGRAPH_MARK}{first}–{last}"


def document_ref(title: str, ords: list[int] | tuple[int, ...], pages: list[int | None] | tuple[int | None, ...] = ()
                 ) -> str:
    """The citation of units `ords` (0-based) of a document: by page when every unit has one (a PDF), else by
    unit number; the title alone when no unit is known."""
    name = document_title(title)
    known_pages = [p for p in pages if p is not None]
    if known_pages and len(known_pages) == len(pages):
        return f"{name} {document_place(min(known_pages), max(known_pages), pages=True)}"
    if ords:
        return f"{name} {document_place(min(ords) + 1, max(ords) + 1, pages=False)}"
    return name
