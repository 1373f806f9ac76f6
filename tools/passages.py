"""A passage: what every retrieval tool returns and what answers cite."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from indexing.models import Chunk
from indexing.vocabulary import document_ref, segment_ref


@dataclass
class Alternative:
    """The same segments in another translator's words (see tools.texts.translations)."""

    translator: str  # `soma`
    doc_id: str  # `thig1.1@soma`
    text: str
    segment_start: str | None = None
    segment_end: str | None = None


@dataclass
class Passage:
    chunk_id: str
    doc_id: str
    chunk_index: int
    sutta_id: str | None
    title: str
    text: str
    pali: str = ""
    collection: str = ""
    segment_start: str | None = None
    segment_end: str | None = None
    page: int | None = None
    source_path: str = ""
    scores: dict[str, float] = field(default_factory=dict)  # bm25, dense, fused, rerank, final
    is_hit: bool = True  # False for context added around a hit by the expander
    also_in: list[str] = field(default_factory=list)  # other suttas holding the same stock passage (dedup)
    # those suttas' passages themselves: not shown twice, but retrieved, so a reference to them is a real one
    twins: list[Passage] = field(default_factory=list, repr=False)
    translator: str = ""  # whose English this is (`sujato`); "" outside SuttaCentral
    basket: str = ""  # sutta | vinaya
    alternatives: list[Alternative] = field(default_factory=list)  # the same segments by other translators

    @classmethod
    def from_chunk(cls, chunk: Chunk, **scores: float) -> Passage:
        return cls(
            chunk_id=chunk.chunk_id,
            doc_id=chunk.doc_id,
            chunk_index=chunk.chunk_index,
            sutta_id=chunk.sutta_id,
            title=chunk.title,
            text=chunk.text,
            pali=chunk.pali,
            collection=chunk.collection,
            segment_start=chunk.segment_start,
            segment_end=chunk.segment_end,
            page=chunk.page,
            source_path=chunk.source_path,
            scores=dict(scores),
            translator=chunk.translator,
            basket=chunk.basket,
        )

    @property
    def ref(self) -> str:
        """`MN 21:3.1–3.4` for SuttaCentral, `Dhamma talk p. 3` for PDFs, the title otherwise (a chunk of a Markdown
        note does not know its units' numbers; the evidence windows cut from it do)."""
        if self.segment_start and self.sutta_id:
            start = segment_ref(self.segment_start)
            if self.segment_end and self.segment_end != self.segment_start:
                return f"{start}–{self.segment_end.partition(':')[2]}"
            return start
        if self.sutta_id:
            return self.sutta_id
        return document_ref(self.title, [], [self.page] if self.page is not None else [])

    def to_dict(self) -> dict:
        out = asdict(self)
        out.pop("twins")
        return {**out, "ref": self.ref}


def nested_quotes(text: str) -> str:
    """The text's own double quotation marks as single ones, for showing it inside double marks of ours."""
    return text.replace("“", "‘").replace("”", "’")


def clip(text: str, limit: int) -> str:
    """The text on one line, cut at a word before `limit` characters with " …" when it is longer."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"
