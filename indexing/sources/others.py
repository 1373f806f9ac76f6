"""Readers for non-SuttaCentral files. Filled in by the ingestion work: PDF, Markdown, FAQ, CSV, text."""

from __future__ import annotations

from pathlib import Path


def reader_for(path: Path):
    return None
