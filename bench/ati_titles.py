"""Other translators' titles from Access to Insight's sutta indexes, checked against our texts, as alias rows.

    python bench/ati_titles.py INDEX_HTML... [--index var/index] [--out rows.csv]

Each INDEX_HTML is one of Access to Insight's `tipitaka/{dn,mn,sn,an}/index.html` or
`tipitaka/kn/{ud,snp,thag,thig}/index.html` (the site's offline edition, e.g. the public mirror
https://github.com/alexgenaud/AccessToInsight at 9f446378e0b1; not shipped with the repo; the index pages are
licensed CC BY 4.0 by Access to Insight, as each page's metadata states), or one of dhammatalks.org's
`suttas/{DN,MN,SN,AN}/index_*.html`, `suttas/KN/Ud/index_Ud.html` (Ṭhānissaro Bhikkhu's own site, mirrored at
https://github.com/digitalpalireader/dhammatalks; content released under CC BY-NC 4.0).
Every listed translation gives a row per English title (a slash separates two translators' titles: "The Removal of
Distracting Thoughts/The Relaxation of Thoughts"), and one per Pali name where ours differs or is missing (AN 1.47 has
no Pali title of its own; ATI calls it "Mudu Sutta"). A text is kept only when its ID exists in our corpus and the
index's own Pali name for it matches our Pali title or resolves (through `resolve_alias`'s Pali ways) to that ID among
its candidates: Access to Insight numbers some texts otherwise than SuttaCentral, and a title filed under the wrong ID
would send readers to the wrong sutta.

A text the check rejects is looked for once more, in three ways that each verify the number from our own texts,
not from the index:
- **One of a numbered set.** The names agree once a leading ordinal is set aside ("Mettā Sutta" and
  "Dutiyamettāsutta"), and the index says which of the set it means ("Goodwill (2)") or no text within `OFFSET` of it
  bears the name too.
- **Numbered otherwise.** Exactly one text of ours in the same chapter within `OFFSET` of the index's number has the
  name (by the closer `MOVED_NAME`), its lines hold every word of the English title, and the text at the index's
  number does not: the titles are filed under that text (dhammatalks.org's "AN 3:83 Gadrabha Sutta | The Donkey" is
  our AN 3.82, "Gadrabhasutta"; ATI numbers some of the Pārāyana questions one lower than SuttaCentral).
- **No Pali title of ours.** Many short texts of AN have none. The English title is kept when its every word is in
  that text's own lines and not every one in any other text's within `OFFSET`: the title then singles out the text
  at that number ("Skillful & Unskillful", AN 2.19), where "A Share in Clear Knowing" is not in AN 2.29's lines.

Rows are printed (or written with --out) in `indexing/data/other_titles.csv`'s columns; the rejected ones go to
stderr.
"""

from __future__ import annotations

import argparse
import csv
import html
import re
import sys
from pathlib import Path

from rapidfuzz import fuzz

from indexing.pali_index import nasal
from indexing.settings import ScholarSettings
from indexing.text import fold
from indexing.vocabulary import is_heading, sutta_id_to_uid
from tools.language.words import words
from tools.library import Library
from tools.search.names import resolve_name
from tools.verification.evidence import matches_any

# a title and the translators listed after it, never reaching past the next title (some titles list none)
_ENTRY = re.compile(r"<span class='sutta_title'>(?P<title>(?:(?!</span>).)*)</span>(?:(?!class='sutta_title').)*?"
                    r"<span class='sutta_trans'>(?P<trans>.*?)</span>", re.S)
_HEAD = re.compile(r"^(?P<id>(?:DN|MN|SN|AN|Ud|Sn|Thag|Thig) [\d.]+): (?P<pali>.+?) &mdash; (?P<english>.+)$")
_BOOK = {"Sn": "Snp"}  # Access to Insight's abbreviation -> SuttaCentral's, where they differ
SAME_NAME = 80.0  # edit ratio of the folded Pali names, "sutta" dropped
MOVED_NAME = 90.0  # the same, for a title filed under another number than the index gives
OFFSET = 3  # how far another numbering may run from ours within a chapter
# Pali ordinals that open a title ("Paṭhamanānātitthiyasutta"), folded, by the number an index writes "(1)"
_ORDINALS = {"pathama": 1, "dutiya": 2, "tatiya": 3, "catuttha": 4, "pancama": 5, "chattha": 6, "sattama": 7,
             "atthama": 8, "navama": 9, "dasama": 10}


def _compound(pali: str) -> str:
    return re.sub(r"(?:sutta|suttam|suttanta)$", "", re.sub(r"[^a-z]", "", nasal(fold(pali))))


def _ordinal(compound: str) -> tuple[int | None, str]:
    """A folded Pali title's leading ordinal and the rest: ("pathamananatitthiya") -> (1, "nanatitthiya")."""
    for word, n in _ORDINALS.items():
        if compound.startswith(word) and len(compound) > len(word) + 2:
            return n, compound[len(word):]
    return None, compound


def same_name(theirs: str, ours: str, english: list[str] = (), ratio: float = SAME_NAME) -> bool:
    """Whether an index's Pali name ("Tittha Sutta (1)") names the text whose Pali title is `ours` (a folded
    compound, "sutta" dropped): the same ratio as the first check, once a leading ordinal is set aside, and the
    ordinals, where both give one, the same (the index's may be in its English title: "Trainings (2)")."""
    their_n = re.search(r"\((\d+)\)", theirs) or next(
        (m for t in english if (m := re.search(r"\((\d+)\)", t))), None)
    their_rest = _compound(re.sub(r"\s*\(.*?\)", "", theirs).replace(".", ""))
    their_ordinal, their_rest = _ordinal(their_rest)
    if their_n:
        their_ordinal = int(their_n.group(1))
    our_ordinal, our_rest = _ordinal(ours)
    if their_ordinal and our_ordinal and their_ordinal != our_ordinal:
        return False
    return bool(their_rest) and bool(our_rest) and fuzz.ratio(their_rest, our_rest) >= ratio


def _neighbours(sutta_id: str, reach: int) -> list[str]:
    """The IDs within `reach` of `sutta_id` in its chapter, nearest first: "AN 3.83" -> AN 3.82, AN 3.84, …"""
    head, _, last = sutta_id.rpartition(".") if "." in sutta_id else sutta_id.rpartition(" ")
    if not last.isdigit():
        return []
    sep = "." if "." in sutta_id else " "
    return [f"{head}{sep}{int(last) + d}" for k in range(1, reach + 1) for d in (-k, k) if int(last) + d > 0]


class Texts:
    """The words of our texts' own lines by ID (of a range document's, only that text's: AN 2.19 in `an2.11-20`)."""

    def __init__(self, lib: Library):
        self.lib = lib
        self._words: dict[str, frozenset[str] | None] = {}

    def words(self, sutta_id: str) -> frozenset[str] | None:
        if sutta_id not in self._words:
            self._words[sutta_id] = self._read(sutta_id)
        return self._words[sutta_id]

    def _read(self, sutta_id: str) -> frozenset[str] | None:
        try:
            uid = sutta_id_to_uid(sutta_id)
        except ValueError:
            return None
        doc = self.lib.evidence.resolve(sutta_id)
        view = self.lib.evidence.sutta(doc.doc_id) if doc is not None else None
        if view is None:
            return None
        lines = [s for s in view.segments if s.seg_id.partition(":")[0] == uid and not is_heading(s.seg_id)]
        return frozenset(t for s in lines for t in s.tokens) or None

    def hold(self, sutta_id: str, title: str) -> bool:
        """Whether every word of an English title is in the text's own lines."""
        wanted = set(words(title))
        held = self.words(sutta_id)
        return bool(wanted) and held is not None and all(matches_any(w, held) for w in wanted)

    def single_out(self, sutta_id: str, title: str) -> bool:
        """Whether every word of an English title is in the text's own lines and not every one in any other text's
        within `OFFSET` of it (a number an index may have put it at)."""
        return self.hold(sutta_id, title) and not any(self.hold(n, title) for n in _neighbours(sutta_id, OFFSET))


def recover(texts: Texts, pali_title: dict[str, str], sutta_id: str, name: str, english: list[str]) -> str | None:
    """The text of ours a rejected entry names after all (see the module's docstring), or None."""
    ours = pali_title.get(sutta_id)
    if ours:
        if same_name(name, ours, english):
            # one of a numbered set ("Paṭhama…", "Dutiya…") only where the index says which ("Goodwill (2)")
            rivals = [n for n in _neighbours(sutta_id, OFFSET) if pali_title.get(n)
                      and same_name(name, pali_title[n], english)]
            return None if rivals else sutta_id
    elif ours == "" and english and all(texts.single_out(sutta_id, t) for t in english):
        return sutta_id
    # Moved only on firmer ground: a closer name (short names are near by chance: "Dāna" and "Nidāna" are at 80),
    # an English title whose words the other text's lines hold, and not all of them this one's ("Sāriputta", Ud 4.10,
    # names Ud 4.7's speaker too).
    if english and all(texts.hold(sutta_id, t) for t in english):
        return None
    near = [n for n in _neighbours(sutta_id, OFFSET) if pali_title.get(n)
            and same_name(name, pali_title[n], english, MOVED_NAME)
            and all(texts.hold(n, t) for t in english)]
    return near[0] if len(near) == 1 else None


_TRANSLATOR = re.compile(r"title='Translated by ([^']+)'")


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment)).strip()


# dhammatalks.org's indexes: `<a href="…">AN&thinsp;2:24</a>&nbsp; Neyyattha Sutta | A Meaning to be Inferred</strong>`;
# entries without a Pali name (Sn, Thag: English only) cannot be checked against our Pali titles and are skipped
_DT_ENTRY = re.compile(r"<li><strong><a href=\"[^\"]*\">(?P<id>(?:DN|MN|SN|AN|Ud)&thinsp;[\d:]+)</a>&nbsp;\s*"
                       r"(?P<pali>[^<|]+?)\s*\|\s*(?P<english>[^<]+?)\s*</strong>")
DHAMMATALKS_TRANSLATOR = "Ṭhānissaro Bhikkhu"
_GROUP = re.compile(r"\([A-Z][A-Za-z]*\s*\d+[:.]\d+\s*[–-]")


def entries(page: str) -> list[tuple[str, str, list[str], list[str]]]:
    """(sutta ID, Pali name, English titles, translators) for every sutta the index page lists (an Access to
    Insight index page, or a dhammatalks.org one)."""
    if "class='sutta_title'" not in page:
        return _dhammatalks_entries(page)
    out = []
    for m in _ENTRY.finditer(page):
        head = _HEAD.match(re.sub(r"<[^>]+>", "", m.group("title")).strip())
        if not head:
            continue
        # Velthuis-style spellings: `Upaneyya.m`, `Maanakaamo` (ā written aa)
        pali = html.unescape(head.group("pali")).replace(".m", "m").replace(".n", "n")
        pali = re.sub(r"([aiu])\1", r"\1", pali)
        english = [t.strip() for t in html.unescape(head.group("english")).split("/") if t.strip()]
        translators = sorted({html.unescape(t) for t in _TRANSLATOR.findall(m.group("trans"))})
        book, number = head.group("id").split(" ", 1)
        out.append((f"{_BOOK.get(book, book)} {number}", _text(pali), english, translators))
    return out


def _dhammatalks_entries(page: str) -> list[tuple[str, str, list[str], list[str]]]:
    out = []
    for m in _DT_ENTRY.finditer(page):
        if _GROUP.search(_text(m.group("pali"))):
            continue  # "Pabhassara Suttas (AN 1:50–53)": the title of a run of texts, not of the first one
        book, number = html.unescape(m.group("id")).split("\u2009", 1)
        english = [t.strip() for t in _text(m.group("english")).split("/") if t.strip()]
        out.append((f"{book} {number.replace(':', '.')}", _text(m.group("pali")), english, [DHAMMATALKS_TRANSLATOR]))
    return out


def _source(page: Path) -> str:
    parts = page.parts
    if "tipitaka" in parts:
        return "Access to Insight, " + "/".join(parts[parts.index("tipitaka"):])
    if "suttas" in parts:
        return "dhammatalks.org, " + "/".join(parts[parts.index("suttas"):])
    return f"Access to Insight, tipitaka/{page.parent.name}/{page.name}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", type=Path)
    parser.add_argument("--index", type=Path, default=ScholarSettings().index_dir)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()

    lib = Library.open(ScholarSettings(index_dir=args.index))
    pali_title = {c.sutta_id: _compound(c.title_pali) for c in lib.names.cards.cards.values()}
    texts = Texts(lib)
    rows, rejected, recovered = [], 0, 0
    for page in args.pages:
        source = _source(page)
        for sutta_id, pali, english, translators in entries(page.read_text(encoding="utf-8")):
            name = re.sub(r"\s*\(.*?\)", "", pali).replace(".", "")
            ours = pali_title.get(sutta_id)
            titles = list(english)
            if ours is None:
                found = []
            elif ours and fuzz.ratio(_compound(name), ours) >= SAME_NAME:
                found = [sutta_id]
            else:  # no Pali title of ours, or another word for it: a word of the text's opening Pali may name it
                found = [c.sutta_id for c in resolve_name(lib, name).candidates]
                # and the Pali names, which readers then use, are names we lack ("Donapaka Sutta/Donapaka Sutta")
                titles += sorted({n.strip() for n in name.split("/") if n.strip()})
            if sutta_id not in found and (moved := recover(texts, pali_title, sutta_id, pali, english)) is not None:
                sys.stderr.write(f"recovered {sutta_id} {pali!r} {english} as {moved}\n")
                recovered += 1
                titles = list(english) + sorted({n.strip() for n in name.split("/") if n.strip()})
                sutta_id, found = moved, [moved]
            if sutta_id not in found:
                rejected += 1
                sys.stderr.write(f"rejected {sutta_id} {pali!r} {english}: resolves to {found[:3]}\n")
                continue
            for title in titles:
                rows.append({"alias": title, "sutta_id": sutta_id, "translator": "; ".join(translators),
                             "source": f"{source}, {pali}"})
    sys.stderr.write(f"{len(rows)} rows kept, {recovered} suttas recovered, {rejected} suttas rejected\n")
    fh = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
    writer = csv.DictWriter(fh, fieldnames=["alias", "sutta_id", "translator", "source"])
    writer.writeheader()
    writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
