"""Other translations of a text: the same passage rendered by another translator, shown beside the default.

The default translator of a basket answers (its document's ID is the uid); a second translation (`thig1.1@soma`)
is searchable — a question in Soma's words still finds Therīgāthā 1.1 — but never competes with the default as
a separate hit: a hit on it becomes the default translation's passage over the same segments, which carries the
other rendering in `alternatives`. Unlike a plain de-duplication, nothing is hidden.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.models import Chunk
from indexing.stores.docstore import DocStore
from indexing.vocabulary import find_book, find_translator, segment_key
from tools.errors import ToolError
from tools.passages import Alternative, Passage


@dataclass
class TranslationMap:
    """Built once per process from the docstore: which documents are other renderings of which."""

    alternatives_of: dict[str, list[str]] = field(default_factory=dict)  # default doc_id -> other doc_ids
    default_chunk: dict[str, str] = field(default_factory=dict)  # an alternative's chunk_id -> the default's

    @classmethod
    def build(cls, docstore: DocStore) -> TranslationMap:
        alternatives_of = docstore.alternative_doc_ids()
        default_chunk: dict[str, str] = {}
        for default_doc, others in alternatives_of.items():
            defaults = [(segment_key(c.segment_start), segment_key(c.segment_end), c.chunk_id)
                        for c in docstore.chunks_of(default_doc) if c.segment_start and c.segment_end]
            for other in others:
                for chunk in docstore.chunks_of(other):
                    home = _covering(defaults, chunk)
                    if home is not None:
                        default_chunk[chunk.chunk_id] = home
        return cls(alternatives_of, default_chunk)


def _covering(defaults: list[tuple[tuple[int, ...], tuple[int, ...], str]], chunk: Chunk) -> str | None:
    """The default translation's chunk holding the start of an alternative's chunk (segments are shared)."""
    if not chunk.segment_start:
        return None
    key = segment_key(chunk.segment_start)
    for start, end, chunk_id in defaults:
        if start <= key <= end:
            return chunk_id
    # the alternative starts in a part the default leaves out (a heading): take the next default chunk
    return next((chunk_id for start, _, chunk_id in defaults if start >= key), None)


def collapse(tmap: TranslationMap, fused: dict[str, float]) -> dict[str, float]:
    """Fused scores with every alternative translation's hit moved onto the default's passage over the same
    segments (the better score of the two)."""
    if not tmap.default_chunk:
        return fused
    out: dict[str, float] = {}
    for cid, score in fused.items():
        home = tmap.default_chunk.get(cid, cid)
        out[home] = max(out.get(home, 0.0), score)
    return out


def attach_alternatives(library, passages: list[Passage]) -> list[Passage]:
    """Each passage of the default translation gets the other translators' renderings of its segments."""
    tmap: TranslationMap = library.translations
    for p in passages:
        for other in tmap.alternatives_of.get(p.doc_id, ()):
            alt = rendering(library.docstore, other, p.segment_start, p.segment_end)
            if alt is not None and all(a.doc_id != alt.doc_id for a in p.alternatives):
                p.alternatives.append(alt)
    return passages


def rendering(docstore: DocStore, doc_id: str, start: str | None, end: str | None) -> Alternative | None:
    """Another translation's text of the segments start..end (its own segments, same IDs)."""
    if not start:
        return None
    lo, hi = segment_key(start), segment_key(end or start)
    segs = [s for s in docstore.segments(doc_id) if s.seg_id and lo <= segment_key(s.seg_id) <= hi and s.en.strip()]
    if not segs:
        return None
    doc = docstore.document(doc_id)
    book = find_book(doc.book) if doc is not None else None
    joiner = "\n" if book is not None and book.verse else " "  # verse lines stay lines
    return Alternative(
        translator=doc.translator if doc is not None else doc_id.partition("@")[2],
        doc_id=doc_id,
        text=joiner.join(s.en.strip() for s in segs),
        segment_start=segs[0].seg_id,
        segment_end=segs[-1].seg_id,
    )


def choose_translation(docstore: DocStore, sutta_id: str, translator: str) -> str:
    """The doc_id of a text in a translator's rendering (`Thig 1.1`, `soma` -> `thig1.1@soma`)."""
    wanted = find_translator(translator) or translator.strip().lower()
    docs = docstore.translations(sutta_id)
    for doc in docs:
        if doc.translator == wanted:
            return doc.doc_id
    have = ", ".join(d.translator for d in docs) or "none"
    raise ToolError(f"{sutta_id} has no translation by {translator!r} in the library; translations held: {have}.")
