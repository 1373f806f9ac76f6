"""PDF: page by page with PyMuPDF, page numbers kept for citation. A PDF whose first pages carry no text layer is
run through OCRmyPDF once; the OCR'd copy is cached under `settings.resolved_ocr_cache` (mirroring the source's
path, keyed by its content hash) and reused by later runs and by other index directories sharing the cache."""

from __future__ import annotations

import hashlib
import logging
import subprocess
import sys
from pathlib import Path

import pymupdf

from indexing.errors import SourceError
from indexing.models import SourceDocument, Unit
from indexing.settings import ScholarSettings
from indexing.sources.common import file_doc_id, split_long

log = logging.getLogger(__name__)

PROBE_PAGES = 3
MIN_TEXT_CHARS = 20  # per probed page; less than this is a scan, a blank page or stray marks
OCR_TIMEOUT_S = 900
APT_HINT = "apt-get install tesseract-ocr tesseract-ocr-eng ghostscript"
# A PDF's "%PDF-" header may follow some junk, which readers tolerate within the first kilobyte.
HEADER_WINDOW = 1024
# What a file that is not a PDF most often is, by its first bytes (after any byte-order mark and whitespace).
_LOOKS_LIKE: tuple[tuple[tuple[bytes, ...], str], ...] = (
    ((b"<!doctype html", b"<html", b"<head", b"<body", b"<meta", b"<!--"), "an HTML page (a web page saved as .pdf?)"),
    ((b"<?xml", b"<svg"), "an XML file"),
    ((b"pk\x03\x04",), "a ZIP archive (EPUB, DOCX or similar)"),
    ((b"\x89png",), "a PNG image"),
    ((b"\xff\xd8\xff",), "a JPEG image"),
    ((b"\x1f\x8b",), "a gzip archive"),
    ((b"{", b"["), "JSON"),
)


def _check_header(path: Path) -> None:
    """PyMuPDF opens many formats whatever `filetype` says (an HTML page under a .pdf name reads as one page of
    HTML, and with little text is sent to OCR, whose failure was then the reason given): a file without the PDF
    header is refused for what it is."""
    with path.open("rb") as handle:
        head = handle.read(HEADER_WINDOW)
    if not head or b"%PDF-" in head:
        return  # an empty file is reported by _open
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    what = next((name for prefixes, name in _LOOKS_LIKE if start.startswith(prefixes)), None)
    if what is None:
        try:
            head.decode("utf-8")
            what = "plain text"
        except UnicodeDecodeError:
            what = "an unknown format"
    raise SourceError(f"not a PDF (no %PDF header): the file is {what}")


def _open(path: Path) -> pymupdf.Document:
    _check_header(path)
    try:
        doc = pymupdf.open(path, filetype="pdf")
    except pymupdf.EmptyFileError as exc:
        raise SourceError("empty PDF") from exc
    except (pymupdf.FileDataError, RuntimeError, ValueError) as exc:
        raise SourceError(f"corrupt PDF: {str(exc).strip() or type(exc).__name__}") from exc
    if doc.needs_pass:
        doc.close()
        raise SourceError("encrypted PDF: a password is required")
    if doc.page_count == 0:
        doc.close()
        raise SourceError("PDF has no pages")
    return doc


def has_text_layer(doc: pymupdf.Document) -> bool:
    probe = range(min(PROBE_PAGES, doc.page_count))
    return any(len("".join(doc[i].get_text().split())) >= MIN_TEXT_CHARS for i in probe)


def ocr_cache_path(path: Path, digest: str, settings: ScholarSettings) -> Path:
    mirrored = settings.resolved_ocr_cache / path.resolve().relative_to(path.resolve().anchor)
    return mirrored.parent / f"{path.stem}.{digest[:16]}.ocr.pdf"


def _run_ocr(source: Path, target: Path) -> None:
    cmd = [sys.executable, "-m", "ocrmypdf", "--skip-text", "--output-type", "pdf", "--optimize", "0",
           "--jobs", "1", "--language", "eng", "--quiet", str(source), str(target)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=OCR_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise SourceError(f"OCR took longer than {OCR_TIMEOUT_S}s") from exc
    if done.returncode == 3:  # ocrmypdf's MissingDependencyError
        raise SourceError(f"scanned PDF but OCR tools are missing ({APT_HINT})")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SourceError(f"OCR failed (ocrmypdf exit {done.returncode}): {last}")


def _ocr_copy(path: Path, settings: ScholarSettings) -> Path:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cached = ocr_cache_path(path, digest, settings)
    if cached.exists():
        log.info("OCR cache hit for %s", path.name)
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".partial.pdf")
    log.info("running OCR on %s (no text layer)", path.name)
    _run_ocr(path, partial)
    partial.replace(cached)  # a killed OCR run never leaves a half-written file that looks like a cache hit
    for stale in cached.parent.glob(f"{path.stem}.*.ocr.pdf"):
        if stale != cached:
            stale.unlink(missing_ok=True)
    return cached


def _page_units(doc: pymupdf.Document, max_chars: int) -> list[Unit]:
    units = []
    for number, page in enumerate(doc.pages(), start=1):
        for block in page.get_text("blocks", sort=True):
            if block[6] != 0:  # image block
                continue
            text = " ".join(block[4].split())
            if not text or text.isdigit():  # running page numbers carry nothing to cite
                continue
            for i, piece in enumerate(split_long(text, max_chars)):
                units.append(Unit(text=piece, page=number, boundary=i == 0))
    return units


def read_pdf(path: Path, settings: ScholarSettings) -> list[SourceDocument]:
    doc: pymupdf.Document | None = _open(path)
    try:
        assert doc is not None
        if not has_text_layer(doc):
            doc.close()
            doc = None  # closing it again would raise "document closed" over the OCR error worth reporting
            doc = _open(_ocr_copy(path, settings))
        units = _page_units(doc, settings.chunk_max_chars)
        title = (doc.metadata or {}).get("title") or path.stem
    finally:
        if doc is not None:
            doc.close()
    if not units:
        raise SourceError("no text found in PDF (not even after OCR)")
    return [SourceDocument(doc_id=file_doc_id(path, "pdf"), title=title, source_path=str(path), kind="pdf",
                           units=units)]
