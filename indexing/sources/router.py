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


def discover(paths: list[Path], on_outside: Callable[[Path, str], None] | None = None
             ) -> Iterator[tuple[Path, Reader]]:
    """Every readable file under `paths`, by its resolved path. A symbolic link whose target lies outside the roots
    is not followed (a link to /etc/passwd must not become searchable): `on_outside` hears of it instead."""
    roots = [Path(p).resolve() for p in paths]
    seen: set[Path] = set()  # a link inside the corpus names a file that is read once, by its own path
    for root in paths:
        candidates = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in candidates:
            reader = reader_for(path)
            if reader is None:
                continue
            target = path.resolve()
            if not any(target.is_relative_to(r) for r in roots):
                if on_outside is not None:
                    on_outside(path, f"a link to {target}, outside the corpus: not followed")
                continue
            if target not in seen:
                seen.add(target)
                yield target, reader


def content_hash(path: Path, trees: dict[Path, Path | None] | None = None) -> str:
    """`trees`: a memo of tree roots by folder, kept by the caller for one run (see `find_tree_root`)."""
    digest = hashlib.sha256(path.read_bytes())
    if suttacentral.is_translation_file(path):
        # A new reader version re-reads the file once (an older one may have skipped texts it did not know).
        digest.update(f"suttacentral-parser:{suttacentral.PARSER_VERSION}".encode())
        # The Pali root is part of what a sutta document holds: a corrected root must re-ingest the sutta.
        tree = suttacentral.find_tree_root(path, trees)
        pali = suttacentral.pali_path_for(path, tree) if tree else None
        if pali is not None and pali.exists():
            digest.update(pali.read_bytes())
    return digest.hexdigest()
