"""Other translators' titles from BuddhaDust's sutta indexes, checked against our texts, as alias rows.

    python bench/other_titles.py BUDDHADUST_DIR [--index var/index] [--out rows.csv | --append other_titles.csv]

BUDDHADUST_DIR is a checkout of M. Olds' BuddhaDust site (buddhadust.net, also served as obo.genaud.net), e.g. the
public mirror https://github.com/alexgenaud/buddhadust at 5544e2eca424 (not shipped with the repo). Its sutta
indexes, `backmatter/indexes/sutta/{dn,mn,sn/*,an,kd/snp}/idx_*.htm`, list under each text the titles the printed
translations give it, each line marked with its book:

    DN  PTS: Dialogues of the Buddha (T.W. Rhys Davids)     WP: The Long Discourses of the Buddha (Maurice Walshe)
    MN  SBB: Further Dialogues of the Buddha (R. Chalmers)  PTS: The Middle Length Sayings (I.B. Horner)
        WP: The Middle Length Discourses of the Buddha (Ñāṇamoli & Bodhi)  PP: Ñāṇamoli's manuscript (Path Press)
    SN  PTS: The Book of the Kindred Sayings                WP: The Connected Discourses of the Buddha (Bodhi)
    AN  PTS: The Book of the Gradual Sayings                WP: The Numerical Discourses of the Buddha (Bodhi)
    Snp PTS: The Group of Discourses (K.R. Norman)          PTS/WP: The Suttanipāta (Bhikkhu Bodhi)

The index pages are the site's own work, which its copyright page (frontmatter/004_copyright.htm) places in the
public domain; a title is a fact about the book that gives it. Only those lines are read (the site's own
translations, Access to Insight's, Sister Upalavanna's are not: the first and last are not what readers cite, ATI's
are read by bench/ati_titles.py). A line linking to another text than the entry's ("see also") is skipped, and so is
a book's second line under one entry unless it carries the book's own number. A title numbered as a run of texts
("11-20: The Eye"), a chapter's title and an editor's note are no text's title and are skipped.

A text is kept, as in bench/ati_titles.py, only when the ID the index files it under exists in our corpus and the
index's own Pali name for it matches our Pali title or resolves (through `resolve_alias`'s exact and Pali ways, no
embedding, and without the titles table, so a rerun does not lean on what it appended) to that ID among its
candidates: BuddhaDust numbers the texts as the Pali Text Society's edition does,
which is not always SuttaCentral's. In the Aṅguttara the WP line carries Bodhi's own number, which is SuttaCentral's;
the title is filed under that number when the Pali name agrees with it there. Rows are printed (or written with
--out) in `indexing/data/other_titles.csv`'s columns, or with --append added to that table where it lacks them (same
alias and ID); the rejected ones go to stderr.
"""

from __future__ import annotations

import argparse
import csv
import html
import os
import re
import sys
from pathlib import Path
from typing import NamedTuple

from rapidfuzz import fuzz

from indexing.cards import name_rows
from indexing.pali_index import nasal
from indexing.settings import ScholarSettings
from indexing.text import fold
from tools.library import Library
from tools.search.names import resolve_name

INDEXES = "backmatter/indexes/sutta"
FIELDS = ["alias", "sutta_id", "translator", "source"]
SAME_NAME = 80.0  # edit ratio of the folded Pali names, "sutta" dropped (as bench/ati_titles.py)

# (book, the index's mark for a translation) -> (translator, the book it names), as the index pages' keys give them
BOOKS = {
    ("DN", "PTS"): ("T.W. Rhys Davids", "Dialogues of the Buddha (PTS)"),
    ("DN", "WP"): ("Maurice Walshe", "The Long Discourses of the Buddha (Wisdom)"),
    ("MN", "SBB"): ("R. Chalmers", "Further Dialogues of the Buddha (SBB)"),
    ("MN", "PTS"): ("I.B. Horner", "The Middle Length Sayings (PTS)"),
    ("MN", "WP"): ("Ñāṇamoli & Bodhi", "The Middle Length Discourses of the Buddha (Wisdom)"),
    ("MN", "PP"): ("Ñāṇamoli", "Ñāṇamoli's manuscript translation (Path Press)"),
    ("SN", "PTS"): ("", "The Book of the Kindred Sayings (PTS)"),
    ("SN", "WP"): ("Bhikkhu Bodhi", "The Connected Discourses of the Buddha (Wisdom)"),
    ("AN", "PTS"): ("", "The Book of the Gradual Sayings (PTS)"),
    ("AN", "WP"): ("Bhikkhu Bodhi", "The Numerical Discourses of the Buddha (Wisdom)"),
    ("Snp", "PTS"): ("K.R. Norman", "The Group of Discourses (PTS)"),
    ("Snp", "PTS/WP"): ("Bhikkhu Bodhi", "The Suttanipāta (Wisdom)"),
}


def _pts_translator(book: str, chapter: int) -> str:
    """The PTS translator of a saṁyutta or nipāta as the index pages' keys name him or her (the Aṅguttara's Fives to
    Nines pages name none)."""
    if book == "SN":
        return (
            "C.A.F. Rhys Davids"
            if chapter <= 11
            else "C.A.F. Rhys Davids & F.L. Woodward"
            if chapter <= 34
            else "F.L. Woodward"
        )
    if book == "AN" and (chapter <= 4 or chapter >= 10):
        return "F.L. Woodward"
    return "Pali Text Society"


class Entry(NamedTuple):
    sutta_id: str  # as the index numbers it
    pali: str
    titles: list[tuple[str, str, str]]  # (mark, English title, the book's own number); mark + "#": that number only


_ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5}
# the pages that list texts: DN's, MN's three, one a saṁyutta (in its vagga's folder), one a nipāta, the Sutta Nipāta's
_PAGE = re.compile(
    r"(?:^|/)(?:(?P<book>dn)/idx_digha_nikaya|(?P<mn>mn)/idx_majjhima_nikaya_\d|(?P<sn>sn)/\d\d_\w+/idx_"
    r"(?P<samyutta>\d\d)_[\w-]+|(?P<an>an)/idx_(?P<nipata>\d\d)_\w+nipata|kd/(?P<snp>snp)/idx_snp)\.htm$"
)
# an entry's anchor: `<a id="p12">`, `<a id="p147a">` (a text the PTS edition leaves untitled: skipped below);
# in the Sutta Nipāta `<a id="I.1" …>`; ranges (`p4-10`) title a run of texts, not one, and are no entry
_ANCHOR = re.compile(r"<a id=\"(?:p(?P<n>\d+[a-z]?)|(?P<vagga>[IV]+)\.(?P<sn>\d+))\"")
_HEADING_END = re.compile(r"</h\d>|</p>")
_BLOCK_END = re.compile(r"<h\d|<a id=\"(?:p\d|[IV]+\.\d|snp\d)")
_LINE = re.compile(r"<br\s*/?>|</?p[^>]*>|\n")
# `WP: …`, `<b>PTS</b>: …`, `WP, ATI: …` (one title two books give)
_MARK = re.compile(r"^(?:<b>)?(?P<mark>PTS/WP|PTS|WP|SBB|PP)(?:, [A-Z]{2,4})*(?:</b>)?:\s*(?P<rest>.*)$", re.S)
_HREF = re.compile(r"href=\"(?P<href>[^\"]*)\"")
_FILE_NUMBERS = re.compile(r"(?P<book>dn|mn|an|sn)(?:\d\d)?\.(?:(?P<chapter>\d\d)\.)?(?P<first>\d+)(?:-(?P<last>\d+))?")


def _text(fragment: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", fragment))).strip()


def _page_book(path: str) -> tuple[str, int] | None:
    m = _PAGE.search(path)
    if not m:
        return None
    book = next(b for b in ("book", "mn", "sn", "an", "snp") if m.group(b))
    return {"snp": "Snp"}.get(m.group(book), m.group(book).upper()), int(m.group("samyutta") or m.group("nipata") or 0)


def _links_elsewhere(line: str, book: str, sutta_id: str) -> bool:
    """Whether a line's link names another text than the entry's (a "see also" under it)."""
    m = _HREF.search(line)
    if not m:
        return False
    name = m.group("href").rsplit("/", 1)[-1].split("#", 1)[0]
    f = _FILE_NUMBERS.match(name)
    if not f or book == "Snp":
        return False
    if f.group("book").upper() != book:
        return True
    numbers = sutta_id.split(" ", 1)[1].split(".")
    number = int(re.match(r"\d+", numbers[-1]).group())
    if len(numbers) == 2 and f.group("chapter") is not None and int(f.group("chapter")) != int(numbers[0]):
        return True
    if book == "AN" and f.group("chapter") is None:  # `an04.001`: the chapter is the two digits after "an"
        chapter = re.match(r"an(\d\d)\.", name)
        if chapter and int(chapter.group(1)) != int(numbers[0]):
            return True
    first, last = int(f.group("first")), int(f.group("last") or f.group("first"))
    return not first <= number <= last


_NUMBER = re.compile(r"^#?(?P<number>\d+)(?:\s*\[\d+\])?(?:\s*[-–]\s*(?P<last>\d+))?(?:[.:]\s+|\s+(?=[A-Z]))")
_SNP_NUMBER = re.compile(r"^[IV]+\.\d+\.?:\s*")
_PALI_LEAD = re.compile(r"^.*\bSutta(?:nta)?[ṃɱm]?,\s*", re.I)


def _title(rest: str) -> tuple[str, str]:
    """(title, the book's own number) from what follows a line's mark: `1. <a …>Understood,</a> 387`,
    `The Rebuke to Mara, Ñanamoli Thera, trans., …`, `<a …>The Supreme Net</a>: What the Teaching is Not, Walshe …`.
    A title numbered as a run of texts (`11-20: The Eye`) is no text's own: the title comes back empty."""
    rest = rest.strip()
    number = ""
    link = re.match(r"^(?P<before>[^<]*)<a [^>]*>(?P<inner>.*?)</a>(?P<after>.*)$", rest, re.S)
    if link and len(_text(link.group("before"))) <= 8:  # at most a number before the link
        title = _text(link.group("before") + link.group("inner")).rstrip(" ,")
        after = _text(link.group("after"))
        if title.endswith(":") or after.startswith(":"):  # a subtitle outside the link
            title = title.rstrip(":") + ": " + after.lstrip(":").split(",", 1)[0].strip()
    else:
        title = _text(rest).split(", ", 1)[0].rstrip(" ,")
    m = _NUMBER.match(title)
    if m:
        if m.group("last"):
            return "", ""
        number, title = m.group("number"), title[m.end() :]
    title = _SNP_NUMBER.sub("", title)
    title = _PALI_LEAD.sub("", title) if "," in title else title  # SBB: `Mūla-Pariyāya-Suttaṃ, How States …`
    title = re.sub(r"^\([^)]*\)\s*", "", title)  # `(omitted/misnumbered in the original) Persevering …`
    title = re.sub(r"\s*\([^)]*\bSutta\)$", "", title).strip(" ,.;:")  # `Dhaniya (Dhaniya Sutta)`
    title = re.sub(r"\s+\d{3,4}$", "", title)  # a page number the line gives without a comma: `To Jīvaka 474`
    if title.startswith("[") and title.endswith("]") or re.match(r"(?:the same|(?:the )?chapter)\b", title, re.I):
        return "", ""  # `[Same as BPS version]`, `The same (b)`: a note; `The Chapter on the Serpent`: a chapter's
    return title, number


def entries(page: str, path: str) -> list[Entry]:
    """Every text an index page lists, with the titles of the books this reader takes (see BOOKS)."""
    book_chapter = _page_book(path)
    if book_chapter is None:
        return []
    book, chapter = book_chapter
    out = []
    for m in _ANCHOR.finditer(page):
        n = m.group("n")
        if n is not None and not n.isdigit():
            continue  # `p147a`: a text the PTS edition does not number apart
        if book == "Snp":
            if m.group("vagga") is None:
                continue
            sutta_id = f"Snp {_ROMAN[m.group('vagga')]}.{m.group('sn')}"
        elif m.group("n") is None:
            continue
        else:
            sutta_id = f"{book} {chapter}.{n}" if chapter else f"{book} {n}"
        head_end = _HEADING_END.search(page, m.end())
        if head_end is None:
            continue
        head = _text(page[m.start() : head_end.start()])
        if re.match(r"^#?\d+\s*[-–]\s*\d+", head):
            continue  # `#117-132: …`: a run of texts under one heading
        head = re.sub(r"^#?\d+[.:\]]?\s*", "", head)  # `1. Mūla-Pariyāya Suttaṃ, I.1`, `#1: Anubuddha Suttaṃ, 1`
        pali = re.sub(r"\s*\(.*?\)|\s+[IV]+\.\s?\d+$", "", head.split(",", 1)[0]).replace("ɱ", "ṃ").strip()
        body_end = _BLOCK_END.search(page, head_end.end())
        body = page[head_end.end() : body_end.start() if body_end else len(page)]
        entry, seen = Entry(sutta_id, pali, []), set()
        for line in _LINE.split(body):
            lm = _MARK.match(line.strip())
            if not lm or (book, lm.group("mark")) not in BOOKS:
                continue
            title, number = _title(lm.group("rest"))
            mark = lm.group("mark")
            if mark in seen:
                # a book's second line under one entry: a "see also", unless it carries the book's own number
                # (`WP: 30. Failure` / `WP: 31. Ruin` under the two texts PTS numbers 28-29): then it is filed
                # under that number alone
                if not number:
                    continue
                mark += "#"
            seen.add(lm.group("mark"))
            if _links_elsewhere(line, book, sutta_id):
                continue
            if len(title) > 1 and title != "Untitled" and not re.fullmatch(r"[\dIVXLC.\s]+", title):
                entry.titles.append((mark, title, number))
        if pali and pali != "Untitled" and entry.titles:
            out.append(entry)
    return out


def _aliases(title: str) -> list[str]:
    """A title, its head when it has a subtitle (`The Supreme Net: What the Teaching is Not` -> also `The Supreme
    Net`, the part readers cite), and each of two titles given as alternatives."""
    out = [title]
    head = title.split(": ", 1)[0]
    if head != title:
        out.append(head)
    # the PTS's alternative titles: `The Millionaire, or the Shabby Cloak`, `Vepacitti (or Patience)`
    m = re.fullmatch(r"(?P<a>[^(,]+?)(?:, or (?P<b>[^(]+)| \(or,? (?P<c>[^)]+)\)(?P<rest>.*))", title)
    if m:
        out.append(m.group("a") + (m.group("rest") or ""))
        alternative = (m.group("b") or m.group("c")).strip("' ")
        out.append(alternative[:1].upper() + alternative[1:])
    return out


def names(pali: str) -> list[str]:
    """The Pali names an entry gives: `Byaggha-pajja Suttaṃ; aka: Vyāggha-pajja Suttaṃ`, `Sampadā/Vuddhi Suttaṃ`,
    `Saka-māno Suttaṃ or Santi-kāyo Suttaṃ` -> the whole and each; a group's name before a colon dropped
    (`Pañcagati: Chaṭṭha Manussa-cuti Suttaṃ`)."""
    out = [n.rsplit(": ", 1)[-1].strip(" ;:") for n in re.split(r";?\s*\baka\b:?|[;/—]|\band\b|\bor\b", pali)]
    out = [n for n in out if n]
    # `Paṭhama Dussilya or Anāthapiṇḍika Suttaṃ`: the first name's ordinal numbers the other too
    ordinal = (
        re.match(r"(?:paṭhama|dutiya|tatiya|catuttha|pañcama|chaṭṭha|sattama|aṭṭhama|navama|dasama)\b", out[0], re.I)
        if out
        else None
    )
    if ordinal:
        out[1:] = [n if re.match(ordinal.group(), n, re.I) else f"{ordinal.group()} {n}" for n in out[1:]]
    return out if len(out) < 2 else [pali.rsplit(": ", 1)[-1], *out]


def _compound(pali: str) -> str:
    return re.sub(r"(?:sutta|suttam|suttanta|suttantam)$", "", re.sub(r"[^a-z]", "", nasal(fold(pali))))


def pages(root: Path) -> list[Path]:
    base = root / INDEXES
    return sorted(
        p
        for sub in ("dn", "mn", "sn", "an", "kd/snp")
        for p in (base / sub).rglob("idx_*.htm")
        if _page_book(p.relative_to(root).as_posix())
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="a BuddhaDust checkout")
    parser.add_argument("--index", type=Path, default=ScholarSettings().index_dir)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--append", type=Path, help="append the rows a titles CSV lacks (same alias and ID) to it")
    args = parser.parse_args()

    # the check reads our own names only: not the titles table, which holds what an earlier run appended
    lib = Library.open(ScholarSettings(index_dir=args.index, titles_csv=Path(os.devnull)), dense=False)
    pali_title = {c.sutta_id: _compound(c.title_pali) for c in lib.names.cards.cards.values()}
    resolved: dict[str, list[str]] = {}

    def found(pali: str, sutta_id: str) -> bool:
        return any(found_one(name, sutta_id) for name in names(pali))

    def found_one(name: str, sutta_id: str) -> bool:
        ours = pali_title.get(sutta_id)
        if ours is None:
            return False
        if ours and fuzz.ratio(_compound(name), ours) >= SAME_NAME:
            return True
        if name not in resolved:
            resolved[name] = [c.sutta_id for c in resolve_name(lib, name).candidates]
        return sutta_id in resolved[name]

    rows, rejected, seen = [], 0, set()
    for page in pages(args.root):
        rel = page.relative_to(args.root).as_posix()
        book, chapter = _page_book(rel)
        for entry in entries(page.read_text(encoding="utf-8", errors="replace"), rel):
            for mark, title, number in entry.titles:
                ids = [] if mark.endswith("#") else [entry.sutta_id]
                mark = mark.rstrip("#")
                if chapter and number and number != entry.sutta_id.rsplit(".", 1)[1]:
                    ids.insert(0, f"{book} {chapter}.{number}")  # the book's own number (Bodhi's is SuttaCentral's)
                if not ids:
                    continue
                sutta_id = next((i for i in ids if found(entry.pali, i)), None)
                if sutta_id is None:
                    rejected += 1
                    sys.stderr.write(
                        f"rejected {entry.sutta_id} {entry.pali!r} {mark} {title!r}: "
                        f"resolves to {[resolved.get(n, [])[:3] for n in names(entry.pali)]}\n"
                    )
                    continue
                translator, work = BOOKS[(book, mark)]
                if mark == "PTS" and book in ("SN", "AN"):
                    translator = _pts_translator(book, chapter)
                for alias in _aliases(title):
                    if (alias.casefold(), sutta_id) not in seen:
                        seen.add((alias.casefold(), sutta_id))
                        rows.append(
                            {
                                "alias": alias,
                                "sutta_id": sutta_id,
                                "translator": translator,
                                "source": f"BuddhaDust, {rel}, {mark}: {work}, {entry.pali}",
                            }
                        )
    sys.stderr.write(f"{len(rows)} rows kept, {rejected} titles rejected\n")
    if args.append:
        have = {(r["alias"].strip().casefold(), r["sutta_id"].strip()) for r in name_rows(args.append)}
        rows = [r for r in rows if (r["alias"].casefold(), r["sutta_id"]) not in have]
        with args.append.open("a", encoding="utf-8", newline="") as fh:
            csv.DictWriter(fh, fieldnames=FIELDS).writerows(rows)
        sys.stderr.write(f"{len(rows)} rows appended to {args.append}\n")
        return 0
    fh = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
    writer = csv.DictWriter(fh, fieldnames=FIELDS)
    writer.writeheader()
    writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
