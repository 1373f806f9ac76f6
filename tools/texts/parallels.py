"""A text's parallels, answered from SuttaCentral's table: each by SuttaCentral's ID, full or partial, whether this
library holds it, and its address on suttacentral.net.

The table (indexing/sources/parallels.py, read at ingest) relates texts of every tradition; only the Pali ones are
in this library. Which tradition an ID belongs to is read from SuttaCentral's own uid prefixes (`ma`, `sa`, `da`,
`ea`, `t` and `lzh-…` are Chinese; `san-…`, `sf`, `sht`, `uv` Sanskrit; `xct-…`, `d`, `up` Tibetan; `gdhp`, `g`
Gāndhārī), so "the Chinese version" or "a parallel in the Madhyama Āgama" narrows the list without a list of cases.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.language.words import fold
from tools.texts.lookup import ParallelText
from tools.texts.table_text import Block, TableText, item, line, said

SUTTACENTRAL = "https://suttacentral.net/"

# SuttaCentral's uid prefixes of the texts outside the Pali canon, by language
_LANGUAGE_PREFIXES: dict[str, tuple[str, ...]] = {
    "Chinese": ("ma", "sa", "da", "ea", "t", "lzh"),
    "Sanskrit": ("san", "sf", "sht", "uv", "divy", "mvu", "avs"),
    "Tibetan": ("xct", "d", "up"),
    "Gāndhārī": ("gdhp", "g", "pgd"),
}
# collections a reader names: words -> (what to call them, uid prefixes)
_COLLECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (r"madhyama|middle[- ]length agama", "the Madhyama Āgama (MA)", ("ma",)),
    (r"samyukta|connected agama", "the Saṁyukta Āgama (SA)", ("sa",)),
    (r"dirgha|long agama", "the Dīrgha Āgama (DA)", ("da",)),
    (r"ekottarika|ekottara|numbered agama", "the Ekottarika Āgama (EA)", ("ea",)),
    (r"taisho", "the Taishō canon (T)", ("t",)),
)
_LANGUAGE_WORDS: tuple[tuple[str, str], ...] = (
    (r"chinese|agamas?", "Chinese"),
    (r"sanskrit", "Sanskrit"),
    (r"tibetan", "Tibetan"),
    (r"gandhari", "Gāndhārī"),
    (r"pali|elsewhere in the (?:canon|suttas)|this library|our library", "Pali"),
)
# IDs of texts outside this library as SuttaCentral writes them: MA 106, EA 44.6, SA 197, T 94, SF 270
FOREIGN_ID = re.compile(r"\b(MA|SA|DA|EA|T|SF|SHT|UV|D|UP)\s?(\d+(?:\.\d+)*)\b")
# the Pali texts SuttaCentral relates that this library does not hold (the Niddesas, Nettipakaraṇa, Milinda …)
_PALI_PREFIX = re.compile(r"pli|mnd|cnd|ne|pe|mil|ja|kv|tha|thi|ps|vb")
_PREFIX = re.compile(r"^([a-z]+(?:-[a-z]+)*?)-?(\d.*)?$")


def foreign_ids(text: str) -> list[str]:
    """The IDs of texts outside this library a text names, as SuttaCentral writes them (`MA 106`)."""
    return list(dict.fromkeys(f"{a} {n}" for a, n in FOREIGN_ID.findall(text)))


def foreign_uid(sutta_id: str) -> str | None:
    """`MA 106` -> `ma106`; None for anything that is not such an ID."""
    m = FOREIGN_ID.fullmatch(sutta_id.strip())
    return f"{m.group(1).lower()}{m.group(2)}" if m else None


def prefix_of(uid: str) -> str:
    m = _PREFIX.match(uid.lower())
    return m.group(1) if m else uid.lower()


def sc_id(uid: str) -> str:
    """SuttaCentral's ID as it writes it: `ma106` -> `MA 106`, `ea44.6` -> `EA 44.6`, `t94` -> `T 94`; a uid of a
    Pali text is written as the library writes it (`kp9` -> `Kp 9`)."""
    from indexing.vocabulary import parse_uid

    parsed = parse_uid(uid)
    if parsed is not None:
        return parsed.sutta_id
    m = re.match(r"^([a-z]+)(\d.*)$", uid.lower())
    return f"{m.group(1).upper()} {m.group(2)}" if m else uid


def language_of(p: ParallelText) -> str:
    if p.in_library:
        return "Pali"
    head = prefix_of(p.sutta_id).split("-")[0]
    for language, prefixes in _LANGUAGE_PREFIXES.items():
        if head in prefixes:
            return language
    return "Pali" if _PALI_PREFIX.fullmatch(head) else "other"


@dataclass(frozen=True)
class Scope:
    """Which parallels the question asks for: a language, or one collection by its uid prefixes."""

    label: str
    language: str = ""
    prefixes: tuple[str, ...] = ()

    def admits(self, p: ParallelText) -> bool:
        if self.prefixes:
            return prefix_of(p.sutta_id) in self.prefixes
        return language_of(p) == self.language


def scope_of(question: str) -> Scope | None:
    """The tradition or collection the question narrows its parallels to, None for all of them."""
    folded = fold(question)
    for words, label, prefixes in _COLLECTIONS:
        if re.search(rf"\b(?:{words})\b", folded):
            return Scope(label, prefixes=prefixes)
    for words, language in _LANGUAGE_WORDS:
        if re.search(rf"\b(?:{words})\b", folded):
            label = "the Pali canon" if language == "Pali" else (
                "the Chinese Āgamas and other Chinese texts" if language == "Chinese" else f"{language} texts")
            return Scope(label, language=language)
    return None


def link(p: ParallelText) -> str:
    return SUTTACENTRAL + (p.uid or p.sutta_id)


def describe(p: ParallelText) -> str:
    """One line of the answer: `MA 106, a full parallel, not in this library: https://suttacentral.net/ma106`."""
    name = sc_id(p.uid) if not p.in_library else p.sutta_id
    part = f" (its §{p.section})" if p.section else ""
    title = f" “{p.title}”" if p.title else ""
    extent = "a partial parallel" if p.partial or p.section or p.own_section else "a full parallel"
    where = "in this library" if p.in_library else "not in this library"
    return f"{name}{title}{part}: {extent}, {where} — {link(p)}"


def parallels_report(sutta_id: str, uid: str, title: str, parallels: list[ParallelText],
                     scope: Scope | None) -> TableText:
    """The parallels of one text as plain sentences and a list, from SuttaCentral's table alone."""
    related = [p for p in parallels if p.kind == "parallels"]
    mentions = [p for p in parallels if p.kind != "parallels"]
    name = f"{sutta_id} ({title})" if title else sutta_id
    if not related and not mentions:
        return TableText((line(said(f"SuttaCentral's table of parallels lists no parallel of {name}.")),))
    chosen = [p for p in related if scope is None or scope.admits(p)]
    blocks: list[Block] = []
    if scope is not None and not chosen:
        blocks.append(line(said(f"SuttaCentral's table of parallels lists no parallel of {name} in {scope.label}.")))
        chosen = related
        if chosen:
            blocks.append(line(said(f"It lists {_count(len(chosen))} in all:")))
    elif scope is not None:
        blocks.append(line(said(
            f"SuttaCentral's table of parallels lists {_count(len(chosen))} of {name} in {scope.label}:")))
    else:
        blocks.append(line(said(f"SuttaCentral's table of parallels lists {_count(len(chosen))} of {name}:")))
    shown = chosen[:12]
    blocks.extend(item(said(describe(p))) for p in shown)
    if len(chosen) > len(shown):
        blocks.append(item(said(f"and {len(chosen) - len(shown)} more, listed at {SUTTACENTRAL}{uid}")))
    if scope is None and mentions:
        named = ", ".join(sc_id(p.uid) if not p.in_library else p.sutta_id for p in mentions[:6])
        blocks.append(line(said(f"The table also lists texts that mention or retell it: {named}.")))
    held = [p for p in shown if p.in_library]
    if shown and not held:
        blocks.append(line(said("None of them is in this library, which holds the Pali canon only; the others are "
                                "known here by their SuttaCentral IDs.")))
    return TableText(tuple(blocks))


def _count(n: int) -> str:
    return "one parallel" if n == 1 else f"{n} parallels"
