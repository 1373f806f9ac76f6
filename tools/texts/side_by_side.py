"""Translations side by side: "How does Suddhaso translate Dhp 1?", "Compare Sujato's and Soma's Thig 1.1".

Every translation of a text in the library shares its segment IDs (`thig1.1@soma` beside `thig1.1`), so the same
segment is shown in each translator's words under its Pali. A translator the question names whom the library does
not hold for that text is said so plainly, with the translators it does hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from indexing.vocabulary import TRANSLATORS, find_book, is_heading, segment_ref, translator_name
from tools.language.words import fold, word_set
from tools.passages import nested_quotes
from tools.texts.table_text import Block, TableText, heading, item, line, quoted, said

MAX_SEGMENTS = 8

_ASKS = re.compile(r"\b(?:translat\w*|render\w*|rendition)\b")
# "Is there another translation of Thig 10.1?": a translation beside the one the reader has is asked for
_COMPARE = re.compile(r"\b(?:compare\w*|comparison|differ\w*|difference|side by side|both|two|versions?|each|"
                      r"another|other|second|alternative|how does|how do|how did)\b")
_WORDING = re.compile(r"\b(?:versions?|wording|word(?:s|ed)? it|english|renders?|rendering)\b")
# where a question names a translator: "Bhikkhu Bodhi's translation", "translated by Thanissaro", "how does X
# translate"; the name is the capitalised word these leave
_NAMED = (
    re.compile(r"\b(?:Bhikkhu|Bhante|Ajahn|Ven\.?|Venerable)\s+([A-ZĀĪŪṬḌṆÑṄḶ][\w\u0300-\u036f-]+)"),
    re.compile(r"\b([A-ZĀĪŪṬḌṆÑṄḶ][\w\u0300-\u036f-]+)(?:'s|’s)\s+(?:and\s+\S+\s+)?(?:translations?|renderings?|"
               r"versions?|English)"),
    re.compile(r"\b(?:translated|rendered|translation|version) by\s+(?:Bhikkhu\s+|Ajahn\s+)?"
               r"([A-ZĀĪŪṬḌṆÑṄḶ][\w\u0300-\u036f-]+)"),
    re.compile(r"\b[Hh]ow (?:does|do|did)\s+(?:Bhikkhu\s+|Ajahn\s+|Bhante\s+)?([A-ZĀĪŪṬḌṆÑṄḶ][\w\u0300-\u036f-]+)\s+"
               r"(?:translate|render)"),
)
_NOT_NAMES = word_set("not_translator_names")


def asks_for_translations(question: str) -> bool:
    """The question asks how a text is translated, or to compare its translations."""
    folded = fold(question)
    known, unknown = translators_named(question)
    if not _ASKS.search(folded):
        # "Soma's version of Thig 1.1", "how do Sujato and Soma word it": a translator named beside such a word
        return bool(known) and bool(_WORDING.search(folded))
    return bool(_COMPARE.search(folded) or known or unknown)


def asks_about_translations(question: str) -> bool:
    """The question speaks of translations at all ("Are there other translations of the Therigatha?")."""
    return bool(_ASKS.search(fold(question)))


def translators_named(question: str) -> tuple[list[str], list[str]]:
    """(codes of the translators the library knows, names of the others) the question names."""
    words = set(re.findall(r"[a-z]+", fold(question)))
    known = [code for code in TRANSLATORS if code in words]
    unknown: list[str] = []
    for pattern in _NAMED:
        for name in pattern.findall(question):
            key = fold(name).strip("-")
            if key in _NOT_NAMES or key in TRANSLATORS or any(key == fold(TRANSLATORS[c]).split()[-1] for c in known):
                continue
            if name not in unknown:
                unknown.append(name)
    return known, unknown


@dataclass
class Comparison:
    text: TableText  # the answer, in plain sentences with the aligned lines
    doc_id: str = ""  # the default translation's document, whose segments are shown
    seg_ids: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # translators asked for that the library does not hold


def compare(docstore, sutta_id: str, doc_id: str, title: str, known: list[str], unknown: list[str],
            segment_filter=None) -> Comparison:
    """The text's translations held in the library, segment by segment with the Pali; `known`/`unknown`: the
    translators the question asked for (empty: all held)."""
    docs = [d for d in docstore.translations(sutta_id) if d.doc_id.partition("@")[0] == doc_id]
    held = {d.translator: d for d in docs if d.translator}
    names = [translator_name(t) for t in held]
    missing = [translator_name(t) for t in known if t not in held] + unknown
    blocks: list[Block] = []
    if missing:
        have = _and(names) or "no translation"
        blocks.append(line(said(f"The library holds no translation of {sutta_id} by {_and(missing)}; it holds "
                                f"{sutta_id} translated by {have}.")))
    wanted = [t for t in known if t in held]
    order = list(dict.fromkeys([*wanted, *held])) if len(wanted) < 2 else wanted
    if not held:
        blocks = blocks or [line(said(f"The library holds no translation of {sutta_id}."))]
        return Comparison(TableText(tuple(blocks)), missing=missing)
    default = next((d for d in docs if "@" not in d.doc_id), docs[0])
    segs = [s for s in docstore.segments(default.doc_id) if s.seg_id and s.en.strip()
            and not is_heading(s.seg_id)]
    if segment_filter is not None:
        segs = [s for s in segs if segment_filter(s.seg_id)] or segs
    total = len(segs)
    segs = segs[:MAX_SEGMENTS]
    others = {t: {s.seg_id: s.en for s in docstore.segments(held[t].doc_id)} for t in order if held[t] is not default}
    book = find_book(default.book)
    verse = book is not None and book.verse
    name = f"{sutta_id} “{title}”" if title else sutta_id
    if len(order) == 1:
        blocks.append(line(said(f"The library holds one translation of {name}, by {translator_name(order[0])}; "
                                "here it is beside the Pali.")))
    else:
        blocks.append(line(said(f"{name} as {_and([translator_name(t) for t in order])} translate it, segment by "
                                "segment, with the Pali:")))
    for seg in segs:
        blocks.append(heading(segment_ref(seg.seg_id)))
        if seg.pali.strip():
            blocks.append(item(quoted(f"Pali: {_line(seg.pali, verse)}")))
        for t in order:
            en = seg.en if held[t] is default else others.get(t, {}).get(seg.seg_id, "")
            blocks.append(item(quoted(f"{translator_name(t)}: “{nested_quotes(_line(en, verse))}”") if en.strip()
                               else said(f"{translator_name(t)}: (no rendering of this segment)")))
    if total > len(segs):
        blocks.append(line(said(f"(The first {len(segs)} of its {total} segments; name a segment, such as "
                                f"{segment_ref(segs[-1].seg_id)}, to compare another part.)"), paragraph=True))
    return Comparison(TableText(tuple(blocks)), default.doc_id, [s.seg_id for s in segs], missing)


def _line(text: str, verse: bool) -> str:
    text = text.strip()
    return text.replace("<j>", " / ") if verse else text.replace("<j>", " ")


def _and(items: list[str]) -> str:
    items = list(dict.fromkeys(items))
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
