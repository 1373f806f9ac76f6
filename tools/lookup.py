"""Sutta-ID lookup: a reference (`MN 21`, `SN 12.110`, `Dhp 1-20`, `mn21:3.1-3.5`) -> the sutta's header and text.

Numbers are resolved against a catalog of what the index really holds, so `SN 12.110` finds the range document
`sn12.104-114` it lives in, and `MN 175` is answered with "no such sutta, MN has 1–152" rather than a neighbour.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from indexing.stores.docstore import DocStore, DocumentRecord
from indexing.vocabulary import BOOKS, COLLECTION_NAMES, parse_uid, segment_key, segment_ref
from tools.errors import ToolError, UnknownReferenceError
from tools.passages import Passage
from tools.references import Reference, find_references, parse_reference

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

    def resolve(self, ref: Reference) -> list[str]:
        """Doc IDs holding the referenced sutta(s), in order; raises UnknownReferenceError with the valid range."""
        label = BOOKS[ref.book].display
        rows = self.spans.get((ref.book, ref.group))
        if rows is None:
            if ref.group is not None and self.groups(ref.book):
                groups = self.groups(ref.book)
                raise UnknownReferenceError(
                    f"There is no {ref.sutta_id}: {label} has {_unit(ref.book)}s {groups[0]}–{groups[-1]}."
                )
            raise UnknownReferenceError(f"There is no {ref.sutta_id}: the index holds no {label} texts.")
        lo, hi = ref.span()
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


def lookup(library, ref_text: str, segments: str | None = None) -> LookupResult:
    """The sutta a reference names (`MN 21`, `SN 35.28`, `Dhp 1-20`, `mn21:3.1`): its English and Pali titles,
    collection and segment count, and its opening segments, or the segment range the reference (or `segments`,
    like "3.1-3.5") asks for. Raises ToolError for text that is not a reference and UnknownReferenceError, saying
    which numbers exist, for a sutta the index does not hold."""
    ref = parse_reference(ref_text) or next(iter(find_references(ref_text)), None)
    if ref is None:
        raise ToolError(
            f"{ref_text!r} is not a sutta reference; write it like MN 21, SN 35.28, AN 4.159, DN 22 or Dhp 1."
        )
    return lookup_docs(library, ref, library.catalog.resolve(ref), segments, query=ref_text)


def lookup_docs(library, ref: Reference, doc_ids: list[str], segments: str | None = None,
                query: str | None = None) -> LookupResult:
    """`lookup` for a reference already resolved to the documents that hold it."""
    docs = [library.docstore.document(d) for d in doc_ids]
    docs = [d for d in docs if d is not None]
    wanted = segments or ref.segment
    query = ref.text if query is None else query
    if len(docs) == 1:
        return _single(library, query, ref, docs[0], wanted)
    return _several(library, query, ref, docs)


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
    if ref.uid != doc.doc_id and not ref.is_range:
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
