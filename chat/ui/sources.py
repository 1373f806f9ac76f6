"""The side panel behind a citation: the cited segments in their context window, English beside Pali.

Reads the docstore through the process-wide library (by key, never by scanning); the Markdown itself is built
by render.passage_markdown, which escapes everything.
"""

from __future__ import annotations

import logging

from chat.pipeline.answer import Citation
from chat.ui.reader import panel_links
from chat.ui.render import passage_markdown
from indexing.vocabulary import document_place, segment_ref, unit_id
from tools.passages import Passage
from tools.texts.expander import expand

log = logging.getLogger(__name__)

FALLBACK_CONTEXT_SEGMENTS = 6  # each side, when the cited chunk is unknown
MAX_ROWS = 60


def citation_panel(library, citation: Citation) -> str:
    """Markdown for one citation's side panel; degrades to the citation's own excerpt when the text is missing."""
    try:
        return _panel(library, citation)
    except Exception:  # a broken record must not break the answer: the excerpt is still worth showing
        log.exception("could not build the panel for %s", citation.ref)
        return passage_markdown(citation, title=citation.title, collection="", rows=[])


def _panel(library, citation: Citation) -> str:
    docstore = library.docstore
    chunk = docstore.chunk(citation.chunk_id) if citation.chunk_id else None
    doc_id = chunk.doc_id if chunk else None
    if doc_id is None and citation.sutta_id:
        doc = docstore.document_by_sutta_id(citation.sutta_id)
        doc_id = doc.doc_id if doc else None
    if doc_id is None:
        return passage_markdown(citation, title=citation.title, collection="", rows=[])
    doc = docstore.document(doc_id)
    segments = docstore.segments(doc_id)
    if not segments:
        return passage_markdown(citation, title=doc.title if doc else citation.title,
                                collection=doc.collection if doc else "", rows=[])

    # a note's or a PDF's units have no segment IDs: they go by position, as citations of them do
    position = {s.seg_id or unit_id(doc_id, s.ord): i for i, s in enumerate(segments)}
    cited_lo = position.get(citation.segment_start or (chunk.segment_start if chunk else None) or "")
    cited_hi = position.get(citation.segment_end or citation.segment_start or "")
    if cited_lo is None and chunk is not None:
        cited_lo = position.get(chunk.segment_start or "")
        cited_hi = position.get(chunk.segment_end or "")
    if cited_lo is None:
        return passage_markdown(citation, title=doc.title if doc else citation.title,
                                collection=doc.collection if doc else "", rows=[])
    cited_hi = cited_lo if cited_hi is None or cited_hi < cited_lo else cited_hi

    lo, hi = _window(library, chunk, position)
    lo = min(lo, cited_lo) if lo is not None else max(0, cited_lo - FALLBACK_CONTEXT_SEGMENTS)
    hi = max(hi, cited_hi) if hi is not None else min(len(segments) - 1, cited_hi + FALLBACK_CONTEXT_SEGMENTS)
    if hi - lo + 1 > MAX_ROWS:  # a long window: keep the cited rows centred
        spare = max(0, MAX_ROWS - (cited_hi - cited_lo + 1)) // 2
        lo, hi = max(lo, cited_lo - spare), min(hi, cited_hi + spare)

    rows = []
    for i in range(lo, hi + 1):
        s = segments[i]
        if not (s.en or s.pali):
            continue
        ref = segment_ref(s.seg_id) if s.seg_id else _unit_label(s)
        rows.append((ref, s.en, s.pali, cited_lo <= i <= cited_hi))
    note = f"Context: {rows[0][0]} to {rows[-1][0]}; the cited lines are marked ▶." if rows else ""
    ends = [segments[i].seg_id for i in (lo, hi, cited_lo, cited_hi)]
    links = panel_links(library, doc_id, ends[0], ends[1], (ends[2], ends[3])) if all(ends) else []
    return passage_markdown(citation, title=doc.title if doc else citation.title,
                            collection=_collection(doc), rows=rows, note=note, links=links)


def _window(library, chunk, position: dict[str, int]) -> tuple[int | None, int | None]:
    """Segment positions spanned by the expander's context window around the cited chunk."""
    if chunk is None:
        return None, None
    blocks = expand(library, [Passage.from_chunk(chunk)])
    if not blocks:
        return None, None
    block = blocks[0]
    return position.get(block.segment_start or ""), position.get(block.segment_end or "")


def _unit_label(segment) -> str:
    """A PDF's block by its page (`p. 2`), a note's unit by its number (`¶3`): as citations name them."""
    if segment.page is not None:
        return document_place(segment.page, segment.page, pages=True)
    return document_place(segment.ord + 1, segment.ord + 1, pages=False)


def _collection(doc) -> str:
    if doc is None:
        return ""
    parts = [p for p in (doc.collection, doc.group_title, doc.title_pali) if p]
    return " · ".join(dict.fromkeys(parts))
