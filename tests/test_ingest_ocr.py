"""A scanned (image-only) PDF, rendered by the test itself, is OCR'd once and its words land in the docstore;
the OCR'd copy is cached and a later run reuses it without running OCR again."""

import shutil

import pymupdf
import pytest

from indexing.pipeline import Indexes, ingest
from indexing.sources import pdf

pytestmark = pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract-ocr is not installed (apt)")

LINES = ["Mindfulness of breathing", "calms the restless mind", "Page two: generosity"]


def _scanned_pdf(path):
    """Render text to pixels, then build a PDF holding only those images: no text layer at all."""
    out = pymupdf.open()
    for text_lines in (LINES[:2], LINES[2:]):
        src = pymupdf.open()
        page = src.new_page(width=420, height=200)
        for i, line in enumerate(text_lines):
            page.insert_text((30, 60 + 50 * i), line, fontsize=26)
        pixmap = page.get_pixmap(dpi=200)
        target = out.new_page(width=420, height=200)
        target.insert_image(target.rect, pixmap=pixmap)
        src.close()
    out.save(path)
    out.close()


def test_scanned_pdf_is_ocred_cached_and_the_cache_reused(tmp_path, settings, fake_embed, monkeypatch):
    scans = tmp_path / "scans"
    scans.mkdir()
    source = scans / "scanned.pdf"
    _scanned_pdf(source)
    with pymupdf.open(source) as doc:
        assert not pdf.has_text_layer(doc)

    report = ingest(settings, [scans], embed_model=fake_embed, progress=False)
    assert report.skipped == [] and report.files_ingested == 1
    chunks = list(Indexes(settings).docstore.iter_chunks())
    text = " ".join(c.text.lower() for c in chunks)
    for word in ("mindfulness", "breathing", "restless", "generosity"):
        assert word in text
    assert {c.page for c in chunks if "generosity" in c.text.lower()} == {2}
    cached = list(settings.resolved_ocr_cache.rglob("*.ocr.pdf"))
    assert len(cached) == 1 and cached[0].parent.name == "scans"  # mirrors the source tree

    def no_ocr(*args, **kwargs):
        raise AssertionError("OCR ran although a cached copy exists")

    monkeypatch.setattr(pdf, "_run_ocr", no_ocr)
    fresh = settings.model_copy(update={"index_dir": tmp_path / "other-index",
                                        "ocr_cache_dir": settings.resolved_ocr_cache})
    again = ingest(fresh, [scans], embed_model=fake_embed, progress=False)
    assert again.skipped == [] and again.files_ingested == 1
    assert "breathing" in " ".join(c.text.lower() for c in Indexes(fresh).docstore.iter_chunks())

