"""Bad files are skipped with a one-line reason, counted and recorded in the manifest; the rest is ingested."""

import pymupdf
import pytest

from indexing.pipeline import Indexes, ingest


def _encrypted_pdf(path):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A secret page about the four noble truths.")
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="secret", owner_pw="owner")
    doc.close()


@pytest.fixture
def messy_corpus(mini_corpus):
    extra = mini_corpus.parent / "extra"
    extra.mkdir()
    (extra / "empty.pdf").write_bytes(b"")
    (extra / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 20)
    _encrypted_pdf(extra / "encrypted.pdf")
    # Saved from a browser under a .pdf name: once sent to OCR, and skipped with the OCR failure as the reason.
    (extra / "webpage.pdf").write_bytes(b"\xef\xbb\xbf\n<!DOCTYPE html>\n<html><body><p>Hi</p></body></html>\n")
    (extra / "readme.pdf").write_text("Just a few words of plain text.\n")
    (extra / "latin1.txt").write_bytes("Nibbāna is peace, said the café owner.".encode("latin-1", errors="replace")
                                      + b"\xe9\xe8 caf\xe9")
    (extra / "good.txt").write_text("Generosity is the first of the ten perfections.\n\nVirtue is the second.\n")
    (extra / "notes.md").write_text("# Notes\n\n## Practice\n\nWalking meditation in the evening.\n")
    bad_json = mini_corpus / "translation/en/sujato/sutta/mn/mn99_translation-en-sujato.json"
    bad_json.write_text('{"mn99:0.1": "Middle Discourses 99 ", "mn99:1.1": "unterminated ')
    return [mini_corpus, extra]


EXPECTED = {
    "empty.pdf": "empty PDF",
    "corrupt.pdf": "corrupt PDF",
    "encrypted.pdf": "encrypted PDF",
    "webpage.pdf": "not a PDF (no %PDF header): the file is an HTML page",
    "readme.pdf": "not a PDF (no %PDF header): the file is plain text",
    "latin1.txt": "not UTF-8",
    "mn99_translation-en-sujato.json": "malformed JSON",
}


def test_bad_files_are_skipped_with_reasons_and_the_rest_ingested(settings, messy_corpus, fake_embed):
    report = ingest(settings, messy_corpus, embed_model=fake_embed, progress=False)

    skipped = {path.rsplit("/", 1)[-1]: reason for path, reason in report.skipped}
    assert set(skipped) == set(EXPECTED)
    for name, start in EXPECTED.items():
        assert skipped[name].startswith(start), (name, skipped[name])
        assert "\n" not in skipped[name]
    assert f"{len(EXPECTED)} skipped" in report.summary()
    assert report.files_ingested == 5 + 2  # the five SuttaCentral files, good.txt and notes.md

    indexes = Indexes(settings)
    manifest = {k.rsplit("/", 1)[-1]: e for k, e in indexes.docstore.manifest().items()}
    for name, start in EXPECTED.items():
        assert manifest[name].status == "skipped" and manifest[name].reason.startswith(start)
        assert manifest[name].chunk_ids == []
    assert manifest["good.txt"].status == manifest["notes.md"].status == "ok"
    counts = indexes.docstore.counts()
    assert counts["suttas_by_collection"] == {"AN": 10, "Dhp": 4, "MN": 2, "SN": 1}
    texts = " ".join(c.text for c in indexes.docstore.iter_chunks())
    assert "ten perfections" in texts and "Walking meditation" in texts


def test_skipped_files_are_not_retried_until_they_change(settings, messy_corpus, fake_embed):
    ingest(settings, messy_corpus, embed_model=fake_embed, progress=False)
    again = ingest(settings, messy_corpus, embed_model=fake_embed, progress=False)
    assert again.skipped == [] and again.files_ingested == 0

    fixed = messy_corpus[1] / "latin1.txt"
    fixed.write_text("Now proper UTF-8: Nibbāna is peace.\n", encoding="utf-8")
    third = ingest(settings, messy_corpus, embed_model=fake_embed, progress=False)
    assert third.files_ingested == 1
    manifest = {k.rsplit("/", 1)[-1]: e for k, e in Indexes(settings).docstore.manifest().items()}
    assert manifest["latin1.txt"].status == "ok"


def test_a_reader_crash_is_recorded_not_raised(settings, mini_corpus, fake_embed, monkeypatch):
    from indexing.sources import suttacentral

    real = suttacentral.parse_file

    def crashing(path, tree=None):
        if "mn21" in path.name:
            raise KeyError("boom")
        return real(path, tree)

    monkeypatch.setattr(suttacentral, "parse_file", crashing)
    report = ingest(settings, [mini_corpus], embed_model=fake_embed, progress=False)
    skipped = [(p.rsplit("/", 1)[-1], r) for p, r in report.skipped]
    assert skipped == [("mn21_translation-en-sujato.json", "KeyError: 'boom'")]
    assert report.files_ingested == 4


def test_a_link_out_of_the_corpus_is_not_followed_and_is_reported(settings, tmp_path, fake_embed):
    from tools.library import Library
    from tools.search.retriever import search

    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("root:x:0:0 the zanzibar passphrase lives here\n")
    corpus = tmp_path / "notes"
    corpus.mkdir()
    (corpus / "good.txt").write_text("Generosity is the first of the ten perfections.\n")
    (corpus / "inside-link.txt").symlink_to(corpus / "good.txt")  # a link within the corpus is fine
    (corpus / "passwd.txt").symlink_to(secret)
    settings = settings.model_copy(update={"corpus_paths": [corpus]})
    report = ingest(settings, [corpus], embed_model=fake_embed, progress=False)
    assert [(p, why) for p, why in report.skipped if "outside the corpus" in why] == [
        (str(corpus / "passwd.txt"), f"a link to {secret.resolve()}, outside the corpus: not followed")]
    library = Library.open(settings, embed_model=fake_embed)
    try:
        found = search(library, "zanzibar passphrase", k=5, mode="bm25").passages
        assert not any("zanzibar" in p.text for p in found)
        assert any("Generosity" in p.text for p in search(library, "generosity", k=5, mode="bm25").passages)
    finally:
        Library.forget()


def test_a_failed_ocr_is_reported_with_its_reason_not_document_closed(settings, tmp_path, fake_embed, monkeypatch):
    from indexing.errors import SourceError
    from indexing.sources import pdf

    def tools_missing(source, target):
        raise SourceError(f"scanned PDF but OCR tools are missing ({pdf.APT_HINT})")

    monkeypatch.setattr(pdf, "_run_ocr", tools_missing)
    scans = tmp_path / "scans"
    scans.mkdir()
    blank = pymupdf.open()
    blank.new_page()  # no text layer: a scan as far as the reader can tell
    blank.save(scans / "scan.pdf")
    blank.close()
    report = ingest(settings.model_copy(update={"corpus_paths": [scans]}), [scans], embed_model=fake_embed,
                    progress=False)
    [(path, reason)] = report.skipped
    assert path.endswith("scan.pdf") and "OCR tools are missing (apt-get install" in reason
