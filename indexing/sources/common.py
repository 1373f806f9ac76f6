"""Helpers shared by the readers of ordinary files (PDF, Markdown, CSV, text)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from indexing.errors import SourceError
from indexing.text import split_at_stops


def file_doc_id(path: Path, kind: str) -> str:
    # Readable (the file name) and unique (two `notes.md` in different folders must not collide); stable as long
    # as the file stays where it is, which is what makes re-ingesting it yield the same chunk IDs.
    digest = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:8]
    return f"{kind}:{path.name}#{digest}"


def read_utf8(path: Path) -> str:
    data = path.read_bytes()
    if not data.strip():
        raise SourceError("empty file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from exc


def paragraphs(text: str) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]


def split_long(text: str, max_chars: int) -> list[str]:
    """Pieces of at most ~max_chars, cut between sentences (a single over-long sentence is cut between words)."""
    if len(text) <= max_chars:
        return [text]
    pieces: list[str] = []
    current = ""
    for sentence in split_at_stops(text):
        sentence = sentence.strip()
        # Cut at a moving start rather than re-slicing the rest: a single line of n characters (a text file with
        # no sentence ends) would otherwise be copied n / max_chars times, quadratic in its length.
        start = 0
        while len(sentence) - start > max_chars:
            cut = sentence.rfind(" ", start, start + max_chars)
            cut = cut if cut > start else start + max_chars
            if current:
                pieces.append(current)
                current = ""
            pieces.append(sentence[start:cut].strip())
            start = cut
            while start < len(sentence) and sentence[start].isspace():
                start += 1
        sentence = sentence[start:] if start else sentence
        if current and len(current) + 1 + len(sentence) > max_chars:
            pieces.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return [p for p in pieces if p]
