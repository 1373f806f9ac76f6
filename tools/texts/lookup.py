"""Lookup by ID: a reference (`MN 21`, `SN 12.110`, `Dhp 1-20`, `Ud 2.1`, `Bu Pj 2`, `mn21:3.1-3.5`) -> the text's
header, its opening or the segments asked for, the translations held and SuttaCentral's parallels.

Numbers are resolved against a catalog of what the index really holds, so `SN 12.110` finds the range document
`sn12.104-114` it lives in, and `MN 175` is answered with "no such sutta, MN has 1–152" rather than a neighbour.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from indexing.stores.docstore import DocStore, DocumentRecord
from indexing.vocabulary import BOOKS, COLLECTION_NAMES, parse_uid, segment_key, segment_ref, translator_name
from tools.errors import ToolError, UnknownReferenceError
from tools.passages import Passage
from tools.references import Reference, find_references, parse_reference
from tools.texts.translations import attach_alternatives, choose_translation

OPENING_SEGMENTS = 8
MAX_SEGMENTS = 60  # a requested range is capped so one call cannot pour a whole sutta into the prompt


@dataclass
class Catalog:
    """(book, group) -> sorted [(first number, last number, doc_id)] of the suttas in the index."""

    spans: dict[tuple[str, int | None], list[tuple[int, int, str]]] = field(default_factory=dict)

    @classmethod
    def build(cls, docstore: DocStore) -> Catalog:
        spans: dict[tuple[str, int | None], list[tuple[int, int, str]]] = {}
        for doc in docstore.documents():
            parsed = parse_uid(doc.doc_id) if doc.sutta_id else None
            if parsed is None:
                continue
            lo, hi = parsed.span()
            spans.setdefault((parsed.book, parsed.group), []).append((lo, hi, doc.doc_id))
        for rows in spans.values():
            rows.sort()
        return cls(spans)

    def neighbour(self, doc_id: str, step: int) -> str | None:
        """The text `step` places after (or before, step < 0) this one in its book and group: Dhp 184 after
        Dhp 183. None at either end."""
        parsed = parse_uid(doc_id)
        rows = self.spans.get((parsed.book, parsed.group)) if parsed is not None else None
        ids = [d for _, _, d in rows] if rows else []
        if doc_id not in ids:
            return None
        i = ids.index(doc_id) + step
        return ids[i] if 0 <= i < len(ids) else None

    def groups(self, book: str) -> list[int]:
        return sorted(g for b, g in self.spans if b == book and g is not None)

    def docs_for_uid(self, uid: str) -> list[str]:
        """The documents holding a uid (`an1.5` -> [`an1.1-10`]); [] when the library does not hold it."""
        parsed = parse_uid(uid)
        if parsed is None:
            return []
        lo, hi = parsed.span()
        return [d for first, last, d in self.spans.get((parsed.book, parsed.group), []) if first <= hi and last >= lo]

    def resolve(self, ref: Reference) -> list[str]:
        """Doc IDs holding the referenced sutta(s), in order; raises UnknownReferenceError with the valid range."""
        label = BOOKS[ref.book].display
        rows = self.spans.get((ref.book, ref.group))
        lo, hi = ref.span()
        parts = self.spans.get((ref.book, lo)) if ref.group is None else None
        if parts and not any(first <= lo <= last for first, last, _ in rows or []):
            # `Pvr 1` names a part whose texts are numbered inside it (`Pvr 1.1`–`Pvr 1.16`): all of them
            return [d for _, _, d in parts]
        if rows is None:
            if ref.group is not None and self.groups(ref.book):
                groups = self.groups(ref.book)
                raise UnknownReferenceError(
                    f"There is no {ref.sutta_id}: {label} has {_unit(ref.book)}s {groups[0]}–{groups[-1]}."
                )
            raise UnknownReferenceError(f"There is no {ref.sutta_id}: the index holds no {label} texts.")
        if not ref.is_range:
            exact = [d for first, last, d in rows if first == last == lo]
            if exact:  # `Bi Pj 1` has its own document besides the collected `Bi Pj 1-4`
                return exact[:1]
        found: list[str] = []
        starts = [r[0] for r in rows]
        i = max(bisect.bisect_right(starts, lo) - 1, 0)
        while i < len(rows) and rows[i][0] <= hi:
            first, last, doc_id = rows[i]
            if last >= lo and doc_id not in found:
                found.append(doc_id)
            i += 1
        exact_start = any(first <= lo <= last for first, last, _ in rows)
        if not found or not exact_start:
            where = f"{label} {ref.group}" if ref.group is not None else label
            raise UnknownReferenceError(
                f"There is no {ref.sutta_id}: {where} has {rows[0][0]}–{rows[-1][1]}. "
                "No nearby sutta is substituted; check the number."
            )
        return found


def _unit(book: str) -> str:
    return BOOKS[book].group_name or "group"


@dataclass
class SegmentRow:
    seg_id: str
    ref: str  # `MN 21:3.1`
    en: str
    pali: str


@dataclass
class ParallelText:
    """A text SuttaCentral relates to the one looked up."""

    sutta_id: str  # the display ID when the library holds it (`DN 22`), else SuttaCentral's ID (`ma98`)
    title: str  # "" when not in the library
    in_library: bool
    partial: bool  # a partial or resembling parallel
    kind: str = "parallels"  # parallels | mentions | retells
    section: str = ""  # the related part of that text (SuttaCentral's paragraph numbers), "" for all of it
    own_section: str = ""  # the part of the text looked up
    uid: str = ""  # SuttaCentral's uid of the related text (`ma98`, `dn22`): its address on suttacentral.net

    def describe(self) -> str:
        where = f" §{self.section}" if self.section else ""
        title = f" {self.title}" if self.title else ""
        notes = [n for n, on in (("partial", self.partial), ("not in the library", not self.in_library)) if on]
        return f"{self.sutta_id}{where}{title}" + (f" ({', '.join(notes)})" if notes else "")


@dataclass
class LookupResult:
    query: str
    sutta_id: str  # `MN 21`, or `Dhp 1–20` for a verse range
    doc_ids: list[str]
    title: str
    title_pali: str
    collection: str  # `Middle Discourses (Majjhima Nikāya)`
    n_segments: int
    segments_shown: str  # "opening" or the range asked for
    rows: list[SegmentRow]
    passages: list[Passage]  # the chunks holding the rows, so answers can cite them
    blurb: str = ""
    translator: str = ""  # whose English the rows are (`sujato`)
    translations: list[str] = field(default_factory=list)  # every translator the library holds this text by
    parallels: list[ParallelText] = field(default_factory=list)

    def translation_line(self) -> str:
        others = [translator_name(t) for t in self.translations if t != self.translator]
        also = f" (also in the library: {', '.join(others)})" if others else ""
        return f"Translated by {translator_name(self.translator)}{also}."

    def held_parallels(self, limit: int = 6) -> list[str]:
        """The whole texts the library holds that SuttaCentral lists as parallels, described."""
        return [p.describe() for p in self.parallels
                if p.in_library and p.kind == "parallels" and not p.section and not p.own_section][:limit]

    def parallels_text(self, refs: dict[str, str]) -> str:
        """The parallels as the model reads them when asked about them: those the library holds with the reference
        of a passage shown beside them (`refs`: display ID -> reference, so the answer can cite it), then the
        others by SuttaCentral ID."""
        whole = [p for p in self.parallels if p.kind == "parallels" and not p.section and not p.own_section]
        held = [f"{p.sutta_id} {p.title}{' (partial)' if p.partial else ''}"
                + (f" [{refs[p.sutta_id]}]" if p.sutta_id in refs else "") for p in whole if p.in_library]
        full = [p.sutta_id for p in whole if not p.in_library and not p.partial]
        partial = [p.sutta_id for p in whole if not p.in_library and p.partial]
        sections: dict[str, list[str]] = {}
        for p in self.parallels:
            if p.kind == "parallels" and (p.section or p.own_section) and p.in_library:
                sections.setdefault(f"{p.sutta_id} {p.title}", []).append(f"§{p.section}" if p.section else "")
        parts = [f"{name} ({', '.join(s for s in secs if s)})".replace(" ()", "")
                 for name, secs in sections.items()][:4]
        lines = [f"Texts parallel to {self.sutta_id} in SuttaCentral's table of parallels:"]
        lines.append(f"In the library: {'; '.join(held)}." if held else "In the library: none.")
        if full or partial:
            others = ", ".join(full) + (f"; partial: {', '.join(partial)}" if partial else "")
            lines.append(f"Not in the library (SuttaCentral IDs): {others.lstrip('; ')}.")
        if parts:
            lines.append(f"Parallel in part: {'; '.join(parts)}.")
        return "\n".join(lines)


REFERENCE_FORMS = "MN 21, SN 35.28, AN 4.159, Dhp 1, Snp 1.4, Ud 2.1, Thag 1.1, Bu Pj 2, Kd 10 or Bu Pm"


def lookup(library, ref_text: str, segments: str | None = None, translator: str | None = None) -> LookupResult:
    """The text a reference names (`MN 21`, `SN 35.28`, `Dhp 1-20`, `Snp 1.4`, `Bu Pj 2`, `mn21:3.1`): its English
    and Pali titles, collection and segment count, and its opening segments, or the segment range the reference (or
    `segments`, like "3.1-3.5") asks for; `translator` (`soma`) picks another translation the library holds. Also
    the translations held and SuttaCentral's parallels. Raises ToolError for text that is not a reference and
    UnknownReferenceError, saying which numbers exist, for a text the index does not hold."""
    ref = parse_reference(ref_text) or next(iter(find_references(ref_text)), None)
    if ref is None:
        raise ToolError(f"{ref_text!r} is not a reference; write it like {REFERENCE_FORMS}.")
    return lookup_docs(library, ref, library.catalog.resolve(ref), segments, query=ref_text, translator=translator)


def lookup_docs(library, ref: Reference, doc_ids: list[str], segments: str | None = None,
                query: str | None = None, translator: str | None = None) -> LookupResult:
    """`lookup` for a reference already resolved to the documents that hold it."""
    docs = [doc for d in doc_ids if (doc := library.docstore.document(d)) is not None]
    if translator:
        chosen = [choose_translation(library.docstore, d.sutta_id or d.doc_id, translator) for d in docs]
        docs = [doc for d in chosen if (doc := library.docstore.document(d)) is not None]
    if not docs:
        raise UnknownReferenceError(f"There is no {ref.sutta_id} in the texts I have.")
    wanted = segments or ref.segment
    query = ref.text if query is None else query
    if len(docs) == 1:
        result = _single(library, query, ref, docs[0], wanted)
    else:
        result = _several(library, query, ref, docs)
    first = docs[0]
    result.translator = first.translator
    result.translations = [d.translator for d in library.docstore.translations(first.sutta_id) if d.translator] \
        if first.sutta_id else []
    result.parallels = parallels_of(library, ref.uid if len(docs) == 1 else first.doc_id.partition("@")[0])
    if first.translator and "@" not in first.doc_id:
        attach_alternatives(library, result.passages)
    return result


def parallel_openings(library, result: LookupResult, limit: int) -> list[Passage]:
    """The opening passage of each whole parallel the library holds, so an answer can cite them."""
    out: list[Passage] = []
    for p in result.parallels:
        if p.in_library and p.kind == "parallels" and not p.section and len(out) < limit:
            try:
                out.extend(lookup(library, p.sutta_id).passages[:1])
            except ToolError:
                continue
    return out


def parallels_of(library, uid: str) -> list[ParallelText]:
    """SuttaCentral's parallels of a text: those the library holds by display ID and title, the rest by ID."""
    out: list[ParallelText] = []
    for rel in library.docstore.parallels(uid):
        docs = library.catalog.docs_for_uid(rel.uid)
        doc = library.docstore.document(docs[0]) if docs else None
        parsed = parse_uid(rel.uid)
        if doc is not None and parsed is not None:
            out.append(ParallelText(parsed.sutta_id, doc.title, True, rel.partial, rel.kind, rel.section,
                                    rel.own_section, rel.uid))
        else:
            out.append(ParallelText(rel.uid, "", False, rel.partial, rel.kind, rel.section, rel.own_section,
                                    rel.uid))
    # whole texts before parts of texts, the library's before the rest, full before partial
    out.sort(key=lambda p: (p.kind != "parallels", bool(p.section or p.own_section), not p.in_library, p.partial))
    return out


def _single(library, query: str, ref: Reference, doc: DocumentRecord, wanted: str | None) -> LookupResult:
    segs = [s for s in library.docstore.segments(doc.doc_id) if s.seg_id and s.en.strip()]
    if wanted:
        inside = _in_range(doc.doc_id, wanted)
        chosen = [s for s in segs if inside(segment_key(s.seg_id))][:MAX_SEGMENTS]
        if not chosen:
            first, last = segs[0].seg_id.partition(":")[2], segs[-1].seg_id.partition(":")[2]
            raise UnknownReferenceError(
                f"{doc.sutta_id} has no segments {wanted}: its segments run from {first} to {last}."
            )
        shown = f"segments {wanted}"
    else:
        chosen = segs[:OPENING_SEGMENTS]
        shown = "the opening"
    rows = [SegmentRow(s.seg_id, segment_ref(s.seg_id), s.en.strip(), s.pali.strip()) for s in chosen]
    sutta_id = doc.sutta_id or doc.doc_id  # the catalog holds only documents with a sutta ID
    if ref.uid != doc.doc_id.partition("@")[0] and not ref.is_range:
        # the sutta lives inside a range document: say so instead of silently showing the range's ID
        sutta_id = f"{ref.sutta_id} (in {doc.sutta_id})"
    return LookupResult(
        query=query,
        sutta_id=sutta_id,
        doc_ids=[doc.doc_id],
        title=doc.title,
        title_pali=doc.title_pali,
        collection=COLLECTION_NAMES.get(doc.collection, doc.collection),
        n_segments=doc.n_segments,
        segments_shown=shown,
        rows=rows,
        passages=_covering_passages(library, doc.doc_id, [r.seg_id for r in rows]),
        blurb=doc.blurb,
    )


def _several(library, query: str, ref: Reference, docs: list[DocumentRecord]) -> LookupResult:
    # a verse range (`Dhp 1-20`) or a range reference spanning several documents: first segment of each
    rows: list[SegmentRow] = []
    passages: list[Passage] = []
    for doc in docs[:MAX_SEGMENTS]:
        segs = [s for s in library.docstore.segments(doc.doc_id) if s.seg_id and s.en.strip()]
        take = segs if ref.book == "dhp" else segs[:1]
        rows.extend(SegmentRow(s.seg_id, segment_ref(s.seg_id), s.en.strip(), s.pali.strip()) for s in take)
        passages.extend(_covering_passages(library, doc.doc_id, [s.seg_id for s in take]))
    titles = list(dict.fromkeys(d.title for d in docs))
    lo, hi = ref.span()
    return LookupResult(
        query=query,
        sutta_id=ref.sutta_id.replace("-", "–"),
        doc_ids=[d.doc_id for d in docs],
        title="; ".join(titles[:5]),
        title_pali="; ".join(dict.fromkeys(d.title_pali for d in docs if d.title_pali)),
        collection=COLLECTION_NAMES.get(docs[0].collection, docs[0].collection),
        n_segments=sum(d.n_segments for d in docs),
        segments_shown=f"{len(docs)} texts, {lo}–{hi}",
        rows=rows,
        passages=passages,
    )


def _in_range(doc_id: str, wanted: str):
    """A predicate on segment sort keys; `3` or `3.5` as an end also takes the segments nested under it."""
    wanted = re.sub(r"[\u2013\u2014]", "-", wanted.strip())
    if ":" in wanted:
        wanted = wanted.rsplit(":", 1)[1]
    lo, _, hi = wanted.partition("-")
    if not re.fullmatch(r"\d+(\.\d+)*", lo) or (hi and not re.fullmatch(r"\d+(\.\d+)*", hi)):
        raise ToolError(f"segment range {wanted!r} should look like 3.1 or 3.1-3.5")
    lo_key, hi_key = segment_key(lo), segment_key(hi or lo)
    return lambda key: key >= lo_key and (key <= hi_key or key[: len(hi_key)] == hi_key)


def _covering_passages(library, doc_id: str, seg_ids: list[str]) -> list[Passage]:
    if not seg_ids:
        return []
    keys = [segment_key(s) for s in seg_ids]
    lo, hi = min(keys), max(keys)
    out = []
    for chunk in library.docstore.chunks_of(doc_id):
        if not chunk.segment_start or not chunk.segment_end:
            continue
        if segment_key(chunk.segment_end) >= lo and segment_key(chunk.segment_start) <= hi:
            out.append(Passage.from_chunk(chunk))
    return out
