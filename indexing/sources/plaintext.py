"""Plain text (.txt): paragraphs (blank-line separated) are the units; an over-long one is cut between sentences."""

from __future__ import annotations

from pathlib import Path

from indexing.models import SourceDocument, Unit
from indexing.settings import ScholarSettings
from indexing.sources.common import file_doc_id, paragraphs, read_utf8, split_long


def read_text_file(path: Path, settings: ScholarSettings) -> list[SourceDocument]:
    units = []
    for para in paragraphs(read_utf8(path)):
        for i, piece in enumerate(split_long(para, settings.chunk_max_chars)):
            units.append(Unit(text=piece, boundary=i == 0))
    if not units:
        return []
    return [SourceDocument(doc_id=file_doc_id(path, "text"), title=path.stem, source_path=str(path), kind="text",
                           units=units)]
