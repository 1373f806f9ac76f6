"""Units -> chunks that respect structure: a segment, verse, row or Q&A pair is never split."""

from __future__ import annotations

import hashlib

from indexing.models import Chunk, SourceDocument, Unit

# Kinds whose every unit (a Q&A pair, a table row) is a chunk of its own.
_ONE_UNIT_PER_CHUNK = frozenset({"faq", "csv"})


def chunk_id_for(doc_id: str, first: Unit, last: Unit, index: int, text: str = "") -> str:
    # Location plus content: the same text re-ingested gets the same ID; an edited span gets a new one, so nothing
    # keyed by chunk ID (vectors, caches, citations) can silently point at text that changed.
    anchor = f"{doc_id}|{first.ref or first.page or ''}|{last.ref or last.page or ''}|{first.heading}|{index}|{text}"
    return hashlib.sha1(anchor.encode("utf-8")).hexdigest()[:20]


def _groups(units: list[Unit], target: int, maximum: int) -> list[list[Unit]]:
    groups: list[list[Unit]] = []
    current: list[Unit] = []
    size = 0
    for unit in units:
        n = len(unit.text) + 1
        page_break = bool(current) and unit.page != current[-1].page
        section_break = bool(current) and unit.heading != current[-1].heading
        full = size + n > maximum
        natural = unit.boundary and size >= target
        if current and (full or natural or page_break or section_break):
            groups.append(current)
            current, size = [], 0
        current.append(unit)
        size += n
    if current:
        groups.append(current)
    return groups


def chunk_document(doc: SourceDocument, target_chars: int = 700, max_chars: int = 1100) -> list[Chunk]:
    """One chunk per verse for verse documents (a Dhp verse is its own document); prose packed to ~target_chars,
    breaking preferably where a paragraph starts, never inside a unit."""
    chunks: list[Chunk] = []
    offset = 0
    if doc.kind in _ONE_UNIT_PER_CHUNK:
        groups = [[u] for u in doc.units]
    else:
        groups = _groups(doc.units, target_chars, max_chars)
    for index, group in enumerate(groups):
        text = "\n".join(u.text for u in group) if group[0].is_verse else " ".join(u.text for u in group)
        pali = "\n".join(u.pali for u in group if u.pali)
        first, last = group[0], group[-1]
        chunks.append(
            Chunk(
                chunk_id=chunk_id_for(doc.doc_id, first, last, index, f"{text}\x00{pali}"),
                doc_id=doc.doc_id,
                chunk_index=index,
                text=text,
                title=doc.title,
                source_path=doc.source_path,
                chunk_type="verse" if all(u.is_verse for u in group) else "prose",
                char_start=offset,
                char_end=offset + len(text),
                sutta_id=doc.sutta_id,
                collection=doc.collection,
                book=doc.book,
                segment_start=first.ref,
                segment_end=last.ref,
                page=first.page,
                heading=first.heading,
                pali=pali,
            )
        )
        offset += len(text) + 1
    return chunks
