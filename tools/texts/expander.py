"""Context windows around hits: the ±N neighbouring chunks of the same document, merged into contiguous blocks.

Neighbours are read by (doc_id, chunk_index) from the docstore, so a window costs one indexed query per block.
Two hits whose windows overlap or touch become one block, so no passage is shown twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.vocabulary import segment_ref
from tools.errors import ToolError
from tools.passages import Passage

MAX_HITS = 12


@dataclass
class ContextBlock:
    doc_id: str
    sutta_id: str | None
    title: str
    first_index: int
    last_index: int
    passages: list[Passage] = field(default_factory=list)  # in reading order; is_hit marks the hits

    @property
    def segment_start(self) -> str | None:
        return self.passages[0].segment_start if self.passages else None

    @property
    def segment_end(self) -> str | None:
        return self.passages[-1].segment_end if self.passages else None

    @property
    def ref(self) -> str:
        if self.segment_start and self.sutta_id:
            start = segment_ref(self.segment_start)
            end = (self.segment_end or "").partition(":")[2]
            return f"{start}–{end}" if end and self.segment_end != self.segment_start else start
        return self.sutta_id or self.title

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.passages)


def expand(library, hits: list[Passage], window: int | None = None, *, before: int | None = None,
           after: int | None = None) -> list[ContextBlock]:
    """The text around passages already found: the `window` neighbouring chunks on each side (default: the
    settings' context window; `before`/`after` override one side), one contiguous block per stretch of text, in
    reading order, the hits marked `is_hit`. At most MAX_HITS hits are expanded."""
    n = library.settings.context_window if window is None else window
    before = n if before is None else before
    after = n if after is None else after
    if min(n, before, after) < 0:
        raise ToolError("window must be 0 or more")
    by_doc: dict[str, list[Passage]] = {}
    order: list[str] = []
    for hit in hits[:MAX_HITS]:
        if hit.doc_id not in by_doc:
            order.append(hit.doc_id)
        by_doc.setdefault(hit.doc_id, []).append(hit)

    blocks: list[ContextBlock] = []
    for doc_id in order:
        hit_idx = {h.chunk_index for h in by_doc[doc_id]}
        for lo, hi in merge_windows(sorted(hit_idx), before, after):
            chunks = library.docstore.chunks_of(doc_id, lo, hi)
            if not chunks:
                continue
            passages = []
            for c in chunks:
                p = Passage.from_chunk(c)
                p.is_hit = c.chunk_index in hit_idx
                passages.append(p)
            first = chunks[0]
            blocks.append(ContextBlock(doc_id, first.sutta_id, first.title, chunks[0].chunk_index,
                                       chunks[-1].chunk_index, passages))
    return blocks


def merge_windows(indexes: list[int], before: int, after: int | None = None) -> list[tuple[int, int]]:
    """[i-before, i+after] windows around sorted indexes (after defaults to before), overlapping or adjacent
    ones merged."""
    after = before if after is None else after
    merged: list[tuple[int, int]] = []
    for i in indexes:
        lo, hi = max(i - before, 0), i + after
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged
