"""What flows through the indexing stage: files become SourceDocuments of Units, Units become Chunks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

ChunkType = Literal["verse", "prose"]


@dataclass
class Unit:
    """The smallest piece a chunk may not split: a SuttaCentral segment, a PDF page block, a table row, a Q&A."""

    text: str
    ref: str | None = None  # segment ID (`mn21:3.1`) for SuttaCentral
    pali: str = ""
    page: int | None = None
    heading: str = ""  # heading path for Markdown: `A > B > C`
    is_verse: bool = False
    boundary: bool = False  # a structural break (new paragraph / section) starts here


@dataclass
class SourceDocument:
    doc_id: str  # stable: the sutta uid for SuttaCentral, else derived from the path (+ part)
    title: str
    source_path: str
    kind: str  # sutta | pdf | markdown | faq | csv | text
    units: list[Unit]
    sutta_id: str | None = None
    title_pali: str = ""
    collection: str = ""  # DN MN SN AN KN Vb Kd Pvr Pm (indexing.vocabulary), or "" for non-canon documents
    book: str = ""  # the display prefix: DN MN SN AN Dhp Snp Bu Pj Kd …
    group: int | None = None  # saṁyutta / nipāta number
    group_title: str = ""
    blurb: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # :0.x segments, kept for display
    basket: str = ""  # sutta | vinaya, or "" for non-canon documents
    translator: str = ""  # the English translator (`sujato`, `soma`); one document per (text, translator)
    aliases: list[str] = field(default_factory=list)  # other names of the text (SuttaCentral's name files)


@dataclass
class Chunk:
    chunk_id: str
    doc_id: str
    chunk_index: int
    text: str
    title: str
    source_path: str
    chunk_type: ChunkType
    char_start: int
    char_end: int
    sutta_id: str | None = None
    collection: str = ""
    book: str = ""
    segment_start: str | None = None
    segment_end: str | None = None
    page: int | None = None
    heading: str = ""
    pali: str = ""
    basket: str = ""
    translator: str = ""

    def metadata(self) -> dict:
        """Flat, Chroma-safe metadata (no None values: Chroma rejects them)."""
        meta = {k: v for k, v in asdict(self).items() if k not in ("text", "pali") and v is not None}
        return meta

    def embedding_text(self) -> str:
        # A short header ties a chunk to its sutta, so dense search can match "the fire sermon's ..." questions.
        head = " ".join(x for x in (self.sutta_id, self.title, self.heading) if x)
        return f"{head}: {self.text}" if head else self.text
