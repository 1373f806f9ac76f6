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
would send readers to the wrong sutta. Rows are printed (or written with --out) in `indexing/data/other_titles.csv`'s
columns; the rejected ones go to stderr.
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
from tools.library import Library
from tools.search.names import resolve_name

# a title and the translators listed after it, never reaching past the next title (some titles list none)
_ENTRY = re.compile(r"<span class='sutta_title'>(?P<title>(?:(?!</span>).)*)</span>(?:(?!class='sutta_title').)*?"
                    r"<span class='sutta_trans'>(?P<trans>.*?)</span>", re.S)
_HEAD = re.compile(r"^(?P<id>(?:DN|MN|SN|AN|Ud|Sn|Thag|Thig) [\d.]+): (?P<pali>.+?) &mdash; (?P<english>.+)$")
_BOOK = {"Sn": "Snp"}  # Access to Insight's abbreviation -> SuttaCentral's, where they differ
SAME_NAME = 80.0  # edit ratio of the folded Pali names, "sutta" dropped


def _compound(pali: str) -> str:
    return re.sub(r"(?:sutta|suttam|suttanta)$", "", re.sub(r"[^a-z]", "", nasal(fold(pali))))


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
    rows, rejected = [], 0
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
            if sutta_id not in found:
                rejected += 1
                sys.stderr.write(f"rejected {sutta_id} {pali!r} {english}: resolves to {found[:3]}\n")
                continue
            for title in titles:
                rows.append({"alias": title, "sutta_id": sutta_id, "translator": "; ".join(translators),
                             "source": f"{source}, {pali}"})
    sys.stderr.write(f"{len(rows)} rows kept, {rejected} suttas rejected\n")
    fh = args.out.open("w", encoding="utf-8", newline="") if args.out else sys.stdout
    writer = csv.DictWriter(fh, fieldnames=["alias", "sutta_id", "translator", "source"])
    writer.writeheader()
    writer.writerows(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
