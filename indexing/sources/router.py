"""Which reader handles which file. Each reader turns one file into SourceDocuments or raises SourceError."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

from indexing.models import SourceDocument
from indexing.settings import ScholarSettings
from indexing.sources import suttacentral

Reader = Callable[[Path, ScholarSettings], list[SourceDocument]]

# Files inside a SuttaCentral tree that are data for the translation files, not sources of their own.
_SC_SUPPORT_PARTS = ("/root/", "/name/", "/blurb/")
_IGNORED_NAMES = {"_publication.json", "manifest.json", "LICENSE", "README.md", "SOURCE.md"}


def _read_suttacentral(path: Path, settings: ScholarSettings) -> list[SourceDocument]:
    return suttacentral.parse_file(path)


def reader_for(path: Path) -> Reader | None:
    posix = path.as_posix()
    if path.name in _IGNORED_NAMES or path.name.startswith("."):
        return None
    if path.suffix == ".json":
        if suttacentral.is_translation_file(path):
            return _read_suttacentral
        return None
    if any(part in posix for part in _SC_SUPPORT_PARTS) and suttacentral.find_tree_root(path):
        return None
    from indexing.sources import others  # PDF, Markdown, FAQ, CSV, text

    return others.reader_for(path)


def discover(paths: list[Path]) -> Iterator[tuple[Path, Reader]]:
    for root in paths:
        candidates = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in candidates:
            reader = reader_for(path)
            if reader is not None:
                yield path.resolve(), reader


def content_hash(path: Path) -> str:
    digest = hashlib.sha256(path.read_bytes())
    if suttacentral.is_translation_file(path):
        # A new reader version re-reads the file once (an older one may have skipped texts it did not know).
        digest.update(f"suttacentral-parser:{suttacentral.PARSER_VERSION}".encode())
        # The Pali root is part of what a sutta document holds: a corrected root must re-ingest the sutta.
        tree = suttacentral.find_tree_root(path)
        pali = suttacentral.pali_path_for(path, tree) if tree else None
        if pali is not None and pali.exists():
            digest.update(pali.read_bytes())
    return digest.hexdigest()
