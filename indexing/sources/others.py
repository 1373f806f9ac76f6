"""Readers for files outside a SuttaCentral tree, chosen by extension."""

from __future__ import annotations

from pathlib import Path

from indexing.sources.markdown import read_markdown
from indexing.sources.pdf import read_pdf
from indexing.sources.plaintext import read_text_file
from indexing.sources.tabular import read_table

_BY_SUFFIX = {
    ".pdf": read_pdf,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".csv": read_table,
    ".tsv": read_table,
    ".txt": read_text_file,
}


def reader_for(path: Path):
    return _BY_SUFFIX.get(path.suffix.lower())
