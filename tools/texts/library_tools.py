"""The bodies of the three table tools: parallels, translations side by side, Vinaya rules by topic.

Each returns a `Table`: the answer in plain sentences built from the table alone (correct without any model), typed
as it is written (tools/texts/table_text.py), the lines it quotes as evidence windows (what the answer cites), and
a one-line summary for the trace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from indexing.vocabulary import Book, find_book, find_translator, translator_name
from tools.errors import ToolError
from tools.language.numbers import spelled
from tools.search.windows import EvidenceWindow, make_window, opening
from tools.texts.table_text import Block, TableText, block_quote, introducing, line, quoted, said

MAX_HELD_SHOWN = 3  # parallels the library holds, quoted beside the text asked about


@dataclass
class Table:
    answer: TableText
    windows: list[EvidenceWindow] = field(default_factory=list)
    summary: str = ""


def window_over(library, doc_id: str, seg_ids: list[str]) -> EvidenceWindow | None:
    view = library.evidence.sutta(doc_id)
    if view is None:
        return None
    at = [view.position[s] for s in seg_ids if s in view.position]
    return make_window(view, min(at), max(at)) if at else None


def _words(w: EvidenceWindow) -> str:
    # one line, so a verse's line breaks cannot end the block quote mid-verse
    return f"“{' / '.join(line.strip() for line in w.text.splitlines() if line.strip())}”"


def _quotes(windows: list[EvidenceWindow]) -> list[Block]:
    return [block_quote(quoted(_words(w), (w.ref,))) for w in windows]


def parallels_table(library, sutta_id: str, within: str = "") -> Table:
    from tools.texts.lookup import lookup
    from tools.texts.parallels import foreign_uid, parallels_report, scope_of

    scope = scope_of(within) if within.strip() else None
    if (uid := foreign_uid(sutta_id)) is not None:
        return _foreign_parallels(library, sutta_id.strip(), uid, scope)
    result = lookup(library, sutta_id)
    doc_id = result.doc_ids[0]
    ref_uid = _uid_of(sutta_id) or doc_id.partition("@")[0]
    report = parallels_report(result.sutta_id, ref_uid, result.title, result.parallels, scope)
    windows = [w for w in [opening(library.evidence, doc_id)] if w is not None]
    held = [p for p in result.parallels if p.in_library and p.kind == "parallels"
            and (scope is None or scope.admits(p))]
    for p in held[:MAX_HELD_SHOWN]:
        docs = library.catalog.docs_for_uid(p.uid)
        if docs and docs[0] != doc_id and (w := opening(library.evidence, docs[0])) is not None:
            windows.append(w)
    blocks: list[Block] = []
    if len(windows) == 1:
        own = windows[0]
        blocks.append(line(introducing(f"{result.sutta_id} opens: {_words(own)}", (own.ref,)), paragraph=True))
    elif windows:
        blocks.append(line(said("Side by side, the openings of the text and of its parallels in this library:"),
                           paragraph=True))
        blocks.extend(_quotes(windows))
    n = sum(1 for p in result.parallels if p.kind == "parallels")
    return Table(report + TableText(tuple(blocks)), windows,
                 f"{result.sutta_id}: {n} parallels, {len(held)} in the library")


def _foreign_parallels(library, sutta_id: str, uid: str, scope) -> Table:
    """The parallels of a text this library knows only by its ID (`MA 106`): the table's entry for it, with the
    Pali texts the library holds quoted; an ID the table does not list is said so, never guessed at."""
    from tools.texts.lookup import parallels_of
    from tools.texts.parallels import parallels_report

    parallels = parallels_of(library, uid)
    if not parallels:
        return Table(TableText((line(said(
            f"SuttaCentral's table of parallels lists no text {sutta_id}, and this library does not hold it (it holds "
            "the Pali canon only).")),)), [], f"{sutta_id}: not in the table")
    report = parallels_report(sutta_id, uid, "", parallels, scope)
    blocks = [line(said(f"{sutta_id} itself is not in this library, which holds the Pali canon only."))]
    windows = []
    for p in [p for p in parallels if p.in_library and p.kind == "parallels"][:MAX_HELD_SHOWN]:
        docs = library.catalog.docs_for_uid(p.uid)
        if docs and (w := opening(library.evidence, docs[0])) is not None:
            windows.append(w)
    if windows:
        blocks.append(line(said("The openings of its parallels in this library:"), paragraph=True))
        blocks.extend(_quotes(windows))
    return Table(report + TableText(tuple(blocks)), windows, f"{sutta_id}: {len(parallels)} related texts")


def _uid_of(sutta_id: str) -> str:
    from tools.references import parse_reference

    ref = parse_reference(sutta_id)
    return ref.uid if ref is not None else ""


def _translators(text: str) -> tuple[list[str], list[str]]:
    """A tool argument such as "sujato, soma" or "Bhikkhu Bodhi": known translator codes and other names."""
    from tools.texts.side_by_side import translators_named

    known, unknown = translators_named(text)
    for part in re.split(r"[,;/&]|\band\b|\bwith\b", text):
        name = part.strip().removeprefix("Bhikkhu ").removeprefix("bhikkhu ").removesuffix("'s").removesuffix("’s")
        name = name.strip(" .")
        if not name:
            continue
        code = find_translator(name)
        if code is not None and code not in known:
            known.append(code)
        elif code is None and re.fullmatch(r"[A-Za-zĀ-ɏḀ-ỿ-]+", name) and name not in unknown \
                and name.lower() not in ("all", "both", "every", "any", "translators", "translations"):
            unknown.append(name)
    return known, unknown


def translations_table(library, sutta_id: str, translators: str = "") -> Table:
    from tools.texts.lookup import lookup
    from tools.texts.side_by_side import compare

    if not re.search(r"\d", sutta_id) and (book := find_book(sutta_id)) is not None:
        return book_translations_table(library, book)

    result = lookup(library, sutta_id)
    doc_id = result.doc_ids[0].partition("@")[0]
    doc = library.docstore.document(doc_id)
    if doc is None or not doc.sutta_id:
        raise ToolError(f"There is no {sutta_id} in the texts I have.")
    uid = _uid_of(sutta_id)
    shown = {r.seg_id for r in result.rows} if result.segments_shown.startswith("segments ") else set()
    keep: Callable[[str], bool] | None = None
    if shown:
        keep = shown.__contains__
    elif uid and uid != doc_id:  # one verse or sutta inside a document of several (`dhp1` in `dhp1-20`)
        keep = lambda seg_id: seg_id.partition(":")[0] == uid  # noqa: E731
    known, unknown = _translators(translators)
    cmp = compare(library.docstore, doc.sutta_id, doc_id, doc.title, known, unknown, keep)
    window = window_over(library, doc_id, cmp.seg_ids) if cmp.seg_ids else None
    summary = f"{doc.sutta_id}: {len(cmp.seg_ids)} segments" + (
        f"; not held: {', '.join(cmp.missing)}" if cmp.missing else "")
    text = cmp.text.cited(window.ref) if window is not None else cmp.text
    return Table(text, [window] if window is not None else [], summary)


def book_translations_table(library, book: Book) -> Table:
    """Which translations of a whole book the library holds ("Are there other translations of the Therīgāthā?"):
    the default translator's and each other's, with how many of the book's texts each renders, and the first text
    that has another translation side by side with the Pali."""
    store = library.docstore
    books = [d for d in store.documents() if d.book == book.display]
    texts = sorted((d for d in books if "@" not in d.doc_id),
                   key=lambda d: [int(n) for n in re.findall(r"\d+", d.sutta_id or d.doc_id)])
    if not texts:
        raise ToolError(f"The library holds no text of the {book.label}.")
    translator_of = {d.doc_id: d.translator for d in books}
    alternatives = store.alternative_doc_ids()
    rendered: dict[str, list[str]] = {}  # another translator -> the sutta IDs of the texts they render, in order
    for doc in texts:
        for other in alternatives.get(doc.doc_id, []):
            if translator_of.get(other):
                rendered.setdefault(translator_of[other], []).append(doc.sutta_id or doc.doc_id)
    main = translator_name(texts[0].translator)
    if not rendered:
        first = opening(library.evidence, texts[0].doc_id)
        refs = (first.ref,) if first is not None else ()
        text = TableText((line(said(f"The library holds the {book.label} in one translation only, {main}'s "
                                    f"({len(texts)} texts).", refs)),))
        return Table(text, [first] if first is not None else [], f"{book.display}: {main} only")
    others = [f"{translator_name(code)}'s, of {len(ids)} of them" if len(ids) < len(texts)
              else f"{translator_name(code)}'s, of all of them too" for code, ids in rendered.items()]
    count = spelled(1 + len(rendered))
    example = next(iter(rendered.values()))[0]
    side = translations_table(library, example)
    refs = (side.windows[0].ref,) if side.windows else ()
    head = TableText((
        line(said(f"The library holds the {book.label} in {count} translations: {main}'s, of all its {len(texts)} "
                  "texts, and " + " and ".join(others) + ".", refs)),
        line(said(f"To compare them, ask for one text by its ID; here is the first of them, {example}:"),
             paragraph=True),
    ))
    return Table(head + side.answer, side.windows,
                 f"{book.display}: {main} and " + ", ".join(translator_name(c) for c in rendered))


def rule_table(library, topic: str) -> Table:
    matches = library.rules.find(topic)
    if not matches or not matches[0].confident:
        raise ToolError(f"No rule of the Vinaya's Analyses speaks of {topic!r} in its title or its words.")
    best = matches[0]
    window = window_over(library, best.rule.doc_id, list(best.rule.seg_ids))
    blocks = [line(*best.rule.describe())]
    if best.rule.ruling_pali:
        blocks.append(line(quoted(f"In Pali: “{best.rule.ruling_pali.strip()}”")))
    close = [m for m in matches[1:] if m.score >= 0.75 * best.score]
    if close:
        blocks.append(line(said("Other rules on these words: " + "; ".join(
            f"{m.rule.sutta_id} (“{m.rule.title}”, {m.rule.offence})" for m in close) + ".")))
    summary = f"{best.rule.sutta_id} ({best.rule.title}; {best.rule.offence})"
    return Table(TableText(tuple(blocks)), [window] if window is not None else [], summary)
