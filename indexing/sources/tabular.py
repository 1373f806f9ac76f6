"""CSV / TSV: one chunk per row, the header names kept beside each value so a row reads on its own."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from indexing.errors import SourceError
from indexing.models import SourceDocument, Unit
from indexing.settings import ScholarSettings
from indexing.sources.common import file_doc_id, read_utf8


def read_table(path: Path, settings: ScholarSettings) -> list[SourceDocument]:
    text = read_utf8(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        raise SourceError(f"malformed CSV: {exc}") from exc
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if len(rows) < 2:
        raise SourceError("CSV has a header but no rows" if rows else "empty CSV")
    headers = [h.strip() or f"column {i + 1}" for i, h in enumerate(rows[0])]
    units = []
    for row in rows[1:]:
        cells = [(headers[i] if i < len(headers) else f"column {i + 1}", v.strip()) for i, v in enumerate(row)]
        body = "; ".join(f"{h}: {v}" for h, v in cells if v)
        if body:
            units.append(Unit(text=body, boundary=True))
    return [SourceDocument(doc_id=file_doc_id(path, "csv"), title=path.stem, source_path=str(path), kind="csv",
                           units=units)]
