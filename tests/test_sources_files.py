"""Readers for ordinary files: Markdown heading paths, FAQ pairs, CSV rows, plain text, PDF pages."""

import pymupdf
import pytest

from indexing.chunking import chunk_document
from indexing.sources.markdown import read_markdown
from indexing.sources.pdf import has_text_layer, read_pdf
from indexing.sources.plaintext import read_text_file
from indexing.sources.router import reader_for
from indexing.sources.tabular import read_table


def _chunks(docs, settings):
    return [c for d in docs for c in chunk_document(d, settings.chunk_target_chars, settings.chunk_max_chars)]


def test_markdown_keeps_heading_path_and_splits_at_sections(tmp_path, settings):
    md = tmp_path / "guide.md"
    md.write_text(
        "# Foundations\n\nAn introduction.\n\n## The Tridosha Model\n\nThree forces.\n\n### Vata\n\n"
        "Vata moves.\n\nIt is dry and light.\n\n```\n# a comment in code, not a heading\n```\n\n## Other\n\nMore.\n"
    )
    docs = read_markdown(md, settings)
    assert docs[0].kind == "markdown" and docs[0].title == "Foundations"
    chunks = _chunks(docs, settings)
    by_heading = {c.heading: c.text for c in chunks}
    assert list(by_heading) == [
        "Foundations", "Foundations > The Tridosha Model", "Foundations > The Tridosha Model > Vata",
        "Foundations > Other",
    ]
    assert "Vata moves." in by_heading["Foundations > The Tridosha Model > Vata"]
    assert "It is dry and light." in by_heading["Foundations > The Tridosha Model > Vata"]
    assert "a comment in code" in by_heading["Foundations > The Tridosha Model > Vata"]
    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert "Foundations > The Tridosha Model > Vata" in chunks[2].embedding_text()


def test_faq_by_filename_with_q_a_lines_gives_one_pair_per_chunk(tmp_path, settings):
    faq = tmp_path / "retreat-FAQ.md"
    faq.write_text("# Retreat FAQ\n\nQ: When does it start?\nA: At dawn.\n\n"
                   "Q: What to bring?\nA: A cushion\nand a shawl.\n")
    docs = read_markdown(faq, settings)
    assert docs[0].kind == "faq"
    texts = [c.text for c in _chunks(docs, settings)]
    assert texts == ["Q: When does it start?\nA: At dawn.", "Q: What to bring?\nA: A cushion and a shawl."]


def test_faq_detected_from_question_headings(tmp_path, settings):
    md = tmp_path / "questions.md"
    md.write_text("# Help\n\n## Basics\n\n### What is dukkha?\n\nSuffering, or unsatisfactoriness.\n\n"
                  "### Who taught the four truths?\n\nThe Buddha, at Isipatana.\n")
    docs = read_markdown(md, settings)
    chunks = _chunks(docs, settings)
    assert docs[0].kind == "faq" and len(chunks) == 2
    assert chunks[0].text.startswith("Q: What is dukkha?\nA: Suffering")
    assert chunks[1].heading == "Help > Basics"


def test_csv_one_chunk_per_row_with_headers(tmp_path, settings):
    csv_file = tmp_path / "places.csv"
    csv_file.write_text('place,region,note\nSavatthi,Kosala,"Jeta\'s Grove, a monastery"\nRajagaha,Magadha,\n')
    chunks = _chunks(read_table(csv_file, settings), settings)
    assert [c.text for c in chunks] == [
        "place: Savatthi; region: Kosala; note: Jeta's Grove, a monastery",
        "place: Rajagaha; region: Magadha",
    ]


def test_plain_text_paragraphs(tmp_path, settings):
    txt = tmp_path / "notes.txt"
    txt.write_text("First paragraph\nwrapped over lines.\n\nSecond paragraph. " + "Long sentence here. " * 120)
    docs = read_text_file(txt, settings)
    chunks = _chunks(docs, settings)
    assert chunks[0].text.startswith("First paragraph wrapped over lines.")
    assert all(len(c.text) <= settings.chunk_max_chars for c in chunks)
    assert docs[0].kind == "text" and len(chunks) >= 3


@pytest.mark.timeout(60)  # linear: ~2 s here; the quadratic cutting it replaced took minutes for 32 MB
def test_a_text_of_one_long_line_is_chunked_in_linear_time(tmp_path, settings):
    txt = tmp_path / "one-line.txt"
    words = "lorem ipsum dolor sit amet " * (32 * 1024 * 1024 // 27)  # 32 MB, not one sentence end in it
    txt.write_text(words)
    chunks = _chunks(read_text_file(txt, settings), settings)
    assert all(len(c.text) <= settings.chunk_max_chars for c in chunks)
    assert " ".join(c.text for c in chunks) == words.strip()


def test_pdf_pages_are_kept_for_citation(tmp_path, settings):
    path = tmp_path / "two-pages.pdf"
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "The first page speaks of generosity and giving.")
    doc.new_page().insert_text((72, 72), "The second page speaks of virtue and restraint.")
    doc.set_metadata({"title": "Two Pages"})
    doc.save(path)
    doc.close()
    with pymupdf.open(path) as opened:
        assert has_text_layer(opened)
    docs = read_pdf(path, settings)
    chunks = _chunks(docs, settings)
    assert docs[0].title == "Two Pages" and docs[0].kind == "pdf"
    pages = [(c.page, "generosity" in c.text, "virtue" in c.text) for c in chunks]
    assert pages == [(1, True, False), (2, False, True)]


def test_router_sends_each_type_to_its_reader(tmp_path):
    names = {"a.pdf": "read_pdf", "b.md": "read_markdown", "c.csv": "read_table", "d.txt": "read_text_file"}
    for name, reader in names.items():
        assert reader_for(tmp_path / name).__name__ == reader
    assert reader_for(tmp_path / "image.png") is None
